#!/usr/bin/env bash
# The browser's reader (web/src/reader, onnxruntime-web in Node) against Python's TileReader:
# the samples, rendered hands (20, a quarter of them broadcast frames that take the zoom
# windows), a few real photos and MCR hands composed from real crops. Prints a per-photo table
# and totals, then scores every photo from both readers' results (score_vs_python.py); exit 1
# when any photo's tiles or score JSON differ. Run from anywhere in the worktree.
#   bash web/test/compare_reader.sh [--rendered N] [--real N] [--crop-hands N]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${TMPDIR:-/tmp}/tilescope_reader_compare"
rm -rf "$out"
mkdir -p "$out"
# resize.js against cv2.resize first: every box below depends on it
PYTHONPATH="$root" python web/test/resize_cases.py "$out/resize" > /dev/null
node web/test/resize_vs_cv2.mjs "$out/resize"
PYTHONPATH="$root" python web/tools/reader_meta.py > "$out/reader.json"
PYTHONPATH="$root" python web/test/golden.py "$out/golden" "$@" 2> "$out/golden.log"
status=0
node web/test/reader_vs_python.mjs "$out/golden" "$out/reader.json" || status=1
# the proof the page needs: the same `tilescope score --json` from the JS reader's results
PYTHONPATH="$root" python web/test/score_vs_python.py "$out/golden" || status=1
exit $status
