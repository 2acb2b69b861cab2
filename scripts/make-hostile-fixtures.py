#!/usr/bin/env python3
"""Regenerates Tests/Fixtures/hostile/: files a stranger might upload, each of which tenbin
must refuse with one clear line (or, for the last few, accept), never crash on, and never
leave anything behind for. Built from SampleImages and plain bytes; needs only Python."""
import os
import struct
import zlib

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = os.path.join(root, "Tests", "Fixtures", "hostile")
os.makedirs(out, exist_ok=True)


def sample(relative):
    with open(os.path.join(root, "SampleImages", relative), "rb") as f:
        return f.read()


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def chunk(kind, body, crc=None):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF if crc is None else crc
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png(width, height, rows, color_type=0, bit_depth=8, extra=b""):
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    return PNG_SIGNATURE + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


jpeg = sample("01-cats-or-dogs/1-cat.jpg")
photo_png = sample("06-ramen-udon/udon.png")

write("empty.jpg", b"")
write("text-named.jpg", "これは画像ではありません — this is not an image.\n".encode())
# A 1×1 GIF and a WebP header, named as if they were JPEG/PNG.
write("animation.jpg", b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,"
      b"\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
write("picture.png", b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")
write("truncated.jpg", jpeg[: len(jpeg) // 2])
write("truncated.png", photo_png[: len(photo_png) // 2])
write("header-only.jpg", jpeg[:600])

# A bad CRC on the IDAT chunk (a critical chunk): libpng must refuse the file.
rows = zlib.compress(b"".join(b"\x00" + bytes([x % 256 for x in range(64)]) for _ in range(64)))
good = png(64, 64, rows)
idat = good.index(b"IDAT")
crc_at = idat + 4 + len(rows)
write("bad-crc.png", good[:crc_at] + bytes([good[crc_at] ^ 0xFF]) + good[crc_at + 1:])

# 30000×30000 one-bit gray pixels, all black: about 110 KB on disk, 900 MB once decoded.
compressor = zlib.compressobj(9)
line = b"\x00" * (30000 // 8 + 1)
parts = [compressor.compress(line) for _ in range(30000)]
parts.append(compressor.flush())
write("huge-30000x30000.png", png(30000, 30000, b"".join(parts), bit_depth=1))

# A real JPEG whose SOF header claims 65000×65000.
sof = next(i for i in range(2, len(jpeg) - 1) if jpeg[i] == 0xFF and jpeg[i + 1] in (0xC0, 0xC1, 0xC2))
patched = bytearray(jpeg)
patched[sof + 5:sof + 9] = struct.pack(">HH", 65000, 65000)
write("huge-65000x65000.jpg", bytes(patched))

# A PNG whose IHDR says 0×0.
write("zero-size.png", PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", 0, 0, 8, 0, 0, 0, 0)) + chunk(b"IEND", b""))

# Files that must be ACCEPTED: a broken ICC profile (libpng only warns about profiles) and a
# bad CRC on an ancillary text chunk (libpng skips the chunk).
broken_icc = chunk(b"iCCP", b"Broken profile\x00\x00" + zlib.compress(b"\x00" * 200))
write("accept-broken-icc.png", png(64, 64, rows, extra=broken_icc))
write("accept-bad-text-crc.png", png(64, 64, rows, extra=chunk(b"tEXt", b"Comment\x00hello", crc=0)))
print("wrote", len(os.listdir(out)), "files to", out)
