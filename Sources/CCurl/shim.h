// libcurl, loaded with dlopen on first use rather than linked: kcs starts without mapping
// libcurl and its two dozen dependencies (TLS, HTTP/2, LDAP, SSH…), which only the eth.* and
// discovery commands need. The option and info numbers are libcurl's stable ABI values
// (curl/curl.h: CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000; CURLINFO_LONG
// 0x200000). One easy handle per request, so no connection is reused and libcurl never resends
// a request on a stale connection.
#ifndef KCS_CCURL_SHIM_H
#define KCS_CCURL_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kcs_curl_api {
    void *(*easy_init)(void);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_perform)(void *);
    void (*easy_cleanup)(void *);
    int (*easy_getinfo)(void *, int, ...);
    const char *(*easy_strerror)(int);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    int (*global_init)(long);
    char error[256];
    int loaded;
} kcs_curl_api;

/// The loaded functions, shared by every request (function-local statics, so the header needs
/// no separate definition).
static inline kcs_curl_api *kcs_curl_state(void) {
    static kcs_curl_api api;
    return &api;
}

static inline pthread_once_t *kcs_curl_once(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    return &once;
}

static inline void kcs_curl_load_once(void) {
    kcs_curl_api *a = kcs_curl_state();
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(a->error, sizeof a->error, "libcurl.so.4 could not be loaded (%s)", dlerror());
        return;
    }
    a->easy_init = (void *(*)(void))dlsym(lib, "curl_easy_init");
    a->easy_setopt = (int (*)(void *, int, ...))dlsym(lib, "curl_easy_setopt");
    a->easy_perform = (int (*)(void *))dlsym(lib, "curl_easy_perform");
    a->easy_cleanup = (void (*)(void *))dlsym(lib, "curl_easy_cleanup");
    a->easy_getinfo = (int (*)(void *, int, ...))dlsym(lib, "curl_easy_getinfo");
    a->easy_strerror = (const char *(*)(int))dlsym(lib, "curl_easy_strerror");
    a->slist_append = (void *(*)(void *, const char *))dlsym(lib, "curl_slist_append");
    a->slist_free_all = (void (*)(void *))dlsym(lib, "curl_slist_free_all");
    a->global_init = (int (*)(long))dlsym(lib, "curl_global_init");
    if (!a->easy_init || !a->easy_setopt || !a->easy_perform || !a->easy_cleanup || !a->easy_getinfo ||
        !a->easy_strerror || !a->slist_append || !a->slist_free_all || !a->global_init) {
        snprintf(a->error, sizeof a->error, "libcurl.so.4 lacks a curl_easy function");
        return;
    }
    if (a->global_init(3L) != 0) {  // CURL_GLOBAL_DEFAULT (SSL | WIN32)
        snprintf(a->error, sizeof a->error, "curl_global_init failed");
        return;
    }
    a->loaded = 1;
}

/// A growing response buffer; the write callback refuses more than `limit` bytes.
typedef struct kcs_curl_buffer {
    unsigned char *data;
    size_t length, capacity, limit;
} kcs_curl_buffer;

static inline size_t kcs_curl_write(char *ptr, size_t size, size_t count, void *userdata) {
    kcs_curl_buffer *b = (kcs_curl_buffer *)userdata;
    size_t n = size * count;
    if (b->length + n > b->limit) return 0;  // aborts the transfer: CURLE_WRITE_ERROR (23)
    if (b->length + n > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->length + n) capacity *= 2;
        unsigned char *grown = (unsigned char *)realloc(b->data, capacity);
        if (!grown) return 0;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, ptr, n);
    b->length += n;
    return n;
}

/// Result of one request. `code` is libcurl's CURLcode (0: an HTTP answer came, `status` set),
/// or -1 when libcurl could not be loaded. `body` is malloc'ed (free with kcs_curl_free).
typedef struct kcs_curl_result {
    int code;
    long status;
    unsigned char *body;
    size_t length;
    char message[256];
} kcs_curl_result;

/// One HTTP request: POST of `body` as JSON when `post` is 1, else GET. http and https only,
/// no redirects, `timeout_ms` for the whole transfer, at most `limit` bytes of answer.
static inline kcs_curl_result kcs_curl_request(const char *url, const unsigned char *body, size_t body_length, int post,
                                               long timeout_ms, size_t limit) {
    kcs_curl_result r;
    memset(&r, 0, sizeof r);
    pthread_once(kcs_curl_once(), kcs_curl_load_once);
    kcs_curl_api *a = kcs_curl_state();
    if (!a->loaded) {
        r.code = -1;
        snprintf(r.message, sizeof r.message, "%s", a->error);
        return r;
    }
    void *h = a->easy_init();
    if (!h) {
        r.code = -1;
        snprintf(r.message, sizeof r.message, "curl_easy_init failed");
        return r;
    }
    kcs_curl_buffer buffer = {0, 0, 0, limit};
    char error[256] = {0};
    void *headers = a->slist_append(NULL, "Accept: application/json");
    if (post) headers = a->slist_append(headers, "Content-Type: application/json");
    a->easy_setopt(h, 10002, url);                              // CURLOPT_URL
    a->easy_setopt(h, 10318, "http,https");                     // CURLOPT_PROTOCOLS_STR
    a->easy_setopt(h, 99, 1L);                                  // CURLOPT_NOSIGNAL
    a->easy_setopt(h, 52, 0L);                                  // CURLOPT_FOLLOWLOCATION
    a->easy_setopt(h, 155, timeout_ms);                         // CURLOPT_TIMEOUT_MS
    a->easy_setopt(h, 156, timeout_ms);                         // CURLOPT_CONNECTTIMEOUT_MS
    a->easy_setopt(h, 10023, headers);                          // CURLOPT_HTTPHEADER
    a->easy_setopt(h, 20011, kcs_curl_write);                   // CURLOPT_WRITEFUNCTION
    a->easy_setopt(h, 10001, (void *)&buffer);                  // CURLOPT_WRITEDATA
    a->easy_setopt(h, 10010, error);                            // CURLOPT_ERRORBUFFER
    a->easy_setopt(h, 10018, "kcs");                            // CURLOPT_USERAGENT
    if (post) {
        a->easy_setopt(h, 47, 1L);                              // CURLOPT_POST
        a->easy_setopt(h, 60, (long)body_length);               // CURLOPT_POSTFIELDSIZE
        a->easy_setopt(h, 10015, (const void *)body);           // CURLOPT_POSTFIELDS
    } else {
        a->easy_setopt(h, 80, 1L);                              // CURLOPT_HTTPGET
    }
    r.code = a->easy_perform(h);
    if (r.code == 0) {
        a->easy_getinfo(h, 0x200002, &r.status);                // CURLINFO_RESPONSE_CODE
        r.body = buffer.data;
        r.length = buffer.length;
    } else {
        free(buffer.data);
        snprintf(r.message, sizeof r.message, "%s", error[0] ? error : a->easy_strerror(r.code));
    }
    a->slist_free_all(headers);
    a->easy_cleanup(h);
    return r;
}

static inline void kcs_curl_free(kcs_curl_result *r) {
    free(r->body);
    r->body = NULL;
}

#endif
