#!/usr/bin/env python3
"""py-P1 <-> py-P2 over TCP 127.0.0.1 inside the doc §7 channel, plus a hand-written peer that checks the
channel's bytes without mpcref/channel.py. Exit non-zero on any failure.

  1. pair -> dkg (hd-master) -> sign (m/0/7, eth-message) with P2 listening (P1 connects = channel initiator),
     then the same with P1 listening (P2 connects); pair runs unpinned and without --pid-*, the later phases
     pin --peer-identity from the "identity HEX" lines; pids must be SHA-256 of the identity keys.
  2. refusals: a wrong pinned identity on either side (channel.untrusted, exit 3), --pid-peer that is not the
     peer's (usage, exit 2); abort frames and a dropped connection inside the channel (three evil switches).
  3. a scripted peer built directly from doc §2/§7 (its own item encoding, nacl.bindings only): as initiator
     against a listening P2 and as responder against a connecting P1 — checks the hello, verifies the party's
     signature under the role it claims, exchanges real frames both ways; then a forged frame (channel.auth),
     a frame with TAG_FINAL (channel.auth), a signature made under the wrong role (channel.handshake),
     malformed hellos (channel.handshake) and a silent peer (channel.timeout)."""
import hashlib, json, os, re, secrets, socket, struct, subprocess, sys, tempfile, time
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import nacl.signing  # noqa: E402
from mpcref.checks import Checks, verify  # noqa: E402
from nacl import bindings as nb  # noqa: E402
from Crypto.Hash import keccak  # noqa: E402
from ecdsa import SECP256k1, VerifyingKey  # noqa: E402
from ecdsa.util import sigdecode_string  # noqa: E402

PY, PARTY = sys.executable, os.path.join(HERE, "party.py")
SAFE = os.path.join(HERE, "fixtures", "safe-primes.json")
q = SECP256k1.order
check = Checks('channeltest', verbose=True)


# ---- running two parties over TCP ------------------------------------------------------------
def start(phase, role, d, args, tag):
    out, err = os.path.join(d, f"out-{phase}-{tag}.json"), os.path.join(d, f"stderr-{phase}-{tag}.txt")
    for f in (out,):
        if os.path.exists(f):
            os.remove(f)
    cmd = [PY, PARTY, phase, "--role", role, "--state", d, "--out", out, *args]
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(err, "w")), out, err


def wait_ready(path, proc, limit=20.0):
    t = time.time()
    while time.time() - t < limit:
        if os.path.exists(path) and open(path).read().endswith("\n"):
            return open(path).read().strip()
        if proc.poll() is not None:
            return None
        time.sleep(0.02)
    return None


def pair_run(phase, d1, d2, listener, extra1=(), extra2=(), tag="run"):
    """P1 (d1) and P2 (d2); `listener` ("p1"/"p2") listens on 127.0.0.1:0, the other connects.
    Returns (rc1, out1, err1, rc2, out2, err2)."""
    dl, dc = (d1, d2) if listener == "p1" else (d2, d1)
    ready = os.path.join(dl, f"ready-{tag}")
    if os.path.exists(ready):
        os.remove(ready)
    lrole, crole = listener, "p2" if listener == "p1" else "p1"
    lx, cx = (extra1, extra2) if listener == "p1" else (extra2, extra1)
    pl, outl, errl = start(phase, lrole, dl, ["--listen", "127.0.0.1:0", "--ready", ready, *lx], tag)
    addr = wait_ready(ready, pl)
    if addr is None:
        pl.kill()
        pl.wait()
        return -1, {}, open(errl).read(), -1, {}, ""
    pc, outc, errc = start(phase, crole, dc, ["--connect", addr, *cx], tag)
    rcl, rcc = pl.wait(timeout=300), pc.wait(timeout=300)
    load = (lambda o: json.load(open(o)) if os.path.exists(o) else {})
    res = {lrole: (rcl, load(outl), open(errl).read()), crole: (rcc, load(outc), open(errc).read())}
    return (*res["p1"], *res["p2"])


def stderr_key(err, name):
    m = re.search(rf"^{name} ([0-9a-f]{{64}})", err, re.M)
    return m.group(1) if m else None


def eth_digest(msg):
    return keccak.new(digest_bits=256, data=b"\x19Ethereum Signed Message:\n" + str(len(msg)).encode() + msg).digest()


def flow(tmp, listener):
    from mpcref.hd import derive, parse_path, parse_xpub
    d1, d2 = os.path.join(tmp, f"{listener}-listens-p1"), os.path.join(tmp, f"{listener}-listens-p2")
    os.makedirs(d1), os.makedirs(d2)
    label = f"[{listener} listens]"
    # pair: no --pid-*, no pins, identities made on first use (STATE/identity.json)
    t = time.time()
    rc1, o1, e1, rc2, o2, e2 = pair_run("pair", d1, d2, listener, ["--safe-primes", SAFE])
    id1, id2 = stderr_key(e1, "identity"), stderr_key(e2, "identity")
    check(rc1 == rc2 == 0 and o1.get("n_ped") == o2.get("n_ped") and id1 and id2,
          f"{label} pair over the channel, unpinned: rc {rc1}/{rc2}  [{time.time() - t:.1f} s]")
    if not (id1 and id2):
        print(e1, e2)
        return
    pid1, pid2 = (hashlib.sha256(bytes.fromhex(i)).hexdigest() for i in (id1, id2))
    check(stderr_key(e1, "peer-identity") == id2 and stderr_key(e2, "peer-identity") == id1,
          f"{label} each side prints the other's identity as peer-identity")
    check(o1.get("peer") == pid2 and o2.get("peer") == pid1,
          f"{label} pid = SHA-256(identity public key) on both sides")
    check(json.load(open(os.path.join(d1, "identity.json"))).keys() == {"secret"}
          and nacl.signing.SigningKey(bytes.fromhex(json.load(open(os.path.join(d1, "identity.json")))["secret"]))
          .verify_key.encode().hex() == id1, f"{label} identity file is {{\"secret\": seed}} and matches the key")
    pin1, pin2 = ["--peer-identity", id2], ["--peer-identity", id1]
    # dkg hd-master: pinned, pids given and consistent on P1, omitted on P2
    t = time.time()
    rc1, o1, e1, rc2, o2, e2 = pair_run("dkg", d1, d2, listener,
                                        ["--kind", "hd-master", "--pid-self", pid1, "--pid-peer", pid2, *pin1], pin2)
    ok = rc1 == rc2 == 0 and o1 == o2 and "xpub" in o1
    check(ok, f"{label} dkg hd-master over the channel, pinned: rc {rc1}/{rc2}  [{time.time() - t:.1f} s]")
    if not ok:
        print(e1[-3000:], e2[-3000:])
        return
    xpub = o1["xpub"]
    # sign m/0/7 eth-message
    msg = f"channel test, {listener} listens".encode()
    t = time.time()
    rc1, o1, e1, rc2, o2, e2 = pair_run("sign", d1, d2, listener,
                                        ["--path", "m/0/7", "--payload-kind", "eth-message", "--payload", msg.hex(),
                                         *pin1], ["--approve-all", *pin2])
    m = eth_digest(msg)
    ok = rc1 == rc2 == 0 and o1 == o2 and o1.get("m") == m.hex()
    check(ok, f"{label} sign m/0/7 eth-message over the channel: rc {rc1}/{rc2}  [{time.time() - t:.1f} s]")
    if ok:
        Q, cc = parse_xpub(xpub)
        check(verify(o1["q"], m, o1["r"], o1["s"], o1["recid"])
              and derive(Q, cc, parse_path("m/0/7"))[1].to_bytes("compressed").hex() == o1["q"],
              f"{label} signature verifies, recovers and is low-s under CKDpub(xpub, m/0/7)")
    else:
        print(e1[-3000:], e2[-3000:])
    return d1, d2, id1, id2


def refusals(tmp, dirs):
    d1, d2, id1, id2 = dirs
    stranger = nacl.signing.SigningKey.generate().verify_key.encode().hex()
    for pinner in ("p2", "p1"):
        for listener in ("p2", "p1"):
            x1 = ["--peer-identity", stranger if pinner == "p1" else id2, "--safe-primes", SAFE]
            x2 = ["--peer-identity", stranger if pinner == "p2" else id1]
            a, b = os.path.join(tmp, f"r-{pinner}-{listener}-1"), os.path.join(tmp, f"r-{pinner}-{listener}-2")
            os.makedirs(a), os.makedirs(b)
            for src, dst in ((d1, a), (d2, b)):
                with open(os.path.join(src, "identity.json")) as f, open(os.path.join(dst, "identity.json"), "w") as g:
                    g.write(f.read())
            rc1, o1, e1, rc2, o2, e2 = pair_run("pair", a, b, listener, x1, x2)
            (rp, op), (ro, oo) = ((rc1, o1), (rc2, o2)) if pinner == "p1" else ((rc2, o2), (rc1, o1))
            check(rp == 3 and op.get("check") == "channel.untrusted" and ro == 3
                  and oo.get("check") in ("channel.closed", "channel.untrusted")
                  and not os.path.exists(os.path.join(a, "pairing.json"))
                  and not os.path.exists(os.path.join(b, "pairing.json")),
                  f"{pinner} pins a stranger ({listener} listens): {pinner} rc {rp} {op.get('check')}, "
                  f"other rc {ro} {oo.get('check')}")
    a, b = os.path.join(tmp, "r-pid-1"), os.path.join(tmp, "r-pid-2")
    os.makedirs(a), os.makedirs(b)
    rc1, o1, e1, rc2, o2, e2 = pair_run("pair", a, b, "p2", ["--safe-primes", SAFE, "--pid-peer", "00" * 32])
    check(rc1 == 2 and rc2 == 3 and "usage" in e1, f"--pid-peer not SHA-256 of the peer's key: usage (rc {rc1}, "
          f"peer rc {rc2} {o2.get('check')})")
    rc = subprocess.run([PY, PARTY, "pair", "--role", "p1", "--state", a, "--connect", "127.0.0.1:1",
                         "--pid-self", "00" * 32], capture_output=True, text=True)
    check(rc.returncode == 2, f"--pid-self not SHA-256 of the identity key: usage (rc {rc.returncode})")


def evil_over_channel(tmp, dirs):
    """Abort frames and a dropped connection travel through the channel like on pipes."""
    import shutil
    d1, d2, id1, id2 = dirs
    cases = [("p1", "bad-pdl", "dkg", "dkg.pdl", "p2"), ("p2", "bad-proof-z1", "sign", "sign.proof", "p1"),
             ("p2", "drop-after-3", "sign", "sign.closed", "p2")]
    for n, (side, evil, phase, want, listener) in enumerate(cases):
        a, b = os.path.join(tmp, f"ev{n}-1"), os.path.join(tmp, f"ev{n}-2")
        shutil.copytree(d1, a), shutil.copytree(d2, b)
        x1 = {"dkg": ["--kind", "ecdsa"], "sign": ["--path", "m/0/7", "--payload-kind", "digest",
                                                  "--payload", secrets.token_hex(32)]}[phase]
        x1, x2 = [*x1, "--peer-identity", id2], ["--peer-identity", id1] + (["--approve-all"] if phase == "sign" else [])
        (x1 if side == "p1" else x2).extend(["--evil", evil])
        t = time.time()
        rc1, o1, e1, rc2, o2, e2 = pair_run(phase, a, b, listener, x1, x2)
        (hrc, ho), erc = ((rc2, o2), rc1) if side == "p1" else ((rc1, o1), rc2)
        check(hrc == 3 and ho.get("check") == want and erc == 3,
              f"{side} --evil {evil} ({phase}, {listener} listens): honest rc {hrc} {ho.get('check')}, evil rc {erc}"
              f"  [{time.time() - t:.1f} s]")


# ---- a peer written from the doc alone ---------------------------------------------------------
def item(tag, data):
    return tag + struct.pack(">I", len(data)) + data


def doc_H(label, items):
    return hashlib.sha256(item(b"S", b"kcs-2pecdsa/1") + item(b"S", label.encode()) + b"".join(items)).digest()


def canon(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class Raw:
    def __init__(self, sock):
        self.s = sock
        self.s.settimeout(20)

    def send(self, data):
        self.s.sendall(struct.pack(">I", len(data)) + data)

    def recv(self):
        n = struct.unpack(">I", self._exact(4))[0]
        return self._exact(n)

    def _exact(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError("closed")
            b += c
        return b


class Scripted:
    """One side of §7 by hand. sign_role overrides the role we sign under (to forge a wrong-role signature)."""
    def __init__(self, sock, initiator, sign_role=None, hello=None):
        self.io, self.init = Raw(sock), initiator
        self.sk = nacl.signing.SigningKey.generate()
        self.id = self.sk.verify_key.encode()
        self.eph_pk, self.eph_sk = nb.crypto_kx_keypair()
        self.nonce = secrets.token_bytes(32)
        self.sign_role, self.hello = sign_role, hello

    def handshake(self):
        """Returns a list of findings (empty = the party's hello and auth are as the doc says)."""
        bad = []
        self.io.send(self.hello if self.hello is not None else b"\x01" + self.id + self.eph_pk + self.nonce)
        h = self.io.recv()
        if len(h) != 97 or h[0] != 1:
            return [f"hello: {len(h)} bytes, first {h[:1].hex()}"]
        self.peer_id, peer_eph, peer_nonce = h[1:33], h[33:65], h[65:97]
        if self.init:
            rx, tx = nb.crypto_kx_client_session_keys(self.eph_pk, self.eph_sk, peer_eph)
            eI, eR, nI, nR, iI, iR = self.eph_pk, peer_eph, self.nonce, peer_nonce, self.id, self.peer_id
        else:
            rx, tx = nb.crypto_kx_server_session_keys(self.eph_pk, self.eph_sk, peer_eph)
            eI, eR, nI, nR, iI, iR = peer_eph, self.eph_pk, peer_nonce, self.nonce, self.peer_id, self.id
        items = [item(b"B", x) for x in (eI, eR, nI, nR, iI, iR)]
        mine, theirs = ("initiator", "responder") if self.init else ("responder", "initiator")
        self.tx = nb.crypto_secretstream_xchacha20poly1305_state()
        header = nb.crypto_secretstream_xchacha20poly1305_init_push(self.tx, tx)
        sig = self.sk.sign(doc_H("channel", [item(b"S", (self.sign_role or mine).encode())] + items)).signature
        self.io.send(sig + header)
        a = self.io.recv()
        if len(a) != 88:
            return bad + [f"auth: {len(a)} bytes"]
        try:
            nacl.signing.VerifyKey(self.peer_id).verify(doc_H("channel", [item(b"S", theirs.encode())] + items), a[:64])
        except Exception:
            bad.append(f"the party's signature does not verify as H(channel, [S {theirs}, ...])")
        self.rx = nb.crypto_secretstream_xchacha20poly1305_state()
        nb.crypto_secretstream_xchacha20poly1305_init_pull(self.rx, a[64:], rx)
        return bad

    def send_frame(self, obj, tag=nb.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE, flip=False):
        c = bytearray(nb.crypto_secretstream_xchacha20poly1305_push(self.tx, canon(obj), None, tag))
        if flip:
            c[-1] ^= 1
        self.io.send(bytes(c))

    def recv_frame(self):
        m, tag = nb.crypto_secretstream_xchacha20poly1305_pull(self.rx, self.io.recv())
        return json.loads(m), m, tag


def scripted_vs_party(tmp, n, party_role, party_listens, script, extra=(), party_timeout=None):
    """Runs party.py `pair` as party_role against script(Scripted-socket) and returns (rc, out, stderr, result of
    script)."""
    d = os.path.join(tmp, f"s{n}")
    os.makedirs(d)
    extra = list(extra) + (["--timeout", str(party_timeout)] if party_timeout else [])
    if party_role == "p1":
        extra += ["--safe-primes", SAFE]
    if party_listens:
        ready = os.path.join(d, "ready")
        p, out, err = start("pair", party_role, d, ["--listen", "127.0.0.1:0", "--ready", ready, *extra], "s")
        addr = wait_ready(ready, p)
        host, port = addr.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
    else:
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        p, out, err = start("pair", party_role, d, ["--connect", "127.0.0.1:%d" % srv.getsockname()[1], *extra], "s")
        srv.settimeout(20)
        sock, _ = srv.accept()
        srv.close()
    try:
        res = script(sock, party_listens)  # the party listens: the script connected, it is the initiator
    except Exception as exc:
        res = f"script failed: {type(exc).__name__}: {exc}"
    rc = p.wait(timeout=60)
    sock.close()
    return rc, (json.load(open(out)) if os.path.exists(out) else {}), open(err).read(), res


def scripted(tmp):
    # 1. scripted P1 (initiator) -> listening party P2: real frames both ways, then a forged frame
    def p1_script(sock, initiator):
        s = Scripted(sock, initiator)
        bad = s.handshake()
        sid1 = secrets.token_bytes(32).hex()
        s.send_frame({"v": 1, "type": "pair.p1", "step": 1, "sid": sid1})
        obj, raw, tag = s.recv_frame()
        if not (obj.get("type") == "pair.p2" and obj.get("sid") == sid1 and len(obj.get("sid2", "")) == 64
                and tag == nb.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE and canon(obj) == raw):
            bad.append(f"pair.p2 frame: {obj} tag {tag}")
        s.send_frame({"v": 1, "type": "pair.p3", "step": 3, "sid": sid1}, flip=True)
        return bad, s.id.hex()
    rc, out, err, res = scripted_vs_party(tmp, 1, "p2", True, p1_script)
    bad, sid_hex = res if isinstance(res, tuple) else ([res], None)
    check(not bad and stderr_key(err, "peer-identity") == sid_hex,
          f"scripted initiator vs listening party P2: hello, signature (role responder), keys, frames {bad or ''}")
    check(rc == 3 and out.get("check") == "channel.auth", f"forged sealed frame: rc {rc} {out.get('check')}")

    # 2. listening scripted P2 (responder) <- connecting party P1: receive pair.p1, answer, then TAG_FINAL
    def p2_script(sock, initiator):
        s = Scripted(sock, initiator)
        bad = s.handshake()
        obj, raw, tag = s.recv_frame()
        if not (obj.get("type") == "pair.p1" and set(obj) == {"v", "type", "step", "sid"} and canon(obj) == raw
                and tag == nb.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE):
            bad.append(f"pair.p1 frame: {obj} tag {tag}")
        s.send_frame({"v": 1, "type": "pair.p2", "step": 2, "sid": obj.get("sid"), "sid2": "11" * 32})
        obj, raw, tag = s.recv_frame()  # pair.p3 (P1's ΠUO over the channel)
        if obj.get("type") != "pair.p3":
            bad.append(f"pair.p3 frame: {obj.get('type')}")
        s.send_frame({"v": 1, "type": "pair.p4", "step": 4, "sid": obj.get("sid"), "result": "confirm"},
                     tag=nb.crypto_secretstream_xchacha20poly1305_TAG_FINAL)
        return bad, s.id.hex()
    rc, out, err, res = scripted_vs_party(tmp, 2, "p1", False, p2_script)
    bad = res[0] if isinstance(res, tuple) else [res]
    check(not bad, f"scripted responder vs connecting party P1: hello, signature (role initiator), frames {bad or ''}")
    check(rc == 3 and out.get("check") == "channel.auth"
          and not os.path.exists(os.path.join(tmp, "s2", "pairing.json")),
          f"frame with TAG_FINAL: rc {rc} {out.get('check')}, no pairing stored")

    # 3. signature under the wrong role (a reflected signature), both directions
    for n, (role, listens, wrong) in enumerate((("p2", True, "responder"), ("p1", False, "initiator")), 3):
        def bad_role(sock, initiator, wrong=wrong):
            s = Scripted(sock, initiator, sign_role=wrong)
            try:
                s.handshake()
            except EOFError:
                pass
            return None
        rc, out, err, _ = scripted_vs_party(tmp, n, role, listens, bad_role)
        check(rc == 3 and out.get("check") == "channel.handshake",
              f"peer signs as {wrong} (not its own role): party {role} rc {rc} {out.get('check')}")

    # 4. malformed hellos: version 02, 96 bytes, a low-order (all-zero) X25519 key
    for n, (what, make) in enumerate((("hello version 02", lambda s: b"\x02" + s.id + s.eph_pk + s.nonce),
                                      ("hello of 96 bytes", lambda s: b"\x01" + s.id + s.eph_pk + s.nonce[:31]),
                                      ("hello with ephemeral key 0", lambda s: b"\x01" + s.id + bytes(32) + s.nonce)),
                                     50):
        def malformed(sock, initiator, make=make):
            s = Scripted(sock, initiator)
            s.hello = make(s)
            try:
                s.handshake()
            except (EOFError, OSError):
                pass
        rc, out, err, _ = scripted_vs_party(tmp, n, "p2", True, malformed)
        check(rc == 3 and out.get("check") == "channel.handshake", f"{what}: rc {rc} {out.get('check')}")

    # 5. a peer that sends its hello and then nothing: the party's deadline (--timeout 2 here)
    def silent(sock, initiator):
        s = Scripted(sock, initiator)
        s.io.send(b"\x01" + s.id + s.eph_pk + s.nonce)
        s.io.recv()
        time.sleep(4)
    t = time.time()
    rc, out, err, _ = scripted_vs_party(tmp, 6, "p1", False, silent, party_timeout=2)
    check(rc == 3 and out.get("check") == "channel.timeout",
          f"silent peer after hello: rc {rc} {out.get('check')} after {time.time() - t:.1f} s")


def main():
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="mpcref-ch-") as tmp:
        dirs = None
        for listener in ("p2", "p1"):
            t = time.time()
            r = flow(tmp, listener)
            dirs = dirs or r
            print(f"flow with {listener} listening: {time.time() - t:.1f} s", flush=True)
        if dirs:
            t = time.time()
            refusals(tmp, dirs)
            evil_over_channel(tmp, dirs)
            print(f"refusals: {time.time() - t:.1f} s", flush=True)
        t = time.time()
        scripted(tmp)
        print(f"scripted peer: {time.time() - t:.1f} s", flush=True)
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
