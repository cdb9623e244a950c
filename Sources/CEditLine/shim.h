// libedit's native API (histedit.h). The variadic el_set/el_get calls get
// fixed-arity wrappers here when the console starts using them.
#include <stdio.h>
#include <histedit.h>
