"""Hostile image files for kcs's reading bounds (Tests/ConsoleTests/ReadingBoundsTests.swift): small files that
cost a careless reader gigabytes or minutes. Each is written into the folder given.

  gif-frame.gif   a 64x64 GIF whose one frame claims 30000x30000 pixels
  gif-frames.gif  an 8000x5000 GIF of three 1x1 frames (each composed onto the whole canvas)
  jpeg-scans.jpg  a progressive JPEG whose last scan is repeated until it has 200 scans
  good.png        a QR code holding "kcs", for a reading that succeeds beside them
"""
import io
import struct
import sys

import segno
from PIL import Image


def gif(width, height, frames):
    """A GIF89a with a two-colour global table and `frames` (left, top, w, h) each holding one
    LZW-coded pixel (clear, 0, end at 3 bits; the rest of a larger frame is missing data)."""
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    for left, top, w, h in frames:
        out += b"\x2c" + struct.pack("<HHHHB", left, top, w, h, 0) + b"\x02\x02\x44\x01\x00"
    return out + b"\x3b"


def many_scans(count):
    """A progressive JPEG with its last SOS segment and entropy data repeated to `count` scans."""
    buffer = io.BytesIO()
    Image.new("L", (64, 64), 200).save(buffer, "JPEG", progressive=True, quality=90)
    data = buffer.getvalue()
    last = data.rfind(b"\xff\xda")
    scan = data[last:-2]  # up to the EOI marker
    scans = data.count(b"\xff\xda")
    return data[:-2] + scan * (count - scans) + b"\xff\xd9"


def main(folder):
    with open(f"{folder}/gif-frame.gif", "wb") as f:
        f.write(gif(64, 64, [(0, 0, 30000, 30000)]))
    with open(f"{folder}/gif-frames.gif", "wb") as f:
        f.write(gif(8000, 5000, [(0, 0, 1, 1)] * 3))
    with open(f"{folder}/jpeg-scans.jpg", "wb") as f:
        f.write(many_scans(200))
    segno.make("kcs", micro=False).save(f"{folder}/good.png", scale=8)


if __name__ == "__main__":
    main(sys.argv[1])
