// pcsc-lite's PC/SC API, loaded with dlopen on first use rather than linked (as libcurl, libcrypto,
// libedit and the QR libraries are): a run that never talks to a reader — every script, `-e` and
// the simulator — starts without mapping libpcsclite. Only the calls kcs makes are here.
//
// pcsc-lite's headers need their own folder on the include path (winscard.h includes
// <pcsclite.h>), which a module without pkg-config cannot give, so the types and values kcs uses
// are declared below as pcsc-lite defines them on Linux (PCSC/wintypes.h: DWORD is unsigned
// long and LONG is long, outside Apple; PCSC/pcsclite.h: the structures and constants).
// PackageTests/SystemLibraryTests compiles the real headers and compares every size, offset and
// value with these.
#ifndef KCS_CPCSC_SHIM_H
#define KCS_CPCSC_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef unsigned long DWORD;
typedef long LONG;
typedef LONG SCARDCONTEXT;
typedef LONG SCARDHANDLE;

#define MAX_ATR_SIZE 33

typedef struct {
    const char *szReader;
    void *pvUserData;
    DWORD dwCurrentState;
    DWORD dwEventState;
    DWORD cbAtr;
    unsigned char rgbAtr[MAX_ATR_SIZE];
} SCARD_READERSTATE;

typedef struct {
    unsigned long dwProtocol;
    unsigned long cbPciLength;
} SCARD_IO_REQUEST;

#define SCARD_SCOPE_SYSTEM 0x0002
#define SCARD_PROTOCOL_T0 0x0001
#define SCARD_PROTOCOL_T1 0x0002
#define SCARD_SHARE_EXCLUSIVE 0x0001
#define SCARD_SHARE_SHARED 0x0002
#define SCARD_LEAVE_CARD 0x0000
#define SCARD_PRESENT 0x0004
#define SCARD_STATE_UNAWARE 0x0000
#define SCARD_STATE_CHANGED 0x0002
#define SCARD_STATE_PRESENT 0x0020

typedef struct kcs_pcsc_api {
    LONG (*SCardEstablishContext)(DWORD, const void *, const void *, SCARDCONTEXT *);
    LONG (*SCardReleaseContext)(SCARDCONTEXT);
    LONG (*SCardListReaders)(SCARDCONTEXT, const char *, char *, DWORD *);
    LONG (*SCardGetStatusChange)(SCARDCONTEXT, DWORD, SCARD_READERSTATE *, DWORD);
    LONG (*SCardConnect)(SCARDCONTEXT, const char *, DWORD, DWORD, SCARDHANDLE *, DWORD *);
    LONG (*SCardTransmit)(SCARDHANDLE, const SCARD_IO_REQUEST *, const unsigned char *, DWORD,
                          SCARD_IO_REQUEST *, unsigned char *, DWORD *);
    LONG (*SCardStatus)(SCARDHANDLE, char *, DWORD *, DWORD *, DWORD *, unsigned char *, DWORD *);
    LONG (*SCardDisconnect)(SCARDHANDLE, DWORD);
    const char *(*pcsc_stringify_error)(const LONG);
    const SCARD_IO_REQUEST *g_rgSCardT0Pci;
    const SCARD_IO_REQUEST *g_rgSCardT1Pci;
    char error[256];
    int loaded;
} kcs_pcsc_api;

static inline kcs_pcsc_api *kcs_pcsc_state(void) { static kcs_pcsc_api api; return &api; }
static inline pthread_once_t *kcs_pcsc_once(void) { static pthread_once_t once = PTHREAD_ONCE_INIT; return &once; }

static inline void kcs_pcsc_load_once(void) {
    kcs_pcsc_api *a = kcs_pcsc_state();
    void *lib = dlopen("libpcsclite.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        snprintf(a->error, sizeof a->error,
                 "libpcsclite.so.1 could not be loaded (%s); a reader needs pcsc-lite (Debian: pcscd, libpcsclite1)",
                 why ? why : "no reason given");
        return;
    }
#define KCS_PCSC(name) a->name = (__typeof__(a->name))dlsym(lib, #name); \
    if (!a->name) { snprintf(a->error, sizeof a->error, "libpcsclite.so.1 lacks %s", #name); return; }
    KCS_PCSC(SCardEstablishContext) KCS_PCSC(SCardReleaseContext) KCS_PCSC(SCardListReaders)
    KCS_PCSC(SCardGetStatusChange) KCS_PCSC(SCardConnect) KCS_PCSC(SCardTransmit) KCS_PCSC(SCardStatus)
    KCS_PCSC(SCardDisconnect) KCS_PCSC(pcsc_stringify_error) KCS_PCSC(g_rgSCardT0Pci) KCS_PCSC(g_rgSCardT1Pci)
#undef KCS_PCSC
    a->loaded = 1;
}

/// The loaded API, or NULL when libpcsclite.so.1 cannot be loaded (`kcs_pcsc_error` says why).
static inline const kcs_pcsc_api *kcs_pcsc(void) {
    pthread_once(kcs_pcsc_once(), kcs_pcsc_load_once);
    return kcs_pcsc_state()->loaded ? kcs_pcsc_state() : NULL;
}

/// Why the library could not be loaded (empty when it was).
static inline const char *kcs_pcsc_error(void) {
    pthread_once(kcs_pcsc_once(), kcs_pcsc_load_once);
    return kcs_pcsc_state()->error;
}

#endif
