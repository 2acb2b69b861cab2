#!/usr/bin/env python3
"""Regenerates Tests/Fixtures/orientation/: one JPEG (EXIF APP1) and one PNG (eXIf chunk)
for each of the eight EXIF orientations. Every file shows the same upright picture once
its orientation is applied: 32×16 pixels, red top left, green top right, blue bottom left,
white bottom right. The stored pixels are that picture turned the other way, so a decoder
that ignores the tag shows it wrongly. Needs Python and cjpeg (libjpeg-turbo-progs)."""
import os
import struct
import subprocess
import tempfile
import zlib

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = os.path.join(root, "Tests", "Fixtures", "orientation")
os.makedirs(out, exist_ok=True)

WIDTH, HEIGHT = 32, 16
RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)


def upright(x, y):
    left, top = x < WIDTH // 2, y < HEIGHT // 2
    return (RED if left else GREEN) if top else (BLUE if left else WHITE)


def stored(orientation):
    """The stored pixels (rows of RGB tuples) that orientation `orientation` turns upright.
    The mapping is the TIFF one tenbin applies: stored (x, y) lands at (tx, ty)."""
    swaps = orientation >= 5
    w, h = (HEIGHT, WIDTH) if swaps else (WIDTH, HEIGHT)
    rows = []
    for y in range(h):
        row = []
        for x in range(w):
            tx, ty = {
                1: (x, y), 2: (w - 1 - x, y), 3: (w - 1 - x, h - 1 - y), 4: (x, h - 1 - y),
                5: (y, x), 6: (h - 1 - y, x), 7: (h - 1 - y, w - 1 - x), 8: (y, w - 1 - x),
            }[orientation]
            row.append(upright(tx, ty))
        rows.append(row)
    return w, h, rows


def tiff(orientation):
    """A little-endian TIFF structure with one IFD entry: Orientation (SHORT) = value."""
    entry = struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    return b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1) + entry + struct.pack("<I", 0)


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(orientation):
    w, h, rows = stored(orientation)
    raw = b"".join(b"\x00" + bytes(v for pixel in row for v in pixel) for row in rows)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"eXIf", tiff(orientation))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def jpeg(orientation):
    w, h, rows = stored(orientation)
    ppm = b"P6\n%d %d\n255\n" % (w, h) + b"".join(bytes(v for pixel in row for v in pixel) for row in rows)
    with tempfile.NamedTemporaryFile(suffix=".ppm") as f:
        f.write(ppm)
        f.flush()
        # Full-resolution chroma and high quality keep each quadrant's colour clean.
        data = subprocess.run(["cjpeg", "-quality", "95", "-sample", "1x1", f.name], check=True,
                              stdout=subprocess.PIPE).stdout
    # APP1 "Exif\0\0" + TIFF, placed after SOI and the JFIF APP0 segment.
    payload = b"Exif\x00\x00" + tiff(orientation)
    app1 = b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload
    assert data[:4] == b"\xff\xd8\xff\xe0"
    app0_end = 4 + struct.unpack(">H", data[4:6])[0]
    return data[:app0_end] + app1 + data[app0_end:]


for orientation in range(1, 9):
    with open(os.path.join(out, "orientation-%d.png" % orientation), "wb") as f:
        f.write(png(orientation))
    with open(os.path.join(out, "orientation-%d.jpg" % orientation), "wb") as f:
        f.write(jpeg(orientation))
