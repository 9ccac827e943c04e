"""Write cv2.resize cases for web/test/resize_vs_cv2.mjs: random and real-photo uint8 BGR arrays,
resized as the reader resizes them (INTER_LINEAR letterbox, fit_square's INTER_AREA / LINEAR).
Usage: python web/test/resize_cases.py OUTDIR"""
import json
import sys
from pathlib import Path

import cv2
import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(43)
cases = []


def add(src, dw, dh, interp):
    i = len(cases)
    dst = cv2.resize(src, (dw, dh), interpolation=interp)
    src.tofile(out / f"{i}.src")
    dst.tofile(out / f"{i}.dst")
    cases.append({"w": src.shape[1], "h": src.shape[0], "dw": dw, "dh": dh, "interp": interp})


for _ in range(60):
    h, w = rng.integers(1, 160, 2)
    src = rng.integers(0, 256, (h, w, 3), np.uint8)
    dw, dh = rng.integers(1, 200, 2)
    add(src, int(dw), int(dh), cv2.INTER_LINEAR)
    s = 48 / max(h, w)
    if s < 1:
        add(src, max(1, round(w * s)), max(1, round(h * s)), cv2.INTER_AREA)
for h, w in [(144, 144), (192, 96), (96, 72), (96, 96), (144, 100), (20, 24), (24, 18), (37, 50), (200, 4), (1, 300)]:
    src = rng.integers(0, 256, (h, w, 3), np.uint8)
    s = 48 / max(h, w)
    add(src, max(1, round(w * s)), max(1, round(h * s)), cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    add(src, w * 2, h * 2, cv2.INTER_LINEAR)
    add(src, max(1, w // 2), max(1, h // 2), cv2.INTER_LINEAR)
# INTER_AREA with an axis enlarged (tileset.looks: a tile squeezed shorter but wider)
for _ in range(20):
    h, w = rng.integers(4, 48, 2)
    src = rng.integers(0, 256, (h, w, 3), np.uint8)
    add(src, int(max(4, round(w * rng.uniform(0.9, 1.3)))), int(max(4, round(h * rng.uniform(0.55, 1.2)))), cv2.INTER_AREA)
for p in sorted(Path("vision/samples").glob("*.jpg")):
    img = cv2.imread(str(p))
    h, w = img.shape[:2]
    r = min(416 / h, 416 / w)
    add(img, max(1, int(round(w * r))), max(1, int(round(h * r))), cv2.INTER_LINEAR)
    add(img[10:90, 20:80].copy(), 36, 48, cv2.INTER_AREA)
(out / "cases.json").write_text(json.dumps(cases))
print(len(cases), "cases")
