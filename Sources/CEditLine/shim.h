// libedit's native API (histedit.h), loaded with dlopen when the console first reads a line at a
// terminal rather than linked (as libcurl, libcrypto and the QR libraries are): a script, `-e` or
// piped run starts without mapping libedit and the three libraries it pulls in (libtinfo, libbsd,
// libmd). The header gives the types; every call goes through the table below. Variadic el_set,
// el_get and history(3) get fixed-arity wrappers (Swift cannot call variadic C).
#ifndef KCS_CEDITLINE_SHIM_H
#define KCS_CEDITLINE_SHIM_H

#include <dlfcn.h>
#include <errno.h>
#include <histedit.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

typedef struct kcs_editline_api {
    EditLine *(*el_init)(const char *, FILE *, FILE *, FILE *);
    void (*el_end)(EditLine *);
    void (*el_reset)(EditLine *);
    const char *(*el_gets)(EditLine *, int *);
    int (*el_set)(EditLine *, int, ...);
    int (*el_get)(EditLine *, int, ...);
    const LineInfo *(*el_line)(EditLine *);
    int (*el_insertstr)(EditLine *, const char *);
    void (*el_deletestr)(EditLine *, int);
    History *(*history_init)(void);
    void (*history_end)(History *);
    int (*history)(History *, HistEvent *, int, ...);
    int loaded;
} kcs_editline_api;

static inline kcs_editline_api *kcs_editline_state(void) { static kcs_editline_api api; return &api; }
static inline pthread_once_t *kcs_editline_once(void) { static pthread_once_t once = PTHREAD_ONCE_INIT; return &once; }

static inline void kcs_editline_load_once(void) {
    kcs_editline_api *a = kcs_editline_state();
    void *lib = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
#define KCS_EDITLINE(name) a->name = (__typeof__(a->name))dlsym(lib, #name); if (!a->name) return;
    KCS_EDITLINE(el_init) KCS_EDITLINE(el_end) KCS_EDITLINE(el_reset) KCS_EDITLINE(el_gets)
    KCS_EDITLINE(el_set) KCS_EDITLINE(el_get) KCS_EDITLINE(el_line) KCS_EDITLINE(el_insertstr)
    KCS_EDITLINE(el_deletestr) KCS_EDITLINE(history_init) KCS_EDITLINE(history_end) KCS_EDITLINE(history)
#undef KCS_EDITLINE
    a->loaded = 1;
}

/// The loaded API, or NULL when libedit.so.2 cannot be loaded (the console then reads plain lines).
static inline const kcs_editline_api *kcs_editline(void) {
    pthread_once(kcs_editline_once(), kcs_editline_load_once);
    return kcs_editline_state()->loaded ? kcs_editline_state() : NULL;
}

// The calls below are made only with an EditLine or History that kcs_el_init_stdio or
// kcs_history_init returned, so the library is loaded by then.
#define KCS_EL (kcs_editline_state())

// el_init on the process's standard streams (Swift 6 refuses to touch the stdio globals); NULL
// when libedit is not there. libedit decodes what is typed, and encodes the line it returns,
// with the C library's multibyte functions, which follow LC_CTYPE: in the "C" locale a process
// starts in, every non-ASCII character typed at the prompt was dropped. kcs reads and writes
// UTF-8 whatever the locale, so the prompt takes the user's character type when it is UTF-8,
// else C.UTF-8 (built into glibc).
static inline EditLine *kcs_el_init_stdio(const char *program) {
    const kcs_editline_api *a = kcs_editline();
    if (!a) return NULL;
    const char *type = setlocale(LC_CTYPE, "");
    if (!type || strcmp(nl_langinfo(CODESET), "UTF-8") != 0) setlocale(LC_CTYPE, "C.UTF-8");
    return a->el_init(program, stdin, stdout, stderr);
}
static inline History *kcs_history_init(void) {
    const kcs_editline_api *a = kcs_editline();
    return a ? a->history_init() : NULL;
}
static inline void kcs_el_end(EditLine *el) { KCS_EL->el_end(el); }
static inline void kcs_el_reset(EditLine *el) { KCS_EL->el_reset(el); }
static inline const char *kcs_el_gets(EditLine *el, int *count) { return KCS_EL->el_gets(el, count); }
static inline const LineInfo *kcs_el_line(EditLine *el) { return KCS_EL->el_line(el); }
static inline int kcs_el_insertstr(EditLine *el, const char *text) { return KCS_EL->el_insertstr(el, text); }
static inline void kcs_el_deletestr(EditLine *el, int count) { KCS_EL->el_deletestr(el, count); }
static inline void kcs_history_end(History *h) { KCS_EL->history_end(h); }

// Fixed-arity wrappers for libedit's variadic history(3) calls.
static inline int kcs_history_enter(History *h, HistEvent *ev, const char *line) {
    return KCS_EL->history(h, ev, H_ENTER, line);
}
static inline int kcs_history_count(History *h, HistEvent *ev) {
    return KCS_EL->history(h, ev, H_GETSIZE) < 0 ? -1 : ev->num;
}
static inline int kcs_history_setsize(History *h, HistEvent *ev, int size) {
    return KCS_EL->history(h, ev, H_SETSIZE, size);
}
static inline int kcs_history_load(History *h, HistEvent *ev, const char *file) {
    return KCS_EL->history(h, ev, H_LOAD, file);
}
static inline int kcs_history_save(History *h, HistEvent *ev, const char *file) {
    return KCS_EL->history(h, ev, H_SAVE, file);
}

// Fixed-arity wrappers for el_set/el_get. What the Swift side needs inside libedit's callbacks
// (the prompt text, the reader object) is reached through EL_CLIENTDATA, so no global state
// lives here.
typedef struct {
    const char *prompt;
    void *owner;
    /// Waits until the descriptor has input: 1, or 0 once Ctrl-C was pressed (the console's
    /// `Interrupt.waitForInput`; the flag is left for the reader to take after el_gets).
    int (*wait_for_input)(int);
} kcs_el_client;

static inline kcs_el_client *kcs_el_client_data(EditLine *el) {
    void *data = NULL;
    KCS_EL->el_get(el, EL_CLIENTDATA, &data);
    return (kcs_el_client *)data;
}
static inline char *kcs_el_prompt_function(EditLine *el) {
    kcs_el_client *client = kcs_el_client_data(el);
    return client && client->prompt ? (char *)client->prompt : "";
}

// libedit's reading of a character, with Ctrl-C that can never be lost. libedit's own reader
// blocks in read(2) and counts on the signal interrupting it; a Ctrl-C that lands after the
// prompt is drawn but before read(2) starts (kcs preempted by the terminal it just woke, say)
// interrupts nothing, and the prompt waits for a key. This one first waits through the client's
// `wait_for_input`, which watches for Ctrl-C while it waits; a Ctrl-C returns -1 with EINTR, as
// libedit's reader does when the signal interrupts its read. The bytes are decoded as libedit's
// reader does (mbrtowc; an invalid sequence keeps its last byte, an invalid byte is dropped).
static inline int kcs_el_read_char(EditLine *el, wchar_t *out) {
    kcs_el_client *client = kcs_el_client_data(el);
    int fd = fileno(stdin);
    char bytes[MB_LEN_MAX];
    size_t count = 0;
    for (;;) {
        if (client && client->wait_for_input && !client->wait_for_input(fd)) {
            *out = L'\0';
            errno = EINTR;
            return -1;
        }
        ssize_t n = read(fd, bytes + count, 1);
        if (n == 0) { *out = L'\0'; return 0; }
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            *out = L'\0';
            return -1;
        }
        count += 1;
        for (;;) {
            mbstate_t state;  // the whole sequence so far is decoded afresh each time
            memset(&state, 0, sizeof state);
            size_t used = mbrtowc(out, bytes, count, &state);
            if (used == (size_t)-2 && count < sizeof bytes) break;  // incomplete: read another byte
            if (used != (size_t)-1 && used != (size_t)-2) return 1;
            if (count > 1) { bytes[0] = bytes[count - 1]; count = 1; continue; }  // keep the last byte
            count = 0;  // an invalid byte: dropped
            break;
        }
    }
}
static inline int kcs_el_set_read_char(EditLine *el) {
    return KCS_EL->el_set(el, EL_GETCFN, kcs_el_read_char);
}
static inline int kcs_el_set_client(EditLine *el, kcs_el_client *client) {
    if (KCS_EL->el_set(el, EL_CLIENTDATA, (void *)client) != 0) return -1;
    return KCS_EL->el_set(el, EL_PROMPT, kcs_el_prompt_function);
}
typedef unsigned char (*kcs_el_function)(EditLine *, int);
static inline int kcs_el_add_function(EditLine *el, const char *name, const char *help, kcs_el_function fn) {
    return KCS_EL->el_set(el, EL_ADDFN, name, help, fn);
}
static inline int kcs_el_bind(EditLine *el, const char *key, const char *name) {
    return KCS_EL->el_set(el, EL_BIND, key, name, NULL);
}
static inline int kcs_el_set_history(EditLine *el, History *h) {
    return KCS_EL->el_set(el, EL_HIST, KCS_EL->history, h);
}
static inline int kcs_el_set_editor(EditLine *el, const char *mode) {
    return KCS_EL->el_set(el, EL_EDITOR, mode);
}
static inline int kcs_el_set_signal(EditLine *el, int on) {
    return KCS_EL->el_set(el, EL_SIGNAL, on);
}

#undef KCS_EL
#endif
