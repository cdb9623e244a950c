#!/usr/bin/env python3
"""Independent Bitcoin implementations the Swift tests compare kcs with.

Run as `.build/btc-venv/bin/python tools/btc-oracle/oracle.py CMD` with one JSON request on
stdin; prints one JSON answer on stdout and exits 0, or prints {"error": "..."} and exits 1
when the oracle itself fails (bad input it cannot parse, a library exception).

  finalize         {"psbt": b64}  -> bdk finalizes (a v2 PSBT is first turned into v0 by hwi)
  verify           {"tx": hex, "spent": [{"script": hex, "amount": sats}]} -> libbitcoinkernel
  finalize_verify  {"psbt": b64}  -> finalize, then verify the extracted tx against the
                                     PSBT's own spent outputs
  parse            {"psbt": b64}  -> hwi's reading of the PSBT (v0 or v2), and its v0 form
  embit_sighash    {"psbt": b64}  -> the digest embit would sign for each input
  embit_sign       {"psbt": b64, "xprv": str} -> embit signs with every matching derivation
  embit_descriptor {"descriptor": str, "network": "main"|"test"|"regtest", "indexes": [int],
                    "branch": int?} -> embit's checksum and addresses of a descriptor
"""
import base64
import io
import json
import struct
import sys

import bdkpython as bdk
import pbk
from pbk.script import PrecomputedTransactionData
from hwilib.psbt import PSBT as HwiPSBT
from embit.bip32 import HDKey
from embit.psbt import PSBT as EmbitPSBT
from embit.transaction import SIGHASH


def hwi_read(b64):
    """hwi's parse of the PSBT, and the raw key-value maps (global, inputs, outputs)."""
    p = HwiPSBT()
    p.deserialize(b64)
    maps = raw_maps(base64.b64decode(b64), 1 + len(p.inputs) + len(p.outputs))
    if p.version >= 2:
        # hwi 3.2.0 reads PSBT_GLOBAL_TX_VERSION and FALLBACK_LOCKTIME, then overwrites them
        # with a blank transaction's 1 and 0 (bitcoin-core/HWI#830): take them from the bytes.
        g = dict(maps[0])
        p.tx_version = struct.unpack("<I", g[b"\x02"])[0]
        p.fallback_locktime = struct.unpack("<I", g[b"\x03"])[0] if b"\x03" in g else None
    return p, maps


def load_v0(b64):
    """hwi's parse of the PSBT, the v0 base64 to hand to bdk, and the original version.
    A v0 PSBT is passed on byte for byte; a v2 one is converted by hwi."""
    p, _ = hwi_read(b64)
    version = p.version
    if version >= 2:
        lock = p.compute_lock_time()
        p.convert_to_v0()
        # hwi 3.2.0's get_unsigned_tx stores the computed lock time on the PSBT object,
        # not on the transaction (`self.nLockTime = ...`): put it where it belongs.
        p.tx.nLockTime = lock
        p.tx.rehash()
        b64 = p.serialize()
    return p, b64, version


def spent_outputs(p):
    """(script, amount) of the output each input spends: WITNESS_UTXO, else
    NON_WITNESS_UTXO's output at the prevout index."""
    out = []
    for i, inp in enumerate(p.inputs):
        if inp.witness_utxo is not None:
            out.append((inp.witness_utxo.scriptPubKey, inp.witness_utxo.nValue))
        elif inp.non_witness_utxo is not None:
            txo = inp.non_witness_utxo.vout[p.tx.vin[i].prevout.n]
            out.append((txo.scriptPubKey, txo.nValue))
        else:
            raise ValueError("input %d has neither WITNESS_UTXO nor NON_WITNESS_UTXO" % i)
    return out


def verify_tx(tx_bytes, spent):
    """libbitcoinkernel's script check of every input, with all consensus flags."""
    tx = pbk.Transaction(tx_bytes)
    if len(spent) != len(tx.inputs):
        raise ValueError("%d spent outputs for %d inputs" % (len(spent), len(tx.inputs)))
    outs = [pbk.TransactionOutput(pbk.ScriptPubkey(s), a) for s, a in spent]
    pre = PrecomputedTransactionData(tx, outs)
    flags = pbk.ScriptVerificationFlags.ALL
    # A failing script returns False; ScriptVerifyException (bad flags, missing spent
    # outputs) is an oracle-side error and propagates.
    return [bool(pbk.ScriptPubkey(s).verify(a, tx, pre, i, flags))
            for i, (s, a) in enumerate(spent)]


def bdk_finalize(v0_b64):
    res = bdk.Psbt(v0_b64).finalize()
    final = res.psbt
    tx = final.extract_tx_unchecked_fee_rate()
    try:
        fee = final.fee()
    except Exception:  # missing or inconsistent utxo information
        fee = None
    return {
        "could_finalize": bool(res.could_finalize),
        "errors": [repr(e) for e in (res.errors or [])],
        "tx": tx.serialize().hex(),
        "txid": str(tx.compute_txid()),
        "fee": fee,
    }


def cmd_finalize(req):
    _, v0, _ = load_v0(req["psbt"])
    return bdk_finalize(v0)


def cmd_verify(req):
    spent = [(bytes.fromhex(s["script"]), int(s["amount"])) for s in req["spent"]]
    return {"inputs": verify_tx(bytes.fromhex(req["tx"]), spent)}


def cmd_finalize_verify(req):
    p, v0, _ = load_v0(req["psbt"])
    ans = bdk_finalize(v0)
    ans["inputs"] = verify_tx(bytes.fromhex(ans["tx"]), spent_outputs(p))
    return ans


def read_compact(f):
    n = f.read(1)[0]
    if n < 0xFD:
        return n
    size = {0xFD: 2, 0xFE: 4, 0xFF: 8}[n]
    return int.from_bytes(f.read(size), "little")


def raw_maps(data, count):
    """The first `count` key-value maps after the magic, as (key, value) lists read off the bytes."""
    f = io.BytesIO(data[5:])
    maps = []
    for _ in range(count):
        pairs = []
        while True:
            klen = read_compact(f)
            if klen == 0:
                break
            key = f.read(klen)
            pairs.append((key, f.read(read_compact(f))))
        maps.append(pairs)
    return maps


def key_types(pairs):
    """Sorted key types of one map, as hex, one entry per key (so repeats show)."""
    return ["%02x" % t for t in sorted(read_compact(io.BytesIO(k)) for k, _ in pairs)]


def cmd_parse(req):
    p, maps = hwi_read(req["psbt"])
    n_in, n_out = len(p.inputs), len(p.outputs)
    locktime = p.compute_lock_time() if p.version >= 2 else p.tx.nLockTime
    _, v0, version = load_v0(req["psbt"])
    return {
        "version": version,
        "inputs": n_in,
        "outputs": n_out,
        "tx_version": p.tx_version,
        "locktime": locktime,
        "global_fields": key_types(maps[0]),
        "input_fields": [key_types(m) for m in maps[1:1 + n_in]],
        "output_fields": [key_types(m) for m in maps[1 + n_in:]],
        "unknown": {k.hex(): v.hex() for k, v in sorted(p.unknown.items())},
        "v0": v0,
    }


def cmd_embit_sighash(req):
    p = EmbitPSBT.from_string(req["psbt"])
    have_all = all(inp.utxo is not None for inp in p.inputs)
    out = []
    for i, inp in enumerate(p.inputs):
        if inp.utxo is None or (inp.is_taproot and not have_all):
            out.append(None)  # nothing to sign against
            continue
        # The sighash type sign_with(root) uses: the input's own, else DEFAULT, which is
        # ALL for everything but taproot.
        sh = inp.sighash_type if inp.sighash_type is not None else SIGHASH.DEFAULT
        if not inp.is_taproot and sh == SIGHASH.DEFAULT:
            sh = SIGHASH.ALL
        out.append(p.sighash(i, sighash=sh).hex())
    return {"sighashes": out}


def cmd_embit_sign(req):
    p = EmbitPSBT.from_string(req["psbt"])
    n = p.sign_with(HDKey.from_string(req["xprv"]))
    return {"psbt": p.to_string(), "signed": n}


def cmd_embit_descriptor(req):
    """embit's reading of a descriptor: its checksum, and its addresses at the indexes asked
    (on a multipath descriptor, along path `branch`)."""
    from embit.descriptor import Descriptor
    from embit.descriptor.checksum import add_checksum
    from embit.networks import NETWORKS
    body = req["descriptor"].split("#")[0]
    d = Descriptor.from_string(body)
    net = NETWORKS[req.get("network", "main")]
    branch = req.get("branch")
    derive = (lambda i: d.derive(i, branch_index=branch)) if branch is not None else d.derive
    return {
        "checksum": add_checksum(body).split("#")[1],
        "addresses": [derive(i).address(net) for i in req.get("indexes", [])],
    }


COMMANDS = {
    "finalize": cmd_finalize,
    "verify": cmd_verify,
    "finalize_verify": cmd_finalize_verify,
    "parse": cmd_parse,
    "embit_sighash": cmd_embit_sighash,
    "embit_sign": cmd_embit_sign,
    "embit_descriptor": cmd_embit_descriptor,
}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in COMMANDS:
        print(json.dumps({"error": "usage: oracle.py " + "|".join(COMMANDS)}))
        return 1
    try:
        answer = COMMANDS[sys.argv[1]](json.load(sys.stdin))
    except Exception as e:
        print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
        return 1
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
