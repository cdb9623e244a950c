// libedit's native API (histedit.h). The variadic el_set/el_get calls get
// fixed-arity wrappers here when the console starts using them.
#include <stdio.h>
#include <histedit.h>

// Fixed-arity wrappers for libedit's variadic history(3) calls (Swift cannot call variadic C).
static inline int kcs_history_enter(History *h, HistEvent *ev, const char *line) {
    return history(h, ev, H_ENTER, line);
}
static inline int kcs_history_count(History *h, HistEvent *ev) {
    return history(h, ev, H_GETSIZE) < 0 ? -1 : ev->num;
}
static inline int kcs_history_setsize(History *h, HistEvent *ev, int size) {
    return history(h, ev, H_SETSIZE, size);
}

// Fixed-arity wrappers for el_set/el_get (variadic in C). What the Swift side needs inside
// libedit's callbacks (the prompt text, the reader object) is reached through EL_CLIENTDATA,
// so no global state lives here.
typedef struct {
    const char *prompt;
    void *owner;
} kcs_el_client;

static inline kcs_el_client *kcs_el_client_data(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return (kcs_el_client *)data;
}
static inline char *kcs_el_prompt_function(EditLine *el) {
    kcs_el_client *client = kcs_el_client_data(el);
    return client && client->prompt ? (char *)client->prompt : "";
}
static inline int kcs_el_set_client(EditLine *el, kcs_el_client *client) {
    if (el_set(el, EL_CLIENTDATA, (void *)client) != 0) return -1;
    return el_set(el, EL_PROMPT, kcs_el_prompt_function);
}
typedef unsigned char (*kcs_el_function)(EditLine *, int);
static inline int kcs_el_add_function(EditLine *el, const char *name, const char *help, kcs_el_function fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}
static inline int kcs_el_bind(EditLine *el, const char *key, const char *name) {
    return el_set(el, EL_BIND, key, name, NULL);
}
static inline int kcs_el_set_history(EditLine *el, History *h) {
    return el_set(el, EL_HIST, history, h);
}
static inline int kcs_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}
static inline int kcs_el_set_signal(EditLine *el, int on) {
    return el_set(el, EL_SIGNAL, on);
}
static inline int kcs_history_load(History *h, HistEvent *ev, const char *file) {
    return history(h, ev, H_LOAD, file);
}
static inline int kcs_history_save(History *h, HistEvent *ev, const char *file) {
    return history(h, ev, H_SAVE, file);
}
// el_init on the process's standard streams (Swift 6 refuses to touch the stdio globals).
static inline EditLine *kcs_el_init_stdio(const char *program) {
    return el_init(program, stdin, stdout, stderr);
}
