#!/usr/bin/env python3
"""eth-account (run by the Python of .build/evm-venv) checks kcs's answers to eth-sign-requests:
the signed transaction or message is rebuilt from what the request asked and the r, s, v kcs
returned, and the signer recovered. One command per call, the signer's address on stdout:

  tx UNSIGNED-HEX SIGNATURE-HEX       a legacy (RLP list) or EIP-2718 typed (0x01…0x04 ‖ RLP) transaction;
                                      SIGNATURE = r ‖ s ‖ v as the eth-signature carries it
  message MESSAGE-HEX SIGNATURE-HEX   an EIP-191 personal message
  typed JSON-HEX SIGNATURE-HEX        EIP-712 typed data (the UTF-8 JSON the request carries)
"""
import sys

import rlp
from eth_account import Account
import json

from eth_account.messages import encode_defunct, encode_typed_data


def split(signature):
    """r, s and v as integers (RLP writes them minimal)."""
    return (int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big"),
            int.from_bytes(signature[64:], "big"))


def main(command, data_hex, signature_hex):
    data, signature = bytes.fromhex(data_hex), bytes.fromhex(signature_hex)
    r, s, v = split(signature)
    if command == "tx":
        if data[0] in (1, 2, 3, 4):
            items = rlp.decode(data[1:])
            signed = bytes([data[0]]) + rlp.encode(list(items) + [v, r, s])
        else:
            items = rlp.decode(data)
            signed = rlp.encode(list(items[:6]) + [v, r, s])
        print(Account.recover_transaction(signed))
    elif command == "typed":
        print(Account.recover_message(encode_typed_data(full_message=json.loads(data)), vrs=(v, r, s)))
    elif command == "message":
        print(Account.recover_message(encode_defunct(primitive=data), vrs=(v, r, s)))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(*sys.argv[1:])
