"""Photo → score accuracy and speed on rendered hands of a style never used in training.

    python -m benchmarks.pipeline [--n 300] [--style kmahjongg-jade] [--truth] [--weights DIR]
    python -m benchmarks.pipeline --style riichi-regular --ruleset riichi --frame 1280x720 --tile-px 21
                                                  # broadcast hand-camera frames (22x30 px tiles)
    python -m benchmarks.pipeline --real [DIR]      # what it reads on real photos

For each of N random winning hands (riichi and MCR, every meld kind, red fives, dora rows,
flowers, upside-down photos) rendered by ``datasets.render`` with a held-out tile style, runs
``vision.score_photo`` on the photo with the context a player would type (the true request
minus what the photo shows) and reports the share of hands

- **tiles right**: the multiset of tiles read equals the tiles drawn (ground truth boxes);
  **... less the boxes dropped**: the same for the tiles the layout parser kept (it drops a
  second box on a tile, and boxes that make the count wrong: ``vision.layout``);
- **groups right**: concealed part, winning tile, melds (type and tiles), dora indicators and
  flower count equal the true hand's; **... and who discarded**: also each meld's ``from``
  (read from the sideways tile's position; no value depends on it);
- **score right**: the result equals ``score_json`` of the true request;
- **read without any warning**: the hands the pipeline reported no doubt about (no
  ``LayoutWarning`` at all) and the share of those scored right: how far a referee can take a
  quiet report at its word;

plus the median end-to-end seconds per photo (read + layout + score, rendering excluded).
Under the score share, its 95% Wilson interval: on 300 hands a share near 23% can move about
±5 points by chance, so two readers (or two machines' OpenCV builds) are told apart hand by
hand: ``--compare OLD.jsonl`` (an earlier run's ``--json`` on the same seed) lists the hands
this run scores right that the earlier one did not, and the other way round.
``--truth`` feeds the renderer's exact boxes instead of the model: the layout parser's own
accuracy (``--box-sideways``: without the renderer's sideways flags, as a detector sees them). Hands with a tile hidden in the render (less than 40% visible, so not labelled) are
counted separately: no reader can get them right. Run from the repository root; needs the
artwork (``../shared/art`` or ``--art``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter

import numpy as np


def _tiles(mpsz: str) -> Counter:
    from scoring.tiles import parse_tiles

    return Counter(str(t) for t in parse_tiles(mpsz or ""))


def _melds(melds: list[dict], mcr: bool, with_from: bool = True) -> list[tuple]:
    out = []
    for m in melds:
        tiles = sorted(_tiles(m["tiles"]).elements())
        if mcr:
            tiles = [t.replace("0", "5") for t in tiles]
        source = m.get("from") if m["type"] != "ankan" and with_from else None
        out.append((m["type"], tuple(tiles), source))
    return sorted(out)


def grouping_right(got: dict | None, want: dict, shown_dora: bool, with_from: bool = True) -> bool:
    """The photo's hand request has the true tiles in the true groups (``with_from``: and each
    meld's discarder, read from the sideways tile's position)."""
    if got is None or "win_tile" not in got:
        return False
    mcr = want["ruleset"] == "mcr"

    def norm(c: Counter) -> Counter:
        return Counter(t.replace("0", "5") for t in c.elements()) if mcr else c

    win = want["win_tile"].replace("0", "5") if mcr else want["win_tile"]
    if norm(_tiles(got["concealed"])) != norm(_tiles(want["concealed"])) or got["win_tile"] != win:
        return False
    if _melds(got.get("melds", []), mcr, with_from) != _melds(want.get("melds", []), mcr, with_from):
        return False
    if not mcr and shown_dora and _tiles(got.get("dora_indicators", "")) != _tiles(want.get("dora_indicators", "")):
        return False
    return not mcr or got.get("flowers", 0) == want.get("flowers", 0)


def same_score(a: dict, b: dict) -> bool:
    """Equal values: every field equal, lists of yaku/fans/fu lines compared as multisets
    (their order follows the order the melds were given in)."""
    def norm(r: dict) -> dict:
        out = dict(r)
        for key in ("yaku", "fans", "fu_breakdown"):
            if isinstance(out.get(key), list):
                out[key] = sorted(json.dumps(x, sort_keys=True) for x in out[key])
        return out

    return norm(a) == norm(b)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for ``k`` successes in ``n`` trials (95% with the
    default ``z``): how far a share measured on n rendered hands can move by chance alone.
    ``(0.0, 1.0)`` for ``n == 0``."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / den
    return max(0.0, centre - half), min(1.0, centre + half)


def compare_runs(old: list[dict], new: list[dict], key: str = "score_right") -> tuple[list[int], list[int]]:
    """Hands (their ``i``) right in ``new`` but not in ``old``, and right in ``old`` but not in
    ``new``: per-hand rows of two runs on the same seed (``--json``), compared hand by hand. A
    change that wins some hands and loses others shows here, where the shares alone can hide it."""
    before = {r["i"]: bool(r[key]) for r in old}
    won = [r["i"] for r in new if r["i"] in before and r[key] and not before[r["i"]]]
    lost = [r["i"] for r in new if r["i"] in before and not r[key] and before[r["i"]]]
    return won, lost


def context_for(want: dict, shown_dora: bool) -> dict:
    """What a player types: the true request minus the tiles the photo shows."""
    ctx = {k: v for k, v in want.items() if k not in ("concealed", "melds", "win_tile")}
    if shown_dora:
        ctx.pop("dora_indicators", None)
    if want["ruleset"] == "mcr":
        ctx.pop("flowers", None)          # counted from the flower tiles in the photo
    return ctx


class TruthReader:
    """The renderer's exact boxes as detections (to measure the layout parser alone)."""

    def __init__(self) -> None:
        self.detections = None

    def read(self, image):
        return self.detections


def read_real(folder: str, weights: str | None) -> int:
    """Print, per real photo, the rows and groups the pipeline reads and how long it took."""
    from pathlib import Path

    from vision.photo.pipeline import get_reader, score_photo
    from vision.photo.report import group_lines, warning_lines

    paths = sorted(p for p in Path(folder).glob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    if not paths:
        print(f"no photos in {folder}", file=sys.stderr)
        return 2
    reader = get_reader(weights)
    times = []
    for path in paths:
        start = time.perf_counter()
        photo = score_photo(str(path), {"ruleset": "mcr", "win": "tsumo"}, reader=reader)
        times.append(time.perf_counter() - start)
        lay = photo.layout
        print(f"{path.name}: {len(lay.order)} tiles, {lay.rows} row(s), direction {lay.direction:.0f} deg, "
              f"{times[-1]:.2f} s")
        for k, row in enumerate(lay.row_numbers, start=1):
            print(f"  row {k}: " + " ".join(lay.order[n - 1].tile for n in row))
        print("  as a hand:")
        print("\n".join(group_lines(lay)))
        result = photo.result.to_json()
        print("  value: " + (f"{result.get('total')} points" if not result.get("error") else result["error"]))
        print("\n".join(warning_lines(photo.warnings[:4])))
    print(f"median seconds per photo: {statistics.median(times):.3f}")
    return 0


def learned_sheet(reader, style, seed: int, tries: int = 5, size=960, tile_px: float | None = None):
    """A set profile learned from a rendered reference sheet of ``style`` (the default tiles),
    as ``tilescope set learn`` learns a photographed one; a sheet whose tiles were not all found
    is rendered again with the next seed, as a user would take the photo again. ``tile_px``:
    the sheet photographed by the hand camera itself (``size`` frames, tiles that many px)."""
    from datasets.render import hand_camera_look, render_sheet
    from vision.read.set_learning import learn_sheet, parse_sheet
    from vision.read.tileset import DEFAULT_SHEET, SetError

    groups = [[k for k in parse_sheet(g) if k in style.classes] for g in DEFAULT_SHEET.split()]
    kinds = [k for g in groups for k in g]
    for s in range(seed, seed + tries):
        rng = np.random.default_rng(s)
        look = hand_camera_look(rng, tile_px) if tile_px else None
        img, _ = render_sheet(rng, style, kinds, imgsz=size, look=look,
                              row_lengths=[len(g) for g in groups if g])
        try:
            learned = learn_sheet(reader, img, kinds, name=style.name, source=f"sheet seed {s}")
        except SetError as exc:
            print(f"sheet seed {s}: {exc}", file=sys.stderr)
            continue
        print(f"set profile: {len(learned.tileset)} references from the sheet of seed {s}"
              + (f"; {len(learned.disagreements)} read otherwise by the classifier" if learned.disagreements else ""))
        return learned.tileset
    raise SystemExit(f"no sheet of seeds {seed}..{seed + tries - 1} was read whole")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.pipeline", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="photos (default 300)")
    ap.add_argument("--style", default=None, help="tile style (default: the held-out style)")
    ap.add_argument("--art", default=None, help="artwork folder (default ../shared/art)")
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--imgsz", type=int, default=960, help="long side of the photos (default 960)")
    ap.add_argument("--frame", metavar="WxH", help="exact photo size instead of --imgsz, e.g. 1280x720")
    ap.add_argument("--tile-px", type=float, metavar="PX",
                    help="tiles this many px high (face; +-15%% per photo), hand centred, "
                         "camera upright: a broadcast hand camera is --frame 1280x720 --tile-px 21 "
                         "(boxes about 22x30 px with the tile's thickness)")
    ap.add_argument("--glass", type=float, default=0.0, metavar="R",
                    help="photos taken on a glass table top of reflectance R (0.1-0.4 for glass; "
                         "default 0: a table that does not reflect)")
    ap.add_argument("--ruleset", choices=("both", "riichi", "mcr"), default="both",
                    help="rulesets of the hands (default both: 35%% MCR)")
    ap.add_argument("--truth", action="store_true", help="use the ground-truth boxes, not the model")
    ap.add_argument("--box-sideways", action="store_true",
                    help="with --truth: forget the renderer's sideways flags and mark them from the "
                         "boxes as the detector does (vision.read.detector.mark_sideways)")
    ap.add_argument("--weights", default=None, help="model folder (default vision/weights)")
    ap.add_argument("--no-zoom", action="store_true",
                    help="read each photo in one detector pass (no closer look at small tiles)")
    ap.add_argument("--no-counts", action="store_true",
                    help="name each tile on its own (no limit of four of a kind per photo)")
    ap.add_argument("--contrast-views", choices=("yes", "no"), default=None,
                    help="look again at unsurely named photos in contrast views (default: vision.read.detector.CONTRAST_VIEWS)")
    ap.add_argument("--mirrors", choices=("yes", "no"), default="yes",
                    help="leave out boxes that are a tile's mirror image in a glass table top "
                         "(vision.read.reflections; default yes)")
    ap.add_argument("--set-sheet", type=int, metavar="SEED",
                    help="read with a set profile learned from one rendered reference sheet of the "
                         "style (tilescope set learn's default tiles), rendered with this seed (the "
                         "next seeds if the tiles found do not match); not the hands' seed")
    ap.add_argument("--sheet-by-camera", action="store_true",
                    help="with --set-sheet and --tile-px: the sheet photographed by the same hand "
                         "camera as the hands (a streamer teaching the set on the table it films)")
    ap.add_argument("--only", metavar="I,J,...",
                    help="read only these hands (numbers as --compare lists them; the others are "
                         "rendered, not read) and print each one's tiles as read against the truth")
    ap.add_argument("--json", metavar="FILE", help="also write per-hand results as JSON Lines")
    ap.add_argument("--compare", metavar="FILE",
                    help="per-hand results of an earlier run on the same seed (its --json): list the "
                         "hands this run scores right that it did not, and the other way round")
    ap.add_argument("--failures", type=int, default=5, help="print this many failed hands")
    ap.add_argument("--real", nargs="?", const="../shared/real/camerash/photos", metavar="DIR",
                    help="instead: print what the pipeline reads on each real photo in DIR "
                         "(default ../shared/real/camerash/photos)")
    args = ap.parse_args(argv)
    if args.real:
        return read_real(args.real, args.weights)

    from datasets.art import HELDOUT_STYLES, ArtError, load_style
    from datasets.hands import random_hand
    from datasets.render import Look, hand_camera_look, render_hand
    from scoring.api import score_json
    from vision.read.detections import Detection, Detections
    from vision.photo.pipeline import get_reader, score_photo

    style_name = args.style or HELDOUT_STYLES[0]
    try:
        style = load_style(style_name, args.art)
    except ArtError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    truth_reader = TruthReader()
    reader = truth_reader if args.truth else get_reader(args.weights)
    if not args.truth:
        reader.zoom, reader.counts = not args.no_zoom, not args.no_counts
        if args.contrast_views:
            reader.contrast = args.contrast_views == "yes"
        reader.mirrors = args.mirrors == "yes"
    try:
        from tqdm import tqdm
    except ImportError:                    # progress bar is optional
        def tqdm(x, **_):
            return x

    size = args.imgsz
    if args.frame:
        try:
            size = tuple(int(v) for v in args.frame.lower().split("x"))
            assert len(size) == 2 and min(size) > 0
        except (ValueError, AssertionError):
            print(f"error: --frame wants WxH in pixels, e.g. 1280x720, not {args.frame!r}", file=sys.stderr)
            return 2
    if args.set_sheet is not None and not args.truth:
        reader = reader.with_set(learned_sheet(reader, style, args.set_sheet, size=size,
                                               tile_px=args.tile_px if args.sheet_by_camera else None))
    only = {int(v) for v in args.only.split(",")} if args.only else None
    rng = np.random.default_rng(args.seed)
    rows, times, failures = [], [], []
    for i in tqdm(range(args.n), desc="hands", unit="photo"):
        ruleset = "mcr" if rng.random() < 0.35 else "riichi"
        if args.ruleset != "both":
            ruleset = args.ruleset
        spec = random_hand(rng, ruleset)
        look, upside_down = Look(occlude=0.0, glass=args.glass), bool(rng.random() < 0.15)
        if args.tile_px:
            look = hand_camera_look(rng, args.tile_px)
            look.glass = args.glass
            upside_down = False
        try:
            img, ann = render_hand(spec, rng, style, imgsz=size, upside_down=upside_down, look=look)
        except KeyError:                   # the style lacks a tile of this hand
            continue
        want = ann["request"]
        shown_dora = any(t["group"] == "dora" for t in ann["tiles"])
        # tiles drawn vs tiles labelled (a tile less than 40% visible is not labelled)
        drawn = (_tiles(want["concealed"]).total() + 1
                 + sum(_tiles(m["tiles"]).total() for m in want.get("melds", []))
                 + (_tiles(want.get("dora_indicators", "")).total() if shown_dora else 0)
                 + len(spec.flower_tiles))
        labelled = sum(1 for t in ann["tiles"] if not (t["tile"] == "back" and t["group"] == "dora"))
        visible = labelled == drawn
        if args.truth:
            sideways = [t["sideways"] for t in ann["tiles"]]
            if args.box_sideways and ann["tiles"]:
                from vision.read.detector import mark_sideways
                sideways = [bool(x) for x in mark_sideways(np.array([t["box"] for t in ann["tiles"]]))]
            truth_reader.detections = Detections(
                ann["image"]["width"], ann["image"]["height"],
                [Detection(t["tile"], tuple(t["box"]), 0.99, side) for t, side in zip(ann["tiles"], sideways)])
        if only is not None and i not in only:
            continue
        start = time.perf_counter()
        photo = score_photo(img, context_for(want, shown_dora), reader=reader)
        if only is not None:
            read_tiles = Counter(d.tile for d in photo.detections.tiles)
            truth = Counter(t["tile"] for t in ann["tiles"])
            print(f"hand {i}: misread {sorted((truth - read_tiles).elements())} as "
                  f"{sorted((read_tiles - truth).elements())}; value right: "
                  f"{photo.request is not None and same_score(photo.result.to_json(), score_json(want))}")
        times.append(time.perf_counter() - start)
        read = Counter(d.tile for d in photo.detections.tiles)
        truth_tiles = Counter(t["tile"] for t in ann["tiles"])
        row = {
            "i": i, "ruleset": ruleset, "scene": ann["scene"], "visible": visible,
            "upside_down": any(t.get("upside_down") for t in ann["tiles"] if t["group"] == "concealed"),
            "tiles_right": read == truth_tiles,
            "parsed_right": Counter(d.tile for d in photo.layout.order) == truth_tiles,
            "tiles_true": truth_tiles.total(), "tiles_read": read.total(),
            "tiles_matched": (read & truth_tiles).total(),
            "red_true": sum(v for k, v in truth_tiles.items() if k[0] == "0"),
            "red_matched": sum(v for k, v in (read & truth_tiles).items() if k[0] == "0"),
            "grouping_right": grouping_right(photo.to_json()["request"], want, shown_dora),
            "sets_right": grouping_right(photo.to_json()["request"], want, shown_dora, with_from=False),
            "score_right": photo.request is not None and same_score(photo.result.to_json(), score_json(want)),
            "seconds": times[-1],
            "warnings": sorted({w.code for w in photo.warnings}),
        }
        rows.append(row)
        if not row["score_right"] and len(failures) < args.failures:
            failures.append((row, want, photo.to_json()["request"], [w.message for w in photo.warnings]))

    if not rows:
        print("no hands rendered", file=sys.stderr)
        return 2

    def share(key: str, subset: list[dict]) -> str:
        return f"{sum(r[key] for r in subset) / len(subset):.1%}" if subset else "-"

    seen = [r for r in rows if r["visible"]]
    source = ("ground-truth boxes" + (", sideways from box shapes" if args.box_sideways else "")
              if args.truth else "model")
    print(f"{len(rows)} hands, style {style_name}, {source}; "
          f"{len(seen)} with every tile visible in the render")
    for key, label in (("tiles_right", "tiles all right"), ("parsed_right", "... less the boxes dropped"),
                       ("sets_right", "groups right (tiles, types)"),
                       ("grouping_right", "... and who discarded"),
                       ("score_right", "score = true hand's score")):
        print(f"  {label:<28} {share(key, rows):>7} of all   {share(key, seen):>7} of fully visible")
    low, high = wilson(sum(r["score_right"] for r in rows), len(rows))
    print(f"  {'':<28} 95% interval {low:.1%}-{high:.1%} (chance alone, {len(rows)} hands)")
    matched, n_true, n_read = (sum(r[k] for r in rows) for k in ("tiles_matched", "tiles_true", "tiles_read"))
    red_true, red_matched = sum(r["red_true"] for r in rows), sum(r["red_matched"] for r in rows)
    print(f"  per-tile F1 (multisets per photo) {2 * matched / max(n_true + n_read, 1):.3f}"
          f"  (P {matched / max(n_read, 1):.3f}, R {matched / max(n_true, 1):.3f}; {n_true} tiles)"
          f"; red-five recall {red_matched}/{red_true}")
    for rs in ("riichi", "mcr"):
        sub = [r for r in seen if r["ruleset"] == rs]
        print(f"  score right, {rs:<6} (visible) {share('score_right', sub):>7}  ({len(sub)} hands)")
    ups = [r for r in seen if r["upside_down"]]
    print(f"  score right, upside down (visible) {share('score_right', ups):>7}  ({len(ups)} hands)")
    # what a referee can lean on: a photo the pipeline read without a single warning
    quiet = [r for r in rows if not r["warnings"]]
    print(f"  read without any warning       {len(quiet) / len(rows):7.1%} of all;  their score right "
          f"{share('score_right', quiet)} ({sum(r['score_right'] for r in quiet)}/{len(quiet)})")
    print(f"  median seconds per photo (read + layout + score): {statistics.median(times):.4f}")
    if args.compare:
        try:
            with open(args.compare, encoding="utf-8") as fh:
                old = [json.loads(line) for line in fh if line.strip()]
            won, lost = compare_runs(old, rows)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"error: --compare {args.compare}: not the --json of a run ({exc})", file=sys.stderr)
            return 2
        print(f"  against {args.compare}: {len(won)} hands won {won}, {len(lost)} lost {lost}")
    for row, want, got, warns in failures:
        print(f"- hand {row['i']} ({row['scene']}, visible={row['visible']}):\n    true {json.dumps(want)}\n"
              f"    read {json.dumps(got)}\n    warnings {warns}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
