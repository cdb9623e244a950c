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

from keycard import KeyCard
from keycard.constants import DerivationOption, LoadKeyType, SigningAlgorithm
from keycard.transport import Transport

from check import connected, show, step

PIN, PUK, DURESS = "123456", "987654321098", "654321"
SEED = hashlib.pbkdf2_hmac("sha512", b"abandon abandon abandon abandon abandon abandon abandon abandon "
                           b"abandon abandon abandon about", b"mnemonic", 2048)
DIGEST = hashlib.sha256(b"independent client 4.0").digest()


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
    private = step("exportPrivate.EIP1581", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=False, keypath="m/43'/60'/1581'/0'/0"))
    print(f"exportPrivate.EIP1581.key {show(private.private_key) if private else None}")
    step("exportPrivate.outsideEIP1581", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=False, keypath="m/44'/60'/0'/0/0"))
    bip85 = step("exportBIP85", lambda: card.export_bip85("m/83696968'/39'/0'/12'/0'", 16))
    print(f"exportBIP85.entropy {show(bip85) if bip85 else None}")
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
