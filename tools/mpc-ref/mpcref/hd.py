"""BIP-32 public derivation (CKDpub) for the HD tweak, paths, xpub (de)serialization."""
import hashlib, hmac, re
from .groups import G, INFINITY, load_point, pt, q

B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
XPUB_VERSION = bytes.fromhex("0488b21e")


class PathError(ValueError):
    pass


def parse_path(path):
    """"m" or "m/0/7": unhardened decimal steps only. Anything else raises PathError."""
    if not isinstance(path, str) or not re.fullmatch(r"m(/[0-9]+['hH]?)*", path):
        raise PathError(f"malformed path {path!r}")
    steps = []
    for part in path.split("/")[1:]:
        if part[-1] in "'hH" or int(part) >= 1 << 31:
            raise PathError(f"hardened step {part} below a 2-party key needs the whole private key")
        if part != str(int(part)):
            raise PathError(f"step {part!r} is not canonical decimal")
        steps.append(int(part))
    return steps


def ckd_pub(Q, cc, i):
    digest = hmac.new(cc, pt(Q) + i.to_bytes(4, "big"), hashlib.sha512).digest()
    t = int.from_bytes(digest[:32], "big")
    child = Q + t * G if t < q else INFINITY
    if child == INFINITY:
        raise PathError(f"index {i} gives an invalid child (BIP-32); use the next index")
    return t, child, digest[32:]


def derive(Q, cc, steps):
    """Returns (delta = sum t_j mod q, Q', cc')."""
    delta = 0
    for i in steps:
        t, Q, cc = ckd_pub(Q, cc, i)
        delta = (delta + t) % q
    return delta, Q, cc


def b58check(payload):
    data = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n, out = int.from_bytes(data, "big"), ""
    while n:
        n, rem = divmod(n, 58)
        out = B58[rem] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def xpub(Q, cc):  # the joint master: depth 0, parent fingerprint 0, child number 0
    return b58check(XPUB_VERSION + bytes(9) + cc + pt(Q))


def parse_xpub(text):
    n = 0
    for ch in text:
        n = n * 58 + B58.index(ch)
    data = n.to_bytes(82, "big")
    payload, check = data[:78], data[78:]
    if hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4] != check or payload[:4] != XPUB_VERSION:
        raise ValueError("bad xpub")
    return load_point(payload[45:78]), payload[13:45]
