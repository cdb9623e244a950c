"""The zero-knowledge proofs of protocol doc §3 (and ΠSIGN of §6): prove -> JSON object, verify -> raise.

Every verifier checks ranges and group membership before any arithmetic with the value."""
import math
from .encoding import (B, F, FS, H2I, KAPPA, OS, P, SIGMA, U, bit128, fs_top, get_fixed, get_list, get_obj,
                       get_unbounded, hu, hx, rand_below, rand_nonzero, rand_unit, require)
from .groups import (G, INFINITY, P1_G, P_G, PG_G, PG_H, SQRT_G, SQRT_H, check_modulus,
                     get_point, inv, powmod, pt, q, sub)

T_VP, T_PE, T_BIN = 10, 10, 128
L_UO = 2048 + SIGMA


# ---- ΠDL: Schnorr ----------------------------------------------------------------------------
def dl_prove(label, sid, pid, x, X):
    a = rand_nonzero(q)
    A = a * G
    e = FS(label, sid, pid, [P(pt(X)), P(pt(A))]) % q
    return {"a": pt(A).hex(), "z": hx((a + e * x) % q, 32)}


def dl_verify(obj, label, sid, pid, X, check):
    get_obj(obj, {"a", "z"}, check, "dl")
    A = get_point(obj["a"], check, "dl.a")
    z = get_fixed(obj["z"], 32, check, "dl.z")
    require(0 < z < q, check, "dl.z out of range")
    e = FS(label, sid, pid, [P(pt(X)), P(pt(A))]) % q
    require(e != 0, check, "dl: zero challenge")
    require(z * G == A + e * X, check, "dl: z*G != A + e*X")


# ---- ΠVP: N is a valid Paillier modulus ----------------------------------------------------
def vp_rhos(sid, pid1, n):
    return [H2I("dkg/vp", [B(sid), B(pid1), F(n, 256), U(i)], 2176) % n for i in range(T_VP)]


def vp_prove(sid, pid1, pai):
    d = inv(pai.n, pai.phi)
    return [hx(powmod(rho, d, pai.n), 256) for rho in vp_rhos(sid, pid1, pai.n)]


def vp_verify(lst, sid, pid1, n, check="dkg.vp"):
    check_modulus(n, check)
    sigmas = [get_fixed(v, 256, check, "vp[i]") for v in get_list(lst, T_VP, check, "vp")]
    for rho, s in zip(vp_rhos(sid, pid1, n), sigmas):
        require(rho != 0 and math.gcd(rho, n) == 1, check, "rho_i not in Z*_N")
        require(0 < s < n, check, "sigma_i out of range")
        require(powmod(s, n, n) == rho, check, "sigma_i^N != rho_i")


# ---- ΠPDL: c_key and Q1 hide the same x1 ---------------------------------------------------
def _pdl_e(sid, pid1, pai, c_key, Q1, c_r, R):
    return FS("dkg/pdl", sid, pid1, [F(pai.n, 256), F(c_key, 512), P(pt(Q1)), F(c_r, 512), P(pt(R))]) % q


def pdl_prove(sid, pid1, pai, c_key, Q1, x1, r_key):
    r0 = rand_nonzero(q)  # draw order: r0 in [1, q), r'', r_rand
    r2 = rand_below(q << SIGMA)
    r_rand = rand_unit(pai.n)
    r = r2 * q + r0
    c_r, R = pai.enc(r, r_rand), r0 * G
    e = _pdl_e(sid, pid1, pai, c_key, Q1, c_r, R)
    return {"c_r": hx(c_r, 512), "r": pt(R).hex(), "z": hu(r + e * x1),
            "r_z": hx(r_rand * powmod(r_key, e, pai.n) % pai.n, 256)}


def pdl_verify(obj, sid, pid1, pai, c_key, Q1, check="dkg.pdl"):
    get_obj(obj, {"c_r", "r", "z", "r_z"}, check, "pdl")
    c_r = get_fixed(obj["c_r"], 512, check, "pdl.c_r")
    require(0 < c_r < pai.n2 and pai.unit(c_r), check, "c_r not in Z*_{N^2}")
    R = get_point(obj["r"], check, "pdl.r")
    r_z = get_fixed(obj["r_z"], 256, check, "pdl.r_z")
    require(0 < r_z < pai.n and pai.unit(r_z), check, "r_z not in Z*_N")
    z = get_unbounded(obj["z"], check, "pdl.z")
    require(z < q * q * ((1 << SIGMA) + 1), check, "z too large")
    e = _pdl_e(sid, pid1, pai, c_key, Q1, c_r, R)
    require((z % q) * G == R + e * Q1, check, "(z mod q)*G != R + e*Q1")
    require(pai.enc(z, r_z) == c_r * powmod(c_key, e, pai.n2) % pai.n2, check, "Enc(z; r_z) != c_r*c_key^e")


# ---- ΠPE: c_key and Com hide the same x1 ---------------------------------------------------
def _pe_e(sid, pid1, pai, c_key, com, cts, com_t):
    items = [F(pai.n, 256), F(c_key, 512), F(com, 256)] + [F(c, 512) for c in cts] + [F(com_t, 256)]
    return fs_top("dkg/pe", sid, pid1, items, 130)


def pe_chunks(e):
    return [(e >> (13 * i)) & 0x1FFF for i in range(T_PE)]


def pe_prove(sid, pid1, pai, c_key, com, x1, r_key, rho):
    bound = q << (13 + SIGMA)
    while True:
        rs, Rs = zip(*[(rand_below(bound), rand_unit(pai.n)) for _ in range(T_PE)])  # draw order: r_i, R~_i
        cts = [pai.enc(r, R) for r, R in zip(rs, Rs)]
        mu = rand_below(P1_G)
        com_t = powmod(PG_G, sum(r << (13 * i) for i, r in enumerate(rs)), P_G) * powmod(PG_H, mu, P_G) % P_G
        e = _pe_e(sid, pid1, pai, c_key, com, cts, com_t)
        ei = pe_chunks(e)
        d = [ei[i] * x1 + rs[i] for i in range(T_PE)]
        if all(di < bound for di in d):
            break
    D = [powmod(r_key, ei[i], pai.n) * Rs[i] % pai.n for i in range(T_PE)]
    return {"e": hu(e), "d": [hu(x) for x in d], "dd": [hx(x, 256) for x in D],
            "nu": hx((e * rho + mu) % P1_G, 256)}


def pe_verify(obj, sid, pid1, pai, c_key, com, check="dkg.pe"):
    get_obj(obj, {"e", "d", "dd", "nu"}, check, "pe")
    require(1 < com < P_G and powmod(com, P1_G, P_G) == 1, check, "Com not in the order-p' subgroup")
    bound = q << (13 + SIGMA)
    d = [get_unbounded(v, check, "pe.d[i]") for v in get_list(obj["d"], T_PE, check, "pe.d")]
    require(all(x < bound for x in d), check, "d_i too large")
    D = [get_fixed(v, 256, check, "pe.dd[i]") for v in get_list(obj["dd"], T_PE, check, "pe.dd")]
    require(all(0 < x < pai.n and pai.unit(x) for x in D), check, "D_i not in Z*_N")
    nu = get_fixed(obj["nu"], 256, check, "pe.nu")
    require(nu < P1_G, check, "nu out of range")
    e = get_unbounded(obj["e"], check, "pe.e")
    require(e < 1 << 130, check, "e too large")
    ei = pe_chunks(e)
    c_inv = inv(c_key, pai.n2)
    cts = [powmod(c_inv, ei[i], pai.n2) * pai.enc(d[i], D[i]) % pai.n2 for i in range(T_PE)]
    com_t = (powmod(PG_G, sum(x << (13 * i) for i, x in enumerate(d)), P_G) * powmod(PG_H, nu, P_G)
             * powmod(inv(com, P_G), e, P_G) % P_G)
    require(_pe_e(sid, pid1, pai, c_key, com, cts, com_t) == e, check, "challenge mismatch")


# ---- ΠRP: Com commits to a value in (-q 2^σ, q 2^σ) ----------------------------------------
def rp_prove(sid, pid1, com, x1, rho):
    bound = q << SIGMA
    while True:
        xs, rs = zip(*[(rand_below(bound), rand_below(P1_G)) for _ in range(T_BIN)])  # x_i, r_i
        cs = [powmod(SQRT_G, x, P_G) * powmod(SQRT_H, r, P_G) % P_G for x, r in zip(xs, rs)]
        e = fs_top("dkg/rp", sid, pid1, [F(com, 256)] + [F(c, 256) for c in cs], 128)
        d = [xs[i] + bit128(e, i) * x1 for i in range(T_BIN)]
        if all(di < bound for di in d):
            break
    f = [(rs[i] + bit128(e, i) * rho) % P1_G for i in range(T_BIN)]
    return {"c": [hx(c, 256) for c in cs], "d": [hu(x) for x in d], "f": [hx(x, 256) for x in f]}


def rp_verify(obj, sid, pid1, com, check="dkg.rp"):
    get_obj(obj, {"c", "d", "f"}, check, "rp")
    cs = [get_fixed(v, 256, check, "rp.c[i]") for v in get_list(obj["c"], T_BIN, check, "rp.c")]
    d = [get_unbounded(v, check, "rp.d[i]") for v in get_list(obj["d"], T_BIN, check, "rp.d")]
    f = [get_fixed(v, 256, check, "rp.f[i]") for v in get_list(obj["f"], T_BIN, check, "rp.f")]
    require(all(0 < c < P_G for c in cs), check, "c_i out of range")
    require(all(x < q << SIGMA for x in d), check, "d_i too large")
    require(all(x < P1_G for x in f), check, "f_i out of range")
    e = fs_top("dkg/rp", sid, pid1, [F(com, 256)] + [F(c, 256) for c in cs], 128)
    w = [rand_below(1 << 64, OS) for _ in range(T_BIN)]  # the verifier's weights: always the OS CSPRNG
    lhs = 1
    for c, wi in zip(cs, w):
        lhs = lhs * powmod(c, wi, P_G) % P_G
    lhs = lhs * lhs * powmod(com, sum(bit128(e, i) * w[i] for i in range(T_BIN)), P_G) % P_G
    rhs = (powmod(PG_G, sum(wi * di for wi, di in zip(w, d)), P_G)
           * powmod(PG_H, sum(wi * fi for wi, fi in zip(w, f)) % P1_G, P_G) % P_G)
    require(lhs == rhs, check, "batched range check fails")


# ---- ΠUO: g_U is in <h_U> mod N_ped ----------------------------------------------------------
def _uo_e(sid, pid1, n, g, h, Rs):
    return fs_top("pair/uo", sid, pid1, [F(n, 256), F(g, 256), F(h, 256), U(L_UO)] + [F(R, 256) for R in Rs], 128)


def uo_prove(sid, pid1, n, g, h, alpha, factors):
    p, p2 = factors  # CRT: h^z mod p and mod p2
    zs = [rand_below(1 << (L_UO + SIGMA + 1)) for _ in range(T_BIN)]
    c = inv(p, p2)
    Rs = []
    for z in zs:
        a, b = powmod(h, z % (p - 1), p), powmod(h, z % (p2 - 1), p2)
        Rs.append(a + p * ((b - a) * c % p2))
    e = _uo_e(sid, pid1, n, g, h, Rs)
    return {"e": hu(e), "z": [hu(z + alpha * bit128(e, i)) for i, z in enumerate(zs)]}


def uo_verify(obj, sid, pid1, n, g, h, check="pair.uo"):
    require(n.bit_length() == 2048, check, "|N_ped| != 2048")
    require(1 < g < n and 1 < h < n and math.gcd(g * h, n) == 1, check, "g or h not in Z*_{N_ped}")
    get_obj(obj, {"e", "z"}, check, "uo")
    e = get_unbounded(obj["e"], check, "uo.e")
    require(e < 1 << 128, check, "e too large")
    zs = [get_unbounded(v, check, "uo.z[i]") for v in get_list(obj["z"], T_BIN, check, "uo.z")]
    require(all(z.bit_length() <= L_UO + SIGMA + 2 for z in zs), check, "z_i too large")
    g_inv = inv(g, n)
    Rs = [powmod(h, z, n) * (g_inv if bit128(e, i) else 1) % n for i, z in enumerate(zs)]
    require(_uo_e(sid, pid1, n, g, h, Rs) == e, check, "challenge mismatch")


# ---- ΠSIGN: P2's ciphertext is well formed ---------------------------------------------------
def _sign_e(st, Ws, Wps, Gs, Qs, Cp):
    n, nped = st["pai"].n, st["ped"][0]
    items = ([F(n, 256), F(st["ck1"], 512), F(st["c"], 512), P(pt(st["Q2p"])), P(pt(st["R2"])), B(st["m"]),
              F(st["r"], 32), F(nped, 256), F(st["ped"][1], 256), F(st["ped"][2], 256)]
             + [F(W, 256) for W in Ws + Wps] + [P(pt(Gs)), P(pt(Qs)), F(Cp, 512)])
    return fs_top("sign/proof", st["sid"], st["pid2"], items, 128)


def sign_prove(st, w):
    """st: statement dict (sid, pid2, pai, ck1 = c_key', Cr, c, Q2p, R2, m bytes, r, ped = (N_ped, g, h));
    w: witnesses [w1, w2, w3, w4]."""
    pai, (nped, g, h), mi = st["pai"], st["ped"], int.from_bytes(st["m"], "big")
    s = [rand_below(nped << SIGMA) for _ in range(3)]
    Ws = [powmod(g, w[i], nped) * powmod(h, s[i], nped) % nped for i in range(3)]
    while True:
        wp = [rand_below(q << (SIGMA + KAPPA)), rand_below(q << (SIGMA + KAPPA)),
              rand_below(q * q << (3 * SIGMA + KAPPA))]
        if wp[0] % q and wp[1] % q:
            break
    sp = [rand_below(nped << (2 * SIGMA + KAPPA)) for _ in range(3)]
    r_enc = rand_unit(pai.n)
    Wps = [powmod(g, wp[i], nped) * powmod(h, sp[i], nped) % nped for i in range(3)]
    Gs, Qs = wp[0] * st["R2"], wp[1] * st["R2"]
    Cp = pai.enc(wp[0] * mi + wp[1] * st["r"] + wp[2] * q, r_enc) * powmod(st["Cr"], wp[0], pai.n2) % pai.n2
    e = _sign_e(st, Ws, Wps, Gs, Qs, Cp)
    return {"w": [hx(W, 256) for W in Ws], "e": hu(e), "z": [hu(wp[i] + e * w[i]) for i in range(3)],
            "u": [hu(sp[i] + e * s[i]) for i in range(3)], "v": hx(r_enc * powmod(w[3], e, pai.n) % pai.n, 256)}


def sign_verify(obj, st, check="sign.proof"):
    pai, (nped, g, h), mi = st["pai"], st["ped"], int.from_bytes(st["m"], "big")
    get_obj(obj, {"w", "e", "z", "u", "v"}, check, "proof")
    Ws = [get_fixed(v, 256, check, "proof.w[i]") for v in get_list(obj["w"], 3, check, "proof.w")]
    require(all(0 < W < nped and math.gcd(W, nped) == 1 for W in Ws), check, "W_i not in Z*_{N_ped}")
    v = get_fixed(obj["v"], 256, check, "proof.v")
    require(0 < v < pai.n and pai.unit(v), check, "v not in Z*_N")
    e = get_unbounded(obj["e"], check, "proof.e")
    require(e < 1 << 128, check, "e too large")
    z = [get_unbounded(x, check, "proof.z[i]") for x in get_list(obj["z"], 3, check, "proof.z")]
    u = [get_unbounded(x, check, "proof.u[i]") for x in get_list(obj["u"], 3, check, "proof.u")]
    zb = q << (SIGMA + KAPPA + 1)
    require(z[0] < zb and z[1] < zb and z[2] < q * q << (3 * SIGMA + KAPPA + 1), check, "z_i too large")
    require(all(x < nped << (2 * SIGMA + KAPPA + 1) for x in u), check, "u_i too large")
    Wps = [powmod(g, z[i], nped) * powmod(h, u[i], nped) * powmod(inv(Ws[i], nped), e, nped) % nped
           for i in range(3)]
    Gs = sub(z[0] * st["R2"], e * G)
    Qs = sub(z[1] * st["R2"], e * st["Q2p"])
    require(Gs != INFINITY and Qs != INFINITY, check, "G* or Q* is the point at infinity")
    Cp = (pai.enc(z[0] * mi + z[1] * st["r"] + z[2] * q, v) * powmod(st["Cr"], z[0], pai.n2)
          * powmod(inv(st["c"], pai.n2), e, pai.n2) % pai.n2)
    require(_sign_e(st, Ws, Wps, Gs, Qs, Cp) == e, check, "challenge mismatch")
