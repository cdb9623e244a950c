#!/usr/bin/env python3
"""Independent readers of kcs's UR registry CBOR, for kcs's tests. One command per call:

  hdkey HEX        urtypes reads an untagged crypto-hdkey map: its BIP-32 key (xpub/xprv text)
  output HEX       urtypes reads an untagged crypto-output: its descriptor text
  account HEX      urtypes reads an untagged crypto-account: master fingerprint, then each descriptor
  canonical HEX    cbor2 reads the item and writes it canonically: 'same' when the bytes do not change
"""
import sys

import cbor2
from urtypes.crypto import Account, HDKey, Output


def main(command, data):
    raw = bytes.fromhex(data)
    if command == "hdkey":
        print(HDKey.from_cbor(raw).bip32_key())
    elif command == "output":
        print(Output.from_cbor(raw).descriptor())
    elif command == "account":
        account = Account.from_cbor(raw)
        print(account.master_fingerprint.hex())
        for output in account.output_descriptors:
            print(output.descriptor())
    elif command == "canonical":
        again = cbor2.dumps(cbor2.loads(raw), canonical=True)
        print("same" if again == raw else "differs " + again.hex())
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
