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

from vision.detections import Detection, Detections

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
