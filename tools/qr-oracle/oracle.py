#!/usr/bin/env python3
"""Independent QR code oracle for kcs's tests. One command per call, answers on stdout:

  make HEX TEXT|BYTES OUT.png [LEVEL]  segno draws the payload (TEXT: the bytes as a string, so
                                       segno picks its segments; BYTES: one byte segment), scale 6
  read FILE.png                        zxing-cpp reads every QR code: one hex payload per line
  read-blocks FILE.txt LIGHT|DARK      a terminal drawing (half blocks; LIGHT: blocks are the light
                                       modules) turned into pixels, then read by zxing-cpp
  version FILE.png                     zxing-cpp's symbol version and error-correction level
  jpeg IN.png OUT.jpg                  pillow re-encodes an image as JPEG (quality 90, colour)
  gif OUT.gif FRAME.png…               pillow makes an animated GIF of the frames (200 ms each)
  read-gif FILE.gif                    pillow opens every frame, zxing-cpp reads it: one hex payload per frame, then
                                       "delay N loop N" from the file's own header
"""
import sys

import segno
import zxingcpp
from PIL import Image


def read(image):
    results = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode, try_invert=False)
    for r in results:
        print(r.bytes.hex())


def main(args):
    if args[0] == "make":
        payload = bytes.fromhex(args[1])
        level = args[4] if len(args) > 4 else "L"
        data = payload.decode("latin-1") if args[2] == "TEXT" else payload
        code = segno.make(data, error=level, boost_error=False, micro=False,
                          mode=None if args[2] == "TEXT" else "byte")
        code.save(args[3], scale=6, border=4)
        print(code.version, code.error)
    elif args[0] == "read":
        read(Image.open(args[1]))
    elif args[0] == "read-blocks":
        light_drawn = args[2] == "LIGHT"
        lines = open(args[1], encoding="utf-8").read().rstrip("\n").split("\n")
        width = max(len(l) for l in lines)
        scale = 4
        img = Image.new("L", ((width + 8) * scale, (2 * len(lines) + 8) * scale), 255)
        px = img.load()
        halves = {" ": (False, False), "▀": (True, False), "▄": (False, True), "█": (True, True)}
        for y, line in enumerate(lines):
            for x, ch in enumerate(line.ljust(width)):
                top, bottom = halves[ch]
                for row, drawn in ((2 * y, top), (2 * y + 1, bottom)):
                    dark = (not drawn) if light_drawn else drawn
                    if dark:
                        for dy in range(scale):
                            for dx in range(scale):
                                px[(x + 4) * scale + dx, (row + 4) * scale + dy] = 0
        read(img)
    elif args[0] == "version":
        for r in zxingcpp.read_barcodes(Image.open(args[1]), formats=zxingcpp.BarcodeFormat.QRCode):
            print(r.extra["Version"], r.ec_level)
    elif args[0] == "gif":
        frames = [Image.open(f).convert("L") for f in args[2:]]
        frames[0].save(args[1], "GIF", save_all=True, append_images=frames[1:], duration=200, loop=0)
    elif args[0] == "read-gif":
        from PIL import ImageSequence
        image = Image.open(args[1])
        for frame in ImageSequence.Iterator(image):
            read(frame.convert("L"))
        print("delay", image.info.get("duration"), "loop", image.info.get("loop"))
    elif args[0] == "jpeg":
        Image.open(args[1]).convert("RGB").save(args[2], "JPEG", quality=90)
    else:
        raise SystemExit(f"unknown command {args[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])
