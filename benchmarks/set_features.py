"""How well the classifier's ``embedding`` tells the tiles of one set apart, from references.

The set profiles of ``vision.read.tileset`` name a crop by the nearest reference crop of its set in
the classifier's ``embedding`` output (cosine). This measures that, without the reader:

* **rendered sets** (default the held-out ``kmahjongg-jade`` and ``riichi-black``): per kind of
  the style, ``--queries`` crops rendered as the classifier's training crops are
  (``models.train_classifier.render_crop``: perspective, neighbours, blur, light; no repaint,
  the style's own back where it has one) and 3 reference crops per trial; one reference per
  kind (``1-ref``) or the normalised mean of three (``3-ref``) is a kind's prototype, each query
  is named by the nearest prototype; ``--trials`` draws of references;
* **real crops** (``$TILESCOPE_REAL/camerash/crops``, 629 photos of one Chinese set): per trial,
  1 (or 3) crops per kind drawn as references, every other crop of those kinds a query.

``head`` is the classifier's own top-1 on the same queries (no profile). One table, plus
``--json``.

    .venv/bin/python benchmarks/set_features.py [--weights vision/weights/classifier.onnx]
        [--styles kmahjongg-jade riichi-black] [--seed 0] [--trials 3] [--json OUT]
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.read.classes import CLASS_INDEX, TILE_CLASSES  # noqa: E402

NO_PAINT = (0.0, 0.0, 0.0, 0.0)


def default_real() -> Path:
    root = Path(os.environ.get("TILESCOPE_REAL") or REPO.parent / "shared" / "real")
    return root / "camerash" / "crops"


class Embedder:
    """The classifier ONNX model: crops (N, 3, S, S) float BGR 0..1 -> (probs, embedding)."""

    def __init__(self, path: Path):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        self.sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        names = [o.name for o in self.sess.get_outputs()]
        if "embedding" not in names:
            raise SystemExit(f"{path}: no 'embedding' output (outputs {names}); export it again "
                             "with models/train_classifier.export_onnx")
        self.size = self.sess.get_inputs()[0].shape[2]
        self.input = self.sess.get_inputs()[0].name

    def __call__(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        probs, emb = [], []
        for i in range(0, len(crops), 256):
            p, e = self.sess.run(["probs", "embedding"], {self.input: crops[i:i + 256].astype(np.float32)})
            probs.append(p)
            emb.append(e)
        return np.concatenate(probs), np.concatenate(emb)


def nearest_prototype(ref_emb: np.ndarray, ref_y: np.ndarray, q_emb: np.ndarray) -> np.ndarray:
    """Each query's kind: the kind whose prototype (normalised mean of its references) is nearest."""
    kinds = np.unique(ref_y)
    proto = np.stack([ref_emb[ref_y == k].mean(0) for k in kinds])
    proto /= np.linalg.norm(proto, axis=1, keepdims=True) + 1e-9
    return kinds[(q_emb @ proto.T).argmax(1)]


def rendered_set(model: Embedder, style_name: str, art_dir: Path | None, queries: int, trials: int,
                 seed: int) -> dict:
    from datasets import art
    from models.train_classifier import _scaled, render_crop

    style = art.load_style(style_name, art_dir)
    faces = {c: _scaled(img) for c, img in style.faces.items()}
    look = None
    kinds = [c for c in TILE_CLASSES if c in faces]
    if style.back is not None:
        faces["back"] = _scaled(style.back)
        look = {"back": faces["back"]}
        kinds.append("back")
    rng = np.random.default_rng(seed)

    def render(n: int) -> tuple[np.ndarray, np.ndarray]:
        xs, ys = [], []
        for c in kinds:
            for _ in range(n):
                if look is None:
                    xs.append(render_crop(faces, c, rng, NO_PAINT))
                else:
                    xs.append(render_crop(faces, c, rng, NO_PAINT, look=look if c == "back" else None))
                ys.append(CLASS_INDEX[c])
        x = np.stack(xs).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        return x, np.array(ys)

    qx, qy = render(queries)
    rx, ry = render(3 * trials)
    q_probs, q_emb = model(qx)
    _, r_emb = model(rx)
    res = {"set": f"rendered {style_name}", "kinds": len(kinds), "queries": int(len(qy))}
    for k in (1, 3):
        accs = []
        for t in range(trials):
            pick = np.zeros(len(ry), bool)
            for c in np.unique(ry):
                idx = np.flatnonzero(ry == c)
                pick[idx[3 * t:3 * t + k]] = True
            accs.append(float((nearest_prototype(r_emb[pick], ry[pick], q_emb) == qy).mean()))
        res[f"{k}-ref"] = round(float(np.mean(accs)), 4)
    res["head"] = round(float((q_probs.argmax(1) == qy).mean()), 4)
    return res


def real_crops(model: Embedder, crops_dir: Path, trials: int, seed: int) -> dict | None:
    from benchmarks.classifier_real import mpsz_of
    from vision.read.imageio import load_image
    from vision.read.tile_crops import crop_boxes

    labels = crops_dir / "labels.csv"
    if not labels.is_file():
        print(f"no {labels}: real crops skipped", file=sys.stderr)
        return None
    with labels.open(newline="") as f:
        rows = [(r["image-name"], mpsz_of(r["label-name"])) for r in csv.DictReader(f)]
    xs = []
    for name, _ in rows:
        img = load_image(crops_dir / name)
        h, w = img.shape[:2]
        xs.append(crop_boxes(img, np.array([[0, 0, w, h]]), model.size, context=0.0))
    y = np.array([CLASS_INDEX[t] for _, t in rows])
    probs, emb = model(np.concatenate(xs))
    rng = np.random.default_rng(seed)
    res = {"set": "real crops (camerash)", "kinds": int(len(np.unique(y))), "queries": int(len(y))}
    for k in (1, 3):
        accs, heads = [], []
        for _ in range(trials):
            ref = np.zeros(len(y), bool)
            for c in np.unique(y):
                idx = np.flatnonzero(y == c)
                if len(idx) > k:
                    ref[rng.choice(idx, k, replace=False)] = True
            have = np.isin(y, np.unique(y[ref]))
            q = ~ref & have
            accs.append(float((nearest_prototype(emb[ref], y[ref], emb[q]) == y[q]).mean()))
            heads.append(float((probs[q].argmax(1) == y[q]).mean()))
        res[f"{k}-ref"] = round(float(np.mean(accs)), 4)
    res["head"] = round(float((probs.argmax(1) == y).mean()), 4)
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--weights", type=Path, default=REPO / "vision" / "weights" / "classifier.onnx",
                   help="classifier ONNX (a file, or a folder holding classifier.onnx)")
    p.add_argument("--art", type=Path, default=None, help="artwork (default $TILESCOPE_ART or ../shared/art)")
    p.add_argument("--styles", nargs="*", default=["kmahjongg-jade", "riichi-black"])
    p.add_argument("--real", type=Path, default=None, help="camerash crops folder (labels.csv)")
    p.add_argument("--queries", type=int, default=10, help="rendered query crops per kind")
    p.add_argument("--trials", type=int, default=3, help="draws of the references")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    path = args.weights / "classifier.onnx" if args.weights.is_dir() else args.weights
    model = Embedder(path)
    rows = [rendered_set(model, s, args.art, args.queries, args.trials, args.seed) for s in args.styles]
    real = real_crops(model, args.real or default_real(), max(args.trials, 5), args.seed)
    if real:
        rows.append(real)
    print(f"{path} (seed {args.seed})")
    print(f"| set | kinds | queries | 1-ref | 3-ref | head top-1 |\n|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['set']} | {r['kinds']} | {r['queries']} | {r['1-ref']:.1%} | {r['3-ref']:.1%} | {r['head']:.1%} |")
    if args.json:
        args.json.write_text(json.dumps({"weights": str(path), "seed": args.seed, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
