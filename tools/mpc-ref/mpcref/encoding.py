"""Items, hashes (H, FS, H2I), randomness, field codecs and frames (protocol doc §2)."""
import hashlib, json, math, os, secrets, select, struct, time

PROTO = "kcs-2pecdsa/1"
SIGMA, KAPPA = 64, 128
MAX_FRAME = 1 << 20


class ProtocolError(Exception):
    """A failed check: `check` is the name sent in the abort frame."""
    def __init__(self, check, message=""):
        super().__init__(f"{check}: {message}")
        self.check, self.message = check, message


class PeerAbort(Exception):
    def __init__(self, frame):
        super().__init__(f"peer aborted: {frame.get('check')}")
        self.frame = frame


def require(cond, check, message):
    if not cond:
        raise ProtocolError(check, message)


# ---- items -------------------------------------------------------------------------------
def item(tag, data):
    return tag.encode() + struct.pack(">I", len(data)) + data


def S(text): return item("S", text.encode())
def B(data): return item("B", bytes(data))
def P(point_bytes): return item("P", bytes(point_bytes))
def F(value, width): return item("F", int(value).to_bytes(width, "big"))
def U(value): return item("U", ubytes(value))


def ubytes(value):
    value = int(value)
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


PREFIX = S(PROTO)


def H(label, items):
    return hashlib.sha256(PREFIX + S(label) + b"".join(items)).digest()


def FS(label, sid, pid, items):
    d = hashlib.sha512(PREFIX + S(label) + B(sid) + B(pid) + b"".join(items)).digest()
    return int.from_bytes(d, "big")


def fs_top(label, sid, pid, items, bits):
    return FS(label, sid, pid, items) >> (512 - bits)


def H2I(label, items, bits):
    base, out, j = PREFIX + S(label) + b"".join(items), b"", 0
    nbytes = (bits + 7) // 8
    while len(out) < nbytes:
        out += hashlib.sha256(base + B(j.to_bytes(4, "big"))).digest()
        j += 1
    return int.from_bytes(out[:nbytes], "big") % (1 << bits)


def bit128(e, i):  # bits of a 128-bit challenge, i = 0 is the most significant
    return (e >> (127 - i)) & 1


# ---- randomness (doc §2 "Randomness" and "Deterministic randomness for golden transcripts") ----------
class OsSource:
    """The operating system's CSPRNG (the default source, and always the ΠRP verifier's weights)."""
    name = "os"

    def bytes(self, n):
        return secrets.token_bytes(n)


OS = OsSource()
_source = OS  # every draw of the party goes through this one source: OS, or an HmacDrbg (--drbg-seed)


def set_source(src):
    global _source
    _source = src


def get_source():
    return _source


def rand_bytes(n, src=None):
    """One request of n random bytes (one Generate of n bytes when the source is the DRBG)."""
    return (src or _source).bytes(n)


def rand_below(bound, src=None):
    """x <- [0, bound): one request of ceil(bits(bound)/8) + 16 bytes, big-endian, mod bound."""
    n = (bound.bit_length() + 7) // 8 + 16
    return int.from_bytes(rand_bytes(n, src), "big") % bound


def rand_nonzero(bound, src=None):
    """x <- [1, bound): draw from [0, bound) again while it is 0."""
    while True:
        x = rand_below(bound, src)
        if x:
            return x


def rand_unit(m, src=None):
    """r <- Z*_m: draw from [0, m) again until r != 0 and gcd(r, m) = 1."""
    while True:
        r = rand_below(m, src)
        if r and math.gcd(r, m) == 1:
            return r


# ---- field codecs (received values are untrusted) ----------------------------------------
HEXCHARS = set("0123456789abcdef")


def _hex(v, check, name):
    require(isinstance(v, str) and len(v) % 2 == 0 and set(v) <= HEXCHARS, check,
            f"{name}: not lower-case even-length hex")
    return bytes.fromhex(v)


def get_bytes(v, n, check, name):
    b = _hex(v, check, name)
    require(n is None or len(b) == n, check, f"{name}: {len(b)} bytes, expected {n}")
    return b


def get_fixed(v, width, check, name):
    return int.from_bytes(get_bytes(v, width, check, name), "big")


def get_unbounded(v, check, name):
    b = _hex(v, check, name)
    require(len(b) >= 1 and (b[0] != 0 or len(b) == 1), check, f"{name}: not minimal")
    return int.from_bytes(b, "big")


def get_list(v, n, check, name):
    require(isinstance(v, list) and len(v) == n, check, f"{name}: expected a list of {n}")
    return v


def get_obj(v, keys, check, name):
    require(isinstance(v, dict) and set(v) == set(keys), check,
            f"{name}: expected an object with fields {sorted(keys)}")
    return v


def hx(value, width):  # fixed-width hex
    return int(value).to_bytes(width, "big").hex()


def hu(value):  # unbounded (minimal) hex
    return ubytes(value).hex()


# ---- frames ------------------------------------------------------------------------------
def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def write_frame(fd, obj):
    """Sends one frame; returns its canonical JSON bytes (without the length)."""
    data = canonical(obj)
    _write_all(fd, struct.pack(">I", len(data)) + data)
    return data


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd, n, deadline, phase, timeout):
    out = b""
    while len(out) < n:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise ProtocolError(f"{phase}.timeout", f"no frame within {timeout:g} s")
        chunk = os.read(fd, n - len(out))
        if not chunk:
            raise ProtocolError(f"{phase}.closed", "the peer closed the connection")
        out += chunk
    return out


def read_frame(fd, phase, timeout=30.0, on_raw=None):
    """Returns (object, raw JSON bytes). Framing/JSON problems raise `<phase>.frame`. on_raw(raw), if given,
    sees the bytes of every frame read whole (abort frames and malformed ones too) before they are parsed."""
    deadline = time.monotonic() + timeout
    (n,) = struct.unpack(">I", _read_exact(fd, 4, deadline, phase, timeout))
    require(0 < n <= MAX_FRAME, f"{phase}.frame", f"frame length {n}")
    raw = _read_exact(fd, n, deadline, phase, timeout)
    if on_raw:
        on_raw(raw)
    return parse_frame(raw, phase)


def parse_frame(raw, phase):
    """The JSON of one frame (from a pipe or opened from the channel): (object, raw); an abort raises PeerAbort."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"{phase}.frame", f"not JSON: {exc}")
    require(isinstance(obj, dict), f"{phase}.frame", "frame is not an object")
    if obj.get("type") == "abort":
        raise PeerAbort(obj)
    require(canonical(obj) == raw, f"{phase}.frame", "frame is not canonical JSON")
    return obj, raw
