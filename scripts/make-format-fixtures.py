#!/usr/bin/env python3
"""Regenerates Tests/Fixtures/formats/ (small real WebP, HEIC and AVIF files made with
Debian's own encoders) and the hostile variants in Fuzz/Seeds/image/ (truncated files and
headers claiming oversized dimensions). Needs Python, ImageMagick's convert, cwebp and
img2webp (webp) and heif-enc (libheif-examples)."""
import os
import struct
import subprocess
import tempfile

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
fixtures = os.path.join(root, "Tests", "Fixtures", "formats")
seeds = os.path.join(root, "Fuzz", "Seeds", "image")
os.makedirs(fixtures, exist_ok=True)
os.makedirs(seeds, exist_ok=True)


def run(*arguments):
    subprocess.run(arguments, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(folder, name, data):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


with tempfile.TemporaryDirectory() as scratch:
    # Sources: a small photo (opaque) and a logo with real transparency, both 96 px wide.
    photo = os.path.join(scratch, "photo.png")
    logo = os.path.join(scratch, "logo.png")
    run("convert", os.path.join(root, "SampleImages", "01-cats-or-dogs", "1-cat.jpg"), "-resize", "96x64!", "-strip", photo)
    run("convert", os.path.join(root, "SampleImages", "04-logos", "logo-rgba.png"), "-resize", "96x96!", "-strip", logo)

    run("cwebp", "-quiet", "-q", "80", "-metadata", "none", photo, "-o", os.path.join(fixtures, "photo.webp"))
    run("cwebp", "-quiet", "-lossless", "-metadata", "none", logo, "-o", os.path.join(fixtures, "logo-alpha.webp"))
    run("heif-enc", "-q", "60", photo, "-o", os.path.join(fixtures, "photo.heic"))
    run("heif-enc", "-q", "60", "--avif", photo, "-o", os.path.join(fixtures, "photo.avif"))
    run("heif-enc", "-q", "60", "--avif", logo, "-o", os.path.join(fixtures, "logo-alpha.avif"))
    # Two frames: an animation, which tenbin refuses (it stores still images).
    flipped = os.path.join(scratch, "flipped.png")
    run("convert", photo, "-flip", flipped)
    run("img2webp", "-lossy", "-q", "50", "-d", "500", photo, flipped, "-o", os.path.join(fixtures, "animated.webp"))

webp = read(os.path.join(fixtures, "photo.webp"))
heic = read(os.path.join(fixtures, "photo.heic"))
avif = read(os.path.join(fixtures, "photo.avif"))

write(seeds, "truncated.webp", webp[: len(webp) // 2])
write(seeds, "truncated.heic", heic[: len(heic) // 2])
write(seeds, "truncated.avif", avif[: len(avif) // 2])
write(seeds, "header-only.webp", webp[:30])
write(seeds, "ftyp-only.heic", heic[:32])


def huge_webp(data):
    """The lossy VP8 frame header's 14-bit sizes set to 16383×16383 (268 megapixels)."""
    at = data.index(b"\x9d\x01\x2a") + 3
    return data[:at] + struct.pack("<HH", 16383, 16383) + data[at + 4:]


def huge_heif(data):
    """Every ispe (image spatial extents) box set to 30000×30000 (900 megapixels)."""
    out = bytearray(data)
    at = out.find(b"ispe")
    while at >= 0:
        # size(4) "ispe" version+flags(4) width(4) height(4)
        out[at + 8: at + 16] = struct.pack(">II", 30000, 30000)
        at = out.find(b"ispe", at + 4)
    return bytes(out)


write(seeds, "huge-16383x16383.webp", huge_webp(webp))
write(seeds, "huge-30000x30000.heic", huge_heif(heic))
write(seeds, "huge-30000x30000.avif", huge_heif(avif))
