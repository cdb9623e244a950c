// QR codes and the images that carry them, through libraries loaded with dlopen on first use (as
// libcurl and libcrypto are), so kcs starts without mapping them: libqrencode 4 (encoding),
// libzbar 0 (decoding: Debian's runtime package libzbar0 has no headers, so its dozen
// functions are declared here), libpng 16 (8-bit grey images in and out, in memory). The zbar
// configuration values are its stable ABI (zbar.h: ZBAR_QRCODE 64, ZBAR_CFG_ENABLE 0,
// ZBAR_CFG_BINARY 4, ZBAR_CFG_TEST_INVERTED 0x81; format 'Y800'). docs/qr.md says why each.
#ifndef KCS_CQR_SHIM_H
#define KCS_CQR_SHIM_H

#include <dlfcn.h>
#include <gif_lib.h>
#include <png.h>
#include <pthread.h>
#include <qrencode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Each library: an API table made once (pthread_once) by PREFIX_load_once, and PREFIX_load giving
// NULL when it is loaded, else the reason.
#define KCS_LIBRARY_STATE(prefix, type) \
    static inline type *prefix##_state(void) { static type api; return &api; } \
    static inline pthread_once_t *prefix##_once(void) { static pthread_once_t once = PTHREAD_ONCE_INIT; return &once; }
#define KCS_LIBRARY_LOAD(prefix) \
    static inline const char *prefix##_load(void) { \
        pthread_once(prefix##_once(), prefix##_load_once); \
        return prefix##_state()->loaded ? NULL : prefix##_state()->error; \
    }

// MARK: libqrencode

typedef struct kcs_qrencode_api {
    QRcode *(*encode_string)(const char *, int, QRecLevel, QRencodeMode, int);
    QRcode *(*encode_data)(int, const unsigned char *, int, QRecLevel);
    void (*free_code)(QRcode *);
    char error[256];
    int loaded;
} kcs_qrencode_api;

KCS_LIBRARY_STATE(kcs_qrencode, kcs_qrencode_api)

static inline void kcs_qrencode_load_once(void) {
    kcs_qrencode_api *a = kcs_qrencode_state();
    void *lib = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(a->error, sizeof a->error, "libqrencode.so.4 could not be loaded (%s)", dlerror()); return; }
    a->encode_string = (QRcode *(*)(const char *, int, QRecLevel, QRencodeMode, int))dlsym(lib, "QRcode_encodeString");
    a->encode_data = (QRcode *(*)(int, const unsigned char *, int, QRecLevel))dlsym(lib, "QRcode_encodeData");
    a->free_code = (void (*)(QRcode *))dlsym(lib, "QRcode_free");
    if (!a->encode_string || !a->encode_data || !a->free_code) {
        snprintf(a->error, sizeof a->error, "libqrencode.so.4 lacks QRcode_encodeString/encodeData/free");
        return;
    }
    a->loaded = 1;
}

KCS_LIBRARY_LOAD(kcs_qrencode)

/// Encodes `data` at error-correction `level` (0 L … 3 H) and at least `version` (0: the smallest).
/// `text` non-zero: `data` holds no zero byte and libqrencode picks numeric/alphanumeric/byte segments
/// itself (an upper-case UR becomes alphanumeric); else one byte segment. On success `*modules`
/// (free with kcs_free) holds width×width bytes, 1 for a dark module; returns the version, or 0
/// when the data does not fit (or libqrencode is missing).
static inline int kcs_qr_encode(const unsigned char *data, int length, int level, int version, int text,
                                int *width, unsigned char **modules) {
    if (kcs_qrencode_load()) return 0;
    kcs_qrencode_api *a = kcs_qrencode_state();
    QRcode *code;
    if (text) {
        char *s = malloc((size_t)length + 1);
        if (!s) return 0;
        memcpy(s, data, (size_t)length);
        s[length] = 0;
        code = a->encode_string(s, version, (QRecLevel)level, QR_MODE_8, 1);
        free(s);
    } else {
        code = a->encode_data(length, data, version, (QRecLevel)level);
    }
    if (!code) return 0;
    int w = code->width, v = code->version;
    unsigned char *out = malloc((size_t)w * (size_t)w);
    if (!out) { a->free_code(code); return 0; }
    for (int i = 0; i < w * w; i++) out[i] = code->data[i] & 1;
    a->free_code(code);
    *width = w;
    *modules = out;
    return v;
}

// MARK: libzbar

typedef struct kcs_zbar_api {
    void *(*scanner_create)(void);
    void (*scanner_destroy)(void *);
    int (*set_config)(void *, int, int, int);
    void *(*image_create)(void);
    void (*image_destroy)(void *);
    void (*image_set_format)(void *, unsigned long);
    void (*image_set_size)(void *, unsigned, unsigned);
    void (*image_set_data)(void *, const void *, unsigned long, void *);
    int (*scan_image)(void *, void *);
    const void *(*first_symbol)(const void *);
    const void *(*symbol_next)(const void *);
    const char *(*symbol_data)(const void *);
    unsigned int (*symbol_length)(const void *);
    int (*symbol_type)(const void *);
    void *(*processor_create)(int);
    void (*processor_destroy)(void *);
    int (*processor_init)(void *, const char *, int);
    int (*processor_set_config)(void *, int, int, int);
    int (*processor_set_active)(void *, int);
    int (*process_one)(void *, int);
    const void *(*processor_results)(const void *);
    const void *(*set_first_symbol)(const void *);
    char error[256];
    int loaded;
} kcs_zbar_api;

KCS_LIBRARY_STATE(kcs_zbar, kcs_zbar_api)

static inline void kcs_zbar_load_once(void) {
    kcs_zbar_api *a = kcs_zbar_state();
    void *lib = dlopen("libzbar.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(a->error, sizeof a->error, "libzbar.so.0 could not be loaded (%s); apt-get install libzbar0", dlerror()); return; }
#define KCS_ZBAR(field, name) a->field = (__typeof__(a->field))dlsym(lib, name); if (!a->field) { snprintf(a->error, sizeof a->error, "libzbar.so.0 lacks %s", name); return; }
    KCS_ZBAR(scanner_create, "zbar_image_scanner_create")
    KCS_ZBAR(scanner_destroy, "zbar_image_scanner_destroy")
    KCS_ZBAR(set_config, "zbar_image_scanner_set_config")
    KCS_ZBAR(image_create, "zbar_image_create")
    KCS_ZBAR(image_destroy, "zbar_image_destroy")
    KCS_ZBAR(image_set_format, "zbar_image_set_format")
    KCS_ZBAR(image_set_size, "zbar_image_set_size")
    KCS_ZBAR(image_set_data, "zbar_image_set_data")
    KCS_ZBAR(scan_image, "zbar_scan_image")
    KCS_ZBAR(first_symbol, "zbar_image_first_symbol")
    KCS_ZBAR(symbol_next, "zbar_symbol_next")
    KCS_ZBAR(symbol_data, "zbar_symbol_get_data")
    KCS_ZBAR(symbol_length, "zbar_symbol_get_data_length")
    KCS_ZBAR(symbol_type, "zbar_symbol_get_type")
    KCS_ZBAR(processor_create, "zbar_processor_create")
    KCS_ZBAR(processor_destroy, "zbar_processor_destroy")
    KCS_ZBAR(processor_init, "zbar_processor_init")
    KCS_ZBAR(processor_set_config, "zbar_processor_set_config")
    KCS_ZBAR(processor_set_active, "zbar_processor_set_active")
    KCS_ZBAR(process_one, "zbar_process_one")
    KCS_ZBAR(processor_results, "zbar_processor_get_results")
    KCS_ZBAR(set_first_symbol, "zbar_symbol_set_first_symbol")
#undef KCS_ZBAR
    a->loaded = 1;
}

KCS_LIBRARY_LOAD(kcs_zbar)

/// The QR codes among the symbols from `first` on, packed: each a 4-byte big-endian length
/// then its bytes (free with kcs_free); `*count` codes, `*length` bytes.
static inline unsigned char *kcs_zbar_pack(kcs_zbar_api *a, const void *first, int *count, size_t *length) {
    size_t total = 0;
    int n = 0;
    for (const void *s = first; s; s = a->symbol_next(s)) {
        if (a->symbol_type(s) != 64) continue;
        total += 4 + a->symbol_length(s);
        n++;
    }
    unsigned char *buffer = malloc(total ? total : 1), *p = buffer;
    if (!buffer) { *count = 0; *length = 0; return NULL; }
    for (const void *s = first; s; s = a->symbol_next(s)) {
        if (a->symbol_type(s) != 64) continue;
        unsigned int len = a->symbol_length(s);
        p[0] = (unsigned char)(len >> 24); p[1] = (unsigned char)(len >> 16); p[2] = (unsigned char)(len >> 8); p[3] = (unsigned char)len;
        memcpy(p + 4, a->symbol_data(s), len);
        p += 4 + len;
    }
    *count = n;
    *length = total;
    return buffer;
}

/// Finds the QR codes in a `width`×`height` 8-bit grey image (binary mode: the bytes as encoded;
/// `inverted` non-zero also tries light-on-dark). `*out` (free with kcs_free) gets each code's
/// data as a 4-byte big-endian length then the bytes; returns the number of codes, or -1 when
/// libzbar is missing.
static inline int kcs_zbar_scan(const unsigned char *gray, int width, int height, int inverted,
                                unsigned char **out, size_t *out_length) {
    if (kcs_zbar_load()) return -1;
    kcs_zbar_api *a = kcs_zbar_state();
    void *scanner = a->scanner_create();
    a->set_config(scanner, 0, 0, 0);        // every symbology off …
    a->set_config(scanner, 64, 0, 1);       // … but QR codes
    a->set_config(scanner, 64, 4, 1);       // ZBAR_CFG_BINARY: no text conversion
    if (inverted) a->set_config(scanner, 0, 0x81, 1);  // ZBAR_CFG_TEST_INVERTED
    void *image = a->image_create();
    a->image_set_format(image, 0x30303859UL);  // 'Y800'
    a->image_set_size(image, (unsigned)width, (unsigned)height);
    a->image_set_data(image, gray, (unsigned long)width * (unsigned long)height, NULL);
    int n = a->scan_image(scanner, image), count = 0;
    *out = kcs_zbar_pack(a, n > 0 ? a->first_symbol(image) : NULL, &count, out_length);
    a->image_destroy(image);
    a->scanner_destroy(scanner);
    return count;
}

/// Opens a V4L2 camera for QR codes (zbar's processor, no window, binary mode); NULL with the
/// reason in `error` when it cannot.
static inline void *kcs_zbar_camera_open(const char *device, char *error, size_t error_size) {
    const char *why = kcs_zbar_load();
    if (why) { snprintf(error, error_size, "%s", why); return NULL; }
    kcs_zbar_api *a = kcs_zbar_state();
    void *p = a->processor_create(0);
    if (!p) { snprintf(error, error_size, "zbar could not start"); return NULL; }
    a->processor_set_config(p, 0, 0, 0);
    a->processor_set_config(p, 64, 0, 1);
    a->processor_set_config(p, 64, 4, 1);
    if (a->processor_init(p, device, 0) != 0 || a->processor_set_active(p, 1) != 0) {
        snprintf(error, error_size, "the camera %s could not be opened", device);
        a->processor_destroy(p);
        return NULL;
    }
    return p;
}

/// Waits up to `timeout_ms` for the next frame with QR codes; as kcs_zbar_scan for `*out`;
/// returns the number of codes (0 on a timeout), -1 on a camera error.
static inline int kcs_zbar_camera_next(void *p, int timeout_ms, unsigned char **out, size_t *out_length) {
    kcs_zbar_api *a = kcs_zbar_state();
    *out = NULL;
    *out_length = 0;
    int n = a->process_one(p, timeout_ms);
    if (n < 0) return -1;
    if (n == 0) return 0;
    const void *set = a->processor_results(p);
    int count = 0;
    *out = kcs_zbar_pack(a, set ? a->set_first_symbol(set) : NULL, &count, out_length);
    return count;
}

static inline void kcs_zbar_camera_close(void *p) {
    if (p) { kcs_zbar_state()->processor_set_active(p, 0); kcs_zbar_state()->processor_destroy(p); }
}

// MARK: libpng

typedef struct kcs_png_api {
    int (*begin_read_memory)(png_imagep, png_const_voidp, size_t);
    int (*finish_read)(png_imagep, png_const_colorp, void *, png_int_32, void *);
    void (*image_free)(png_imagep);
    int (*write_memory)(png_imagep, void *, png_alloc_size_t *, int, const void *, png_int_32, const void *);
    char error[256];
    int loaded;
} kcs_png_api;

KCS_LIBRARY_STATE(kcs_png, kcs_png_api)

static inline void kcs_png_load_once(void) {
    kcs_png_api *a = kcs_png_state();
    void *lib = dlopen("libpng16.so.16", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(a->error, sizeof a->error, "libpng16.so.16 could not be loaded (%s)", dlerror()); return; }
    a->begin_read_memory = (int (*)(png_imagep, png_const_voidp, size_t))dlsym(lib, "png_image_begin_read_from_memory");
    a->finish_read = (int (*)(png_imagep, png_const_colorp, void *, png_int_32, void *))dlsym(lib, "png_image_finish_read");
    a->image_free = (void (*)(png_imagep))dlsym(lib, "png_image_free");
    a->write_memory = (int (*)(png_imagep, void *, png_alloc_size_t *, int, const void *, png_int_32, const void *))dlsym(lib, "png_image_write_to_memory");
    if (!a->begin_read_memory || !a->finish_read || !a->image_free || !a->write_memory) {
        snprintf(a->error, sizeof a->error, "libpng16.so.16 lacks the simplified png_image API");
        return;
    }
    a->loaded = 1;
}

KCS_LIBRARY_LOAD(kcs_png)

/// Reads a PNG held in memory as 8-bit grey, refusing more than `max_pixels` before allocating.
/// Returns 0 and sets `*gray` (free with kcs_free), `*width`, `*height`; else writes the reason
/// into `error` and returns -1.
static inline int kcs_png_read_gray(const unsigned char *bytes, size_t length, size_t max_pixels,
                                    unsigned char **gray, int *width, int *height, char *error, size_t error_size) {
    const char *why = kcs_png_load();
    if (why) { snprintf(error, error_size, "%s", why); return -1; }
    kcs_png_api *a = kcs_png_state();
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!a->begin_read_memory(&image, bytes, length)) {
        snprintf(error, error_size, "not a PNG image (%s)", image.message);
        a->image_free(&image);
        return -1;
    }
    if ((size_t)image.width * (size_t)image.height > max_pixels) {
        snprintf(error, error_size, "the image is %ux%u pixels, more than %zu", image.width, image.height, max_pixels);
        a->image_free(&image);
        return -1;
    }
    image.format = PNG_FORMAT_GRAY;
    unsigned char *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (!buffer) { snprintf(error, error_size, "out of memory"); a->image_free(&image); return -1; }
    if (!a->finish_read(&image, NULL, buffer, 0, NULL)) {
        snprintf(error, error_size, "a damaged PNG image (%s)", image.message);
        free(buffer);
        a->image_free(&image);
        return -1;
    }
    *gray = buffer;
    *width = (int)image.width;
    *height = (int)image.height;
    return 0;
}

/// Encodes a `width`×`height` 8-bit grey image as PNG. Returns 0 and sets `*png` (free with
/// kcs_free) and `*png_length`, or -1 with the reason in `error`.
static inline int kcs_png_write_gray(const unsigned char *gray, int width, int height, unsigned char **png,
                                     size_t *png_length, char *error, size_t error_size) {
    const char *why = kcs_png_load();
    if (why) { snprintf(error, error_size, "%s", why); return -1; }
    kcs_png_api *a = kcs_png_state();
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = PNG_FORMAT_GRAY;
    png_alloc_size_t size = 0;
    if (!a->write_memory(&image, NULL, &size, 0, gray, 0, NULL)) {
        snprintf(error, error_size, "PNG encoding failed (%s)", image.message);
        return -1;
    }
    unsigned char *buffer = malloc(size);
    if (!buffer) { snprintf(error, error_size, "out of memory"); return -1; }
    if (!a->write_memory(&image, buffer, &size, 0, gray, 0, NULL)) {
        snprintf(error, error_size, "PNG encoding failed (%s)", image.message);
        free(buffer);
        return -1;
    }
    *png = buffer;
    *png_length = size;
    return 0;
}

// MARK: libturbojpeg (JPEG in, as 8-bit grey; the TurboJPEG API, declared here: runtime package
// libturbojpeg0 only. TJPF_GRAY is 6 in turbojpeg.h.)

typedef struct kcs_jpeg_api {
    void *(*init_decompress)(void);
    int (*header)(void *, const unsigned char *, unsigned long, int *, int *, int *, int *);
    int (*decompress)(void *, const unsigned char *, unsigned long, unsigned char *, int, int, int, int, int);
    int (*destroy)(void *);
    char *(*error_string)(void *);
    char error[256];
    int loaded;
} kcs_jpeg_api;

KCS_LIBRARY_STATE(kcs_jpeg, kcs_jpeg_api)

static inline void kcs_jpeg_load_once(void) {
    kcs_jpeg_api *a = kcs_jpeg_state();
    void *lib = dlopen("libturbojpeg.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(a->error, sizeof a->error, "libturbojpeg.so.0 could not be loaded (%s); apt-get install libturbojpeg0", dlerror()); return; }
    a->init_decompress = (__typeof__(a->init_decompress))dlsym(lib, "tjInitDecompress");
    a->header = (__typeof__(a->header))dlsym(lib, "tjDecompressHeader3");
    a->decompress = (__typeof__(a->decompress))dlsym(lib, "tjDecompress2");
    a->destroy = (__typeof__(a->destroy))dlsym(lib, "tjDestroy");
    a->error_string = (__typeof__(a->error_string))dlsym(lib, "tjGetErrorStr2");
    if (!a->init_decompress || !a->header || !a->decompress || !a->destroy || !a->error_string) {
        snprintf(a->error, sizeof a->error, "libturbojpeg.so.0 lacks the TurboJPEG decompression API");
        return;
    }
    a->loaded = 1;
}

KCS_LIBRARY_LOAD(kcs_jpeg)

/// Reads a JPEG held in memory as 8-bit grey, refusing more than `max_pixels` before allocating;
/// as kcs_png_read_gray.
static inline int kcs_jpeg_read_gray(const unsigned char *bytes, size_t length, size_t max_pixels,
                                     unsigned char **gray, int *width, int *height, char *error, size_t error_size) {
    const char *why = kcs_jpeg_load();
    if (why) { snprintf(error, error_size, "%s", why); return -1; }
    kcs_jpeg_api *a = kcs_jpeg_state();
    void *handle = a->init_decompress();
    if (!handle) { snprintf(error, error_size, "libturbojpeg could not start"); return -1; }
    int w = 0, h = 0, subsampling = 0, colorspace = 0;
    if (a->header(handle, bytes, (unsigned long)length, &w, &h, &subsampling, &colorspace) != 0) {
        snprintf(error, error_size, "not a JPEG image (%s)", a->error_string(handle));
        a->destroy(handle);
        return -1;
    }
    if (w <= 0 || h <= 0 || (size_t)w * (size_t)h > max_pixels) {
        snprintf(error, error_size, "the image is %dx%d pixels, more than %zu", w, h, max_pixels);
        a->destroy(handle);
        return -1;
    }
    unsigned char *buffer = malloc((size_t)w * (size_t)h);
    if (!buffer) { snprintf(error, error_size, "out of memory"); a->destroy(handle); return -1; }
    if (a->decompress(handle, bytes, (unsigned long)length, buffer, w, 0, h, 6, 0) != 0) {
        snprintf(error, error_size, "a damaged JPEG image (%s)", a->error_string(handle));
        free(buffer);
        a->destroy(handle);
        return -1;
    }
    a->destroy(handle);
    *gray = buffer;
    *width = w;
    *height = h;
    return 0;
}

// MARK: giflib (every frame of an animated GIF, as 8-bit grey; the header from libgif-dev, the
// library libgif.so.7 loaded with dlopen)

typedef struct kcs_gif_api {
    GifFileType *(*open)(void *, InputFunc, int *);
    int (*record_type)(GifFileType *, GifRecordType *);
    int (*image_desc)(GifFileType *);
    int (*line)(GifFileType *, GifPixelType *, int);
    int (*extension)(GifFileType *, int *, GifByteType **);
    int (*extension_next)(GifFileType *, GifByteType **);
    int (*close)(GifFileType *, int *);
    int (*gcb)(GifFileType *, int, GraphicsControlBlock *);
    const char *(*error_string)(int);
    GifFileType *(*open_write)(void *, OutputFunc, int *);
    int (*spew)(GifFileType *);
    void (*set_version)(GifFileType *, const bool);
    ColorMapObject *(*make_map)(int, const GifColorType *);
    SavedImage *(*make_image)(GifFileType *, const SavedImage *);
    int (*gcb_to_extension)(const GraphicsControlBlock *, GifFileType *, int);
    int (*add_extension)(int *, ExtensionBlock **, int, unsigned int, unsigned char *);
    char error[256];
    int loaded;
} kcs_gif_api;

KCS_LIBRARY_STATE(kcs_gif, kcs_gif_api)

static inline void kcs_gif_load_once(void) {
    kcs_gif_api *a = kcs_gif_state();
    void *lib = dlopen("libgif.so.7", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(a->error, sizeof a->error, "libgif.so.7 could not be loaded (%s); apt-get install libgif7", dlerror()); return; }
    a->open = (__typeof__(a->open))dlsym(lib, "DGifOpen");
    a->record_type = (__typeof__(a->record_type))dlsym(lib, "DGifGetRecordType");
    a->image_desc = (__typeof__(a->image_desc))dlsym(lib, "DGifGetImageDesc");
    a->line = (__typeof__(a->line))dlsym(lib, "DGifGetLine");
    a->extension = (__typeof__(a->extension))dlsym(lib, "DGifGetExtension");
    a->extension_next = (__typeof__(a->extension_next))dlsym(lib, "DGifGetExtensionNext");
    a->close = (__typeof__(a->close))dlsym(lib, "DGifCloseFile");
    a->gcb = (__typeof__(a->gcb))dlsym(lib, "DGifSavedExtensionToGCB");
    a->error_string = (__typeof__(a->error_string))dlsym(lib, "GifErrorString");
    a->open_write = (__typeof__(a->open_write))dlsym(lib, "EGifOpen");
    a->spew = (__typeof__(a->spew))dlsym(lib, "EGifSpew");
    a->set_version = (__typeof__(a->set_version))dlsym(lib, "EGifSetGifVersion");
    a->make_map = (__typeof__(a->make_map))dlsym(lib, "GifMakeMapObject");
    a->make_image = (__typeof__(a->make_image))dlsym(lib, "GifMakeSavedImage");
    a->gcb_to_extension = (__typeof__(a->gcb_to_extension))dlsym(lib, "EGifGCBToSavedExtension");
    a->add_extension = (__typeof__(a->add_extension))dlsym(lib, "GifAddExtensionBlock");
    if (!a->open || !a->record_type || !a->image_desc || !a->line || !a->extension || !a->extension_next || !a->close || !a->gcb || !a->error_string || !a->open_write || !a->spew || !a->set_version
        || !a->make_map || !a->make_image || !a->gcb_to_extension || !a->add_extension) {
        snprintf(a->error, sizeof a->error, "libgif.so.7 lacks the DGif record API");
        return;
    }
    a->loaded = 1;
}

KCS_LIBRARY_LOAD(kcs_gif)

typedef struct kcs_gif_input { const unsigned char *bytes; size_t length, offset; } kcs_gif_input;

static inline int kcs_gif_read(GifFileType *gif, GifByteType *out, int n) {
    kcs_gif_input *in = (kcs_gif_input *)gif->UserData;
    size_t left = in->length - in->offset, take = n < 0 ? 0 : ((size_t)n < left ? (size_t)n : left);
    memcpy(out, in->bytes + in->offset, take);
    in->offset += take;
    return (int)take;
}

/// The most frames a GIF may have here (an animated UR of a few hundred parts needs far fewer).
#define KCS_GIF_MAX_FRAMES 4096

/// Every frame of a GIF held in memory, composed on its canvas (a frame's transparent pixels
/// keep the previous frame's) and converted to grey: `*frames` (free with kcs_free) holds
/// `*count` images of `*width`×`*height`. Read record by record, never slurped whole: each
/// frame's size is checked against the canvas before its pixels are decoded, and the composed
/// frames together may hold at most `max_total` pixels (a canvas at most `max_pixels`), so a
/// small file of huge or countless frames costs an error, not gigabytes (docs/qr.md, "Bounds").
/// Returns 0, or -1 with the reason in `error`.
static inline int kcs_gif_read_gray(const unsigned char *bytes, size_t length, size_t max_pixels, size_t max_total,
                                    unsigned char **frames, int *width, int *height, int *count, char *error, size_t error_size) {
    const char *why = kcs_gif_load();
    if (why) { snprintf(error, error_size, "%s", why); return -1; }
    kcs_gif_api *a = kcs_gif_state();
    kcs_gif_input in = { bytes, length, 0 };
    int code = 0;
    GifFileType *gif = a->open(&in, kcs_gif_read, &code);
    if (!gif) { snprintf(error, error_size, "not a GIF image (%s)", a->error_string(code)); return -1; }
    size_t w = (size_t)gif->SWidth, h = (size_t)gif->SHeight;
    if (w == 0 || h == 0 || w * h > max_pixels) {
        snprintf(error, error_size, "the GIF's canvas is %zux%zu pixels, more than %zu", w, h, max_pixels);
        a->close(gif, &code);
        return -1;
    }
    unsigned char *out = NULL, *row = malloc(w);
    size_t n = 0;
    int transparent = NO_TRANSPARENT_COLOR, failed = 0;
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    if (!row) { snprintf(error, error_size, "out of memory"); a->close(gif, &code); return -1; }
    while (!failed && record != TERMINATE_RECORD_TYPE) {
        if (a->record_type(gif, &record) != GIF_OK) {
            snprintf(error, error_size, "a damaged GIF image (%s)", a->error_string(gif->Error));
            failed = 1;
            break;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            int ext = 0;
            GifByteType *block = NULL;
            if (a->extension(gif, &ext, &block) != GIF_OK) { snprintf(error, error_size, "a damaged GIF extension"); failed = 1; break; }
            // A graphic control block: packed flags, delay (2 bytes), transparent index.
            if (ext == GRAPHICS_EXT_FUNC_CODE && block && block[0] >= 4) transparent = (block[1] & 1) ? block[4] : NO_TRANSPARENT_COLOR;
            while (block) {
                if (a->extension_next(gif, &block) != GIF_OK) { snprintf(error, error_size, "a damaged GIF extension"); failed = 1; break; }
            }
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            if (a->image_desc(gif) != GIF_OK) { snprintf(error, error_size, "a damaged GIF frame (%s)", a->error_string(gif->Error)); failed = 1; break; }
            GifImageDesc d = gif->Image;
            if (d.Width <= 0 || d.Height <= 0 || (size_t)d.Width > w || (size_t)d.Height > h) {
                snprintf(error, error_size, "GIF frame %zu is %dx%d pixels, larger than its %zux%zu canvas", n + 1, d.Width, d.Height, w, h);
                failed = 1;
                break;
            }
            if (n + 1 > KCS_GIF_MAX_FRAMES || (n + 1) * w * h > max_total) {
                snprintf(error, error_size, "the GIF has more than %zu frames of %zux%zu pixels, more than the %zu pixels kcs reads",
                         n, w, h, max_total);
                failed = 1;
                break;
            }
            unsigned char *grown = realloc(out, (n + 1) * w * h);
            if (!grown) { snprintf(error, error_size, "out of memory"); failed = 1; break; }
            out = grown;
            unsigned char *canvas = out + n * w * h;
            if (n == 0) memset(canvas, 255, w * h); else memcpy(canvas, canvas - w * h, w * h);
            ColorMapObject *map = d.ColorMap ? d.ColorMap : gif->SColorMap;
            // Interlaced frames store rows in four passes (GIF89a, appendix E).
            static const int offsets[] = { 0, 4, 2, 1 }, steps[] = { 8, 8, 4, 2 };
            int passes = d.Interlace ? 4 : 1;
            for (int pass = 0; pass < passes && !failed; pass++) {
                for (int y = d.Interlace ? offsets[pass] : 0; y < d.Height; y += d.Interlace ? steps[pass] : 1) {
                    if (a->line(gif, row, d.Width) != GIF_OK) {
                        snprintf(error, error_size, "a damaged GIF frame (%s)", a->error_string(gif->Error));
                        failed = 1;
                        break;
                    }
                    int py = d.Top + y;
                    if (py < 0 || (size_t)py >= h || !map) continue;
                    for (int x = 0; x < d.Width; x++) {
                        int px = d.Left + x, index = row[x];
                        if (px < 0 || (size_t)px >= w || index == transparent || index >= map->ColorCount) continue;
                        GifColorType c = map->Colors[index];
                        canvas[(size_t)py * w + (size_t)px] = (unsigned char)((c.Red * 299 + c.Green * 587 + c.Blue * 114) / 1000);
                    }
                }
            }
            transparent = NO_TRANSPARENT_COLOR;
            n++;
        }
    }
    free(row);
    a->close(gif, &code);
    if (!failed && n == 0) { snprintf(error, error_size, "the GIF has no frames"); failed = 1; }
    if (failed) { free(out); return -1; }
    *frames = out;
    *width = (int)w;
    *height = (int)h;
    *count = (int)n;
    return 0;
}

typedef struct kcs_gif_output { unsigned char *bytes; size_t length, capacity; int failed; } kcs_gif_output;

static inline int kcs_gif_write_bytes(GifFileType *gif, const GifByteType *bytes, int n) {
    kcs_gif_output *out = (kcs_gif_output *)gif->UserData;
    if (n <= 0) return 0;
    if (out->length + (size_t)n > out->capacity) {
        size_t capacity = (out->capacity + (size_t)n) * 2;
        unsigned char *grown = realloc(out->bytes, capacity);
        if (!grown) { out->failed = 1; return 0; }
        out->bytes = grown;
        out->capacity = capacity;
    }
    memcpy(out->bytes + out->length, bytes, (size_t)n);
    out->length += (size_t)n;
    return n;
}

/// An animated GIF of `count` black-and-white frames (`width`×`height`, 0 black, else white),
/// `delay` hundredths of a second each, looping. Returns 0 and sets `*gif` (free with kcs_free)
/// and `*length`, or -1 with the reason in `error`.
static inline int kcs_gif_write_frames(const unsigned char *frames, int width, int height, int count, int delay,
                                       unsigned char **gif_bytes, size_t *length, char *error, size_t error_size) {
    const char *why = kcs_gif_load();
    if (why) { snprintf(error, error_size, "%s", why); return -1; }
    kcs_gif_api *a = kcs_gif_state();
    kcs_gif_output out = { NULL, 0, 0, 0 };
    int code = 0;
    GifFileType *gif = a->open_write(&out, kcs_gif_write_bytes, &code);
    if (!gif) { snprintf(error, error_size, "GIF encoding failed (%s)", a->error_string(code)); return -1; }
    GifColorType colors[2] = { { 0, 0, 0 }, { 255, 255, 255 } };
    gif->SWidth = width;
    gif->SHeight = height;
    gif->SColorResolution = 1;
    gif->SBackGroundColor = 1;
    gif->SColorMap = a->make_map(2, colors);
    unsigned char loop[3] = { 1, 0, 0 }; // NETSCAPE2.0: loop for ever (an extension before the first frame)
    for (int i = 0; i < count; i++) {
        SavedImage *image = a->make_image(gif, NULL);
        if (!image) { snprintf(error, error_size, "out of memory"); a->spew(gif); free(out.bytes); return -1; }
        image->ImageDesc.Left = 0;
        image->ImageDesc.Top = 0;
        image->ImageDesc.Width = width;
        image->ImageDesc.Height = height;
        image->ImageDesc.Interlace = false;
        image->ImageDesc.ColorMap = NULL;
        image->RasterBits = malloc((size_t)width * (size_t)height);
        if (!image->RasterBits) { snprintf(error, error_size, "out of memory"); a->spew(gif); free(out.bytes); return -1; }
        const unsigned char *frame = frames + (size_t)i * (size_t)width * (size_t)height;
        for (size_t p = 0; p < (size_t)width * (size_t)height; p++) image->RasterBits[p] = frame[p] ? 1 : 0;
        if (i == 0) {
            a->add_extension(&image->ExtensionBlockCount, &image->ExtensionBlocks, APPLICATION_EXT_FUNC_CODE, 11,
                             (unsigned char *)"NETSCAPE2.0");
            a->add_extension(&image->ExtensionBlockCount, &image->ExtensionBlocks, CONTINUE_EXT_FUNC_CODE, 3, loop);
        }
        GraphicsControlBlock control = { DISPOSE_DO_NOT, false, delay, NO_TRANSPARENT_COLOR };
        a->gcb_to_extension(&control, gif, i);
    }
    a->set_version(gif, true);
    if (a->spew(gif) != GIF_OK || out.failed) {
        snprintf(error, error_size, "GIF encoding failed");
        free(out.bytes);
        return -1;
    }
    *gif_bytes = out.bytes;
    *length = out.length;
    return 0;
}

static inline void kcs_free(void *p) { free(p); }

#endif
