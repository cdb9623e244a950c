#!/usr/bin/env python3
"""Drives a blank Keycard 4.0 through keycard-py (PyPI `keycard` 0.4.0, which speaks Secure
Channel V2) and prints what the card answered, one `NAME value` line per step, for kcs's
fidelity test of its 4.0 simulator. Same conventions as check.py.

Usage: check4.py READER-SUBSTRING CA-PUBLIC-KEY-HEX

Two things are given to keycard-py that it cannot know: the CA that certified this card (the
kcs simulator CA, passed in, trusted as keycard-py lets a caller trust a CA), and the one-byte
correction of SELECT's template length. The 4.0 applet writes that length one short (docs/
keycard-protocol.md §14.1), which keycard-py 0.4.0's strict TLV reader refuses; the harness
corrects only that byte of a SELECT answer, as a tolerant client reads it. Nothing else is
touched: every other byte goes between keycard-py and the card unchanged.
"""
import hashlib
import sys

from ecc.ecc import ssa

from keycard import KeyCard
from keycard.constants import DerivationOption, LoadKeyType, SigningAlgorithm, StorageSlot
from keycard.transport import Transport

from check import connected, show, step

PIN, PUK, DURESS = "123456", "987654321098", "654321"
SEED = hashlib.pbkdf2_hmac("sha512", b"abandon abandon abandon abandon abandon abandon abandon abandon "
                           b"abandon abandon abandon about", b"mnemonic", 2048)
DIGEST = hashlib.sha256(b"independent client 4.0").digest()
# BIP-86's first receiving address of "abandon … about", m/86'/0'/0'/0/0: the internal key and
# the Taproot output key the BIP publishes.
# An NDEF file (2-byte NLEN ‖ record) of 488 bytes: read back in two segments of exactly 244.
NDEF = (486).to_bytes(2, "big") + bytes((7 * i + 3) % 256 for i in range(486))
BIP86_INTERNAL = bytes.fromhex("cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115")
BIP86_OUTPUT = bytes.fromhex("a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c")


def tagged(tag, data):
    """BIP-340's tagged hash."""
    t = hashlib.sha256(tag.encode()).digest()
    return hashlib.sha256(t + t + data).digest()


def bip340(signature, key):
    """btclib's pure-Python BIP-340 verification of `signature` over DIGEST under the x-only `key`."""
    try:
        return ssa.verify_(DIGEST, key, signature)
    except Exception as error:  # a malformed signature or key is a failed check, shown as such
        return f"error {error}"


class TolerantSelect(Transport):
    """The transport keycard-py uses, with SELECT's short template length corrected."""

    def send_apdu(self, apdu):
        response = super().send_apdu(apdu)
        data = bytes(response.data)
        if bytes(apdu[:4]) == b"\x00\xa4\x04\x00" and data[:1] == b"\xa4":
            header = 3 if data[1] == 0x81 else 2
            declared = data[header - 1]
            if declared + 1 == len(data) - header:
                fixed = bytearray(data)
                fixed[header - 1] = declared + 1
                response.data = bytes(fixed)
        return response


def main(reader, ca_hex):
    card = KeyCard(connected(TolerantSelect(), reader), ca_public_keys=[bytes.fromhex(ca_hex)])

    info = step("select.blank", card.select)
    print(f"version {card.version[0]}.{card.version[1]}")
    print(f"blank.initialized {card.is_initialized}")
    print(f"blank.status {show(info.status)}")
    step("init", lambda: card.init(PIN, PUK, pin_retries=3, puk_retries=5, alt_pin=DURESS))
    info = step("select", card.select)
    print(f"initialized {card.is_initialized}")
    print(f"status.byte {show(info.status)}")
    step("open", card.open_secure_channel)
    step("verify.wrong", lambda: card.verify_pin("111111"))
    step("status.afterWrong", lambda: card.status)
    step("verify", lambda: card.verify_pin(PIN))
    step("loadSeed", lambda: card.load_key(LoadKeyType.BIP39_SEED, bip39_seed=SEED))
    exported = step("exportPublic", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=True, keypath="m/44'/60'/0'/0/0"))
    print(f"exportPublic.key {show(exported.public_key) if exported else None}")
    signed = step("signWithPath", lambda: card.sign_with_path(DIGEST, "m/44'/60'/0'/0/0"))
    if signed is not None:
        print(f"signWithPath.signature {show(signed.signature)}")
        print(f"signWithPath.publicKey {show(signed.public_key)}")
    schnorr = step("signSchnorr", lambda: card.sign_with_path(
        DIGEST, "m/86'/0'/0'/0/0", algorithm=SigningAlgorithm.SCHNORR_BIP340))
    if schnorr is not None:
        print(f"signSchnorr.signature {show(schnorr.signature)}")
        print(f"signSchnorr.publicKey {show(schnorr.public_key)}")
        print(f"signSchnorr.bip340.internal {bip340(schnorr.signature, BIP86_INTERNAL)}")
    taproot = step("signTaproot", lambda: card.sign_with_path(
        DIGEST, "m/86'/0'/0'/0/0", algorithm=SigningAlgorithm.SCHNORR_BIP340,
        tweak=tagged("TapTweak", BIP86_INTERNAL)))
    if taproot is not None:
        print(f"signTaproot.signature {show(taproot.signature)}")
        print(f"signTaproot.bip340.output {bip340(taproot.signature, BIP86_OUTPUT)}")
        print(f"signTaproot.bip340.internal {bip340(taproot.signature, BIP86_INTERNAL)}")
    private = step("exportPrivate.EIP1581", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=False, keypath="m/43'/60'/1581'/0'/0"))
    print(f"exportPrivate.EIP1581.key {show(private.private_key) if private else None}")
    step("exportPrivate.outsideEIP1581", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=False, keypath="m/44'/60'/0'/0/0"))
    bip85 = step("exportBIP85", lambda: card.export_bip85("m/83696968'/39'/0'/12'/0'", 16))
    print(f"exportBIP85.entropy {show(bip85) if bip85 else None}")
    step("storeNDEF", lambda: card.store_data(NDEF, StorageSlot.NDEF))
    ndef = step("getNDEF", lambda: card.get_data(StorageSlot.NDEF))
    print(f"getNDEF.equal {ndef == NDEF}")
    print(f"getNDEF.sha256 {hashlib.sha256(ndef).hexdigest() if ndef else None}")
    step("changePIN", lambda: card.change_pin("222222"))
    step("select.again", card.select)
    step("open.again", card.open_secure_channel)
    step("verify.oldPIN", lambda: card.verify_pin(PIN))
    step("verify.newPIN", lambda: card.verify_pin("222222"))
    for n in (1, 2, 3):
        step(f"verify.wrong{n}", lambda: card.verify_pin("000000"))
    step("status.blocked", lambda: card.status)
    step("unblock.wrongPUK", lambda: card.unblock_pin("000000000000", "333333"))
    step("unblock", lambda: card.unblock_pin(PUK, "333333"))
    step("verify.afterUnblock", lambda: card.verify_pin("333333"))
    step("factoryReset", card.factory_reset)
    info = step("select.afterReset", card.select)
    print(f"afterReset.status {show(info.status) if info else None}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
