"""Set profiles on sets the classifier never saw: one sheet learned, then that set's hands read.

    python -m benchmarks.set_unseen [--sets 20] [--styles kmahjongg-jade] [--photos 30]
        [--frames 20] [--seed 0] [--json OUT.jsonl] [--compare OLD.jsonl] [--evidence OUT.npz]
    python -m benchmarks.set_unseen --sets 0 --styles riichi-regular riichi-black   # training styles

The case a set profile exists for: a user's own set, whose look the classifier was not trained
on. Each set is ``--sets`` procedural Chinese-style sets (``datasets.procedural``, seeds
``--seed``, ``--seed + 1``, ...; CJK fonts from ``sh datasets/get_fonts.sh``) and each of
``--styles`` (default the held-out ``kmahjongg-jade``). Per set: one reference sheet rendered
as a user photographs it (``tilescope set learn``'s default tiles, a face-down tile last;
``--no-back``: without it) and learned with ``vision.read.set_learning.learn_sheet``; then
``--photos`` hand photos (960 px, riichi and MCR, flowers included) and ``--frames`` broadcast
hand-camera frames (1280x720, tiles 21 px) of that same set (its own back in every photo),
each read by
``vision.score_photo`` without and with the profile.

Printed per set and in all: tiles named right by each witness on the detector's crops that
match a drawn tile (IoU >= 0.5): the classifier alone, the profile's nearest reference, and
the reader with the profile (``vision.read.tileset.combine`` under the set's calibration); hands
whose score is right without and with the profile; median seconds per photo both ways.
``--json``: one row per hand (``set``, ``i``, ``score_right``, ``score_right_set``, ...);
``--compare OLD`` lists the hands won and lost against an earlier run with the same arguments.
``--evidence``: the crops' classifier probabilities, likeness and truth, for tuning offline.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.pipeline import compare_runs, context_for, same_score  # noqa: E402


def procedural_set(seed: int, fonts):
    """A procedural Chinese-style set as tile art the renderer draws (its own plain back)."""
    from datasets.procedural import procedural_art

    return procedural_art(seed, fonts)


def sheet_kinds(style, with_back: bool) -> list[list[str]]:
    """The default sheet's rows, less the kinds ``style`` lacks (and the back unless ``with_back``)."""
    from vision.read.set_learning import parse_sheet, sheet_rows
    from vision.read.tileset import DEFAULT_SHEET

    kinds, rows = parse_sheet(DEFAULT_SHEET), []
    for n in sheet_rows(DEFAULT_SHEET):
        rows.append([k for k in kinds[:n] if k in style.classes and (with_back or k != "back")])
        kinds = kinds[n:]
    return [r for r in rows if r]


def learn(reader, style, seed: int, with_back: bool, tries: int = 5):
    """The profile of one rendered sheet of ``style`` (the next seed when not all tiles are found)."""
    from datasets.render import render_sheet
    from vision.read.set_learning import learn_sheet
    from vision.read.tileset import SetError

    rows = sheet_kinds(style, with_back)
    kinds = [k for r in rows for k in r]
    for s in range(seed, seed + tries):
        rng = np.random.default_rng(s)
        img, _ = render_sheet(rng, style, kinds, imgsz=960, row_lengths=[len(r) for r in rows])
        try:
            return learn_sheet(reader, img, kinds, name=style.name, source=f"sheet seed {s}")
        except SetError as exc:
            print(f"  {style.name}: sheet seed {s}: {exc}", file=sys.stderr)
    return None


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU matrix of boxes ``a`` (N, 4) and ``b`` (M, 4)."""
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = lambda z: (z[:, 2] - z[:, 0]) * (z[:, 3] - z[:, 1])  # noqa: E731
    return inter / (area(a)[:, None] + area(b)[None, :] - inter + 1e-9)


def evidence(reader, img, ann) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The witnesses on the detector's crops that match a drawn tile: the classifier's
    probabilities ``(K, 46)`` (after the detector's back call, as the reader has them before
    the profile's word), the likeness to the set's kinds ``(K, 46)``, the true class ``(K,)``."""
    from vision.read.classes import CLASS_INDEX
    from vision.read.detector import _merge_back

    boxes, _, det_cls = reader.detect(img)
    truth_boxes = np.array([t["box"] for t in ann["tiles"]], np.float64).reshape(-1, 4)
    if len(boxes) == 0 or len(truth_boxes) == 0:
        return np.zeros((0, 46), np.float32), np.zeros((0, 46), np.float32), np.zeros(0, np.int64)
    iou = _iou(np.asarray(boxes, np.float64), truth_boxes)
    best = iou.argmax(axis=1)
    keep = iou[np.arange(len(boxes)), best] >= 0.5
    if not keep.any():
        return np.zeros((0, 46), np.float32), np.zeros((0, 46), np.float32), np.zeros(0, np.int64)
    probs, likeness = reader._classify(img, boxes[keep])
    if not reader.single_stage:
        probs = _merge_back(probs, det_cls[keep], reader.names)
    truth = np.array([CLASS_INDEX[ann["tiles"][j]["tile"]] for j in best[keep]], np.int64)
    return probs, likeness, truth


def hands(rng, style, photos: int, frames: int):
    """``photos`` hand photos then ``frames`` broadcast frames of ``style``: (kind, image, annotation)."""
    from datasets.hands import random_hand
    from datasets.render import Look, hand_camera_look, render_hand

    made = 0
    while made < photos + frames:
        frame = made >= photos
        ruleset = "riichi" if frame or rng.random() >= 0.35 else "mcr"
        spec = random_hand(rng, ruleset)
        if frame:
            look, size, upside = hand_camera_look(rng, 21.0), (1280, 720), False
        else:
            look, size, upside = Look(occlude=0.0), 960, bool(rng.random() < 0.15)
        try:
            img, ann = render_hand(spec, rng, style, imgsz=size, upside_down=upside, look=look)
        except KeyError:            # the style lacks a tile of this hand
            continue
        made += 1
        yield ("frame" if frame else "photo"), img, ann


def run_set(reader, style, args, seed: int) -> tuple[list[dict], dict, tuple]:
    """Learn ``style``'s sheet and read its hands both ways: per-hand rows, a summary, evidence."""
    from scoring.api import score_json
    from vision.photo.pipeline import score_photo

    learned = learn(reader, style, seed, not args.no_back)
    if learned is None:
        return [], {"set": style.name, "learned": False}, ()
    with_set = reader.with_set(learned.tileset)
    rng = np.random.default_rng(seed + 1000)
    rows, ev, secs = [], [], ([], [])
    for i, (kind, img, ann) in enumerate(hands(rng, style, args.photos, args.frames)):
        want = ann["request"]
        shown_dora = any(t["group"] == "dora" for t in ann["tiles"])
        truth = Counter(t["tile"] for t in ann["tiles"])
        row = {"set": style.name, "i": i, "kind": kind, "ruleset": want["ruleset"]}
        for key, r, s in (("", reader, secs[0]), ("_set", with_set, secs[1]))[:0 if args.evidence_only else 2]:
            start = time.perf_counter()
            photo = score_photo(img, context_for(want, shown_dora), reader=r)
            s.append(time.perf_counter() - start)
            read = Counter(d.tile for d in photo.detections.tiles)
            row["tiles_right" + key] = read == truth
            row["tiles_matched" + key] = (read & truth).total()
            row["tiles_read" + key] = read.total()
            row["score_right" + key] = (photo.request is not None
                                        and same_score(photo.result.to_json(), score_json(want)))
        row["tiles_true"] = truth.total()
        rows.append(row)
        ev.append(evidence(with_set, img, ann))
    probs = np.concatenate([e[0] for e in ev])
    like = np.concatenate([e[1] for e in ev])
    truth = np.concatenate([e[2] for e in ev])
    from vision.read.tileset import combine

    named = {"classifier": probs.argmax(axis=1), "nearest reference": like.argmax(axis=1),
             "with the profile": combine(probs, like, with_set.tileset.calibration)[0].argmax(axis=1)}
    summary = {"set": style.name, "learned": True, "crops": len(truth),
               "sheet_misread": [d.given for d in learned.disagreements],
               **{k: float(np.mean(v == truth)) if len(truth) else 0.0 for k, v in named.items()},
               "hands": len(rows), "right": sum(r.get("score_right", 0) for r in rows),
               "right_set": sum(r.get("score_right_set", 0) for r in rows),
               "seconds": statistics.median(secs[0]) if secs[0] else 0.0,
               "seconds_set": statistics.median(secs[1]) if secs[1] else 0.0}
    return rows, summary, (probs, like, truth, learned.tileset, learned.sheet_probs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.set_unseen", description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=20, help="procedural sets (default 20)")
    ap.add_argument("--styles", nargs="*", default=["kmahjongg-jade"],
                    help="artwork styles read as sets too (default the held-out kmahjongg-jade)")
    ap.add_argument("--photos", type=int, default=30, help="hand photos per set (default 30)")
    ap.add_argument("--frames", type=int, default=20, help="broadcast frames per set (default 20)")
    ap.add_argument("--seed", type=int, default=0, help="first procedural set's seed (default 0)")
    ap.add_argument("--no-back", action="store_true",
                    help="the sheet without its last, face-down tile (as older sheets were laid)")
    ap.add_argument("--art", default=None, help="artwork folder (default ../shared/art)")
    ap.add_argument("--weights", default=None, help="model folder (default vision/weights)")
    ap.add_argument("--json", metavar="FILE", help="per-hand rows as JSON Lines")
    ap.add_argument("--compare", metavar="FILE", help="an earlier run's --json: hands won and lost")
    ap.add_argument("--evidence", metavar="FILE", help="crops' witnesses and truth per set (.npz)")
    ap.add_argument("--evidence-only", action="store_true", help="with --evidence: read no hand whole")
    args = ap.parse_args(argv)

    from datasets.art import ArtError, load_style
    from vision.photo.pipeline import get_reader

    reader = get_reader(args.weights)
    styles = []
    if args.sets:
        from datasets.procedural import load_fonts

        fonts = load_fonts()
        if not fonts:
            print("error: no CJK font for the procedural sets: run `sh datasets/get_fonts.sh`", file=sys.stderr)
            return 2
        styles += [(lambda s=s: procedural_set(s, fonts), 101 + s) for s in range(args.seed, args.seed + args.sets)]
    for name in args.styles:
        try:
            style = load_style(name, args.art)
        except ArtError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        styles.append((lambda st=style: st, 101))
    all_rows, summaries, dump = [], [], {}
    print(f"{'set':<22} {'crops':>5} {'classif.':>8} {'nearest':>8} {'profile':>8}  "
          f"{'hands right: without -> with':>30}  {'s/photo':>12}")
    for make, seed in styles:
        style = replace(make(), back_share=1.0)     # one physical set: its own back in every photo
        rows, summary, ev = run_set(reader, style, args, seed)
        summaries.append(summary)
        all_rows += rows
        if not summary["learned"]:
            print(f"{style.name:<22} sheet not learned")
            continue
        print(f"{style.name:<22} {summary['crops']:>5} {summary['classifier']:>8.1%} "
              f"{summary['nearest reference']:>8.1%} {summary['with the profile']:>8.1%}  "
              f"{summary['right']:>13} -> {summary['right_set']:>3} of {summary['hands']:<4}"
              f"  {summary['seconds']:.3f}/{summary['seconds_set']:.3f}", flush=True)
        if args.evidence:
            probs, like, truth, tileset, sheet_probs = ev
            k = len(dump) // 8
            dump.update({f"{k}_name": np.array(style.name), f"{k}_probs": probs, f"{k}_like": like,
                         f"{k}_truth": truth, f"{k}_ref_kinds": np.array(tileset.kinds),
                         f"{k}_ref_emb": tileset.embeddings, f"{k}_sheet_probs": sheet_probs,
                         f"{k}_ref_crops": tileset.crops})
            np.savez_compressed(args.evidence, **dump)
    done = [s for s in summaries if s["learned"]]
    if not done:
        return 2
    for key in ("classifier", "nearest reference", "with the profile"):
        print(f"mean over {len(done)} sets, tiles named right by {key}: "
              f"{np.mean([s[key] for s in done]):.1%}")
    print(f"hands right: {sum(s['right'] for s in done)} -> {sum(s['right_set'] for s in done)} "
          f"of {sum(s['hands'] for s in done)}; sets where the profile is below the better witness: "
          f"{[s['set'] for s in done if s['with the profile'] < max(s['classifier'], s['nearest reference'])]}; "
          f"sets with fewer hands right: {[s['set'] for s in done if s['right_set'] < s['right']]}")
    print(f"median seconds per photo: {statistics.median([s['seconds'] for s in done]):.3f} without, "
          f"{statistics.median([s['seconds_set'] for s in done]):.3f} with the profile")
    if args.compare:
        with open(args.compare, encoding="utf-8") as fh:
            old = [json.loads(line) for line in fh if line.strip()]
        key = lambda r: f"{r['set']}#{r['i']}"  # noqa: E731
        won, lost = compare_runs([{**r, "i": key(r)} for r in old], [{**r, "i": key(r)} for r in all_rows],
                                 "score_right_set")
        print(f"against {args.compare} (with the profile): {len(won)} hands won {won}, {len(lost)} lost {lost}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            for r in all_rows:
                fh.write(json.dumps(r) + "\n")
    if args.evidence:
        np.savez_compressed(args.evidence, **dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
