"""Test helper: the bundled sample photo ``tests/data/riichi_open_red.jpg`` and a stand-in
detector that returns its ground-truth boxes (``riichi_open_red.json``) with the red five misread
as a plain five (0.55, next guess the red five at 0.4), the error a real detector is most likely
to make.

The sample hand: 23m 4(0)6p 678s 88s, pon of Red dragons (777z), ron on 4m, South seat,
East round. Riichi rules, non-dealer ron (payment table: base = fu x 2^(han+2), ron x4,
rounded up to 100):
  read with 0p as 5p: yakuhai (chun) 1 han; fu 20 + 4 (open pon of honours) = 24 -> 30;
                      base 240, x4 = 960 -> 1000
  fixed to 0p:        + aka dora 1 = 2 han 30 fu; base 480, x4 = 1920 -> 2000
"""
from __future__ import annotations

import json
from pathlib import Path

from vision.read.detections import Detection, Detections

SAMPLE = Path(__file__).with_name("data") / "riichi_open_red.jpg"
TRUTH = json.loads(SAMPLE.with_suffix(".json").read_text())
CONTEXT = {"ruleset": "riichi", "win": "ron", "seat_wind": "S", "round_wind": "E"}
MISREAD = {"0p": "5p"}


class TruthReader:
    """Stand-in detector: the sample's ground-truth boxes, the red five read as a plain five."""

    def read(self, img) -> Detections:
        h, w = img.shape[:2]
        if (w, h) != (TRUTH["image"]["width"], TRUTH["image"]["height"]):
            raise AssertionError(f"not the sample photo: {w}x{h}")
        return Detections(w, h, [
            Detection(MISREAD.get(t["tile"], t["tile"]), tuple(float(v) for v in t["box"]),
                      0.55 if t["tile"] in MISREAD else 0.95, t["sideways"],
                      # its next guess is the truth, as a reader's would be
                      alternatives=((t["tile"], 0.4),) if t["tile"] in MISREAD else ())
            for t in TRUTH["tiles"]])


class SamplesReader:
    """Stand-in detector for every bundled sample photo (``tests/data/*.jpg``): it knows which
    one it was given by its pixels (the page re-encodes the photo, so not by its bytes; two
    samples share a size) and returns that photo's ground-truth boxes, scaled to the image as
    read (a server with a low pixel limit reads a JPEG at 1/2 scale)."""

    def __init__(self):
        import numpy as np

        from vision.read.imageio import decode_image

        self._np = np
        self.samples = []
        for photo in sorted(SAMPLE.parent.glob("*.jpg")):
            truth = json.loads(photo.with_suffix(".json").read_text())
            self.samples.append((self._thumb(decode_image(photo.read_bytes())), truth))

    def _thumb(self, img):
        # a 32x24 grey thumbnail by block means: enough to tell the samples apart
        np = self._np
        g = img.astype(np.float32).mean(axis=2)
        h, w = g.shape
        ys = np.linspace(0, h, 25).astype(int)
        xs = np.linspace(0, w, 33).astype(int)
        return np.array([[g[ys[i]:ys[i + 1], xs[j]:xs[j + 1]].mean() for j in range(32)]
                         for i in range(24)])

    def read(self, img) -> Detections:
        h, w = img.shape[:2]
        thumb = self._thumb(img)
        truth = min(self.samples, key=lambda s: float(abs(s[0] - thumb).mean()))[1]
        sx, sy = w / truth["image"]["width"], h / truth["image"]["height"]
        return Detections(w, h, [
            Detection(t["tile"], (t["box"][0] * sx, t["box"][1] * sy, t["box"][2] * sx, t["box"][3] * sy),
                      0.98, t["sideways"]) for t in truth["tiles"]])
