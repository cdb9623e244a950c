// OpenSSL's libcrypto (Debian libssl3), loaded with dlopen on first use rather than linked, as
// libcurl is: kcs starts without mapping it, and only a Keycard 4.0 secure channel needs it.
// What kcs uses: AES-128-CCM (RFC 3610 / NIST SP 800-38C) through the EVP interface, the
// cipher of Secure Channel V2 (docs/keycard-protocol.md "Secure Channel V2"). The control
// numbers are OpenSSL's stable ABI values (openssl/evp.h: EVP_CTRL_AEAD_SET_IVLEN 0x9,
// EVP_CTRL_AEAD_GET_TAG 0x10, EVP_CTRL_AEAD_SET_TAG 0x11).
#ifndef KCS_COPENSSL_SHIM_H
#define KCS_COPENSSL_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct kcs_crypto_api {
    void *(*ctx_new)(void);
    void (*ctx_free)(void *);
    const void *(*aes_128_ccm)(void);
    int (*encrypt_init)(void *, const void *, void *, const unsigned char *, const unsigned char *);
    int (*decrypt_init)(void *, const void *, void *, const unsigned char *, const unsigned char *);
    int (*ctrl)(void *, int, int, void *);
    int (*encrypt_update)(void *, unsigned char *, int *, const unsigned char *, int);
    int (*decrypt_update)(void *, unsigned char *, int *, const unsigned char *, int);
    int (*encrypt_final)(void *, unsigned char *, int *);
    char error[256];
    int loaded;
} kcs_crypto_api;

static inline kcs_crypto_api *kcs_crypto_state(void) {
    static kcs_crypto_api api;
    return &api;
}

static inline pthread_once_t *kcs_crypto_once(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    return &once;
}

static inline void kcs_crypto_load_once(void) {
    kcs_crypto_api *a = kcs_crypto_state();
    void *lib = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(a->error, sizeof a->error, "libcrypto.so.3 could not be loaded (%s)", dlerror());
        return;
    }
    a->ctx_new = (void *(*)(void))dlsym(lib, "EVP_CIPHER_CTX_new");
    a->ctx_free = (void (*)(void *))dlsym(lib, "EVP_CIPHER_CTX_free");
    a->aes_128_ccm = (const void *(*)(void))dlsym(lib, "EVP_aes_128_ccm");
    a->encrypt_init = (int (*)(void *, const void *, void *, const unsigned char *, const unsigned char *))dlsym(lib, "EVP_EncryptInit_ex");
    a->decrypt_init = (int (*)(void *, const void *, void *, const unsigned char *, const unsigned char *))dlsym(lib, "EVP_DecryptInit_ex");
    a->ctrl = (int (*)(void *, int, int, void *))dlsym(lib, "EVP_CIPHER_CTX_ctrl");
    a->encrypt_update = (int (*)(void *, unsigned char *, int *, const unsigned char *, int))dlsym(lib, "EVP_EncryptUpdate");
    a->decrypt_update = (int (*)(void *, unsigned char *, int *, const unsigned char *, int))dlsym(lib, "EVP_DecryptUpdate");
    a->encrypt_final = (int (*)(void *, unsigned char *, int *))dlsym(lib, "EVP_EncryptFinal_ex");
    if (!a->ctx_new || !a->ctx_free || !a->aes_128_ccm || !a->encrypt_init || !a->decrypt_init || !a->ctrl ||
        !a->encrypt_update || !a->decrypt_update || !a->encrypt_final) {
        snprintf(a->error, sizeof a->error, "libcrypto.so.3 lacks an EVP cipher function");
        return;
    }
    a->loaded = 1;
}

/// Loads libcrypto once; NULL when loaded, else the reason.
static inline const char *kcs_crypto_load(void) {
    pthread_once(kcs_crypto_once(), kcs_crypto_load_once);
    kcs_crypto_api *a = kcs_crypto_state();
    return a->loaded ? NULL : a->error;
}

/// AES-128-CCM seal without associated data: `out` gets ciphertext (length `length`) then the
/// tag (`tag_length` bytes). Returns 1 on success, 0 on a library failure.
static inline int kcs_ccm_seal(const unsigned char *key, const unsigned char *nonce, int nonce_length, int tag_length,
                               const unsigned char *in, int length, unsigned char *out) {
    if (kcs_crypto_load()) return 0;
    kcs_crypto_api *a = kcs_crypto_state();
    void *ctx = a->ctx_new();
    if (!ctx) return 0;
    int n = 0, ok = a->encrypt_init(ctx, a->aes_128_ccm(), NULL, NULL, NULL) == 1 &&
                    a->ctrl(ctx, 0x9, nonce_length, NULL) == 1 && a->ctrl(ctx, 0x11, tag_length, NULL) == 1 &&
                    a->encrypt_init(ctx, NULL, NULL, key, nonce) == 1 &&
                    a->encrypt_update(ctx, NULL, &n, NULL, length) == 1 &&  // CCM: the total length first
                    a->encrypt_update(ctx, out, &n, in, length) == 1 && a->encrypt_final(ctx, out + n, &n) == 1 &&
                    a->ctrl(ctx, 0x10, tag_length, out + length) == 1;
    a->ctx_free(ctx);
    return ok;
}

/// AES-128-CCM open: `in` is ciphertext (length `length`) then the tag. Returns 1 when the tag
/// is right (`out` then holds `length` bytes of plaintext), 0 when it is not, -1 on a library
/// failure. On 0 `out` is zeroed.
static inline int kcs_ccm_open(const unsigned char *key, const unsigned char *nonce, int nonce_length, int tag_length,
                               const unsigned char *in, int length, unsigned char *out) {
    if (kcs_crypto_load()) return -1;
    kcs_crypto_api *a = kcs_crypto_state();
    void *ctx = a->ctx_new();
    if (!ctx) return -1;
    int n = 0;
    if (a->decrypt_init(ctx, a->aes_128_ccm(), NULL, NULL, NULL) != 1 || a->ctrl(ctx, 0x9, nonce_length, NULL) != 1 ||
        a->ctrl(ctx, 0x11, tag_length, (void *)(in + length)) != 1 || a->decrypt_init(ctx, NULL, NULL, key, nonce) != 1 ||
        a->decrypt_update(ctx, NULL, &n, NULL, length) != 1) {
        a->ctx_free(ctx);
        return -1;
    }
    int ok = a->decrypt_update(ctx, out, &n, in, length) == 1;  // CCM checks the tag here
    a->ctx_free(ctx);
    if (!ok) memset(out, 0, (size_t)length);
    return ok;
}

// MARK: - Big numbers (OpenSSL's BN), for the two-party protocols' Paillier and proof arithmetic
// (docs/two-party.md). Loaded from the same libcrypto, on first use. BIGNUM and BN_CTX are opaque.

typedef struct kcs_bn_api {
    void *(*new_)(void);
    void *(*secure_new)(void);
    void (*clear_free)(void *);
    void *(*bin2bn)(const unsigned char *, int, void *);
    int (*bn2binpad)(const void *, unsigned char *, int);
    int (*num_bits)(const void *);
    void *(*ctx_new)(void);
    void *(*ctx_secure_new)(void);
    void (*ctx_free)(void *);
    int (*mod_exp)(void *, const void *, const void *, const void *, void *);
    int (*mod_exp_consttime)(void *, const void *, const void *, const void *, void *, void *);
    int (*mod_mul)(void *, const void *, const void *, const void *, void *);
    int (*mod_add)(void *, const void *, const void *, const void *, void *);
    int (*mod_sub)(void *, const void *, const void *, const void *, void *);
    int (*nnmod)(void *, const void *, const void *, void *);
    int (*mul)(void *, const void *, const void *, void *);
    int (*add)(void *, const void *, const void *);
    int (*sub)(void *, const void *, const void *);
    void *(*mod_inverse)(void *, const void *, const void *, void *);
    int (*gcd)(void *, const void *, const void *, void *);
    int (*cmp)(const void *, const void *);
    int (*generate_prime)(void *, int, int, const void *, const void *, void *);
    int (*check_prime)(const void *, void *, void *);
    int (*rand_range)(void *, const void *);
    int (*div)(void *, void *, const void *, const void *, void *);
    int (*rshift)(void *, const void *, int);
    int (*lshift)(void *, const void *, int);
    int (*is_bit_set)(const void *, int);
    void *(*rfc3526_prime_2048)(void *);
    char error[256];
    int loaded;
} kcs_bn_api;

static inline kcs_bn_api *kcs_bn_state(void) { static kcs_bn_api api; return &api; }
static inline pthread_once_t *kcs_bn_once(void) { static pthread_once_t once = PTHREAD_ONCE_INIT; return &once; }

static inline void kcs_bn_load_once(void) {
    kcs_bn_api *a = kcs_bn_state();
    void *lib = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!lib) { snprintf(a->error, sizeof a->error, "libcrypto.so.3 could not be loaded (%s)", dlerror()); return; }
#define KCS_BN(field, name) a->field = (__typeof__(a->field))dlsym(lib, name); if (!a->field) { snprintf(a->error, sizeof a->error, "libcrypto.so.3 lacks %s", name); return; }
    KCS_BN(new_, "BN_new") KCS_BN(secure_new, "BN_secure_new") KCS_BN(clear_free, "BN_clear_free")
    KCS_BN(bin2bn, "BN_bin2bn") KCS_BN(bn2binpad, "BN_bn2binpad") KCS_BN(num_bits, "BN_num_bits")
    KCS_BN(ctx_new, "BN_CTX_new") KCS_BN(ctx_secure_new, "BN_CTX_secure_new") KCS_BN(ctx_free, "BN_CTX_free")
    KCS_BN(mod_exp, "BN_mod_exp") KCS_BN(mod_exp_consttime, "BN_mod_exp_mont_consttime") KCS_BN(mod_mul, "BN_mod_mul")
    KCS_BN(mod_add, "BN_mod_add") KCS_BN(mod_sub, "BN_mod_sub") KCS_BN(nnmod, "BN_nnmod") KCS_BN(mul, "BN_mul")
    KCS_BN(add, "BN_add") KCS_BN(sub, "BN_sub") KCS_BN(mod_inverse, "BN_mod_inverse") KCS_BN(gcd, "BN_gcd")
    KCS_BN(cmp, "BN_cmp") KCS_BN(generate_prime, "BN_generate_prime_ex") KCS_BN(check_prime, "BN_check_prime")
    KCS_BN(rand_range, "BN_rand_range") KCS_BN(div, "BN_div") KCS_BN(rshift, "BN_rshift") KCS_BN(lshift, "BN_lshift")
    KCS_BN(is_bit_set, "BN_is_bit_set") KCS_BN(rfc3526_prime_2048, "BN_get_rfc3526_prime_2048")
#undef KCS_BN
    a->loaded = 1;
}

/// Loads libcrypto's BN functions once; NULL when loaded, else the reason.
static inline const char *kcs_bn_load(void) {
    pthread_once(kcs_bn_once(), kcs_bn_load_once);
    return kcs_bn_state()->loaded ? NULL : kcs_bn_state()->error;
}

/// The BN functions (after kcs_bn_load succeeded).
static inline kcs_bn_api *kcs_bn(void) { return kcs_bn_state(); }

#endif
