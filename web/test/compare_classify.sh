#!/bin/sh
# The browser's crops, classifier naming, counts, reflections and set profile against Python's.
#   web/test/compare_classify.sh [GOLDEN_DIR]   (default: a fresh temporary folder)
# Python (vision.read.detector.TileReader) finds the boxes and writes what it makes of them
# (web/test/classify_golden.py); Node runs web/src/reader on the same bytes and boxes
# (web/test/classify_vs_python.mjs) and prints, per photo, the tiles whose argmax differs.
# Photos: vision/samples, rendered hands (kmahjongg-default; kmahjongg-default and xmahjongg-real on glass; the
# held-out jade, which the contrast views read), a set
# profile learned from a rendered sheet of the held-out jade and two jade hands read with it,
# and a few real photos (validation only). Exits non-zero when a name differs. About 5 to 10
# minutes on 2 busy cores, most of it Python's mirror_likeness on the real photos (REAL=0 skips them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$(mktemp -d /tmp/tilescope-classify.XXXXXX)}
PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" python "$root/web/test/classify_golden.py" "$out" \
  --samples --rendered "${RENDERED:-3}" --glass "${GLASS:-3}" --glass-real "${GLASS_REAL:-5}" --jade "${JADE:-2}" --real "${REAL:-3}" --set-seed "${SET_SEED:-101}"
cd "$root/web" && node test/classify_vs_python.mjs "$out"
