"""A set profile (.npz, ``vision.read.tileset.TileSet.load``) as the browser's JSON.

    PYTHONPATH=. python web/tools/profile_json.py PROFILE.npz OUT.json [--references]

The JSON (read by web/src/reader/tileset.js ``profileFromJson``): ``name``, ``kinds``,
``embeddings`` (one list of numbers per reference, the float16 of the file as float32),
``crops`` (base64 of the ``(N, 48, 48, 3) uint8`` BGR crops), ``model`` (the classifier's
fingerprint), ``sources`` and ``calibration`` (the file's, ``Calibration.to_meta``; null for a version-1
file). ``--references``: also the reader's references as ``TileReader.with_set`` builds them
(each crop and its altered looks, embedded by the bundled classifier: ``kind_ids``,
``embeddings``), so the browser's likeness can be checked apart from its own looks.
"""
from __future__ import annotations

import argparse
import base64
import json
import sys
from pathlib import Path

import numpy as np


def profile_json(tileset, references=None) -> dict:
    """The JSON object of a ``TileSet`` (and of a reader's ``References``, when given)."""
    out = {"name": tileset.name, "kinds": list(tileset.kinds),
           "embeddings": np.asarray(tileset.embeddings, np.float32).astype(np.float64).tolist(),
           "crops": base64.b64encode(np.ascontiguousarray(tileset.crops, np.uint8).tobytes()).decode("ascii"),
           "model": tileset.model, "sources": list(tileset.sources),
           "calibration": None if tileset.calibration is None else tileset.calibration.to_meta()}
    if references is not None:
        out["references"] = {"kind_ids": [int(k) for k in references.kind_ids],
                             "embeddings": np.asarray(references.embeddings, np.float32)
                             .astype(np.float64).tolist()}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("profile")
    ap.add_argument("out")
    ap.add_argument("--references", action="store_true",
                    help="add the reader's references (needs the bundled classifier)")
    args = ap.parse_args(argv)
    from vision.read.tileset import SetError, TileSet

    try:
        tileset = TileSet.load(args.profile)
    except SetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    refs = None
    if args.references:
        from vision.read.detector import TileReader

        reader = TileReader(threads=1).with_set(tileset)
        tileset, refs = reader.tileset, reader.references
    Path(args.out).write_text(json.dumps(profile_json(tileset, refs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
