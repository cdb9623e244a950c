// pcsc-lite's PC/SC API (winscard.h, reader.h for the I/O control codes).
#include <winscard.h>
#include <reader.h>
