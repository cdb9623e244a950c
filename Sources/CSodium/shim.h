// libsodium, used only for scrypt parameters BoringSSL refuses (N ≥ 2^(16·r), e.g. the
// r = 1, N = 262144 keystores that go-ethereum writes and reads).
#include <sodium.h>
