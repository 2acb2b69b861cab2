#!/usr/bin/env bash
# Regenerates Tests/Fixtures/colors/: small solid-colour images in each tricky encoding, so
# tests can check that decoding gives the right colours. Needs ImageMagick.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/Fixtures/colors
rm -rf "$out"
mkdir -p "$out"
convert -size 32x24 xc:"rgb(255,0,0)" -colorspace CMYK -quality 95 "$out/cmyk-red.jpg"
convert -size 32x24 xc:"rgb(0,0,255)" -colorspace CMYK -quality 95 "$out/cmyk-blue.jpg"
convert -size 32x24 xc:"gray(128)" -colorspace Gray -quality 95 "$out/gray-128.jpg"
convert -size 32x24 xc:"rgb(0,128,255)" -quality 95 -interlace JPEG "$out/progressive-azure.jpg"
convert -size 32x24 xc:"rgb(0,128,255)" -depth 16 PNG48:"$out/sixteen-bit-azure.png"
convert -size 32x24 xc:"rgba(255,0,0,0.5)" PNG32:"$out/rgba-half-red.png"
convert -size 32x24 xc:"rgba(255,255,255,1)" PNG32:"$out/rgba-opaque-white.png"
convert -size 32x24 xc:none -fill "rgb(0,200,0)" -draw "rectangle 0,0 15,23" PNG8:"$out/palette-trns-green.png"
convert -size 32x24 xc:"rgb(0,128,255)" -interlace PNG PNG24:"$out/interlaced-azure.png"
convert -size 32x24 xc:"gray(200)" -colorspace Gray PNG8:"$out/gray-200.png"
file "$out"/*
