#!/usr/bin/env python3
"""Runs another script of this folder (check.py, check4.py) with keycard-py's two secure channels
logging each command they wrap, before it is encrypted: keycard-py's own record of what it meant
to send inside the channel. kcs's test compares it with the commands `kcs sim attach --trace`
decoded on the card's side.

Usage: traced.py READER-SUBSTRING LOG-FILE SCRIPT [ARGS...]

Each line of LOG-FILE is one JSON object: {"ins": N, "p1": N, "p2": N, "data": "hex"}.
"""
import json
import os
import runpy
import sys

from keycard.secure_channel import v1, v2

READER, LOG_PATH, SCRIPT = sys.argv[1], sys.argv[2], sys.argv[3]
LOG = open(LOG_PATH, "w", encoding="ascii")


def logging(channel):
    original = channel.wrap

    def wrap(self, ins, p1, p2, data):
        record = {"ins": ins, "p1": p1, "p2": p2, "data": bytes(data or b"").hex()}
        LOG.write(json.dumps(record) + "\n")
        LOG.flush()
        return original(self, ins, p1, p2, data)

    channel.wrap = wrap


logging(v1.SecureChannelV1)
logging(v2.SecureChannelV2)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), SCRIPT)
sys.argv = [path, READER] + sys.argv[4:]
runpy.run_path(path, run_name="__main__")
