#!/usr/bin/env python3
"""Golden transcripts (protocol doc §2, "Deterministic randomness for golden transcripts"): py-P1 <-> py-P2 as
two party.py processes on pipes, every draw from HMAC_DRBG-SHA256, primes given by the fixtures:

  pair (fixtures/safe-primes.json) -> dkg --kind hd-master (fixtures/paillier-primes.json)
  -> sign --payload-kind eth-message --payload 676f6c64656e ("golden") --path m/0/7

  seeds: P1 = SHA-256("kcs golden p1"), P2 = SHA-256("kcs golden p2"), each phase a fresh Instantiate
  pids:  pid1 = SHA-256("kcs golden pid1"), pid2 = SHA-256("kcs golden pid2")

stdout: one line per phase, "<phase> <SHA-256 hex of P1's transcript file>" (nothing else). Checks that P1's and
P2's transcripts of each phase are byte-identical and that both parties succeed; exit 1 otherwise.
--keep DIR copies the transcripts (<phase>.jsonl) there. The ΠRP verifier's weights still come from the OS, so
only P2's verification of k3 is random; the frames are not."""
import argparse, hashlib, json, os, shutil, subprocess, sys, tempfile
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mpcref import drbg  # noqa: E402
from mpcref.encoding import B, H, KAPPA, S, SIGMA  # noqa: E402
from mpcref.groups import (G, P1_G, P_G, PG_G, PG_H, SQRT_G, SQRT_H, Paillier, inv, load_point,  # noqa: E402
                           powmod, pt, q)
from mpcref.hd import derive  # noqa: E402

PARTY = os.path.join(HERE, "party.py")
SAFE_PRIMES = os.path.join(HERE, "fixtures", "safe-primes.json")
PAILLIER_PRIMES = os.path.join(HERE, "fixtures", "paillier-primes.json")
SEED1, SEED2 = hashlib.sha256(b"kcs golden p1").hexdigest(), hashlib.sha256(b"kcs golden p2").hexdigest()
PID1, PID2 = hashlib.sha256(b"kcs golden pid1").hexdigest(), hashlib.sha256(b"kcs golden pid2").hexdigest()
PHASES = [("pair", ["--safe-primes", SAFE_PRIMES], []),
          ("dkg", ["--kind", "hd-master", "--paillier-primes", PAILLIER_PRIMES], []),
          ("sign", ["--path", "m/0/7", "--payload-kind", "eth-message", "--payload", b"golden".hex()],
           ["--approve-all"])]


class Draws:
    """The doc's draw rules over a fresh HMAC_DRBG of one role: to replay the table independently of roles.py."""
    def __init__(self, seed_hex, role):
        self.d = drbg.for_role(bytes.fromhex(seed_hex), role)

    def raw(self, n):
        return self.d.generate(n)

    def below(self, b):
        return int.from_bytes(self.d.generate((b.bit_length() + 7) // 8 + 16), "big") % b

    def nonzero(self, b):
        while True:
            x = self.below(b)
            if x:
                return x

    def unit(self, m):
        while True:
            x = self.below(m)
            if x and gcd(x, m) == 1:
                return x


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def bit(e, i):
    return (e >> (127 - i)) & 1


def replay(tr):
    """Re-derives every draw of the doc's table, in the table's order, from the two seeds and checks it against the
    frames of the three phases (tr: phase -> list of frame objects). Returns a list of mismatches."""
    bad = []

    def eq(what, got, want):
        if got != want:
            bad.append(what)

    fx = lambda v: int(v, 16)  # noqa: E731
    with open(SAFE_PRIMES) as f:
        sp = json.load(f)
    with open(PAILLIER_PRIMES) as f:
        pp = json.load(f)
    nped, pai = fx(sp["p"]) * fx(sp["q"]), Paillier(fx(pp["p"]) * fx(pp["q"]))
    N, N2 = pai.n, pai.n2
    enc = lambda m, r: (1 + m % N * N) * powmod(r, N, N2) % N2  # noqa: E731
    hx = lambda v, w: format(v, "0%dx" % (2 * w))  # noqa: E731
    # pairing
    p1, p2, (f1, f2, f3, f4) = Draws(SEED1, "p1"), Draws(SEED2, "p2"), tr["pair"]
    eq("pair sid1", p1.raw(32).hex(), f1["sid"])
    eq("pair sid2", p2.raw(32).hex(), f2["sid2"])
    h = powmod(p1.unit(nped), 2, nped)
    alpha = p1.below(nped << SIGMA)
    eq("pair h (u)", hx(h, 256), f3["h"])
    eq("pair g (alpha)", hx(powmod(h, alpha, nped), 256), f3["g"])
    e = fx(f3["uo"]["e"])
    eq("pair uo z_i", [fx(z) for z in f3["uo"]["z"]],
       [p1.below(1 << (2048 + SIGMA + SIGMA + 1)) + alpha * bit(e, i) for i in range(128)])
    # DKG
    p1, p2, (k1, k2, k3, k4) = Draws(SEED1, "p1"), Draws(SEED2, "p2"), tr["dkg"]
    sid1 = p1.raw(32)
    eq("dkg sid1", sid1.hex(), k1["sid"])
    x1 = p1.nonzero(q)
    cc1, rho_c = p1.raw(32), p1.raw(32)
    r_key = p1.unit(N)
    eq("dkg q1 (x1)", pt(x1 * G).hex(), k3["q1"])
    eq("dkg cc1", cc1.hex(), k3["cc1"])
    eq("dkg rho_c", rho_c.hex(), k3["rho"])
    eq("dkg c_key (r_key)", hx(enc(x1, r_key), 512), k1["c_key"])
    x2 = p2.nonzero(q)
    sid2, cc2 = p2.raw(32), p2.raw(32)
    eq("dkg q2 (x2)", pt(x2 * G).hex(), k2["q2"])
    eq("dkg sid2", sid2.hex(), k2["sid2"])
    eq("dkg cc2", cc2.hex(), k2["cc2"])
    eq("dkg p2 dl a", pt(p2.nonzero(q) * G).hex(), k2["dl"]["a"])
    rho = p1.below(P1_G)
    eq("dkg com_ped (rho)", hx(powmod(PG_G, x1, P_G) * powmod(PG_H, rho, P_G) % P_G, 256), k3["com_ped"])
    eq("dkg p1 dl a", pt(p1.nonzero(q) * G).hex(), k3["dl"]["a"])
    r0 = p1.nonzero(q)
    r2 = p1.below(q << SIGMA)
    r_rand = p1.unit(N)
    eq("dkg pdl R (r0)", pt(r0 * G).hex(), k3["pdl"]["r"])
    eq("dkg pdl c_r (r'', r_rand)", hx(enc(r2 * q + r0, r_rand), 512), k3["pdl"]["c_r"])
    pe = k3["pe"]
    e = fx(pe["e"])
    ei = [(e >> (13 * i)) & 0x1FFF for i in range(10)]
    rs, Rs = zip(*[(p1.below(q << (13 + SIGMA)), p1.unit(N)) for _ in range(10)])
    mu = p1.below(P1_G)  # (a ΠPE retry, probability ~2^-60, would show up as a mismatch here)
    eq("dkg pe d (r_i)", [fx(v) for v in pe["d"]], [ei[i] * x1 + rs[i] for i in range(10)])
    eq("dkg pe dd (R~_i)", [fx(v) for v in pe["dd"]], [powmod(r_key, ei[i], N) * Rs[i] % N for i in range(10)])
    eq("dkg pe nu (mu)", fx(pe["nu"]), (e * rho + mu) % P1_G)
    xs, rr = zip(*[(p1.below(q << SIGMA), p1.below(P1_G)) for _ in range(128)])
    eq("dkg rp c (x_i, r_i)", [fx(v) for v in k3["rp"]["c"]],
       [powmod(SQRT_G, x, P_G) * powmod(SQRT_H, r, P_G) % P_G for x, r in zip(xs, rr)])
    # signing (at m/0/7 of the hd-master key)
    p1, p2, (s0, s1, s2, s3, s4, s5, s6) = Draws(SEED1, "p1"), Draws(SEED2, "p2"), tr["sign"]
    eq("sign rid", p1.raw(32).hex(), s0["sid"])
    eq("sign sid2", p2.raw(32).hex(), s1["sid2"])
    k1_ = p1.nonzero(q)
    eq("sign r1 (k1)", pt(k1_ * G).hex(), s4["r1"])
    eq("sign p1 dl a", pt(p1.nonzero(q) * G).hex(), s4["dl"]["a"])
    eq("sign rho_c", p1.raw(32).hex(), s4["rho"])
    k2_ = p2.nonzero(q)
    R2 = k2_ * G
    eq("sign r2 (k2)", pt(R2).hex(), s3["r2"])
    eq("sign p2 dl a", pt(p2.nonzero(q) * G).hex(), s3["dl"]["a"])
    sid = H("sid", [S("dkg"), B(sid1), B(sid2), B(bytes.fromhex(PID1)), B(bytes.fromhex(PID2))])
    cc = H("chaincode", [B(sid), B(cc1), B(cc2)])
    delta, _, _ = derive(load_point(bytes.fromhex(k4["q"])), cc, [0, 7])
    c_key = fx(k1["c_key"])
    w1 = inv(k2_, q)
    w2 = w1 * ((x2 + delta) % q) % q
    R = k2_ * load_point(bytes.fromhex(s4["r1"]))
    r = int(R.x()) % q
    m = int(s0["m"], 16)
    w3 = p2.below(q * q << (2 * SIGMA))
    w4 = p2.unit(N)
    Cr = powmod(c_key * (1 + (q << SIGMA) * N) % N2, r, N2)
    eq("sign c (w3, w4)", hx(powmod(Cr, w1, N2) * enc(w1 * m + w2 * r + w3 * q, w4) % N2, 512), s5["c"])
    pr, w = s5["proof"], [w1, w2, w3]
    g_u, h_u = fx(tr["pair"][2]["g"]), fx(tr["pair"][2]["h"])
    s_ = [p2.below(nped << SIGMA) for _ in range(3)]
    eq("sign proof W (s_i)", [fx(v) for v in pr["w"]],
       [powmod(g_u, w[i], nped) * powmod(h_u, s_[i], nped) % nped for i in range(3)])
    while True:
        wp = [p2.below(q << (SIGMA + KAPPA)), p2.below(q << (SIGMA + KAPPA)), p2.below(q * q << (3 * SIGMA + KAPPA))]
        if wp[0] % q and wp[1] % q:
            break
    spp = [p2.below(nped << (2 * SIGMA + KAPPA)) for _ in range(3)]
    r_enc = p2.unit(N)
    e = fx(pr["e"])
    eq("sign proof z (w_i')", [fx(v) for v in pr["z"]], [wp[i] + e * w[i] for i in range(3)])
    eq("sign proof u (s_i')", [fx(v) for v in pr["u"]], [spp[i] + e * s_[i] for i in range(3)])
    eq("sign proof v (r_enc)", fx(pr["v"]), r_enc * powmod(w4, e, N) % N)
    return bad


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run_phase(phase, tmp, extra1, extra2):
    """P1 and P2 of one phase on two pipes; returns (rc1, rc2, transcript1 bytes, transcript2 bytes)."""
    a_r, a_w = os.pipe()  # P1 -> P2
    b_r, b_w = os.pipe()  # P2 -> P1
    procs, paths = [], []
    for role, me, peer, seed, extra, fin, fout in (("p1", PID1, PID2, SEED1, extra1, b_r, a_w),
                                                   ("p2", PID2, PID1, SEED2, extra2, a_r, b_w)):
        d = os.path.join(tmp, role)
        os.makedirs(d, exist_ok=True)
        tr = os.path.join(tmp, f"{phase}-{role}.jsonl")
        cmd = [sys.executable, PARTY, phase, "--role", role, "--pid-self", me, "--pid-peer", peer, "--state", d,
               "--drbg-seed", seed, "--transcript", tr, "--out", os.path.join(d, f"out-{phase}.json"), *extra]
        err = open(os.path.join(tmp, f"stderr-{phase}-{role}.txt"), "w")
        procs.append(subprocess.Popen(cmd, stdin=fin, stdout=fout, stderr=err))
        paths.append(tr)
    for fd in (a_r, a_w, b_r, b_w):
        os.close(fd)
    rcs = [p.wait(timeout=300) for p in procs]
    data = [open(p, "rb").read() if os.path.exists(p) else b"" for p in paths]
    return rcs[0], rcs[1], data[0], data[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keep", metavar="DIR", help="copy the transcripts to DIR/<phase>.jsonl")
    a = ap.parse_args()
    drbg.self_test()  # the generator must match NIST's answers before its output means anything
    ok = True
    with tempfile.TemporaryDirectory(prefix="mpcref-golden-") as tmp:
        for phase, extra1, extra2 in PHASES:
            rc1, rc2, t1, t2 = run_phase(phase, tmp, extra1, extra2)
            print(f"{phase} {hashlib.sha256(t1).hexdigest()}", flush=True)
            if rc1 or rc2:
                ok = False
                log(f"FAIL {phase}: exit codes p1 {rc1}, p2 {rc2}")
                for role in ("p1", "p2"):
                    log(open(os.path.join(tmp, f"stderr-{phase}-{role}.txt")).read())
            if t1 != t2:
                ok = False
                log(f"FAIL {phase}: the transcripts of P1 and P2 differ")
            if not t1:
                ok = False
                log(f"FAIL {phase}: empty transcript")
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                shutil.copyfile(os.path.join(tmp, f"{phase}-p1.jsonl"), os.path.join(a.keep, f"{phase}.jsonl"))
            if not ok:
                break
        if ok:  # every draw of the doc's table, replayed from the seeds, must be what the frames show
            tr = {ph: [json.loads(line) for line in open(os.path.join(tmp, f"{ph}-p1.jsonl"), "rb").read().splitlines()]
                  for ph, _, _ in PHASES}
            bad = replay(tr)
            if bad:
                ok = False
                log("FAIL draw order differs from the doc's table at: " + ", ".join(bad))
            else:
                log("draw order: every frame matches the doc's table replayed from the seeds")
        if ok:  # what was signed, for the log
            out = json.load(open(os.path.join(tmp, "p1", "out-sign.json")))
            log(f"signed at {out['path']} under {out['q']}: r {out['r']} s {out['s']} recid {out['recid']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
