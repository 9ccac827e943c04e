#!/bin/sh
# Fetch CJK fonts for the procedural Chinese-style tile faces (datasets/procedural.py) from
# Debian packages, without root: `apt-get download` + `dpkg -x`, then copy the font files flat
# into DEST (default .devkit/fonts, git-ignored). Training tooling only: fonts are never
# committed and never needed at runtime. Packages that fail to download are skipped.
#
#     sh datasets/get_fonts.sh [DEST]
#
# Licences: Arphic PL (ukai, uming, bkai00mp), GPL-2 with font exception (wqy), GPL-2 (cwTeX),
# OFL-1.1 (LXGW WenKai, Kouzan, Seto), IPA Font Licence (IPAex), Aoyagi Soseki: free use.
set -eu

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEST=${1:-$REPO/.devkit/fonts}
PACKAGES="fonts-arphic-ukai fonts-arphic-uming fonts-arphic-bkai00mp
fonts-wqy-zenhei fonts-wqy-microhei
fonts-cwtex-kai fonts-cwtex-ming fonts-cwtex-heib fonts-cwtex-fs
fonts-lxgw-wenkai fonts-ipaexfont-mincho fonts-ipaexfont-gothic
fonts-kouzan-mouhitsu fonts-aoyagi-soseki fonts-seto fonts-motoya-l-maruberi"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DEST" "$WORK/x"
cd "$WORK"
for pkg in $PACKAGES; do
    if apt-get download "$pkg" >/dev/null 2>&1; then
        echo "got $pkg"
    else
        echo "skipped $pkg (apt-get download failed)" >&2
    fi
done
for deb in ./*.deb; do
    [ -e "$deb" ] || { echo "get_fonts: nothing downloaded" >&2; exit 1; }
    dpkg -x "$deb" "$WORK/x"
done
# Flat copy; leave out the grass-script brush face (illegible on a tile), the duplicate
# monospaced LXGW faces, and SetoFont-ex (no CJK glyphs).
find "$WORK/x" -type f \( -iname '*.ttf' -o -iname '*.ttc' -o -iname '*.otf' \) \
    ! -name 'KouzanBrushFontSousyo.ttf' ! -name 'LXGWWenKaiMono-*' ! -name 'setofont-ex.ttf' \
    -exec cp -f {} "$DEST"/ \;
# keep the licence texts next to the fonts
mkdir -p "$DEST/licences"
for d in "$WORK"/x/usr/share/doc/*/; do
    name=$(basename "$d")
    [ -f "$d/copyright" ] && cp -f "$d/copyright" "$DEST/licences/$name.copyright"
done
echo "fonts in $DEST:"
ls "$DEST" | grep -v '^licences$'
