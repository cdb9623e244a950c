#!/usr/bin/env python3
"""Proves the oracle pipeline (tools/btc-oracle/oracle.py) end to end:

1. BIP-174's combiner vector: bdk finalizes it into BIP-174's extracted transaction, and
   libbitcoinkernel passes every input; with one signature byte flipped it does not.
2. A P2WPKH spend built here with embit (witness_utxo + non_witness_utxo + bip32
   derivation): embit signs it, bdk finalizes it, libbitcoinkernel passes it; the same
   PSBT as v2 (hwi) gives the same transaction.

Run as `.build/btc-venv/bin/python tools/btc-oracle/selftest.py`; exits 1 on any failure.
"""
import base64
import hashlib
import json
import os
import subprocess
import sys

from embit import script
from embit.bip32 import HDKey, parse_path
from embit.networks import NETWORKS
from embit.psbt import PSBT, DerivationPath
from embit.transaction import Transaction, TransactionInput, TransactionOutput
from hwilib.psbt import PSBT as HwiPSBT

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle.py")

# bip-0174.mediawiki, "Given both of the above PSBTs, a combiner must create this PSBT",
# and the transaction its extractor must create.
BIP174_COMBINED = (
    "70736274ff01009a020000000258e87a21b56daf0c23be8e7070456c336f7cbaa5c8757924f545887bb2abdd75"
    "0000000000ffffffff838d0427d0ec650a68aa46bb0b098aea4422c071b2ca78352a077959d07cea1d01000000"
    "00ffffffff0270aaf00800000000160014d85c2b71d0060b09c9886aeb815e50991dda124d00e1f50500000000"
    "16001400aea9a2e5f0f876a588df5546e8742d1d87008f00000000000100bb0200000001aad73931018bd25f84"
    "ae400b68848be09db706eac2ac18298babee71ab656f8b0000000048473044022058f6fc7c6a33e1b31548d481"
    "c826c015bd30135aad42cd67790dab66d2ad243b02204a1ced2604c6735b6393e5b41691dd78b00f0c5942fb9f"
    "751856faa938157dba01feffffff0280f0fa020000000017a9140fb9463421696b82c833af241c78c17ddbde49"
    "3487d0f20a270100000017a91429ca74f8a08f81999428185c97b5d852e4063f6187650000002202029583bf39"
    "ae0a609747ad199addd634fa6108559d6c5cd39b4c2183f1ab96e07f473044022074018ad4180097b873323c00"
    "15720b3684cc8123891048e7dbcd9b55ad679c99022073d369b740e3eb53dcefa33823c8070514ca55a7dd9544"
    "f157c167913261118c01220202dab61ff49a14db6a7d02b0cd1fbb78fc4b18312b5b4e54dae4dba2fbfef536d7"
    "483045022100f61038b308dc1da865a34852746f015772934208c6d24454393cd99bdf2217770220056e675a67"
    "5a6d0a02b85b14e5e29074d8a25a9b5760bea2816f661910a006ea01010304010000000104475221029583bf39"
    "ae0a609747ad199addd634fa6108559d6c5cd39b4c2183f1ab96e07f2102dab61ff49a14db6a7d02b0cd1fbb78"
    "fc4b18312b5b4e54dae4dba2fbfef536d752ae2206029583bf39ae0a609747ad199addd634fa6108559d6c5cd3"
    "9b4c2183f1ab96e07f10d90c6a4f000000800000008000000080220602dab61ff49a14db6a7d02b0cd1fbb78fc"
    "4b18312b5b4e54dae4dba2fbfef536d710d90c6a4f0000008000000080010000800001012000c2eb0b00000000"
    "17a914b7f5faf40e3d40a5a459b1db3535f2b72fa921e887220203089dc10c7ac6db54f91329af617333db388c"
    "ead0c231f723379d1b99030b02dc473044022062eb7a556107a7c73f45ac4ab5a1dddf6f7075fb1275969a7f38"
    "3efff784bcb202200c05dbb7470dbf2f08557dd356c7325c1ed30913e996cd3840945db12228da5f012202023a"
    "dd904f3d6dcf59ddb906b0dee23529b7ffb9ed50e5e86151926860221f0e73473044022065f45ba5998b59a27f"
    "fe1a7bed016af1f1f90d54b3aa8f7450aa5f56a25103bd02207f724703ad1edb96680b284b56d4ffcb88f7fb75"
    "9eabbe08aa30f29b851383d2010103040100000001042200208c2353173743b595dfb4a07b72ba8e42e3797da7"
    "4e87fe7d9d7497e3b2028903010547522103089dc10c7ac6db54f91329af617333db388cead0c231f723379d1b"
    "99030b02dc21023add904f3d6dcf59ddb906b0dee23529b7ffb9ed50e5e86151926860221f0e7352ae2206023a"
    "dd904f3d6dcf59ddb906b0dee23529b7ffb9ed50e5e86151926860221f0e7310d90c6a4f000000800000008003"
    "000080220603089dc10c7ac6db54f91329af617333db388cead0c231f723379d1b99030b02dc10d90c6a4f0000"
    "0080000000800200008000220203a9a4c37f5996d3aa25dbac6b570af0650394492942460b354753ed9eeca587"
    "7110d90c6a4f000000800000008004000080002202027f6399757d2eff55a136ad02c684b1838b6556e5f1b6b3"
    "4282a94b6b5005109610d90c6a4f00000080000000800500008000"
)
BIP174_EXTRACTED = (
    "0200000000010258e87a21b56daf0c23be8e7070456c336f7cbaa5c8757924f545887bb2abdd7500000000da00"
    "473044022074018ad4180097b873323c0015720b3684cc8123891048e7dbcd9b55ad679c99022073d369b740e3"
    "eb53dcefa33823c8070514ca55a7dd9544f157c167913261118c01483045022100f61038b308dc1da865a34852"
    "746f015772934208c6d24454393cd99bdf2217770220056e675a675a6d0a02b85b14e5e29074d8a25a9b5760be"
    "a2816f661910a006ea01475221029583bf39ae0a609747ad199addd634fa6108559d6c5cd39b4c2183f1ab96e0"
    "7f2102dab61ff49a14db6a7d02b0cd1fbb78fc4b18312b5b4e54dae4dba2fbfef536d752aeffffffff838d0427"
    "d0ec650a68aa46bb0b098aea4422c071b2ca78352a077959d07cea1d01000000232200208c2353173743b595df"
    "b4a07b72ba8e42e3797da74e87fe7d9d7497e3b2028903ffffffff0270aaf00800000000160014d85c2b71d006"
    "0b09c9886aeb815e50991dda124d00e1f5050000000016001400aea9a2e5f0f876a588df5546e8742d1d87008f"
    "000400473044022062eb7a556107a7c73f45ac4ab5a1dddf6f7075fb1275969a7f383efff784bcb202200c05db"
    "b7470dbf2f08557dd356c7325c1ed30913e996cd3840945db12228da5f01473044022065f45ba5998b59a27ffe"
    "1a7bed016af1f1f90d54b3aa8f7450aa5f56a25103bd02207f724703ad1edb96680b284b56d4ffcb88f7fb759e"
    "abbe08aa30f29b851383d20147522103089dc10c7ac6db54f91329af617333db388cead0c231f723379d1b9903"
    "0b02dc21023add904f3d6dcf59ddb906b0dee23529b7ffb9ed50e5e86151926860221f0e7352ae00000000"
)

failures = []


def check(name, ok):
    print(("ok    " if ok else "FAIL  ") + name)
    if not ok:
        failures.append(name)


def oracle(cmd, req):
    r = subprocess.run([sys.executable, ORACLE, cmd], input=json.dumps(req),
                       capture_output=True, text=True)
    answer = json.loads(r.stdout)
    if r.returncode != 0:
        raise SystemExit("oracle %s failed: %s %s" % (cmd, answer, r.stderr[-2000:]))
    return answer


def b64(hexstr):
    return base64.b64encode(bytes.fromhex(hexstr)).decode()


# 1. BIP-174
combined = b64(BIP174_COMBINED)
a = oracle("finalize_verify", {"psbt": combined})
check("bip174: could_finalize", a["could_finalize"] and a["errors"] == [])
check("bip174: extracted tx is the BIP's", a["tx"] == BIP174_EXTRACTED)
check("bip174: every input verifies", a["inputs"] == [True, True])
check("bip174: fee", a["fee"] == 10000)
sig = "3044022074018ad4180097b873323c0015720b3684cc8123891048e7dbcd9b55ad679c99"
i = BIP174_COMBINED.index(sig) + 20  # a nibble inside r
flipped = BIP174_COMBINED[:i] + ("1" if BIP174_COMBINED[i] == "0" else "0") + BIP174_COMBINED[i + 1:]
a = oracle("finalize_verify", {"psbt": b64(flipped)})
check("bip174 flipped: not finalized", not a["could_finalize"] and len(a["errors"]) == 1)
check("bip174 flipped: input 0 fails", a["inputs"] == [False, True])

# 2. A P2WPKH spend made here.
root = HDKey.from_seed(hashlib.sha256(b"kcs btc-oracle selftest").digest(),
                       version=NETWORKS["test"]["xprv"])
path = "m/84h/1h/0h/0/0"
pub = root.derive(path).to_public().key
dest = script.p2wpkh(root.derive("m/84h/1h/0h/1/0").key.get_public_key())
prev = Transaction(vin=[TransactionInput(bytes(32), 0)],
                   vout=[TransactionOutput(100000, script.p2wpkh(pub))])
tx = Transaction(vin=[TransactionInput(prev.txid(), 0, sequence=0xFFFFFFFD)],
                 vout=[TransactionOutput(90000, dest)], locktime=840000)
psbt = PSBT(tx)
psbt.inputs[0].witness_utxo = prev.vout[0]
psbt.inputs[0].non_witness_utxo = prev
psbt.inputs[0].bip32_derivations[pub] = DerivationPath(root.my_fingerprint, parse_path(path))
unsigned = psbt.to_string()

s = oracle("embit_sighash", {"psbt": unsigned})["sighashes"]
check("p2wpkh: one sighash", len(s) == 1 and s[0] is not None and len(s[0]) == 64)
signed = oracle("embit_sign", {"psbt": unsigned, "xprv": root.to_string()})
check("p2wpkh: embit signed one input", signed["signed"] == 1)
p = oracle("parse", {"psbt": signed["psbt"]})
check("p2wpkh: parse", p["version"] == 0 and p["locktime"] == 840000
      and p["input_fields"] == [["00", "01", "02", "06"]])
a = oracle("finalize_verify", {"psbt": signed["psbt"]})
check("p2wpkh: could_finalize", a["could_finalize"] and a["errors"] == [])
check("p2wpkh: input verifies", a["inputs"] == [True])
check("p2wpkh: fee", a["fee"] == 10000)
spent = [{"script": script.p2wpkh(pub).data.hex(), "amount": 100000}]
check("p2wpkh: verify", oracle("verify", {"tx": a["tx"], "spent": spent})["inputs"] == [True])
spent[0]["amount"] = 100001
check("p2wpkh: wrong amount fails", oracle("verify", {"tx": a["tx"], "spent": spent})["inputs"] == [False])

# The same PSBT as v2: parse reads its fields, finalize gives the same transaction.
h = HwiPSBT()
h.deserialize(signed["psbt"])
h.convert_to_v2()
v2 = h.serialize()
p2 = oracle("parse", {"psbt": v2})
check("p2wpkh v2: parse", p2["version"] == 2 and p2["tx_version"] == 2
      and p2["locktime"] == 840000 and p2["v0"] == signed["psbt"])
a2 = oracle("finalize_verify", {"psbt": v2})
check("p2wpkh v2: same tx, verifies", a2["tx"] == a["tx"] and a2["inputs"] == [True])

print("%d failed" % len(failures) if failures else "all passed")
sys.exit(1 if failures else 0)
