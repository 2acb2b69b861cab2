#!/usr/bin/env bash
# Regenerates SampleImages/: ten poster folders whose images cover the formats tenbin must
# handle (baseline, progressive, grayscale and CMYK JPEG, EXIF orientation 6 with a GPS tag;
# RGB, RGBA, palette+tRNS, 16-bit and interlaced PNG) with Japanese and full-width text.
# Needs ImageMagick and exiftool (Debian: imagemagick libimage-exiftool-perl).
set -euo pipefail
cd "$(dirname "$0")/.."
out=SampleImages
rm -rf "$out"
mkdir -p "$out"

# A photo-like picture (seeded fractal clouds tinted by two colours) with a label.
photo() { # size colour1 colour2 label seed file [extra convert options…]
    local size=$1 c1=$2 c2=$3 label=$4 seed=$5 file=$6
    shift 6
    convert -seed "$seed" -size "$size" "plasma:$c1-$c2" -blur 0x2 \
        -gravity center -pointsize 64 -fill white -stroke black -strokewidth 2 -annotate 0 "$label" \
        -strip "$@" "$file"
}

# A flat graphic with real transparency (a badge on a clear background).
badge() { # size colour label file [extra options…]
    local size=$1 colour=$2 label=$3 file=$4
    shift 4
    convert -size "$size" xc:none -fill "$colour" -draw "roundrectangle 20,20 380,280 40,40" \
        -gravity center -pointsize 56 -fill white -annotate 0 "$label" "$@" "$file"
}

post() { # folder question hashtags
    mkdir -p "$out/$1"
    printf '%s\n%s\n' "$2" "$3" > "$out/$1/post.txt"
}

post 01-cats-or-dogs "猫と犬、どっちが好き？" "#猫 #犬 #ペット"
photo 900x600 orange brown "CAT" 1 "$out/01-cats-or-dogs/1-cat.jpg" -quality 82
photo 900x600 skyblue navy "DOG" 2 "$out/01-cats-or-dogs/2-dog.jpg" -quality 82 -interlace JPEG

post 02-sunrise-sunset "朝焼けと夕焼け、きれいなのは？" "#空 #写真"
photo 800x600 gray90 gray20 "MORNING" 3 "$out/02-sunrise-sunset/morning.jpg" -colorspace Gray -quality 80
photo 800x600 red yellow "EVENING" 4 "$out/02-sunrise-sunset/evening.jpg" -colorspace CMYK -quality 80

post 03-phone-portrait "Which shot is better?" "#photo #ＧＰＳ"
# Stored sideways, as phones do, with Orientation 6: upright it is a portrait with UP on top.
convert -seed 5 -size 1800x2400 plasma:green-darkgreen -blur 0x2 -gravity north -pointsize 160 \
    -fill white -stroke black -strokewidth 4 -annotate +0+80 "UP" -rotate -90 -strip -quality 75 \
    "$out/03-phone-portrait/a-rotated.jpg"
exiftool -q -overwrite_original -Orientation#=6 -GPSLatitude=35.6586 -GPSLatitudeRef=N \
    -GPSLongitude=139.7454 -GPSLongitudeRef=E -Make=Example -Model=Phone "$out/03-phone-portrait/a-rotated.jpg"
photo 1200x900 purple pink "B" 6 "$out/03-phone-portrait/b-plain.jpg" -quality 80

post 04-logos "ロゴはどっち？" "#デザイン #ﾃﾞｻﾞｲﾝ"
badge 400x300 "#d0342c" "ONE" PNG32:"$out/04-logos/logo-rgba.png"
badge 400x300 "#1f6fd1" "TWO" PNG8:"$out/04-logos/logo-palette.png"

post 05-deep-colour "ＡＢＣ or ａｂｃ? １００点はどっち" "#フォント #Font"
convert -size 640x480 gradient:"#ff0000-#0000ff" -depth 16 -gravity center -pointsize 64 -fill white \
    -annotate 0 "16-bit" PNG48:"$out/05-deep-colour/sixteen-bit.png"
convert -size 640x480 gradient:"#00aa00-#ffee00" -gravity center -pointsize 64 -fill black \
    -annotate 0 "Interlaced" -interlace PNG PNG24:"$out/05-deep-colour/interlaced.png"

post 06-ramen-udon "ラーメン vs うどん" "#ラーメン #うどん #食べ物"
photo 900x700 "#c8702a" "#f4d9a0" "RAMEN" 7 "$out/06-ramen-udon/ramen.jpg" -quality 80
convert -size 600x450 gradient:white-"#e8e0c8" -gravity center -pointsize 64 -fill "#6a4a20" \
    -annotate 0 "UDON" PNG24:"$out/06-ramen-udon/udon.png"

post 07-tokyo "東京タワーとスカイツリー" "#東京 #夜景"
photo 800x1000 "#ff5500" black "TOWER" 8 "$out/07-tokyo/tower.JPG" -quality 78
photo 800x1000 "#55aaff" black "TREE" 9 "$out/07-tokyo/sky tree.jpeg" -quality 78

post 08-kinoko-takenoko "ｷﾉｺ派？タケノコ派？" "#きのこ #たけのこ #お菓子"
photo 700x700 "#8b5a2b" "#f5deb3" "KINOKO" 10 "$out/08-kinoko-takenoko/きのこ.jpg" -quality 80
photo 700x700 "#5a3a1b" "#ffe4b5" "TAKENOKO" 11 "$out/08-kinoko-takenoko/たけのこ.jpg" -quality 80

post 09-sea-or-mountain "海と山、夏に行くなら？" "#夏 #旅行"
photo 1000x600 "#0077be" "#aee8ff" "SEA" 12 "$out/09-sea-or-mountain/sea.jpg" -quality 80
photo 1000x600 "#2e5e2e" "#c0d8a0" "MOUNTAIN" 13 "$out/09-sea-or-mountain/mountain.jpg" -quality 80

mkdir -p "$out/10-no-question"
printf '#minimal\n' > "$out/10-no-question/post.txt"
photo 600x600 black white "L" 14 "$out/10-no-question/left.jpg" -quality 80
photo 600x600 white black "R" 15 "$out/10-no-question/right.jpg" -quality 80

du -sh "$out"
