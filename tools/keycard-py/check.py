#!/usr/bin/env python3
"""Drives a blank Keycard through keycard-py, an independent Python client (PyPI `keycard`),
and prints what the card answered, one `NAME value` line per step, for kcs's fidelity test.

Usage: check.py READER-SUBSTRING

Every step runs whatever happens; a refused command prints `NAME SW=XXXX`, a client-side
refusal `NAME error TEXT`. Byte strings are printed as lower-case hex.
"""
import hashlib
import sys

from keycard import KeyCard
from keycard.constants import DerivationOption, LoadKeyType
from keycard.exceptions import APDUError
from keycard.transport import Transport
from smartcard.System import readers

# The PUK must not start with the PIN: on 3.1 the duress PIN defaults to its first 6 digits.
PIN, PUK, PAIRING_PASSWORD = "123456", "987654321098", "KeycardTest"
DURESS_PIN = PUK[:6]
# BIP-39's "abandon … about" (12 words), seed without a passphrase.
SEED = hashlib.pbkdf2_hmac("sha512", b"abandon abandon abandon abandon abandon abandon abandon abandon "
                           b"abandon abandon abandon about", b"mnemonic", 2048)
DIGEST = hashlib.sha256(b"independent client").digest()


def show(value):
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return str(value)


def step(name, action):
    try:
        result = action()
    except APDUError as e:
        print(f"{name} SW={e.sw:04X}", flush=True)
        return None
    except Exception as e:  # the client's own reading of an answer (e.g. "PIN is blocked")
        cause = e.__cause__ or e.__context__
        cause = cause if isinstance(cause, APDUError) else None
        print(f"{name} " + (f"SW={cause.sw:04X}" if cause else f"error {type(e).__name__}: {e}"), flush=True)
        return None
    print(f"{name} {show(result)}", flush=True)
    return result


def connected(transport, reader):
    """`transport` connected to the first reader whose name contains `reader`."""
    names = [r.name for r in readers()]
    transport.connect(next(i for i, n in enumerate(names) if reader in n))
    return transport


def main(reader):
    card = KeyCard(connected(Transport(), reader))

    blank = step("select.blank", card.select)
    print(f"blank.initialized {card.is_initialized}")
    print(f"blank.publicKey {show(blank.ecc_public_key)}")
    step("init", lambda: card.init(PIN, PUK, PAIRING_PASSWORD))
    info = step("select", card.select)
    print(f"version {card.version[0]}.{card.version[1]}")
    print(f"instanceUID {show(info.instance_uid)}")
    print(f"freeSlots {info.free_pairing_slots}")
    print(f"keyUID {show(info.key_uid)}")
    print(f"capabilities {int(info.capabilities)}")
    pairing = step("pair", lambda: card.pair(PAIRING_PASSWORD))
    print(f"pair.slot {pairing.slot}")
    step("open", card.open_secure_channel)
    step("status", lambda: card.status)
    step("verify.wrong", lambda: card.verify_pin("000000"))
    step("status.afterWrong", lambda: card.status)
    step("verify", lambda: card.verify_pin(PIN))
    step("loadSeed", lambda: card.load_key(LoadKeyType.BIP39_SEED, bip39_seed=SEED))
    exported = step("exportPublic", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=True, keypath="m/44'/60'/0'/0/0"))
    print(f"exportPublic.key {show(exported.public_key)}")
    signed = step("signWithPath", lambda: card.sign_with_path(DIGEST, "m/44'/60'/0'/0/0"))
    print(f"signWithPath.signature {show(signed.signature)}")
    print(f"signWithPath.recoveryID {signed.recovery_id}")
    print(f"signWithPath.publicKey {show(signed.public_key)}")
    step("keyPath.afterSignWithPath", lambda: card.get_key_path)
    step("exportPrivate.outsideEIP1581", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=False, keypath="m/44'/60'/0'/0/0"))
    private = step("exportPrivate.EIP1581", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=False, keypath="m/43'/60'/1581'/0/0"))
    print(f"exportPrivate.EIP1581.key {show(private.private_key)}")
    step("storeData", lambda: card.store_data(b"kcs fidelity"))
    step("getData", card.get_data)
    for i in (1, 2, 3):
        step(f"verify.wrong{i}", lambda: card.verify_pin("111111"))
    step("status.blocked", lambda: card.status)
    step("verify.whileBlocked", lambda: card.verify_pin(PIN))
    step("unblock.wrongPUK", lambda: card.unblock_pin("000000000000", "222222"))
    step("unblock", lambda: card.unblock_pin(PUK, "222222"))
    step("verify.afterUnblock", lambda: card.verify_pin("222222"))
    # The duress PIN (not given at INIT, so the PUK's first 6 digits) switches to the duress
    # chain code: the same master key, other children.
    step("verify.duress", lambda: card.verify_pin(DURESS_PIN))
    duress = step("exportPublic.duress", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=True, keypath="m/44'/60'/0'/0/0"))
    print(f"exportPublic.duress.key {show(duress.public_key)}")
    step("verify.main", lambda: card.verify_pin("222222"))
    back = step("exportPublic.main", lambda: card.export_key(
        DerivationOption.DERIVE, public_only=True, keypath="m/44'/60'/0'/0/0"))
    print(f"exportPublic.main.key {show(back.public_key)}")
    step("removeKey", card.remove_key)
    step("sign.withoutKey", lambda: card.sign(DIGEST))
    step("unpair", lambda: card.unpair(pairing.slot))
    step("status.afterUnpair", lambda: card.status)  # the session keeps working
    step("select.afterUnpair", card.select)
    card.pairing = pairing  # the pairing this client still holds, for a slot now empty
    step("open.afterUnpair", card.open_secure_channel)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
