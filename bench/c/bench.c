/* Baseline for `make bench`: the same work as kcs's benchmarks, written straight
 * against the C libraries, so kcs's figures can be shown as a ratio of these.
 *   addresses  — m/44'/60'/0'/0/i for i < 10000 from one account node: BIP-32
 *                CKDpriv (HMAC-SHA512 from OpenSSL, libsecp256k1 tweak), public key,
 *                Keccak-256 (own code below: OpenSSL 3.0 has no Keccak), EIP-55 checksum.
 *   sign/verify/recover — libsecp256k1 ECDSA on 32-byte digests.
 *   seed       — BIP-39 mnemonic → seed: OpenSSL PKCS5_PBKDF2_HMAC, SHA-512, 2048 rounds.
 *   scrypt     — keystore KDF with libsodium's crypto_pwhash_scryptsalsa208sha256_ll.
 *   mpc        — the Paillier operations of two-party signing on OpenSSL's BN, as kcs does them:
 *                Enc(m; r) = (1 + m·N)·r^N mod N² with a constant-time r^N, and CRT decryption.
 * Output: one line per figure, "name ops_per_second". Build: see bench/run. */
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/bn.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- Keccak-256 (original padding), straightforward 24-round permutation ---- */
static const uint64_t RC[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808AULL, 0x8000000080008000ULL,
    0x000000000000808BULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008AULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000AULL,
    0x000000008000808BULL, 0x800000000000008BULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800AULL, 0x800000008000000AULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};
static const int ROT[25] = {0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14};
#define ROTL(x, n) ((n) ? (((x) << (n)) | ((x) >> (64 - (n)))) : (x))

static void keccakf(uint64_t a[25]) {
    for (int r = 0; r < 24; r++) {
        uint64_t c[5], d[5], b[25];
        for (int x = 0; x < 5; x++) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; x++) d[x] = c[(x + 4) % 5] ^ ROTL(c[(x + 1) % 5], 1);
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++) {
                int i = x + 5 * y;
                b[y + 5 * ((2 * x + 3 * y) % 5)] = ROTL(a[i] ^ d[x], ROT[i]);
            }
        for (int x = 0; x < 5; x++)
            for (int y = 0; y < 5; y++)
                a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
        a[0] ^= RC[r];
    }
}

/* Messages here are shorter than one 136-byte block. */
static void keccak256_short(const uint8_t *msg, size_t len, uint8_t out[32]) {
    uint64_t st[25] = {0};
    uint8_t block[136] = {0};
    memcpy(block, msg, len);
    block[len] ^= 0x01;
    block[135] ^= 0x80;
    for (int i = 0; i < 17; i++) {
        uint64_t lane;
        memcpy(&lane, block + 8 * i, 8);
        st[i] ^= lane;
    }
    keccakf(st);
    memcpy(out, st, 32);
}

static void eth_address(const secp256k1_context *ctx, const secp256k1_pubkey *pub, char out[43]) {
    uint8_t ser[65], h[32], hh[32];
    size_t len = 65;
    secp256k1_ec_pubkey_serialize(ctx, ser, &len, pub, SECP256K1_EC_UNCOMPRESSED);
    keccak256_short(ser + 1, 64, h);
    static const char *hex = "0123456789abcdef";
    char lower[40];
    for (int i = 0; i < 20; i++) {
        lower[2 * i] = hex[h[12 + i] >> 4];
        lower[2 * i + 1] = hex[h[12 + i] & 15];
    }
    keccak256_short((const uint8_t *)lower, 40, hh);
    out[0] = '0';
    out[1] = 'x';
    for (int i = 0; i < 40; i++) {
        int nib = (i & 1) ? (hh[i / 2] & 15) : (hh[i / 2] >> 4);
        char ch = lower[i];
        out[2 + i] = (ch >= 'a' && nib >= 8) ? ch - 32 : ch;
    }
    out[42] = 0;
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : "all";
    secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_SIGN | SECP256K1_CONTEXT_VERIFY);
    uint8_t seed32[32];
    for (int i = 0; i < 32; i++) seed32[i] = (uint8_t)(i * 7 + 1);
    secp256k1_context_randomize(ctx, seed32);

    if (!strcmp(only, "all") || !strcmp(only, "addresses")) {
        /* account node: a fixed private key and chain code (the work per child is what counts) */
        uint8_t key[32], chain[32], pubc[33];
        for (int i = 0; i < 32; i++) { key[i] = (uint8_t)(0x11 + i); chain[i] = (uint8_t)(0x42 ^ i); }
        secp256k1_pubkey parent;
        secp256k1_ec_pubkey_create(ctx, &parent, key);
        size_t clen = 33;
        secp256k1_ec_pubkey_serialize(ctx, pubc, &clen, &parent, SECP256K1_EC_COMPRESSED);
        int n = 10000;
        char addr[43];
        unsigned check = 0;
        double t0 = now();
        for (int i = 0; i < n; i++) {
            uint8_t data[37], I[64];
            unsigned int ilen = 64;
            memcpy(data, pubc, 33);
            data[33] = (uint8_t)(i >> 24); data[34] = (uint8_t)(i >> 16); data[35] = (uint8_t)(i >> 8); data[36] = (uint8_t)i;
            HMAC(EVP_sha512(), chain, 32, data, 37, I, &ilen);
            uint8_t child[32];
            memcpy(child, key, 32);
            if (!secp256k1_ec_seckey_tweak_add(ctx, child, I)) continue;
            secp256k1_pubkey pub;
            secp256k1_ec_pubkey_create(ctx, &pub, child);
            eth_address(ctx, &pub, addr);
            check += (unsigned char)addr[2];
        }
        double t = now() - t0;
        printf("addresses %.1f\n", n / t);
        if (check == 0) fprintf(stderr, "unexpected\n");
    }

    if (!strcmp(only, "all") || !strcmp(only, "ecdsa")) {
        uint8_t key[32], digest[32];
        for (int i = 0; i < 32; i++) { key[i] = (uint8_t)(i + 1); digest[i] = (uint8_t)(0xa0 ^ i); }
        secp256k1_pubkey pub;
        secp256k1_ec_pubkey_create(ctx, &pub, key);
        int n = 5000;
        secp256k1_ecdsa_recoverable_signature rsig;
        double t0 = now();
        for (int i = 0; i < n; i++) {
            digest[0] = (uint8_t)i;
            secp256k1_ecdsa_sign_recoverable(ctx, &rsig, digest, key, NULL, NULL);
        }
        printf("sign %.1f\n", n / (now() - t0));
        secp256k1_ecdsa_signature sig;
        secp256k1_ecdsa_recoverable_signature_convert(ctx, &sig, &rsig);
        t0 = now();
        int ok = 0;
        for (int i = 0; i < n; i++) ok += secp256k1_ecdsa_verify(ctx, &sig, digest, &pub);
        printf("verify %.1f\n", n / (now() - t0));
        t0 = now();
        secp256k1_pubkey rec;
        for (int i = 0; i < n; i++) ok += secp256k1_ecdsa_recover(ctx, &rec, &rsig, digest);
        printf("recover %.1f\n", n / (now() - t0));
        if (ok != 2 * n) fprintf(stderr, "unexpected verify/recover failure\n");
    }

    if (!strcmp(only, "all") || !strcmp(only, "seed")) {
        const char *phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
        uint8_t out[64];
        int n = 200;
        double t0 = now();
        for (int i = 0; i < n; i++)
            PKCS5_PBKDF2_HMAC(phrase, (int)strlen(phrase), (const unsigned char *)"mnemonic", 8, 2048, EVP_sha512(), 64, out);
        printf("seed %.1f\n", n / (now() - t0));
    }

    if (!strcmp(only, "all") || !strcmp(only, "scrypt")) {
        if (sodium_init() < 0) return 1;
        uint8_t out[32], salt[32];
        memset(salt, 0xab, 32);
        const char *pw = "testpassword";
        int n = 20;
        double t0 = now();
        for (int i = 0; i < n; i++)
            crypto_pwhash_scryptsalsa208sha256_ll((const uint8_t *)pw, strlen(pw), salt, 32, 4096, 8, 1, out, 32);
        printf("scrypt4096 %.2f\n", n / (now() - t0));
        n = 3;
        t0 = now();
        for (int i = 0; i < n; i++)
            crypto_pwhash_scryptsalsa208sha256_ll((const uint8_t *)pw, strlen(pw), salt, 32, 262144, 8, 1, out, 32);
        printf("scrypt262144 %.3f\n", n / (now() - t0));
    }
    secp256k1_context_destroy(ctx);
    if (!strcmp(only, "all") || !strcmp(only, "mpc")) {
        BN_CTX *bc = BN_CTX_new();
        BIGNUM *p = BN_new(), *q = BN_new(), *n = BN_new(), *nn = BN_new(), *m = BN_new(), *r = BN_new(), *c = BN_new();
        BIGNUM *t = BN_new(), *u = BN_new(), *one = BN_new(), *pp = BN_new(), *qq = BN_new(), *p1 = BN_new(), *q1 = BN_new();
        BN_one(one);
        do {
            BN_generate_prime_ex(p, 1024, 0, NULL, NULL, NULL);
            BN_generate_prime_ex(q, 1024, 0, NULL, NULL, NULL);
            BN_mul(n, p, q, bc);
        } while (BN_num_bits(n) != 2048);
        BN_mul(nn, n, n, bc);
        BN_mul(pp, p, p, bc); BN_mul(qq, q, q, bc);
        BN_sub(p1, p, one); BN_sub(q1, q, one);
        int iters = 40;
        double t0 = now();
        for (int i = 0; i < iters; i++) {
            BN_rand_range(m, n);
            BN_rand_range(r, n);
            BN_mod_mul(t, m, n, nn, bc);           /* 1 + m·N */
            BN_mod_add(t, t, one, nn, bc);
            BN_mod_exp_mont_consttime(u, r, n, nn, bc, NULL);  /* r^N */
            BN_mod_mul(c, t, u, nn, bc);
        }
        printf("paillier_enc %.3f\n", iters / (now() - t0));
        t0 = now();
        for (int i = 0; i < iters; i++) {          /* the two CRT halves: c^(p−1) mod p², c^(q−1) mod q² */
            BN_nnmod(t, c, pp, bc);
            BN_mod_exp_mont_consttime(u, t, p1, pp, bc, NULL);
            BN_nnmod(t, c, qq, bc);
            BN_mod_exp_mont_consttime(u, t, q1, qq, bc, NULL);
        }
        printf("paillier_dec %.3f\n", iters / (now() - t0));
        BN_CTX_free(bc);
    }

    return 0;
}
