"""Photo -> score on MCR hands composed from real tile photos (run by hand; needs pillow, in
the ``train`` extra, and the real crops of ``../shared/real``, which are never trained on).

Each photo is a valid MCR winning hand (8 points or more, checked by the scorer) laid as a
player lays it: the concealed tiles sorted in a row, the winning tile set apart at its right,
sometimes one or two exposed melds in a second row (a sideways tile or laid straight), one to
three flowers set apart, on a plain, wood or dark glass table (a faded mirror image of each row
below it), sometimes shot from across the table (turned 180 degrees), tilted by up to 5 degrees,
60-200 px tiles, JPEG 70-90. Every tile is one of the 628 real single-tile crops of
``camerash/crops`` labelled as that tile, from about 13 physical sets (60% of photos use one
set). Flat-on crops on a drawn table: a stand-in for phone photos of real tables, not one.
Composed as a QA tester composed them on 3 Dec 2026 (models/README.md).

    .venv/bin/python -m benchmarks.real_crop_hands [--n 60] [--seed 1] [--out DIR]

Prints the hands whose score equals ``tilescope hand``'s on the true hand (with the same win,
seat, round and flowers), by table, and the median seconds per photo; the photos and their
truth (``NNN.jpg`` + ``NNN.json``) stay in ``--out``. ``--real DIR``: the folder holding
``camerash/crops`` (default ``$TILESCOPE_REAL`` or ``../shared/real``). Exit 2 when pillow or
the crops are missing.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from scoring.api import score_json

try:
    from PIL import Image, ImageDraw, ImageEnhance, ImageFilter
except ImportError:         # pillow comes with the train extra: main() says so
    Image = None

REPO = Path(__file__).resolve().parent.parent

SUITS = {"characters": "m", "dots": "p", "bamboo": "s"}
HONORS = {"east": "1z", "south": "2z", "west": "3z", "north": "4z",
          "white": "5z", "green": "6z", "red": "7z"}
BONUS = {"plum": "1f", "orchid": "2f", "chrysanthemum": "3f", "bamboo": "4f",
         "spring": "5f", "summer": "6f", "autumn": "7f", "winter": "8f"}
# the crops come from several physical sets, numbered roughly set by set (found by walking
# the file numbers: a label repeating starts a new set); set 0 holds 4 copies of one design
SET_STARTS = [1, 147, 183, 225, 261, 297, 339, 395, 432, 462, 504, 546, 586, 629]


def mpsz_of(name: str) -> str:
    g, _, r = name.partition("-")
    if g in SUITS:
        return r + SUITS[g]
    if g == "honors":
        return HONORS[r]
    return BONUS[r]


def load_crops(crops_dir: Path) -> dict[str, list[int]]:
    """Crop numbers by mpsz tile code, from the crops' ``labels.csv``."""
    by_tile: dict[str, list[int]] = {}
    with (crops_dir / "labels.csv").open() as f:
        for row in csv.DictReader(f):
            i = int(row["image-name"][:-4])
            t = mpsz_of(row["label-name"])
            if i not in by_tile.setdefault(t, []):
                by_tile[t].append(i)
    return by_tile


def set_of(i: int) -> int:
    for k in range(len(SET_STARTS) - 1):
        if SET_STARTS[k] <= i < SET_STARTS[k + 1]:
            return k
    return len(SET_STARTS) - 2


def key(t: str):
    return ("mpsz".index(t[1]), int(t[0]))


# ---------------------------------------------------------------- hands
def rand_set(rng, suits, honours_ok, pung_bias):
    if honours_ok and rng.random() < 0.25:
        z = rng.randint(1, 7)
        return [f"{z}z"] * 3, "pon"
    s = rng.choice(suits)
    if rng.random() < pung_bias:
        n = rng.randint(1, 9)
        return [f"{n}{s}"] * 3, "pon"
    n = rng.randint(1, 7)
    return [f"{n}{s}", f"{n+1}{s}", f"{n+2}{s}"], "chi"


def rand_hand(rng):
    style = rng.choice(["half_flush", "half_flush", "full_flush", "all_pungs", "mixed", "mixed",
                        "two_suits", "outside"])
    if style == "full_flush":
        suits, hon, pb = [rng.choice("mps")], False, 0.3
    elif style == "half_flush":
        suits, hon, pb = [rng.choice("mps")], True, 0.35
    elif style == "all_pungs":
        suits, hon, pb = list("mps"), True, 1.0
    elif style == "two_suits":
        suits, hon, pb = rng.sample("mps", 2), True, 0.4
    else:
        suits, hon, pb = list("mps"), True, 0.35
    sets = [rand_set(rng, suits, hon, pb) for _ in range(4)]
    if hon and rng.random() < 0.3:
        pair = [f"{rng.randint(1, 7)}z"] * 2
    else:
        pair = [f"{rng.randint(1, 9)}{rng.choice(suits)}"] * 2
    allt = [t for s, _ in sets for t in s] + pair
    if any(allt.count(t) > 4 for t in set(allt)):
        return None
    return sets, pair


def make_request(rng, sets, pair):
    n_melds = rng.choices([0, 1, 2], [0.5, 0.35, 0.15])[0]
    idx = list(range(4))
    rng.shuffle(idx)
    exposed = sorted(idx[:n_melds])
    melds, conc = [], []
    for k, (tiles, typ) in enumerate(sets):
        if k in exposed:
            called = rng.choice(tiles)
            frm = "left" if typ == "chi" else rng.choice(["left", "across", "right"])
            melds.append({"type": typ, "tiles": "".join(sorted(tiles, key=key)), "called": called,
                          "from": frm, "_list": sorted(tiles, key=key)})
        else:
            conc += tiles
    conc += pair
    win_tile = rng.choice(conc)
    conc.remove(win_tile)
    conc.sort(key=key)
    req = {"ruleset": "mcr", "concealed": "".join(conc), "melds": [
        {k: v for k, v in m.items() if k != "_list"} for m in melds],
        "win_tile": win_tile, "win": rng.choice(["tsumo", "ron"]),
        "seat_wind": rng.choice("ESWN"), "round_wind": rng.choice("ESWN")}
    return req, conc, melds


# ---------------------------------------------------------------- drawing
def background(rng, w, h, kind):
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "plain":
        base = np.array(rng.choice([(40, 110, 60), (30, 70, 120), (200, 190, 170), (150, 40, 40),
                                    (90, 90, 95)]), np.float32)
        img = np.ones((h, w, 3), np.float32) * base
        img += np.random.default_rng(rng.randint(0, 1 << 30)).normal(0, 4, (h, w, 1))
    elif kind == "wood":
        base = np.array(rng.choice([(150, 95, 50), (120, 70, 35), (185, 135, 85)]), np.float32)
        nr = np.random.default_rng(rng.randint(0, 1 << 30))
        low = nr.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32)
        low = np.array(Image.fromarray(low).resize((w, h), Image.BICUBIC))
        ang = rng.uniform(-0.2, 0.2)
        u = yy * math.cos(ang) + xx * math.sin(ang) * 0.05
        grain = np.sin(u / rng.uniform(6, 14) + low * 3.0)
        img = base * (1 + 0.12 * grain[..., None]) + nr.normal(0, 3, (h, w, 1))
    else:  # glass: dark grey with a soft gradient
        g = rng.uniform(35, 60)
        img = np.ones((h, w, 3), np.float32) * g
        img += (xx / w * rng.uniform(-15, 15) + yy / h * rng.uniform(-15, 15))[..., None]
        img += np.random.default_rng(rng.randint(0, 1 << 30)).normal(0, 2, (h, w, 1))
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))


def tile_image(crop: Image.Image, th: int, rng, back_col):
    """A standing tile seen from the player's seat: the face (the crop) on an ivory body with a
    thin rounded edge and a coloured back showing below it."""
    tw = int(round(th * 0.75))
    face = crop.convert("RGB").resize((tw, th), Image.LANCZOS)
    face = ImageEnhance.Brightness(face).enhance(rng.uniform(0.9, 1.08))
    thick = max(3, int(th * 0.16))
    body = Image.new("RGBA", (tw, th + thick), (0, 0, 0, 0))
    d = ImageDraw.Draw(body)
    r = max(2, tw // 10)
    d.rounded_rectangle([0, thick // 3, tw - 1, th + thick - 1], r, fill=back_col + (255,))
    d.rounded_rectangle([0, 0, tw - 1, th + thick // 2], r, fill=(222, 216, 198, 255))
    mask = Image.new("L", (tw, th), 0)
    ImageDraw.Draw(mask).rounded_rectangle([1, 1, tw - 2, th - 2], r, fill=255)
    body.paste(face, (0, 0), mask)
    return body


def compose(rng, plan, crops_for, out_jpg, crops_dir: Path):
    """Draw one photo of ``plan`` to ``out_jpg``; returns the tiles' truth (code, group, crop,
    set, box in the final image) and the scene's parameters."""
    th = rng.randint(60, 200)
    tw = int(round(th * 0.75))
    gap_tile = max(1, int(th * rng.uniform(0.0, 0.03)))
    back_col = rng.choice([(40, 120, 70), (40, 80, 150), (200, 170, 60), (230, 230, 225)])
    kind = plan["background"]
    # positions in a layout frame (x, y of the top-left), then the whole is placed on a canvas
    placed = []   # (tile, group, crop index, x, y, sideways)
    x = 0
    y_hand = 0
    for t in plan["concealed"]:
        placed.append((t, "concealed", x, y_hand, False)); x += tw + gap_tile
    x += int(tw * rng.uniform(0.35, 0.8))
    placed.append((plan["win_tile"], "win", x, y_hand, False)); x += tw
    hand_right = x
    if plan["flowers"]:
        x += int(tw * rng.uniform(0.9, 1.6))
        for f in plan["flowers"]:
            placed.append((f, "flower", x, y_hand, False)); x += tw + gap_tile
    width = x
    if plan["melds"]:
        above = plan["meld_row_above"]
        y_m = -int(th * rng.uniform(1.5, 1.9)) if above else int(th * rng.uniform(1.5, 1.9))
        mx = int(rng.uniform(0, 0.3) * hand_right)
        for m in plan["melds"]:
            for j, t in enumerate(m["_list"]):
                side = plan["sideways"] and j == {"left": 0, "across": 1, "right": 2}[m["from"]]
                placed.append((t, "meld", mx, y_m + (th - tw if side else 0), side))
                mx += (th if side else tw) + gap_tile
            mx += int(tw * rng.uniform(0.4, 0.9))
        width = max(width, mx)
    ys = [p[3] for p in placed]
    y0, y1 = min(ys), max(ys) + th + int(th * 0.16)
    content_w, content_h = width, y1 - y0
    W = int(content_w * rng.uniform(1.2, 1.6)) + 2 * tw
    H = max(int(W * 0.75), int(content_h * 2.2))
    pad = int(0.2 * max(W, H))                    # room for the rotation
    canvas = background(rng, W + 2 * pad, H + 2 * pad, kind).convert("RGBA")
    ox = pad + (W - content_w) // 2 + int(rng.uniform(-0.08, 0.08) * W)
    oy = pad + (H - content_h) // 2 - y0 + int(rng.uniform(-0.1, 0.1) * H)
    shadow = Image.new("RGBA", canvas.size, (0, 0, 0, 0))
    sd = ImageDraw.Draw(shadow)
    tiles_layer = Image.new("RGBA", canvas.size, (0, 0, 0, 0))
    truth_tiles = []
    for t, g, x, y, side in placed:
        ci = crops_for(t)
        img = tile_image(Image.open(crops_dir / f"{ci}.jpg"), th, rng, back_col)
        if side:
            img = img.rotate(90, expand=True)
        px, py = ox + x, oy + y
        sd.rounded_rectangle([px + th * 0.05, py + th * 0.08, px + img.width + th * 0.08,
                              py + img.height + th * 0.06], tw // 8, fill=(0, 0, 0, 110))
        tiles_layer.alpha_composite(img, (px, py))
        fw, fh = (th, tw) if side else (tw, th)
        truth_tiles.append({"tile": t, "group": g, "crop": f"{ci}.jpg", "set": set_of(ci),
                            "sideways": side, "_box": (px, py, px + fw, py + fh)})
    shadow = shadow.filter(ImageFilter.GaussianBlur(max(2, th // 12)))
    canvas.alpha_composite(shadow)
    if kind == "glass":                           # faint mirrored copy below each tile
        refl = tiles_layer.transpose(Image.FLIP_TOP_BOTTOM)
        a = np.array(refl)
        a[..., 3] = (a[..., 3] * rng.uniform(0.18, 0.35)).astype(np.uint8)
        refl = Image.fromarray(a).filter(ImageFilter.GaussianBlur(max(1, th // 40)))
        # mirror each tile about its own foot: flip the whole layer, then shift so the row's
        # foot line maps onto itself (rows are straight here, so one shift per row)
        for yrow in sorted({p[3] for p in placed}):
            ln = int(th * 0.7)
            if not plan["upside_down"]:           # mirror about each row's foot, below it
                foot = oy + yrow + th + int(th * 0.16)
                band = refl.crop((0, canvas.height - foot, canvas.width, canvas.height - foot + ln))
                fade = np.linspace(1.0, 0.1, ln)[:, None]
                at = foot
            else:                                 # turned 180 later: mirror about the top edge,
                top = oy + yrow                   # so that it ends below the row in the photo
                band = refl.crop((0, canvas.height - top - ln, canvas.width, canvas.height - top))
                fade = np.linspace(0.1, 1.0, ln)[:, None]
                at = top - ln
            ba = np.array(band)
            ba[..., 3] = (ba[..., 3] * fade).astype(np.uint8)
            canvas.alpha_composite(Image.fromarray(ba), (0, at))
    canvas.alpha_composite(tiles_layer)
    img = canvas.convert("RGB")
    # lighting: a soft gradient and a global tint
    arr = np.asarray(img).astype(np.float32)
    hh, ww = arr.shape[:2]
    gx = np.linspace(rng.uniform(0.85, 1.0), rng.uniform(1.0, 1.12), ww)[None, :, None]
    gy = np.linspace(rng.uniform(0.9, 1.05), rng.uniform(0.95, 1.1), hh)[:, None, None]
    tint = np.array([rng.uniform(0.95, 1.05), 1.0, rng.uniform(0.9, 1.05)])
    arr = np.clip(arr * gx * gy * tint, 0, 255)
    img = Image.fromarray(arr.astype(np.uint8))
    # rotation: small angle, sometimes 180 (shot from across the table)
    ang = rng.uniform(-5, 5) + (180 if plan["upside_down"] else 0)
    cx, cy = img.width / 2, img.height / 2
    img = img.rotate(ang, resample=Image.BICUBIC, center=(cx, cy))
    img = img.crop((pad, pad, pad + W, pad + H))
    if rng.random() < 0.5:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 0.9)))
    a = math.radians(-ang)          # PIL rotates counter-clockwise for positive angles
    ca, sa = math.cos(a), math.sin(a)

    def tf(x, y):
        dx, dy = x - cx, y - cy
        return (cx + dx * ca - dy * sa - pad, cy + dx * sa + dy * ca - pad)
    for tt in truth_tiles:
        x0, y0_, x1, y1_ = tt.pop("_box")
        pts = [tf(x0, y0_), tf(x1, y0_), tf(x0, y1_), tf(x1, y1_)]
        tt["box"] = [round(min(p[0] for p in pts), 1), round(min(p[1] for p in pts), 1),
                     round(max(p[0] for p in pts), 1), round(max(p[1] for p in pts), 1)]
    q = rng.randint(70, 90)
    img.save(out_jpg, quality=q)
    return truth_tiles, {"tile_h": th, "angle": round(ang, 2), "jpeg_q": q, "size": [W, H]}


def make_photo(rng: random.Random, by_tile: dict[str, list[int]], path: Path, crops_dir: Path) -> dict:
    """Compose one photo of a random valid MCR hand to ``path`` (JPEG) with ``rng``; returns its
    truth, as written to the ``.json`` beside it: ``request``, ``tiles`` (code, group, crop,
    set, box), ``scene``. ``by_tile``: :func:`load_crops`."""
    while True:
        h = rand_hand(rng)
        if not h:
            continue
        req, conc, melds = make_request(rng, *h)
        res = score_json(req)
        if res.get("valid"):
            break
    flowers = sorted(rng.sample([f"{i}f" for i in range(1, 9)], rng.choice([1, 2, 3]))) \
        if rng.random() < 0.4 else []
    req["flowers"] = len(flowers)
    one_set = rng.random() < 0.6
    home = rng.randrange(len(SET_STARTS) - 1)
    used: dict[str, list] = {}

    def crops_for(t):
        cands = by_tile[t]
        if one_set:                       # the home set's crop, else the nearest-numbered
            mine = [c for c in cands if set_of(c) == home]
            if mine:
                return rng.choice(mine)
            lo, hi = SET_STARTS[home], SET_STARTS[home + 1]
            return min(cands, key=lambda c: min(abs(c - lo), abs(c - hi)))
        seen = used.setdefault(t, [])     # mixed: another crop for each copy where possible
        pool = [c for c in by_tile[t] if c not in seen] or by_tile[t]
        c = rng.choice(pool)
        seen.append(c)
        return c
    plan = {"concealed": conc, "win_tile": req["win_tile"], "melds": melds,
            "flowers": flowers, "background": rng.choice(["plain", "wood", "glass", "glass"]),
            "meld_row_above": rng.random() < 0.6, "sideways": rng.random() < 0.3,
            "upside_down": rng.random() < 0.3}
    tiles, scene = compose(rng, plan, crops_for, path, crops_dir)
    scene.update({key_: plan[key_] for key_ in ("background", "upside_down")})
    truth = {"request": req, "tiles": tiles, "scene": scene}
    path.with_suffix(".json").write_text(json.dumps(truth, indent=1))
    return truth


def make_photos(n: int, seed: int, out: Path, crops_dir: Path) -> list[Path]:
    """Compose ``n`` photos into ``out`` (see the module docstring); returns their paths."""
    rng = random.Random(seed)
    by_tile = load_crops(crops_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(n):
        path = out / f"{k:03d}.jpg"
        make_photo(rng, by_tile, path, crops_dir)
        paths.append(path)
    return paths


def score_photos(paths: list[Path]) -> dict:
    """Score each photo with the facts a player would pass (ruleset, win, seat, round; the
    flowers are counted from the photo) and compare with the true hand's score."""
    from vision.photo.pipeline import get_reader, score_photo

    reader = get_reader()
    rows = []
    for path in paths:
        truth = json.loads(path.with_suffix(".json").read_text())
        req = truth["request"]
        ctx = {k: req[k] for k in ("ruleset", "win", "seat_wind", "round_wind")}
        start = time.perf_counter()
        photo = score_photo(str(path), ctx, reader=reader)
        seconds = time.perf_counter() - start
        want, got = score_json(req), photo.result.to_json()
        right = photo.request is not None and (got.get("valid"), got.get("total")) == \
            (want["valid"], want["total"])
        rows.append({"photo": path.name, "table": truth["scene"]["background"],
                     "right": right, "warned": bool(photo.warnings), "seconds": seconds})
    return {"rows": rows, "right": sum(r["right"] for r in rows),
            "silent_wrong": sum(1 for r in rows if not r["right"] and not r["warned"]),
            "median_s": statistics.median(r["seconds"] for r in rows) if rows else 0.0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.real_crop_hands",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(REPO / "runs" / "real_crop_hands"))
    ap.add_argument("--real", default=os.environ.get("TILESCOPE_REAL", str(REPO.parent / "shared" / "real")))
    args = ap.parse_args(argv)
    crops_dir = Path(args.real) / "camerash" / "crops"
    if not (crops_dir / "labels.csv").is_file():
        print(f"error: no real tile crops in {crops_dir} (set --real or TILESCOPE_REAL)", file=sys.stderr)
        return 2
    if Image is None:
        print("error: needs pillow (pip install '.[train]')", file=sys.stderr)
        return 2
    out = make_photos(args.n, args.seed, Path(args.out), crops_dir)
    found = score_photos(out)
    rows = found["rows"]
    print(f"{len(rows)} MCR photos of real tiles (seed {args.seed}, {args.out}):")
    print(f"  score right {found['right']}/{len(rows)}; wrong without any warning {found['silent_wrong']}")
    for table in ("plain", "wood", "glass"):
        sub = [r for r in rows if r["table"] == table]
        if sub:
            print(f"  {table:5s} table: {sum(r['right'] for r in sub)}/{len(sub)}")
    print(f"  median seconds per photo {found['median_s']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
