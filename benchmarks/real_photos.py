"""Per-tile accuracy of the tile reader on real photos that were never used for training.

Runs ``vision.read.detector.TileReader`` on each photo labelled in ``datasets/real/camerash_labels.json``
(the 14 Camerash/mahjong-dataset photos, MIT; read from ``../shared/real/camerash/photos`` or
``--photos DIR``, never copied into the repo) and compares the tiles it names with the labelled
tile multiset of the photo.

Metric (multiset, no boxes are labelled): per class, ``matched = min(predicted, true)``;
``precision = matched / predicted``, ``recall = matched / true``, ``F1 = 2PR / (P + R)``
(= ``2 matched / (predicted + true)``). Tiles a label marks ``unknown`` (unreadable) or ``other``
(a real tile outside the 46 classes, e.g. an American-set joker) are in no class: up to that many
unmatched predictions are excused from precision (the reader had to call them something), and
they never count towards recall. Red fives are strict: ``0m`` is not ``5m`` (these Chinese sets
have no red fives, so any ``0x`` prediction is a false positive).
The overall figure is micro-averaged (sums over all photos); the mean of per-photo F1 is also
given. Confusions are estimated by aligning the predicted tiles in reading order with the
labelled rows (edit distance): approximate, since no positions are labelled.

    .venv/bin/python -m benchmarks.real_photos [--photos DIR] [--weights DIR] [--json]
    .venv/bin/python -m benchmarks.real_photos --fake [--fake-noise 0.05]   # no model needed

``--fake`` replaces the model by a reader that returns each photo's labelled rows with a seeded
share of tiles dropped, swapped for a random class or duplicated: it checks this script end to
end (and shows how the numbers move) without weights or photos.
Exit codes: 0 done, 2 bad input (labels file, photos folder, model missing).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_LABELS = REPO / "datasets" / "real" / "camerash_labels.json"
DEFAULT_PHOTOS = REPO.parent / "shared" / "real" / "camerash" / "photos"

# the 46 class names, spelled out here so the metric code does not need vision/cv2
SUITS_HONOURS = tuple([f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)])
FLOWERS = tuple(f"{n}f" for n in range(1, 9))
CLASSES = SUITS_HONOURS + ("0m", "0p", "0s") + FLOWERS + ("back",)


class LabelError(ValueError):
    """The labels file is missing or not in the expected shape."""


# --- metric ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Score:
    """Multiset agreement between predicted and true tiles of one photo (or a sum of photos).

    ``predicted``: tiles the reader returned. ``true``: labelled tiles in the 46 classes.
    ``excused``: unmatched predictions not held against precision (<= unscored tiles).
    ``total``: all tiles in the photo, unscored ones included (for the count error).
    """

    matched: int
    predicted: int
    true: int
    excused: int = 0
    total: int = 0

    @property
    def precision(self) -> float:
        denom = self.predicted - self.excused
        return self.matched / denom if denom else 1.0  # no scored predictions: none wrong

    @property
    def recall(self) -> float:
        return self.matched / self.true if self.true else 1.0  # nothing to find: none missed

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def count_error(self) -> int:
        """Predicted minus present tiles: negative when tiles were missed."""
        return self.predicted - self.total

    def __add__(self, other: "Score") -> "Score":
        return Score(self.matched + other.matched, self.predicted + other.predicted,
                     self.true + other.true, self.excused + other.excused, self.total + other.total)

    def to_json(self) -> dict:
        return {"matched": self.matched, "predicted": self.predicted, "true": self.true,
                "excused": self.excused, "total": self.total, "count_error": self.count_error,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "f1": round(self.f1, 4)}


def multiset_score(predicted: Counter, true: Counter, unscored: int = 0) -> Score:
    """Score predicted tile names against the true multiset of one photo.

    ``predicted``/``true``: class name -> count. ``unscored``: tiles present but in no class
    (labelled ``unknown`` or ``other``); up to that many unmatched predictions are excused.
    ``matched`` per class is ``min(predicted, true)``. Raises ``ValueError`` on a negative count.
    """
    for name, c in list(predicted.items()) + list(true.items()):
        if c < 0:
            raise ValueError(f"negative count {c} for {name!r}")
    if unscored < 0:
        raise ValueError(f"negative unscored count {unscored}")
    matched = sum(min(c, true.get(k, 0)) for k, c in predicted.items())
    n_pred, n_true = sum(predicted.values()), sum(true.values())
    excused = min(n_pred - matched, unscored)
    return Score(matched, n_pred, n_true, excused, n_true + unscored)


def class_errors(predicted: Counter, true: Counter) -> dict[str, tuple[int, int]]:
    """Per class (missed, extra): ``true - predicted`` and ``predicted - true`` where positive."""
    out = {}
    for k in set(predicted) | set(true):
        missed, extra = max(0, true.get(k, 0) - predicted.get(k, 0)), max(0, predicted.get(k, 0) - true.get(k, 0))
        if missed or extra:
            out[k] = (missed, extra)
    return out


def align(true_seq: list[str], pred_seq: list[str]) -> list[tuple[str | None, str | None]]:
    """Edit-distance alignment of two tile sequences (unit costs).

    Returns the mismatched pairs in order: ``(t, p)`` a substitution (a confusion of ``t`` as
    ``p``), ``(t, None)`` a missed tile, ``(None, p)`` an extra one. Equal pairs are left out.
    """
    n, m = len(true_seq), len(pred_seq)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sub = d[i - 1][j - 1] + (true_seq[i - 1] != pred_seq[j - 1])
            d[i][j] = min(sub, d[i - 1][j] + 1, d[i][j - 1] + 1)
    pairs = []
    i, j = n, m
    while i or j:
        if i and j and d[i][j] == d[i - 1][j - 1] + (true_seq[i - 1] != pred_seq[j - 1]):
            if true_seq[i - 1] != pred_seq[j - 1]:
                pairs.append((true_seq[i - 1], pred_seq[j - 1]))
            i, j = i - 1, j - 1
        elif i and d[i][j] == d[i - 1][j] + 1:
            pairs.append((true_seq[i - 1], None))
            i -= 1
        else:
            pairs.append((None, pred_seq[j - 1]))
            j -= 1
    return pairs[::-1]


# --- labels -----------------------------------------------------------------------------------


def load_labels(path: Path = DEFAULT_LABELS) -> dict:
    """Read the labels JSON: ``{"photos": {name: {"tiles": {code: n}, "unknown": n, "other":
    {name: n}, "total": n, "rows": [...], ...}}}``. Raises ``LabelError`` naming the problem."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LabelError(f"labels file {path} not found") from None
    except (OSError, json.JSONDecodeError) as e:
        raise LabelError(f"labels file {path} unreadable: {e}") from None
    photos = doc.get("photos") if isinstance(doc, dict) else None
    if not isinstance(photos, dict) or not photos:
        raise LabelError(f"labels file {path} has no 'photos' object")
    for name, entry in photos.items():
        tiles = entry.get("tiles") if isinstance(entry, dict) else None
        if not isinstance(tiles, dict):
            raise LabelError(f"{name}: no 'tiles' object")
        bad = [k for k in tiles if k not in CLASSES]
        if bad:
            raise LabelError(f"{name}: unknown tile codes {bad}")
    return doc


def unscored_count(entry: dict) -> int:
    """Tiles of a labelled photo that are in no class: ``unknown`` plus all ``other``."""
    return int(entry.get("unknown", 0)) + sum(entry.get("other", {}).values())


def label_sequence(entry: dict) -> list[str]:
    """The labelled tiles in reading order (rows joined), unknown/other tiles included."""
    return [t for row in entry.get("rows", []) for t in row.split()]


# --- readers ----------------------------------------------------------------------------------


class FakeReader:
    """Stands in for the model: returns the labelled rows of a photo with seeded errors.

    Each tile is, with probability ``noise`` each, dropped, swapped for another class, or
    followed by a duplicate; ``other``/``unknown`` tiles come back as a random class (a real
    reader must call them something).
    """

    def __init__(self, labels: dict, noise: float = 0.0, seed: int = 0):
        self.labels, self.noise, self.rng = labels, noise, random.Random(seed)

    def read_names(self, photo: str) -> list[str]:
        out = []
        for t in label_sequence(self.labels["photos"][photo]):
            if t not in CLASSES:
                t = self.rng.choice(CLASSES)
            r = self.rng.random()
            if r < self.noise:
                continue
            if r < 2 * self.noise:
                t = self.rng.choice([c for c in CLASSES if c != t])
            out.append(t)
            if r > 1 - self.noise:
                out.append(t)
        return out


class ModelReader:
    """Runs ``vision.read.detector.TileReader`` on the photo files."""

    def __init__(self, photos_dir: Path, weights: str | None, conf: float | None, imgsz: int | None,
                 turns: int = 4, counts: bool = True, contrast: bool | None = None):
        from vision.read.detector import TileReader  # imported here: --fake needs no model or cv2
        from vision.read.imageio import load_image

        kwargs = {"turns": turns, "counts": counts}
        if contrast is not None:
            kwargs["contrast"] = contrast
        if conf is not None:
            kwargs["conf"] = conf
        if imgsz is not None:
            kwargs["imgsz"] = imgsz
        self.reader = TileReader(weights_dir=weights, **kwargs)
        self.load_image, self.photos_dir = load_image, photos_dir

    def read_names(self, photo: str) -> list[str]:
        dets = self.reader.read(self.load_image(self.photos_dir / photo))
        return [d.tile for d in dets.tiles]  # TileReader returns reading order


# --- report -----------------------------------------------------------------------------------


@dataclass
class PhotoResult:
    """One photo's outcome: its score, seconds spent reading it, per-class (missed, extra),
    aligned confusions, the error text if reading failed, and the predicted names."""

    photo: str
    score: Score
    seconds: float
    errors: dict[str, tuple[int, int]] = field(default_factory=dict)
    confusions: list[tuple[str | None, str | None]] = field(default_factory=list)
    failure: str | None = None
    predicted: list[str] = field(default_factory=list)


def evaluate(labels: dict, read_names, photos: list[str] | None = None) -> list[PhotoResult]:
    """Score ``read_names(photo) -> [class names]`` on every labelled photo (or ``photos``).

    A photo whose reading raises is recorded with ``failure`` and scored as no predictions.
    """
    results = []
    for name in photos or list(labels["photos"]):
        entry = labels["photos"][name]
        true = Counter(entry["tiles"])
        t0 = time.perf_counter()
        failure = None
        try:
            names = list(read_names(name))
        except Exception as e:  # noqa: BLE001 - one bad photo must not end the benchmark
            names, failure = [], f"{type(e).__name__}: {e}"
        seconds = time.perf_counter() - t0
        pred = Counter(names)
        score = multiset_score(pred, true, unscored_count(entry))
        seq = label_sequence(entry)
        pairs = align(seq, names) if seq else []
        # a prediction aligned with an unknown/joker tile is excused, so it is no class's "extra"
        on_unscored = Counter(p for t, p in pairs if t is not None and t not in CLASSES and p is not None)
        confusions = [(t, p) for t, p in pairs if t is None or t in CLASSES]
        results.append(PhotoResult(name, score, seconds, class_errors(pred - on_unscored, true),
                                   confusions, failure, names))
    return results


def summary(results: list[PhotoResult], top: int = 10) -> dict:
    """Overall micro/macro scores, per-class missed/extra totals and the commonest confusions."""
    total = Score(0, 0, 0)
    missed, extra, pairs = Counter(), Counter(), Counter()
    for r in results:
        total = total + r.score
        for k, (mi, ex) in r.errors.items():
            missed[k] += mi
            extra[k] += ex
        for t, p in r.confusions:
            if t is not None and p is not None:
                pairs[(t, p)] += 1
    worst = sorted(set(missed) | set(extra), key=lambda k: -(missed[k] + extra[k]))[:top]
    return {
        "overall": total.to_json(),
        "mean_photo_f1": round(sum(r.score.f1 for r in results) / len(results), 4) if results else 0.0,
        "worst_classes": [{"class": k, "missed": missed[k], "extra": extra[k]} for k in worst],
        "confusions": [{"true": t, "predicted": p, "count": c} for (t, p), c in pairs.most_common(top)],
    }


def to_json(results: list[PhotoResult], meta: dict) -> dict:
    """The ``--json`` document: ``meta``, per-photo scores/errors/predictions, then ``summary``."""
    return {
        **meta,
        "photos": {r.photo: {**r.score.to_json(), "seconds": round(r.seconds, 3),
                             "failure": r.failure, "predicted_tiles": " ".join(r.predicted),
                             "errors": {k: {"missed": a, "extra": b} for k, (a, b) in sorted(r.errors.items())}}
                   for r in results},
        **summary(results),
    }


def print_report(results: list[PhotoResult], meta: dict, out=sys.stdout) -> None:
    """The human-readable table: one line per photo, the micro-averaged total, worst classes."""
    w = out.write
    w(f"reader: {meta['reader']}   labels: {meta['labels']}\n")
    w(f"{'photo':10} {'true':>5} {'pred':>5} {'match':>5} {'P':>6} {'R':>6} {'F1':>6} {'count':>6} {'s':>6}\n")
    for r in results:
        s = r.score
        prec = f"{s.precision:6.3f}" if s.predicted > s.excused else "     -"  # nothing predicted
        w(f"{r.photo:10} {s.true:5d} {s.predicted:5d} {s.matched:5d} {prec} {s.recall:6.3f}"
          f" {s.f1:6.3f} {s.count_error:+6d} {r.seconds:6.2f}" + (f"  FAILED {r.failure}" if r.failure else "") + "\n")
    summ = summary(results)
    o = summ["overall"]
    w(f"{'overall':10} {o['true']:5d} {o['predicted']:5d} {o['matched']:5d} {o['precision']:6.3f}"
      f" {o['recall']:6.3f} {o['f1']:6.3f} {o['count_error']:+6d}   (micro; mean photo F1 {summ['mean_photo_f1']:.3f})\n")
    if summ["worst_classes"]:
        w("worst classes (missed/extra): " + ", ".join(
            f"{c['class']} {c['missed']}/{c['extra']}" for c in summ["worst_classes"]) + "\n")
    if summ["confusions"]:
        w("confusions, true->predicted (aligned in reading order, approximate): " + ", ".join(
            f"{c['true']}->{c['predicted']} x{c['count']}" for c in summ["confusions"]) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Command line entry; returns the exit code (0 done, 2 bad input, message on stderr)."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.real_photos", description=__doc__.split("\n\n")[0])
    ap.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS, help="folder with the photos (default %(default)s)")
    ap.add_argument("--labels", type=Path, default=DEFAULT_LABELS, help="labels JSON (default %(default)s)")
    ap.add_argument("--only", nargs="+", metavar="PHOTO", help="score only these labelled photos")
    ap.add_argument("--weights", help="weights folder for TileReader (default: the bundled one)")
    ap.add_argument("--conf", type=float, help="detector confidence threshold (default: TileReader's)")
    ap.add_argument("--imgsz", type=int, help="detector input size in px (default: the model's)")
    ap.add_argument("--turns", type=int, default=4, choices=(1, 2, 4), help="classifier quarter turns per crop")
    ap.add_argument("--no-counts", action="store_true",
                    help="name each tile on its own (no limit of four of a kind per photo)")
    ap.add_argument("--contrast-views", choices=("yes", "no"), default=None,
                    help="look again at unsurely named photos in contrast views (default: vision.read.detector.CONTRAST_VIEWS)")
    ap.add_argument("--fake", action="store_true", help="no model: return the labels with seeded errors")
    ap.add_argument("--fake-noise", type=float, default=0.0, help="error rate of --fake per kind (drop/swap/duplicate)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)

    try:
        labels = load_labels(args.labels)
    except LabelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    photos = args.only or list(labels["photos"])
    unknown = [p for p in photos if p not in labels["photos"]]
    if unknown:
        print(f"error: not labelled: {', '.join(unknown)}", file=sys.stderr)
        return 2
    if not 0.0 <= args.fake_noise <= 1 / 3:
        print("error: --fake-noise must be between 0 and 1/3", file=sys.stderr)
        return 2

    if args.fake:
        reader = FakeReader(labels, args.fake_noise, args.seed)
        desc = f"fake (noise {args.fake_noise}, seed {args.seed})"
    else:
        if not args.photos.is_dir():
            print(f"error: photos folder {args.photos} not found (pass --photos DIR; the photos are "
                  "in Camerash/mahjong-dataset)", file=sys.stderr)
            return 2
        missing = [p for p in photos if not (args.photos / p).is_file()]
        if missing:
            print(f"error: photos missing from {args.photos}: {', '.join(missing)}", file=sys.stderr)
            return 2
        try:
            reader = ModelReader(args.photos, args.weights, args.conf, args.imgsz, args.turns,
                                 counts=not args.no_counts,
                                 contrast=None if args.contrast_views is None else args.contrast_views == "yes")
        except ImportError as e:
            print(f"error: the tile reader cannot be imported ({e}); try --fake", file=sys.stderr)
            return 2
        except Exception as e:  # ModelError and friends: missing/malformed weights
            print(f"error: cannot load the tile reader: {e}", file=sys.stderr)
            return 2
        desc = f"TileReader(weights={args.weights or 'bundled'}, conf={args.conf}, imgsz={args.imgsz}, turns={args.turns}, counts={not args.no_counts}, contrast_views={args.contrast_views or 'default'})"

    results = evaluate(labels, reader.read_names, photos)
    meta = {"reader": desc, "labels": str(args.labels)}
    if args.json:
        json.dump(to_json(results, meta), sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_report(results, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
