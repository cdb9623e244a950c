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
