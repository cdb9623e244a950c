"""secp256k1 helpers (python-ecdsa), Paillier (phe), the RFC 3526 Pedersen group, key material."""
import json, math, secrets, subprocess
import gmpy2
from ecdsa import SECP256k1, VerifyingKey
from ecdsa.ellipticcurve import INFINITY
from phe import paillier
from .encoding import H2I, SIGMA, ProtocolError, get_bytes, rand_below, rand_unit, require

# ---- curve -------------------------------------------------------------------------------
G, q = SECP256k1.generator, SECP256k1.order


def pt(point):
    if point == INFINITY:
        raise ProtocolError("internal", "point at infinity cannot be encoded")
    return point.to_bytes("compressed")


def load_point(raw):
    try:
        return VerifyingKey.from_string(raw, curve=SECP256k1, valid_encodings=["compressed"]).pubkey.point
    except Exception:
        return None


def get_point(v, check, name):
    point = load_point(get_bytes(v, 33, check, name))
    require(point is not None, check, f"{name}: not a valid compressed secp256k1 point")
    return point


def sub(a, b):  # a - b on the curve
    return a + (-b)


def powmod(b, e, m):
    return int(gmpy2.powmod(b, e, m))


def inv(a, m):
    return int(gmpy2.invert(a, m))


# ---- Paillier: Enc(m; r) = (1 + mN) r^N mod N^2, g = N + 1 as in phe ----------------------
class Paillier:
    def __init__(self, n, p=None, p2=None):
        self.n, self.n2 = int(n), int(n) * int(n)
        self.pk = paillier.PaillierPublicKey(self.n)
        self.sk = paillier.PaillierPrivateKey(self.pk, int(p), int(p2)) if p else None
        self.phi = (p - 1) * (p2 - 1) if p else None

    def enc(self, m, r):
        return int(self.pk.raw_encrypt(int(m) % self.n, r_value=int(r)))

    def dec(self, c):
        return int(self.sk.raw_decrypt(int(c)))

    def unit(self, c):  # gcd(c, N) = 1
        return math.gcd(c, self.n) == 1


def random_prime(bits, top=3):
    """Primes always come from the OS CSPRNG, never from the golden-transcript DRBG (doc §2)."""
    while True:
        p = int(gmpy2.next_prime(secrets.randbits(bits) | (top << (bits - 2)) | 1))
        if p.bit_length() == bits:
            return p


def paillier_primes():
    while True:
        p, p2 = random_prime(1024), random_prime(1024)
        if p != p2 and (p * p2).bit_length() == 2048:
            return p, p2


def load_paillier_primes(path):
    """Given Paillier primes (golden transcripts): JSON {"p": hex, "q": hex}, p first (N = p*q). Checked: two
    distinct 1024-bit primes with the top two bits set whose product has exactly 2048 bits."""
    with open(path) as f:
        d = json.load(f)
    ps = [int(d["p"], 16), int(d["q"], 16)]
    for p in ps:
        if not (p.bit_length() == 1024 and p >> 1022 == 3 and gmpy2.is_prime(p, 40)):
            raise ValueError("not a 1024-bit prime with the top two bits set")
    if ps[0] == ps[1] or (ps[0] * ps[1]).bit_length() != 2048:
        raise ValueError("the primes do not give a 2048-bit N")
    return ps


SMALL_PRIMORIAL = math.prod(int(x) for x in range(2, 1 << 13) if gmpy2.is_prime(x))


def check_modulus(n, check):
    require(n % 2 == 1, check, "N is even")
    require(n.bit_length() == 2048, check, f"N has {n.bit_length()} bits, not 2048")
    require(math.gcd(n, SMALL_PRIMORIAL) == 1, check, "N has a prime factor < 2^13")


# ---- Pedersen group: RFC 3526 §3 2048-bit MODP prime ----------------------------------------
P_G = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
    "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
    "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA4836"
    "1C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804"
    "F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6"
    "955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)
P1_G = (P_G - 1) // 2
SQRT_G, PG_G = 2, 4
SQRT_H = H2I("pedersen-h", [], 2176) % P_G
PG_H = SQRT_H * SQRT_H % P_G


# ---- integer-commitment parameters made by P1 at pairing ----------------------------------
def load_safe_primes(path):
    """From a JSON file {"p": hex, "q": hex}, or else from `openssl prime -generate -safe`."""
    if path:
        with open(path) as f:
            d = json.load(f)
        ps = [int(d["p"], 16), int(d["q"], 16)]
    else:
        ps = [int(subprocess.run(["openssl", "prime", "-generate", "-safe", "-bits", "1024", "-hex"],
                                 check=True, capture_output=True, text=True).stdout.strip(), 16)
              for _ in range(2)]
    for p in ps:
        if not (p.bit_length() == 1024 and gmpy2.is_prime(p, 40) and gmpy2.is_prime((p - 1) // 2, 40)):
            raise ValueError("not a 1024-bit safe prime")
    if ps[0] == ps[1] or (ps[0] * ps[1]).bit_length() != 2048:
        raise ValueError("safe primes do not give a 2048-bit N_ped")
    return ps


def ped_params(p, p2):
    n = p * p2
    h = powmod(rand_unit(n), 2, n)
    alpha = rand_below(n << SIGMA)
    return n, powmod(h, alpha, n), h, alpha
