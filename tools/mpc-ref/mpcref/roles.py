"""State machines of P1 and P2 for pairing (§4), DKG (§5) and signing (§6): pure message-in/message-out.

start() -> frames (P1 only); handle(frame, raw) -> frames. After each call, `save` holds state files to
write *before* the frames are sent; `done` and `result` tell when and how the phase ended."""
import gmpy2
from Crypto.Hash import keccak
from ecdsa import SECP256k1, VerifyingKey
from ecdsa.util import sigdecode_string
from . import proofs as pf
from .encoding import (B, F, H, OS, P, S, SIGMA, ProtocolError, canonical, get_bytes, get_fixed, get_obj, hu, hx,
                       rand_below, rand_bytes, rand_nonzero, rand_unit, require)
from .groups import (G, INFINITY, P1_G, P_G, PG_G, PG_H, Paillier, check_modulus, get_point, inv, load_point,
                     paillier_primes, ped_params, powmod, pt, q, random_prime, sub)
from .hd import PathError, derive, parse_path, xpub

FIELDS = {
    "pair.p1": set(), "pair.p2": {"sid2"}, "pair.p3": {"n_ped", "g", "h", "uo"}, "pair.p4": {"result"},
    "dkg.k1": {"kind", "com", "n", "c_key"}, "dkg.k2": {"sid2", "q2", "dl", "cc2"},
    "dkg.k3": {"q1", "cc1", "rho", "dl", "com_ped", "vp", "pdl", "pe", "rp"},
    "dkg.k4": {"result", "transcript", "q"},
    "sign.s0": {"q", "path", "payload_kind", "payload", "m"}, "sign.s1": {"sid2"}, "sign.s2": {"com"},
    "sign.s3": {"r2", "dl"}, "sign.s4": {"r1", "dl", "rho"}, "sign.s5": {"c", "proof"},
    "sign.s6": {"r", "s", "recid"},
}


def sid_of(context, n1, n2, pid1, pid2):
    return H("sid", [S(context), B(n1), B(n2), B(pid1), B(pid2)])


def payload_digest(kind, payload):
    if kind == "digest" and len(payload) == 32:
        return payload
    if kind == "eth-message":
        data = b"\x19Ethereum Signed Message:\n" + str(len(payload)).encode() + payload
        return keccak.new(digest_bits=256, data=data).digest()
    raise ValueError(f"cannot recompute the digest of payload kind {kind!r}")


def verify_signature(Qp, m, r, s, recid):
    sig = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    try:
        VerifyingKey.from_public_point(Qp, curve=SECP256k1).verify_digest(sig, m, sigdecode=sigdecode_string)
        keys = VerifyingKey.from_public_key_recovery_with_digest(sig, m, SECP256k1, sigdecode=sigdecode_string)
        return recid in (0, 1) and 0 < s <= q // 2 and keys[recid].pubkey.point == Qp
    except Exception:
        return False


def bump_u(h):  # tamper: an unbounded hex integer plus one
    return hu(int(h, 16) + 1)


class Machine:
    phase = ""
    first_out = 1  # the step number of this role's first frame

    def __init__(self, pid_self, pid_peer, role, evil=None):
        self.role, self.evil = role, evil
        self.pid1, self.pid2 = (pid_self, pid_peer) if role == "p1" else (pid_peer, pid_self)
        self.nonce = rand_bytes(32) if role == "p1" else None  # sid1 / rid
        self.expect = None if role == "p1" else self.first_in()
        self.next_step, self.done, self.result, self.save = self.first_out, False, None, {}

    def first_in(self):
        return min(t for t in FIELDS if t.startswith(self.phase + "."))

    def frame(self, typ, **fields):  # also sets the type expected next (step + 1), if any
        step = int(typ[-1])
        self.next_step, nxt = step + 2, typ[:-1] + str(step + 1)
        self.expect = nxt if nxt in FIELDS else None
        return {"v": 1, "type": typ, "step": step, "sid": self.nonce.hex(), **fields}

    def handle(self, obj, raw):
        ch = f"{self.phase}.frame"
        require(type(obj.get("v")) is int and obj["v"] == 1, ch, "v is not 1")
        require(obj.get("type") == self.expect and type(obj.get("step")) is int
                and obj["step"] == int(self.expect[-1]), ch,
                f"expected {self.expect}, got {obj.get('type')} step {obj.get('step')}")
        require(set(obj) == {"v", "type", "step", "sid"} | FIELDS[self.expect], ch, "unknown or missing field")
        if self.nonce is None:
            self.nonce = get_bytes(obj["sid"], 32, ch, "sid")
        require(obj["sid"] == self.nonce.hex(), ch, "frame of another session (sid)")
        self.next_step = obj["step"] + 1
        return getattr(self, "on_" + self.expect.split(".")[1])(obj, raw)


# ---- pairing ------------------------------------------------------------------------------
class PairP1(Machine):
    phase = "pair"

    def __init__(self, pid_self, pid_peer, safe_primes, evil=None):
        super().__init__(pid_self, pid_peer, "p1", evil)
        self.factors = safe_primes

    def start(self):
        return [self.frame("pair.p1")]

    def on_p2(self, obj, raw):
        sid2 = get_bytes(obj["sid2"], 32, "pair.frame", "sid2")
        sid = sid_of("pair", self.nonce, sid2, self.pid1, self.pid2)
        n, g, h, alpha = ped_params(*self.factors)
        uo = pf.uo_prove(sid, self.pid1, n, g, h, alpha, self.factors)
        if self.evil == "bad-uo":
            uo["z"][0] = bump_u(uo["z"][0])
        self.params = {"n_ped": hx(n, 256), "g": hx(g, 256), "h": hx(h, 256)}
        return [self.frame("pair.p3", uo=uo, **self.params)]

    def on_p4(self, obj, raw):
        require(obj["result"] == "confirm", "pair.frame", "result is not confirm")
        self.result = {"peer": self.pid2.hex(), **self.params}
        factors = {"p": format(self.factors[0], "x"), "q": format(self.factors[1], "x")}
        self.save, self.done = {"pairing.json": {"role": "p1", **self.result, **factors}}, True
        return []


class PairP2(Machine):
    phase, first_out = "pair", 2

    def on_p1(self, obj, raw):
        self.sid2 = rand_bytes(32)
        self.sid = sid_of("pair", self.nonce, self.sid2, self.pid1, self.pid2)
        return [self.frame("pair.p2", sid2=self.sid2.hex())]

    def on_p3(self, obj, raw):
        n, g, h = (get_fixed(obj[k], 256, "pair.uo", k) for k in ("n_ped", "g", "h"))
        pf.uo_verify(obj["uo"], self.sid, self.pid1, n, g, h)
        self.result = {"peer": self.pid1.hex(), "n_ped": obj["n_ped"], "g": obj["g"], "h": obj["h"]}
        self.save, self.done = {"pairing.json": {"role": "p2", **self.result}}, True
        return [self.frame("pair.p4", result="confirm")]


# ---- DKG ----------------------------------------------------------------------------------
def key_result(kind, Q, cc):
    out = {"q": pt(Q).hex()}
    if kind == "hd-master":
        out.update(chain_code=cc.hex(), xpub=xpub(Q, cc))
    return out


class DkgP1(Machine):
    phase = "dkg"

    def __init__(self, pid_self, pid_peer, kind, evil=None, primes=None):
        super().__init__(pid_self, pid_peer, "p1", evil)  # draws sid1
        self.kind, self.primes = kind, primes  # primes: given Paillier (p, p2), or None to make them

    def start(self):
        ev = self.evil
        self.x1 = rand_nonzero(q)
        self.Q1 = self.x1 * G
        self.cc1 = rand_bytes(32)
        self.rho_c = rand_bytes(32)
        if ev == "n-small-factor":  # 8191 * a prime, still 2048 bits; every proof is made honestly
            while True:
                big = int(gmpy2.next_prime(((1 << 2047) // 8191) + rand_below(1 << 2030, OS)))
                if gmpy2.gcd(8191 * big, 8190 * (big - 1)) == 1:
                    break
            self.p, self.p2 = 8191, big
        elif ev == "n-2047":
            self.p, self.p2 = random_prime(1024), random_prime(1023)
        elif self.primes:
            self.p, self.p2 = self.primes
        else:
            self.p, self.p2 = paillier_primes()  # from the OS CSPRNG, never from the DRBG
        self.pai = Paillier(self.p * self.p2, self.p, self.p2)
        self.r_key = rand_unit(self.pai.n)
        self.x_enc = self.x1 + q if ev == "c-key-plus-q" else self.x1  # the plaintext of c_key
        self.c_key = self.pai.enc(self.x_enc, self.r_key)
        c_key_sent = self.c_key + self.pai.n2 if ev == "c-key-out-of-range" else self.c_key
        com = H("dkg/com", [B(self.nonce), B(self.pid1), S(self.kind), P(pt(self.Q1)), B(self.cc1), B(self.rho_c)])
        f = self.frame("dkg.k1", kind=self.kind, com=com.hex(), n=hx(self.pai.n, 256),
                       c_key=hx(min(c_key_sent, (1 << 4096) - 1), 512))
        self.json1 = canonical(f)
        return [f]

    def on_k2(self, obj, raw):
        sid2 = get_bytes(obj["sid2"], 32, "dkg.frame", "sid2")
        cc2 = get_bytes(obj["cc2"], 32, "dkg.frame", "cc2")
        self.sid = sid = sid_of("dkg", self.nonce, sid2, self.pid1, self.pid2)
        self.Q2 = get_point(obj["q2"], "dkg.q2", "q2")
        pf.dl_verify(obj["dl"], "dkg/dl2", sid, self.pid2, self.Q2, "dkg.dl")
        self.Q = self.Q1 + self.Q2
        require(self.Q != INFINITY, "dkg.q2", "Q1 + Q2 is the point at infinity")
        ev, x1, xe, pai = self.evil, self.x1, self.x_enc, self.pai
        # draw order (doc §2 table): rho, ΠDL, (ΠVP draws nothing), ΠPDL, ΠPE, ΠRP
        rho = rand_below(P1_G)
        com_ped = powmod(PG_G, x1, P_G) * powmod(PG_H, rho, P_G) % P_G
        dl = pf.dl_prove("dkg/dl1", sid, self.pid1, x1, self.Q1)
        vp = pf.vp_prove(sid, self.pid1, pai)
        pdl = pf.pdl_prove(sid, self.pid1, pai, self.c_key, self.Q1, xe, self.r_key)
        pe = pf.pe_prove(sid, self.pid1, pai, self.c_key, com_ped, xe, self.r_key, rho)
        rp = pf.rp_prove(sid, self.pid1, com_ped, x1, rho)
        msg = {"q1": pt(self.Q1).hex(), "cc1": self.cc1.hex(), "rho": self.rho_c.hex(), "dl": dl,
               "com_ped": hx(com_ped, 256), "vp": vp, "pdl": pdl, "pe": pe, "rp": rp}
        if ev == "bad-opening":
            msg["rho"] = bytes([self.rho_c[0] ^ 1]).hex() + msg["rho"][2:]
        elif ev == "bad-dl":
            msg["dl"]["z"] = hx(int(msg["dl"]["z"], 16) % (q - 1) + 1, 32)
        elif ev == "bad-vp":
            msg["vp"][0] = hx(int(msg["vp"][0], 16) * 2 % pai.n, 256)
        elif ev == "bad-pdl":
            msg["pdl"]["z"] = bump_u(msg["pdl"]["z"])
        elif ev == "bad-pe":
            msg["pe"]["nu"] = hx((int(msg["pe"]["nu"], 16) + 1) % P1_G, 256)
        elif ev == "bad-rp":
            msg["rp"]["f"][0] = hx((int(msg["rp"]["f"][0], 16) + 1) % P1_G, 256)
        self.cc = H("chaincode", [B(sid), B(self.cc1), B(cc2)])
        f = self.frame("dkg.k3", **msg)
        self.transcript = H("dkg/transcript", [B(self.json1), B(raw), B(canonical(f))])
        return [f]

    def on_k4(self, obj, raw):
        require(obj["result"] == "confirm", "dkg.frame", "result is not confirm")
        require(obj["transcript"] == self.transcript.hex(), "dkg.transcript", "transcript hash differs")
        require(obj["q"] == pt(self.Q).hex(), "dkg.transcript", "joint key differs")
        self.result = key_result(self.kind, self.Q, self.cc)
        key = {"role": "p1", "kind": self.kind, "peer": self.pid2.hex(), "sid": self.sid.hex(),
               "transcript": self.transcript.hex(), "q1": pt(self.Q1).hex(), "q2": pt(self.Q2).hex(),
               "x1": hx(self.x1, 32), "n": hx(self.pai.n, 256), "p": format(self.p, "x"), "p2": format(self.p2, "x"),
               "c_key": hx(self.c_key, 512), "locked": False, **self.result}
        self.save, self.done = {"key.json": key}, True
        return []


class DkgP2(Machine):
    phase, first_out = "dkg", 2

    def on_k1(self, obj, raw):
        require(obj["kind"] in ("ecdsa", "hd-master"), "dkg.frame", "unknown kind")
        self.kind, self.com = obj["kind"], get_bytes(obj["com"], 32, "dkg.frame", "com")
        self.pai = Paillier(get_fixed(obj["n"], 256, "dkg.n", "n"))
        self.c_key = get_fixed(obj["c_key"], 512, "dkg.c-key", "c_key")
        require(0 < self.c_key < self.pai.n2, "dkg.c-key", "c_key not in (0, N^2)")
        self.x2 = rand_nonzero(q)
        self.Q2 = self.x2 * G
        sid2 = rand_bytes(32)
        self.cc2 = rand_bytes(32)
        self.sid = sid_of("dkg", self.nonce, sid2, self.pid1, self.pid2)
        dl = pf.dl_prove("dkg/dl2", self.sid, self.pid2, self.x2, self.Q2)
        if self.evil == "bad-dl2":
            dl["z"] = hx(int(dl["z"], 16) % (q - 1) + 1, 32)
        f = self.frame("dkg.k2", sid2=sid2.hex(), q2=pt(self.Q2).hex(), dl=dl, cc2=self.cc2.hex())
        self.json12 = [raw, canonical(f)]
        return [f]

    def on_k3(self, obj, raw):
        sid, pai = self.sid, self.pai
        cc1 = get_bytes(obj["cc1"], 32, "dkg.opening", "cc1")
        rho_c = get_bytes(obj["rho"], 32, "dkg.opening", "rho")
        q1raw = get_bytes(obj["q1"], 33, "dkg.opening", "q1")
        com = H("dkg/com", [B(self.nonce), B(self.pid1), S(self.kind), P(q1raw), B(cc1), B(rho_c)])
        require(com == self.com, "dkg.opening", "opening does not match the commitment of step 1")
        Q1 = get_point(obj["q1"], "dkg.q1", "q1")
        pf.dl_verify(obj["dl"], "dkg/dl1", sid, self.pid1, Q1, "dkg.dl")
        check_modulus(pai.n, "dkg.n")
        require(pai.unit(self.c_key), "dkg.c-key", "gcd(c_key, N) != 1")
        pf.vp_verify(obj["vp"], sid, self.pid1, pai.n)
        pf.pdl_verify(obj["pdl"], sid, self.pid1, pai, self.c_key, Q1)
        com_ped = get_fixed(obj["com_ped"], 256, "dkg.pe", "com_ped")
        pf.pe_verify(obj["pe"], sid, self.pid1, pai, self.c_key, com_ped)
        pf.rp_verify(obj["rp"], sid, self.pid1, com_ped)
        Q = Q1 + self.Q2
        require(Q != INFINITY, "dkg.q1", "Q1 + Q2 is the point at infinity")
        cc = H("chaincode", [B(sid), B(cc1), B(self.cc2)])
        transcript = H("dkg/transcript", [B(self.json12[0]), B(self.json12[1]), B(raw)])
        self.result = key_result(self.kind, Q, cc)
        key = {"role": "p2", "kind": self.kind, "peer": self.pid1.hex(), "sid": sid.hex(),
               "transcript": transcript.hex(), "q1": pt(Q1).hex(), "q2": pt(self.Q2).hex(),
               "x2": hx(self.x2, 32), "n": hx(pai.n, 256), "c_key": hx(self.c_key, 512), **self.result}
        self.save, self.done = {"key.json": key}, True
        return [self.frame("dkg.k4", result="confirm", transcript=transcript.hex(), q=pt(Q).hex())]


# ---- signing ------------------------------------------------------------------------------
class SignBase(Machine):
    phase, first_out = "sign", 0

    def __init__(self, pid_self, pid_peer, role, key, pairing, evil=None):
        super().__init__(pid_self, pid_peer, role, evil)
        self.key = key
        self.Q = load_point(bytes.fromhex(key["q"]))
        self.pai = Paillier(int(key["n"], 16), *((int(key["p"], 16), int(key["p2"], 16)) if role == "p1" else ()))
        self.c_key = int(key["c_key"], 16)
        self.ped = tuple(int(pairing[k], 16) for k in ("n_ped", "g", "h"))

    def derive(self, path):
        steps = parse_path(path)
        if steps and self.key["kind"] != "hd-master":
            raise PathError("a plain ecdsa key has no chain code: only path m")
        self.delta, self.Qp, _ = derive(self.Q, bytes.fromhex(self.key.get("chain_code", "00" * 32)), steps)
        self.path = path

    def statement(self, r, c, Q2p, R2):
        ck1 = self.c_key * (1 + (q << SIGMA) * self.pai.n) % self.pai.n2
        return {"sid": self.sid, "pid2": self.pid2, "pai": self.pai, "ck1": ck1, "Cr": powmod(ck1, r, self.pai.n2),
                "c": c, "Q2p": Q2p, "R2": R2, "m": self.m, "r": r, "ped": self.ped}

    def out(self, r, s, recid):
        return {"q": pt(self.Qp).hex(), "q_master": self.key["q"], "path": self.path, "m": self.m.hex(),
                "r": hx(r, 32), "s": hx(s, 32), "recid": recid}


class SignP1(SignBase):
    def __init__(self, pid_self, pid_peer, key, pairing, path, payload_kind, payload, evil=None):
        super().__init__(pid_self, pid_peer, "p1", key, pairing, evil)
        self.derive(path)
        self.payload_kind, self.payload = payload_kind, payload
        self.m = payload_digest(payload_kind, payload)
        self.x1 = int(key["x1"], 16)

    def start(self):
        require(not self.key.get("locked"), "sign.locked", "this key is locked after a failed signature check")
        return [self.frame("sign.s0", q=self.key["q"], path=self.path, payload_kind=self.payload_kind,
                           payload=self.payload.hex(), m=self.m.hex())]

    def on_s1(self, obj, raw):
        sid2 = get_bytes(obj["sid2"], 32, "sign.frame", "sid2")
        self.sid = sid_of("sign", self.nonce, sid2, self.pid1, self.pid2)
        self.k1 = rand_nonzero(q)
        self.R1 = self.k1 * G
        self.dl = pf.dl_prove("sign/dl1", self.sid, self.pid1, self.k1, self.R1)
        self.rho_c = rand_bytes(32)
        com = H("sign/com", [B(self.sid), B(self.pid1), B(self.m), P(pt(self.R1)),
                             P(bytes.fromhex(self.dl["a"])), F(int(self.dl["z"], 16), 32), B(self.rho_c)])
        return [self.frame("sign.s2", com=com.hex())]

    def on_s3(self, obj, raw):
        self.R2 = get_point(obj["r2"], "sign.r2", "r2")
        pf.dl_verify(obj["dl"], "sign/dl2", self.sid, self.pid2, self.R2, "sign.dl")
        rho = self.rho_c if self.evil != "bad-sign-opening" else bytes(32)
        return [self.frame("sign.s4", r1=pt(self.R1).hex(), dl=self.dl, rho=rho.hex())]

    def on_s5(self, obj, raw):
        pai = self.pai
        c = get_fixed(obj["c"], 512, "sign.c", "c")
        require(0 < c < pai.n2 and pai.unit(c), "sign.c", "c not in Z*_{N^2}")
        R = self.k1 * self.R2
        r = int(R.x()) % q
        Q2p = sub(self.Qp, self.x1 * G)
        pf.sign_verify(obj["proof"], self.statement(r, c, Q2p, self.R2))
        D = pai.dec(c)
        D = D - pai.n if D >= (pai.n + 1) // 2 else D
        s = D * inv(self.k1, q) % q
        require(r != 0 and s != 0 and R.x() < q, "sign.signature", "r = 0, s = 0 or x(R) >= q")
        flip = s > q // 2
        s = q - s if flip else s
        recid = int(R.y() & 1) ^ int(flip)
        if not verify_signature(self.Qp, self.m, r, s, recid):
            self.save = {"key.json": {**self.key, "locked": True, "locked_reason": "signature-check-failed"}}
            raise ProtocolError("sign.signature", "signature does not verify after a valid proof: key locked")
        self.result, self.done = self.out(r, s, recid), True
        return [self.frame("sign.s6", r=hx(r, 32), s=hx(s, 32), recid=recid)]


class SignP2(SignBase):
    def __init__(self, pid_self, pid_peer, key, pairing, approve, evil=None):
        super().__init__(pid_self, pid_peer, "p2", key, pairing, evil)
        self.approve, self.x2 = approve, int(key["x2"], 16)

    def on_s0(self, obj, raw):
        require(obj["q"] == self.key["q"], "sign.key", "not the key this co-signer holds")
        try:
            self.derive(obj["path"])
        except PathError as exc:
            raise ProtocolError("sign.path", str(exc))
        kind = obj["payload_kind"]
        try:
            payload = get_bytes(obj["payload"], None, "sign.payload", "payload")
            self.m = payload_digest(kind, payload)
        except ValueError as exc:
            raise ProtocolError("sign.payload", str(exc))
        require(obj["m"] == self.m.hex(), "sign.payload", "m differs from the digest of the payload")
        require(self.approve(kind, payload, self.m, self.path), "sign.approval", "the co-signer refused")
        sid2 = rand_bytes(32)
        self.sid = sid_of("sign", self.nonce, sid2, self.pid1, self.pid2)
        return [self.frame("sign.s1", sid2=sid2.hex())]

    def on_s2(self, obj, raw):
        self.com = get_bytes(obj["com"], 32, "sign.frame", "com")
        self.k2 = rand_nonzero(q)
        self.R2 = self.k2 * G
        dl = pf.dl_prove("sign/dl2", self.sid, self.pid2, self.k2, self.R2)
        if self.evil == "bad-dl2":
            dl["z"] = hx(int(dl["z"], 16) % (q - 1) + 1, 32)
        return [self.frame("sign.s3", r2=pt(self.R2).hex(), dl=dl)]

    def on_s4(self, obj, raw):
        ch = "sign.opening"
        dl = get_obj(obj["dl"], {"a", "z"}, ch, "dl")
        parts = [get_bytes(obj["r1"], 33, ch, "r1"), get_bytes(dl["a"], 33, ch, "dl.a"),
                 get_bytes(dl["z"], 32, ch, "dl.z"), get_bytes(obj["rho"], 32, ch, "rho")]
        com = H("sign/com", [B(self.sid), B(self.pid1), B(self.m), P(parts[0]), P(parts[1]),
                             F(int.from_bytes(parts[2], "big"), 32), B(parts[3])])
        require(com == self.com, ch, "opening does not match the commitment of step 2")
        R1 = get_point(obj["r1"], "sign.r1", "r1")
        pf.dl_verify(dl, "sign/dl1", self.sid, self.pid1, R1, "sign.dl")
        R = self.k2 * R1
        r = int(R.x()) % q
        require(r != 0, "sign.r1", "r = 0")
        pai, ev = self.pai, self.evil
        x2p = (self.x2 + self.delta + (ev == "wrong-x2")) % q
        w1 = inv(self.k2, q)
        w3 = rand_below(q * q << (2 * SIGMA))  # draw order (doc §2 table): w3, w4, then ΠSIGN's
        w4 = rand_unit(pai.n)
        w = [w1, w1 * x2p % q, w3, w4]
        st = self.statement(r, 0, x2p * G, self.R2)
        mi = int.from_bytes(self.m, "big")
        c = powmod(st["Cr"], w[0], pai.n2) * pai.enc(w[0] * mi + w[1] * r + w[2] * q, w[3]) % pai.n2
        st["c"] = c
        proof = pf.sign_prove(st, w)
        if ev == "bit-leak":  # decrypts to a valid s only when x1 is even (Fireblocks CVE-2023-33242)
            a = 2 * w1 * r % q
            a += q if a % 2 == 0 else 0
            y = a * ((pai.n + 1) // 2) % pai.n
            c = powmod(self.c_key, y, pai.n2) * pai.enc(w1 * r * (q << SIGMA) + w[0] * mi + w[1] * r + w[2] * q,
                                                         w[3]) % pai.n2
        elif ev == "bad-c-gcd":
            c = pai.n
        elif ev == "bad-proof-z1":
            proof["z"][0] = bump_u(proof["z"][0])
        elif ev == "bad-proof-e":
            proof["e"] = hu(int(proof["e"], 16) ^ 1)
        elif ev == "bad-proof-w":
            proof["w"][0] = hx(int(proof["w"][0], 16) * self.ped[2] % self.ped[0], 256)
        self.Qp_r = r
        self.save = {"cosigned.jsonl": {"sid": self.sid.hex(), "m": self.m.hex(), "path": self.path}}
        return [self.frame("sign.s5", c=hx(c, 512), proof=proof)]

    def on_s6(self, obj, raw):
        r, s = (get_fixed(obj[k], 32, "sign.signature", k) for k in ("r", "s"))
        recid = obj["recid"]
        require(type(recid) is int and r == self.Qp_r and verify_signature(self.Qp, self.m, r, s, recid),
                "sign.signature", "the signature does not verify under Q'")
        self.result, self.done = self.out(r, s, recid), True
        self.save = {"signatures.jsonl": self.result}
        return []
