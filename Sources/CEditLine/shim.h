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

// Fixed-arity wrappers for el_set/el_get (variadic in C). The prompt text is kept by the
// caller and reached through EL_CLIENTDATA, so no global state lives here.
static inline char *kcs_el_prompt_function(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data ? (char *)data : "";
}
static inline int kcs_el_set_prompt_text(EditLine *el, const char *text) {
    if (el_set(el, EL_CLIENTDATA, (void *)text) != 0) return -1;
    return el_set(el, EL_PROMPT, kcs_el_prompt_function);
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
