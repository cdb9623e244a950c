// libsecp256k1 with the optional modules kcs uses (Debian builds all of them).
#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <secp256k1_ecdh.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>

// Flag macros as typed constants: Swift does not import function-like or
// composite macros reliably.
static const unsigned int kcs_secp256k1_context_flags = SECP256K1_CONTEXT_SIGN | SECP256K1_CONTEXT_VERIFY;
static const unsigned int kcs_secp256k1_compressed = SECP256K1_EC_COMPRESSED;
static const unsigned int kcs_secp256k1_uncompressed = SECP256K1_EC_UNCOMPRESSED;
