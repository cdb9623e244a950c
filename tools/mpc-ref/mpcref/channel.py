"""The authenticated, encrypted channel of protocol doc §7, over a connected TCP socket, with PyNaCl (libsodium).

  hello  (both at once)  01 ‖ Ed25519 identity pk (32) ‖ X25519 ephemeral pk (32, crypto_kx_keypair) ‖ nonce (32)
  keys                   the side that connected (initiator) = crypto_kx client, the other = crypto_kx server
  auth   (both)          Ed25519 signature (64) over H("channel", [S role, B eph_I, B eph_R, B nonce_I, B nonce_R,
                         B id_I, B id_R]) with role = the signer's own ("initiator"/"responder")
                         ‖ secretstream header (24) of the signer's push stream under its tx key
  frames                 each frame's canonical JSON = one crypto_secretstream_xchacha20poly1305 message, TAG_MESSAGE

Every handshake message and every sealed frame is length (4 bytes big-endian) ‖ bytes. Each message has its own
deadline. Check names: channel.untrusted (pinned identity differs), channel.handshake (malformed hello/auth, bad
signature), channel.auth (a sealed frame fails authentication or carries another tag), channel.closed /
channel.timeout during the handshake, <phase>.closed / <phase>.timeout afterwards (as on pipes)."""
import errno, hashlib, json, os, secrets, socket, struct, time

import nacl.exceptions
import nacl.signing
from nacl import bindings as nb

from .encoding import B, H, MAX_FRAME, ProtocolError, S, require

VERSION = 1
HELLO_LEN = 1 + 32 + 32 + 32
AUTH_LEN = 64 + nb.crypto_secretstream_xchacha20poly1305_HEADERBYTES  # 88
ABYTES = nb.crypto_secretstream_xchacha20poly1305_ABYTES  # 17
TAG_MESSAGE = nb.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE


class Identity:
    """An Ed25519 identity: the 32-byte seed is the secret; pid = SHA-256(public key)."""
    def __init__(self, seed):
        self.key = nacl.signing.SigningKey(bytes(seed))
        self.seed, self.public = bytes(seed), bytes(self.key.verify_key)

    @property
    def pid(self):
        return hashlib.sha256(self.public).digest()

    @classmethod
    def load_or_create(cls, path):
        """JSON {"secret": hex of the 32-byte seed}; a fresh key is written (0600) when the file is missing."""
        if not os.path.exists(path):
            seed = secrets.token_bytes(32)
            tmp = path + ".tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                json.dump({"secret": seed.hex()}, f)
                f.write("\n")
            os.replace(tmp, path)
            return cls(seed), True
        with open(path) as f:
            obj = json.load(f)
        seed = bytes.fromhex(obj["secret"])
        if len(seed) != 32:
            raise ValueError("secret is not 32 bytes")
        return cls(seed), False


def pid_of(public_key):
    return hashlib.sha256(bytes(public_key)).digest()


def transcript_hash(role, eph_i, eph_r, nonce_i, nonce_r, id_i, id_r):
    """What each side signs (its own role) and checks (the peer's role)."""
    return H("channel", [S(role), B(eph_i), B(eph_r), B(nonce_i), B(nonce_r), B(id_i), B(id_r)])


# ---- socket I/O --------------------------------------------------------------------------
def _recv_exact(sock, n, deadline, check_prefix, timeout):
    out = bytearray()
    while len(out) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ProtocolError(f"{check_prefix}.timeout", f"no message within {timeout:g} s")
        sock.settimeout(left)
        try:
            chunk = sock.recv(n - len(out))
        except socket.timeout:
            raise ProtocolError(f"{check_prefix}.timeout", f"no message within {timeout:g} s")
        except OSError as exc:  # e.g. ECONNRESET
            raise ProtocolError(f"{check_prefix}.closed", f"the connection failed: {exc}")
        if not chunk:
            raise ProtocolError(f"{check_prefix}.closed", "the peer closed the connection")
        out += chunk
    return bytes(out)


def recv_message(sock, check_prefix, timeout, max_len):
    """One `length (4, big-endian) ‖ bytes` message within `timeout` seconds. Returns (length, bytes) where bytes
    is None when the length is outside (0, max_len] (the caller names the check)."""
    deadline = time.monotonic() + timeout
    (n,) = struct.unpack(">I", _recv_exact(sock, 4, deadline, check_prefix, timeout))
    if not 0 < n <= max_len:
        return n, None
    return n, _recv_exact(sock, n, deadline, check_prefix, timeout)


def send_message(sock, data, check_prefix, timeout):
    sock.settimeout(timeout)
    try:
        sock.sendall(struct.pack(">I", len(data)) + data)
    except socket.timeout:
        raise ProtocolError(f"{check_prefix}.timeout", f"could not send within {timeout:g} s")
    except OSError as exc:
        raise ProtocolError(f"{check_prefix}.closed", f"the peer closed the connection: {exc}")


# ---- connecting ----------------------------------------------------------------------------
def parse_hostport(text):
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{text!r} is not HOST:PORT")
    return host.strip("[]"), int(port)


def connect(host, port, wait):
    """Connects (the channel's initiator); retries a refused connection for up to `wait` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=max(1.0, deadline - time.monotonic()))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            return sock
        except OSError as exc:
            if exc.errno not in (errno.ECONNREFUSED, errno.ECONNRESET) or time.monotonic() >= deadline:
                raise ProtocolError("channel.closed", f"cannot connect to {host}:{port}: {exc}")
            time.sleep(0.05)


def listen(host, port):
    srv = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, port))
    srv.listen(1)
    return srv


def accept_one(srv, wait):
    """Accepts exactly one connection (the channel's responder), then closes the listening socket."""
    srv.settimeout(wait)
    try:
        sock, _ = srv.accept()
    except socket.timeout:
        raise ProtocolError("channel.timeout", f"no connection within {wait:g} s")
    finally:
        srv.close()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


# ---- the channel -------------------------------------------------------------------------
class Channel:
    """A handshaken channel: send(plaintext) seals one frame, recv(phase, timeout) opens one."""

    def __init__(self, sock, peer_identity, tx_state, rx_state):
        self.sock, self.peer_identity = sock, peer_identity
        self._tx, self._rx, self.broken = tx_state, rx_state, False

    @classmethod
    def handshake(cls, sock, initiator, identity, pinned=None, timeout=30.0, on_hello=None):
        """Runs §7 steps 1-3. `pinned`: the peer's Ed25519 public key we insist on (None: any). `on_hello(peer_pk)`
        runs after the peer's hello passed the pin check and before our auth is sent (it may raise to stop)."""
        ch = "channel"
        eph_pk, eph_sk = nb.crypto_kx_keypair()
        nonce = secrets.token_bytes(32)
        hello = bytes([VERSION]) + identity.public + eph_pk + nonce
        send_message(sock, hello, ch, timeout)  # both sides at once: send first, then read
        n, peer_hello = recv_message(sock, ch, timeout, HELLO_LEN)
        require(peer_hello is not None and n == HELLO_LEN, "channel.handshake", f"hello of {n} bytes, expected 97")
        require(peer_hello[0] == VERSION, "channel.handshake", f"hello version {peer_hello[0]}, expected 1")
        peer_id, peer_eph, peer_nonce = peer_hello[1:33], peer_hello[33:65], peer_hello[65:97]
        if pinned is not None and peer_id != bytes(pinned):
            raise ProtocolError("channel.untrusted",
                                f"the peer's identity {peer_id.hex()} is not the pinned {bytes(pinned).hex()}")
        if on_hello:
            on_hello(peer_id)
        try:
            if initiator:
                rx, tx = nb.crypto_kx_client_session_keys(eph_pk, eph_sk, peer_eph)
            else:
                rx, tx = nb.crypto_kx_server_session_keys(eph_pk, eph_sk, peer_eph)
        except nacl.exceptions.CryptoError as exc:  # the peer's ephemeral key is a low-order point
            raise ProtocolError("channel.handshake", f"key exchange failed: {exc}")
        if initiator:
            order = (eph_pk, peer_eph, nonce, peer_nonce, identity.public, peer_id)
            mine, theirs = "initiator", "responder"
        else:
            order = (peer_eph, eph_pk, peer_nonce, nonce, peer_id, identity.public)
            mine, theirs = "responder", "initiator"
        tx_state = nb.crypto_secretstream_xchacha20poly1305_state()
        header = nb.crypto_secretstream_xchacha20poly1305_init_push(tx_state, tx)
        sig = identity.key.sign(transcript_hash(mine, *order)).signature
        send_message(sock, sig + header, ch, timeout)
        n, auth = recv_message(sock, ch, timeout, AUTH_LEN)
        require(auth is not None and n == AUTH_LEN, "channel.handshake", f"auth of {n} bytes, expected 88")
        try:
            nacl.signing.VerifyKey(peer_id).verify(transcript_hash(theirs, *order), auth[:64])
        except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError, ValueError) as exc:
            raise ProtocolError("channel.handshake", f"the peer's signature does not verify: {exc}")
        rx_state = nb.crypto_secretstream_xchacha20poly1305_state()
        nb.crypto_secretstream_xchacha20poly1305_init_pull(rx_state, auth[64:], rx)
        return cls(sock, peer_id, tx_state, rx_state)

    def send(self, plaintext, phase, timeout=30.0):
        require(len(plaintext) <= MAX_FRAME, f"{phase}.frame", f"frame of {len(plaintext)} bytes")
        c = nb.crypto_secretstream_xchacha20poly1305_push(self._tx, bytes(plaintext), None, TAG_MESSAGE)
        send_message(self.sock, c, phase, timeout)

    def recv(self, phase, timeout=30.0):
        n, c = recv_message(self.sock, phase, timeout, MAX_FRAME + ABYTES)
        if c is None or n < ABYTES + 1:  # a frame is never empty; too long means it cannot be a frame either
            self.broken = True
            raise ProtocolError("channel.auth" if c is not None else f"{phase}.frame", f"sealed frame length {n}")
        try:
            m, tag = nb.crypto_secretstream_xchacha20poly1305_pull(self._rx, c)
        except Exception as exc:  # PyNaCl raises RuntimeError("Unexpected failure") on a forgery
            self.broken = True
            raise ProtocolError("channel.auth", f"a sealed frame failed authentication ({type(exc).__name__})")
        if tag != TAG_MESSAGE:
            self.broken = True
            raise ProtocolError("channel.auth", f"secretstream tag {tag}, expected MESSAGE")
        return m

    def close(self, linger=2.0):
        """Half-closes, drains what the peer still sends (so the kernel does not answer with RST), closes."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + linger
            while time.monotonic() < deadline:
                self.sock.settimeout(max(0.01, deadline - time.monotonic()))
                if not self.sock.recv(65536):
                    break
        except OSError:
            pass
        finally:
            self.sock.close()
