#!/usr/bin/env python3
"""Play one role of one phase of kcs-2pecdsa/1 (see README.md).

Frames travel on stdin/stdout (4-byte big-endian length + canonical JSON), or with --connect / --listen inside
the authenticated, encrypted channel of doc §7 over TCP. Diagnostics go to stderr.
Exit 0 on success, 3 on a protocol abort (ours or the peer's), 2 on a usage error."""
import argparse, json, os, re, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpcref.encoding import (PeerAbort, ProtocolError, canonical, parse_frame, rand_bytes, read_frame,  # noqa: E402
                             set_source, write_frame)
from mpcref.groups import load_paillier_primes, load_safe_primes  # noqa: E402
from mpcref import channel, drbg, roles  # noqa: E402

P1_EVIL = {"n-small-factor", "n-2047", "c-key-plus-q", "c-key-out-of-range", "bad-opening", "bad-dl", "bad-vp",
           "bad-pdl", "bad-pe", "bad-rp", "bad-uo", "bad-sign-opening", "stale-sid"}
P2_EVIL = {"bad-dl2", "wrong-x2", "bad-proof-z1", "bad-proof-e", "bad-proof-w", "bit-leak", "bad-c-gcd",
           "replay-s3"}


class Usage(Exception):
    pass


class Dropped(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def load_json(state, name):
    try:
        with open(os.path.join(state, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as exc:
        raise Usage(f"cannot read {name} in {state}: {exc}")


def save_files(state, files):
    for name, data in files.items():
        path = os.path.join(state, name)
        if name.endswith(".jsonl"):
            with open(path, "a") as f:
                f.write(json.dumps(data, sort_keys=True) + "\n")
        else:
            with open(path + ".tmp", "w") as f:
                json.dump(data, f, indent=1, sort_keys=True)
            os.replace(path + ".tmp", path)
    files.clear()


def approver(approve_all):
    def approve(kind, payload, m, path):
        text = f"co-sign {kind} payload {payload.hex()} (m = {m.hex()}) at {path}?"
        if approve_all:
            log("approved (--approve-all): " + text)
            return True
        try:
            with open("/dev/tty", "r+") as tty:
                tty.write(text + " [y/N] ")
                tty.flush()
                return tty.readline().strip().lower() in ("y", "yes")
        except OSError:
            log("refused: no --approve-all and no terminal to ask")
            return False
    return approve


HEXID = re.compile(r"[0-9a-f]{64}")


def validate(a):
    """The usage checks that need neither the peer's identity nor the state folder (before any connection)."""
    for name in ("pid_self", "pid_peer", "peer_identity"):
        if getattr(a, name) is not None and not HEXID.fullmatch(getattr(a, name)):
            raise Usage(f"--{name.replace('_', '-')} takes 32 bytes of lower-case hex")
    if a.connect and a.listen:
        raise Usage("--connect and --listen exclude each other")
    if not (a.connect or a.listen):
        if a.pid_self is None or a.pid_peer is None:
            raise Usage("--pid-self and --pid-peer are required without --connect / --listen")
        for name in ("identity", "peer_identity", "ready"):
            if getattr(a, name) is not None:
                raise Usage(f"--{name.replace('_', '-')} needs --connect or --listen")
    if a.ready and not a.listen:
        raise Usage("--ready is for --listen")
    if a.connect or a.listen:
        try:
            channel.parse_hostport(a.connect or a.listen)
        except ValueError as exc:
            raise Usage(str(exc))
    evil = a.evil
    if evil and not (re.fullmatch(r"drop-after-[0-6]", evil) or evil in (P1_EVIL if a.role == "p1" else P2_EVIL)):
        raise Usage(f"--evil {evil} is not a switch of role {a.role}")
    if a.paillier_primes and not (a.phase == "dkg" and a.role == "p1"):
        raise Usage("--paillier-primes is for dkg as p1")
    if a.paillier_primes and evil in ("n-small-factor", "n-2047"):
        raise Usage(f"--evil {evil} makes its own N: no --paillier-primes")
    if a.drbg_seed is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", a.drbg_seed):
        raise Usage("--drbg-seed takes 32 bytes of hex (64 characters)")
    if a.phase == "sign" and a.role == "p1" and (
            not a.payload_kind or a.payload is None or not re.fullmatch(r"([0-9a-fA-F]{2})*", a.payload)):
        raise Usage("sign as p1 needs --payload-kind and --payload HEX")


def build(a):
    validate(a)
    pid_self, pid_peer = bytes.fromhex(a.pid_self), bytes.fromhex(a.pid_peer)
    evil = a.evil
    if a.drbg_seed is not None:
        set_source(drbg.for_role(bytes.fromhex(a.drbg_seed), a.role))  # before the first draw (sid1 / rid)
        if a.role == "p1" and ((a.phase == "pair" and not a.safe_primes)
                               or (a.phase == "dkg" and not a.paillier_primes)):
            log("note: --drbg-seed without given primes: the primes come from the OS, the transcript will differ")
    os.makedirs(a.state, exist_ok=True)
    if a.phase == "pair":
        if a.role == "p2":
            return roles.PairP2(pid_self, pid_peer, "p2", evil)
        try:
            return roles.PairP1(pid_self, pid_peer, load_safe_primes(a.safe_primes), evil)
        except (OSError, ValueError, KeyError, subprocess.SubprocessError) as exc:
            raise Usage(f"safe primes: {exc}")
    if a.phase == "dkg":
        if a.role == "p2":
            return roles.DkgP2(pid_self, pid_peer, "p2", evil)
        primes = None
        if a.paillier_primes:
            try:
                primes = load_paillier_primes(a.paillier_primes)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise Usage(f"paillier primes: {exc}")
        return roles.DkgP1(pid_self, pid_peer, a.kind, evil, primes)
    key, pairing = load_json(a.state, "key.json"), load_json(a.state, "pairing.json")
    if key.get("peer") != a.pid_peer or pairing.get("peer") != a.pid_peer:
        raise Usage("the key or pairing in --state belongs to another peer")
    if a.role == "p2":
        return roles.SignP2(pid_self, pid_peer, key, pairing, approver(a.approve_all), evil)
    try:
        return roles.SignP1(pid_self, pid_peer, key, pairing, a.path, a.payload_kind, bytes.fromhex(a.payload), evil)
    except ValueError as exc:
        raise Usage(str(exc))


def transcript_writer(path):
    """--transcript: every frame sent or received, in order, as its JSON bytes and "\n" (no length)."""
    if not path:
        return lambda data: None
    f = open(path, "ab")

    def record(data):
        f.write(bytes(data) + b"\n")
        f.flush()
    return record


class PipeLink:
    """Frames on stdin (fd 0) / stdout (fd 1), in the clear (the original transport)."""
    channel = False

    def send(self, obj, phase, timeout):
        return write_frame(1, obj)

    def recv(self, phase, timeout, on_raw):
        return read_frame(0, phase, timeout, on_raw=on_raw)

    def drop(self):
        os.close(1)

    def close(self):
        pass


class ChannelLink:
    """Frames sealed in the doc §7 channel: each canonical JSON is one secretstream message."""
    channel = True

    def __init__(self, ch):
        self.ch = ch

    def send(self, obj, phase, timeout):
        data = canonical(obj)
        self.ch.send(data, phase, timeout)
        return data

    def recv(self, phase, timeout, on_raw):
        raw = self.ch.recv(phase, timeout)
        if on_raw:
            on_raw(raw)
        return parse_frame(raw, phase)

    def drop(self):
        self.ch.close(linger=0)

    def close(self):
        self.ch.close()


def run(m, a, link):
    count = 0
    record = transcript_writer(a.transcript)

    def send(f):
        nonlocal count
        count += 1
        if a.evil == "stale-sid" and count == 2:
            f = {**f, "sid": rand_bytes(32).hex()}
        try:
            record(link.send(f, m.phase, a.timeout))
            if a.evil == "replay-s3" and f["type"] == "sign.s3":
                record(link.send(f, m.phase, a.timeout))
        except OSError:
            raise ProtocolError(f"{m.phase}.closed", "the peer closed the connection")
        if a.evil == f"drop-after-{f['step']}":
            link.drop()
            raise Dropped()

    try:
        frames = m.start() if a.role == "p1" else []
        while True:
            save_files(a.state, m.save)
            for f in frames:
                send(f)
            if m.done:
                log(f"[{a.role} {a.phase}] done")
                return 0, {"ok": True, **m.result}
            obj, raw = link.recv(m.phase, a.timeout, record)
            frames = m.handle(obj, raw)
    except PeerAbort as exc:
        log(f"[{a.role} {a.phase}] the peer aborted: {exc.frame.get('check')}")
        return 3, {"ok": False, "check": exc.frame.get("check"), "message": exc.frame.get("message", ""),
                   "peer": True}
    except Dropped:
        log(f"[{a.role} {a.phase}] evil: connection closed after step {a.evil.rsplit('-', 1)[1]}")
        return 3, {"ok": False, "check": "evil.drop", "message": a.evil}
    except Exception as exc:  # a bug of ours: tell the peer, exit 1
        if not isinstance(exc, ProtocolError):
            import traceback
            traceback.print_exc()
            exc = ProtocolError("internal", f"{type(exc).__name__}: {exc}")
        save_files(a.state, m.save)
        log(f"[{a.role} {a.phase}] abort {exc.check}: {exc.message}")
        # no abort frame after EOF, a timeout, or a channel failure (the connection is over)
        if not exc.check.endswith((".closed", ".timeout")) and not exc.check.startswith("channel."):
            abort = {"v": 1, "type": "abort", "step": m.next_step, "sid": (m.nonce or bytes(32)).hex(),
                     "check": exc.check, "message": exc.message}
            try:
                record(link.send(abort, m.phase, a.timeout))
            except (OSError, ProtocolError):
                pass
        return 1 if exc.check == "internal" else 3, {"ok": False, "check": exc.check, "message": exc.message}


def open_channel(a):
    """--connect / --listen: the identity, the TCP connection and the doc §7 handshake. Fills in a.pid_self and
    a.pid_peer (SHA-256 of the identity keys) and returns (ChannelLink, machine); the machine is built before
    connecting when the peer is already known (--pid-peer or --peer-identity), so that usage errors come before
    the connection, else right after the handshake."""
    path = a.identity or os.path.join(a.state, "identity.json")
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        ident, created = channel.Identity.load_or_create(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise Usage(f"--identity {path}: {exc}")
    log(f"identity {ident.public.hex()}")
    if created:
        log(f"(a new identity, written to {path})")
    if a.pid_self is not None and a.pid_self != ident.pid.hex():
        raise Usage(f"--pid-self is not SHA-256 of the identity key ({ident.pid.hex()})")
    a.pid_self = ident.pid.hex()
    pinned = bytes.fromhex(a.peer_identity) if a.peer_identity else None
    if pinned is not None:
        if a.pid_peer is not None and a.pid_peer != channel.pid_of(pinned).hex():
            raise Usage("--pid-peer is not SHA-256 of --peer-identity")
        a.pid_peer = channel.pid_of(pinned).hex()
    host, port = channel.parse_hostport(a.connect or a.listen)  # checked by validate()
    m = build(a) if a.pid_peer is not None else None
    if a.listen:
        try:
            srv = channel.listen(host, port)
        except OSError as exc:
            raise Usage(f"--listen {a.listen}: {exc}")
        bound = "%s:%d" % srv.getsockname()[:2]
        log(f"listening {bound}")
        if a.ready:
            with open(a.ready + ".tmp", "w") as f:
                f.write(bound + "\n")
            os.replace(a.ready + ".tmp", a.ready)
        sock = channel.accept_one(srv, a.wait)
    else:
        sock = channel.connect(host, port, a.wait)

    def on_hello(peer_pk):
        log(f"peer-identity {peer_pk.hex()}")
        if a.pid_peer is not None and a.pid_peer != channel.pid_of(peer_pk).hex():
            raise Usage(f"--pid-peer is not SHA-256 of the peer's identity {peer_pk.hex()}")

    try:
        ch = channel.Channel.handshake(sock, bool(a.connect), ident, pinned, a.timeout, on_hello)
    except BaseException:
        sock.close()
        raise
    a.pid_peer = channel.pid_of(ch.peer_identity).hex()
    log(f"channel up ({'initiator' if a.connect else 'responder'}), peer pid {a.pid_peer}")
    link = ChannelLink(ch)
    if m is None:
        try:
            m = build(a)
        except BaseException:
            link.close()
            raise
    return link, m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("phase", choices=["pair", "dkg", "sign"])
    ap.add_argument("--role", required=True, choices=["p1", "p2"])
    ap.add_argument("--pid-self", help="HEX32; with --connect/--listen optional (SHA-256 of the identity key)")
    ap.add_argument("--pid-peer", help="HEX32; with --connect/--listen optional (SHA-256 of the peer's key)")
    ap.add_argument("--state", required=True, help="folder of this role's JSON state")
    ap.add_argument("--connect", metavar="HOST:PORT", help="frames over the doc §7 channel: connect (initiator)")
    ap.add_argument("--listen", metavar="HOST:PORT", help="frames over the doc §7 channel: listen on HOST, "
                    "accept one connection (responder); port 0 picks one")
    ap.add_argument("--ready", metavar="FILE", help="--listen: write the bound HOST:PORT here once listening")
    ap.add_argument("--identity", metavar="FILE", help='channel: JSON {"secret": hex of the Ed25519 seed}, made '
                    "if missing (default: STATE/identity.json)")
    ap.add_argument("--peer-identity", metavar="HEX32", help="channel: pin the peer's Ed25519 public key")
    ap.add_argument("--wait", type=float, default=120.0, help="channel: seconds to wait for the connection "
                    "(--listen) or to retry a refused one (--connect); default 120")
    ap.add_argument("--kind", default="ecdsa", choices=["ecdsa", "hd-master"], help="dkg, p1 only")
    ap.add_argument("--path", default="m", help="sign, p1 only: m or m/0/7 (unhardened)")
    ap.add_argument("--payload-kind", choices=["digest", "eth-message"])
    ap.add_argument("--payload", help="hex: the 32-byte digest, or the message bytes")
    ap.add_argument("--safe-primes", help='pair, p1: JSON {"p": hex, "q": hex}; default: openssl prime -safe')
    ap.add_argument("--paillier-primes", help='dkg, p1: JSON {"p": hex, "q": hex} (N = p*q, p first); '
                    "default: fresh primes from the OS CSPRNG")
    ap.add_argument("--drbg-seed", metavar="HEX32", help="golden transcripts: every draw from HMAC_DRBG-SHA256 "
                    "seeded with these 32 bytes (64 hex), personalization by --role (doc §2)")
    ap.add_argument("--transcript", help="append every frame sent or received, one canonical JSON per line")
    ap.add_argument("--out", help="write the JSON result here")
    ap.add_argument("--evil", help="one deliberate deviation (see README)")
    ap.add_argument("--approve-all", action="store_true", help="sign, p2: approve without asking")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per frame / handshake message (default 30)")
    a = ap.parse_args()
    sys.stdout = sys.stderr  # stdout (fd 1) is for frames only
    link = None
    try:
        validate(a)
        if a.connect or a.listen:
            os.makedirs(a.state, exist_ok=True)
            link, m = open_channel(a)
        else:
            link, m = PipeLink(), build(a)
    except Usage as exc:
        log(f"usage: {exc}")
        return 2
    except ProtocolError as exc:  # the connection or the handshake failed: nothing was sent in the clear
        log(f"[{a.role} {a.phase}] channel: {exc.check}: {exc.message}")
        code, result = 3, {"ok": False, "check": exc.check, "message": exc.message}
    else:
        code, result = run(m, a, link)
        link.close()
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
