#!/usr/bin/env python3
"""py-P1 <-> py-P2 through pair -> DKG -> sign, then every evil switch once, then channeltest.py (the same over
TCP inside the doc §7 channel). Exit non-zero on any failure."""
import hashlib, json, os, secrets, shutil, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gmpy2  # noqa: E402
from Crypto.Hash import keccak  # noqa: E402
from ecdsa import SECP256k1, VerifyingKey  # noqa: E402
from ecdsa.util import sigdecode_string  # noqa: E402
from mpcref.encoding import canonical  # noqa: E402
from mpcref.groups import (P_G, Paillier, load_paillier_primes, load_point, load_safe_primes, powmod,  # noqa: E402
                           random_prime)
from mpcref import drbg  # noqa: E402
from mpcref.checks import Checks, verify  # noqa: E402
from mpcref.hd import derive, parse_path, parse_xpub  # noqa: E402

PARTY = os.path.join(HERE, "party.py")
FIXTURE = os.path.join(HERE, "fixtures", "safe-primes.json")
PAILLIER_FIXTURE = os.path.join(HERE, "fixtures", "paillier-primes.json")
GOLDEN = os.path.join(HERE, "golden.py")
PID1, PID2 = hashlib.sha256(b"py-p1 identity").hexdigest(), hashlib.sha256(b"py-p2 identity").hexdigest()
q = SECP256k1.order
check = Checks('selftest', verbose=False)


def run(phase, d1, d2, extra1=(), extra2=(), evil1=None, evil2=None):
    """Runs P1 and P2 of one phase connected by two pipes; returns (rc1, out1, rc2, out2)."""
    a_r, a_w = os.pipe()  # P1 -> P2
    b_r, b_w = os.pipe()  # P2 -> P1
    procs, outs = [], []
    for role, d, sid_self, sid_peer, extra, evil, fin, fout in (
            ("p1", d1, PID1, PID2, extra1, evil1, b_r, a_w), ("p2", d2, PID2, PID1, extra2, evil2, a_r, b_w)):
        os.makedirs(d, exist_ok=True)
        out = os.path.join(d, f"out-{phase}.json")
        if os.path.exists(out):
            os.remove(out)
        cmd = [sys.executable, PARTY, phase, "--role", role, "--pid-self", sid_self, "--pid-peer", sid_peer,
               "--state", d, "--out", out, *extra] + (["--evil", evil] if evil else [])
        err = open(os.path.join(d, f"stderr-{phase}-{role}.txt"), "w")
        procs.append(subprocess.Popen(cmd, stdin=fin, stdout=fout, stderr=err))
        outs.append(out)
    for fd in (a_r, a_w, b_r, b_w):
        os.close(fd)
    rcs = [p.wait(timeout=120) for p in procs]
    res = [json.load(open(o)) if os.path.exists(o) else {} for o in outs]
    return rcs[0], res[0], rcs[1], res[1]


def primitives():
    check(gmpy2.is_prime(P_G) and gmpy2.is_prime((P_G - 1) // 2), "RFC 3526 prime and (p-1)/2 prime")
    load_safe_primes(FIXTURE)  # raises unless both are 1024-bit safe primes giving a 2048-bit N_ped
    load_paillier_primes(PAILLIER_FIXTURE)  # raises unless 1024-bit primes, top two bits set, 2048-bit N
    try:
        check(drbg.self_test() > 0, "HMAC_DRBG")
    except AssertionError as exc:
        check(False, f"HMAC_DRBG known answers: {exc}")
    p, p2 = random_prime(512), random_prime(512)
    pai, m, r = Paillier(p * p2, p, p2), secrets.randbelow(p * p2), secrets.randbelow(p * p2 - 2) + 2
    n2 = pai.n2
    check(pai.enc(m, r) == (1 + m * pai.n) * powmod(r, pai.n, n2) % n2 and pai.dec(pai.enc(m, r)) == m,
          "Paillier Enc(m; r) = (1 + mN) r^N mod N^2 and Dec")
    master = "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB"
    child = "xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH"
    (Q, cc), (Qc, ccc) = parse_xpub(master), parse_xpub(child)
    _, Qd, ccd = derive(Q, cc, [0])
    check(Qd == Qc and ccd == ccc, "BIP-32 vector 2: CKDpub m -> m/0")
    check(canonical({"b": "/", "a": [1, {"d": 2, "c": "é"}]}) == '{"a":[1,{"c":"é","d":2}],"b":"/"}'.encode(),
          "canonical JSON")


def eth_digest(msg):
    return keccak.new(digest_bits=256, data=b"\x19Ethereum Signed Message:\n" + str(len(msg)).encode() + msg).digest()


def honest(tmp):
    d1, d2 = os.path.join(tmp, "p1"), os.path.join(tmp, "p2")
    t = time.time()
    rc1, o1, rc2, o2 = run("pair", d1, d2, extra1=["--safe-primes", FIXTURE])
    check(rc1 == rc2 == 0 and o1.get("n_ped") == o2.get("n_ped"), f"pair: rc {rc1}/{rc2} {o1} {o2}")
    print(f"pair            {time.time() - t:5.1f} s", flush=True)
    keys = {}
    for kind in ("ecdsa", "hd-master"):
        k1, k2 = os.path.join(tmp, kind + "-p1"), os.path.join(tmp, kind + "-p2")
        shutil.copytree(d1, k1), shutil.copytree(d2, k2)
        t = time.time()
        rc1, o1, rc2, o2 = run("dkg", k1, k2, extra1=["--kind", kind])
        ok = rc1 == rc2 == 0 and o1 == o2 and "q" in o1
        check(ok, f"dkg {kind}: rc {rc1}/{rc2} {o1} {o2}")
        if kind == "hd-master" and ok:
            Q, cc = parse_xpub(o1["xpub"])
            check(Q.to_bytes("compressed").hex() == o1["q"] and cc.hex() == o1["chain_code"], "xpub = (Q, cc)")
        keys[kind] = (k1, k2, o1)
        print(f"dkg {kind:11s} {time.time() - t:5.1f} s", flush=True)
    cases = [("ecdsa", "m", "digest", secrets.token_bytes(32)), ("ecdsa", "m", "eth-message", b"hello from kcs"),
             ("hd-master", "m/0/7", "eth-message", b"child key m/0/7"), ("hd-master", "m", "digest", bytes(32))]
    for kind, path, pk, payload in cases:
        k1, k2, dkg = keys[kind]
        t = time.time()
        rc1, o1, rc2, o2 = run("sign", k1, k2, ["--path", path, "--payload-kind", pk, "--payload", payload.hex()],
                               ["--approve-all"])
        m = payload if pk == "digest" else eth_digest(payload)
        what = f"sign {kind} {path} {pk}"
        check(rc1 == rc2 == 0 and o1 == o2 and o1.get("m") == m.hex(), f"{what}: rc {rc1}/{rc2} {o1} {o2}")
        if rc1 == 0:
            check(verify(o1["q"], m, o1["r"], o1["s"], o1["recid"]), f"{what}: python-ecdsa verify/recover/low-s")
            if kind == "hd-master":
                Q, cc = parse_xpub(dkg["xpub"])
                check(derive(Q, cc, parse_path(path))[1].to_bytes("compressed").hex() == o1["q"],
                      f"{what}: Q' = CKDpub(joint xpub, {path})")
            else:
                check(o1["q"] == dkg["q"], f"{what}: Q' = Q")
        print(f"{what:36s} {time.time() - t:5.1f} s", flush=True)
    return d1, d2, keys["ecdsa"][0], keys["ecdsa"][1]


# (evil side, switch, phase, the check the honest side must name)
EVIL = [("p1", "bad-uo", "pair", "pair.uo"),
        ("p1", "n-small-factor", "dkg", "dkg.n"), ("p1", "n-2047", "dkg", "dkg.n"),
        ("p1", "c-key-plus-q", "dkg", "dkg.pe"), ("p1", "c-key-out-of-range", "dkg", "dkg.c-key"),
        ("p1", "bad-opening", "dkg", "dkg.opening"), ("p1", "bad-dl", "dkg", "dkg.dl"),
        ("p1", "bad-vp", "dkg", "dkg.vp"), ("p1", "bad-pdl", "dkg", "dkg.pdl"), ("p1", "bad-pe", "dkg", "dkg.pe"),
        ("p1", "bad-rp", "dkg", "dkg.rp"), ("p1", "stale-sid", "dkg", "dkg.frame"),
        ("p1", "bad-sign-opening", "sign", "sign.opening"), ("p1", "stale-sid", "sign", "sign.frame"),
        ("p1", "drop-after-2", "sign", "sign.closed"), ("p1", "drop-after-1", "dkg", "dkg.closed"),
        ("p2", "bad-dl2", "dkg", "dkg.dl"), ("p2", "bad-dl2", "sign", "sign.dl"),
        ("p2", "drop-after-2", "dkg", "dkg.closed"),
        ("p2", "wrong-x2", "sign", "sign.proof"), ("p2", "bad-proof-z1", "sign", "sign.proof"),
        ("p2", "bad-proof-e", "sign", "sign.proof"), ("p2", "bad-proof-w", "sign", "sign.proof"),
        ("p2", "bit-leak", "sign", "sign.proof"), ("p2", "bad-c-gcd", "sign", "sign.c"),
        ("p2", "replay-s3", "sign", "sign.frame"), ("p2", "drop-after-3", "sign", "sign.closed")]


def evil_case(tmp, n, case, pair_dirs, key_dirs):
    side, evil, phase, want = case
    src = key_dirs if phase == "sign" else pair_dirs
    d1, d2 = os.path.join(tmp, f"e{n}-p1"), os.path.join(tmp, f"e{n}-p2")
    if phase == "pair":
        os.makedirs(d1), os.makedirs(d2)
    else:
        shutil.copytree(src[0], d1), shutil.copytree(src[1], d2)
    extra1 = {"pair": ["--safe-primes", FIXTURE], "dkg": ["--kind", "ecdsa"],
              "sign": ["--payload-kind", "digest", "--payload", secrets.token_hex(32)]}[phase]
    t = time.time()
    rc1, o1, rc2, o2 = run(phase, d1, d2, extra1, ["--approve-all"] if phase == "sign" else [],
                           evil if side == "p1" else None, evil if side == "p2" else None)
    (hrc, ho), (erc, eo) = ((rc2, o2), (rc1, o1)) if side == "p1" else ((rc1, o1), (rc2, o2))
    hd = d2 if side == "p1" else d1
    msgs = [f"{side} --evil {evil} ({phase}): honest rc {hrc} check {ho.get('check')}, evil rc {erc}"]
    ok = hrc == 3 and ho.get("ok") is False and ho.get("check") == want and erc == 3
    if phase != "sign":
        ok = ok and not os.path.exists(os.path.join(hd, "key.json" if phase == "dkg" else "pairing.json"))
    if phase == "sign" and side == "p2":
        ok = ok and not json.load(open(os.path.join(d1, "key.json"))).get("locked")
    return ok, f"{msgs[0]}  [{time.time() - t:4.1f} s]"


def transcripts(tmp, pair_dirs):
    """--transcript on both sides of a DKG that P1 breaks: both files hold the same frames, the abort included."""
    d1, d2 = os.path.join(tmp, "t-p1"), os.path.join(tmp, "t-p2")
    shutil.copytree(pair_dirs[0], d1), shutil.copytree(pair_dirs[1], d2)
    t1, t2 = os.path.join(tmp, "t1.jsonl"), os.path.join(tmp, "t2.jsonl")
    rc1, o1, rc2, o2 = run("dkg", d1, d2, ["--kind", "ecdsa", "--transcript", t1,
                                           "--paillier-primes", PAILLIER_FIXTURE], ["--transcript", t2],
                           evil1="bad-pdl")
    a, b = open(t1, "rb").read(), open(t2, "rb").read()
    types = [json.loads(line)["type"] for line in a.splitlines()]
    check(rc2 == 3 and o2.get("check") == "dkg.pdl" and a == b and types == ["dkg.k1", "dkg.k2", "dkg.k3", "abort"]
          and all(canonical(json.loads(line)) == line for line in a.splitlines()),
          f"--transcript: both sides record the same frames, abort included ({types})")


def golden():
    """golden.py twice: it must pass and print the same three lines both times."""
    outs = []
    for _ in range(2):
        p = subprocess.run([sys.executable, GOLDEN], capture_output=True, text=True, timeout=300)
        outs.append(p.stdout)
        check(p.returncode == 0, f"golden.py exit {p.returncode}: {p.stderr[-2000:]}")
    check(outs[0] == outs[1] and [line.split()[0] for line in outs[0].splitlines()] == ["pair", "dkg", "sign"],
          f"golden transcripts are deterministic: {outs}")
    print("golden          " + outs[0].replace("\n", "\n                ").rstrip(), flush=True)


def channel():
    """channeltest.py: the same phases over TCP inside the doc §7 channel, refusals and a hand-written peer."""
    t = time.time()
    p = subprocess.run([sys.executable, os.path.join(HERE, "channeltest.py")], capture_output=True, text=True,
                       timeout=600)
    last = (p.stdout.strip().splitlines() or [""])[-1]
    check(p.returncode == 0, f"channeltest.py exit {p.returncode}: {p.stdout[-3000:]}{p.stderr[-2000:]}")
    print(f"channel         {time.time() - t:5.1f} s  ({last.strip()})", flush=True)


def main():
    t0 = time.time()
    primitives()
    with tempfile.TemporaryDirectory(prefix="mpcref-") as tmp:
        pair1, pair2, key1, key2 = honest(tmp)
        transcripts(tmp, (pair1, pair2))
        golden()
        with ThreadPoolExecutor(max_workers=2) as pool:
            futs = [pool.submit(evil_case, tmp, n, c, (pair1, pair2), (key1, key2)) for n, c in enumerate(EVIL)]
            for f in futs:
                ok, line = f.result()
                check(ok, line)
                print(("ok   " if ok else "BAD  ") + line, flush=True)
    channel()
    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
