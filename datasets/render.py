"""Synthetic photos of mahjong tiles on a table, with exact ground truth.

Tiles are 3D blocks (face, thickness with a body layer and a coloured back layer) placed on a
table plane, seen through a pinhole camera (pitch 20..90 degrees, any yaw, roll), drawn with the
painter's algorithm. Every drawn pixel of a tile is written into an id buffer, so each box in the
annotation is the exact bounding box of the tile's visible pixels (clipped at the frame, cut by
occluders); tiles with less than ``MIN_VISIBLE`` of their area visible are left out.

World units: the tile face is 1 wide and ``aspect`` (the style's height/width) tall; x runs along
a hand's row to the right, y away from the player, z up from the table.

Public API (kept stable for the layout and pipeline developers):

* :func:`render_hand` - a photo of a winning hand (concealed row, winning tile set apart, melds
  with a sideways tile, optional dora row and flowers) with its request as ground truth.
* :func:`render_rows` - loose rows or a grid of tiles (as in product photos of whole sets).
* :func:`render_negative` - an empty table or backs only.
* :func:`render_closeup` - a few touching tiles filling the frame (how real tile photos look).
* :func:`random_scene` - one training scene of a random kind (used by ``make_dataset``).

Each returns ``(image_bgr, annotation)``: ``image_bgr`` uint8 (H, W, 3); ``annotation`` a dict
``{"request": dict | None, "tiles": [{"tile", "box": [x1, y1, x2, y2], "sideways", "group",
"upside_down", "visible"}], "image": {"width", "height"}, "style", "scene", "jpeg_quality"}``.
``group`` is ``concealed``, ``win``, ``meld0``..``meld3`` (index into ``request["melds"]``),
``dora``, ``flower`` or ``loose``; tiles are listed in row order (left to right in the hand's own
frame). ``angle``: the direction of the row's "up" in the image, degrees clockwise from
straight up (a sideways tile reports its row's direction); ``upside_down`` when |angle| > 90.
``visible``: the visible share of the tile's projected area. Boxes are in pixels, x2/y2 exclusive (the box of pixel columns x1..x2-1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.art import HELDOUT_STYLES, TileArt, list_styles, load_style
from datasets.hands import HandSpec, random_hand, split_mpsz

MIN_VISIBLE = 0.4      # share of a tile's projected area that must be visible to be labelled
MIN_BOX_PX = 3         # boxes thinner than this are dropped

_STYLE_CACHE: dict[tuple[str, str | None], TileArt] = {}


def get_style(name: str, art: str | None = None) -> TileArt:
    """Load a style once per process (see ``datasets.art.load_style``)."""
    key = (name, art)
    if key not in _STYLE_CACHE:
        _STYLE_CACHE[key] = load_style(name, art)
    return _STYLE_CACHE[key]


# --------------------------------------------------------------------------------------------
# Scene description
# --------------------------------------------------------------------------------------------
@dataclass
class Block:
    """One tile in the world. ``theta``: rotation about the vertical axis in degrees (0: upright,
    its top pointing away from the player; 90: sideways; 180: upside down). ``pose``: ``lying``
    (face up), ``down`` (lying face down) or ``standing`` (face towards -y rotated by theta)."""

    cls: str
    x: float
    y: float
    theta: float = 0.0
    pose: str = "lying"
    z0: float = 0.0
    group: str = "loose"
    sideways: bool = False
    order: int = 0


class _Row:
    """Places blocks left to right along +x from ``x``; returns them in row coordinates."""

    def __init__(self, rng: np.random.Generator, aspect: float, gap: float = 0.03):
        self.rng, self.aspect, self.gap, self.x = rng, aspect, gap, 0.0
        self.blocks: list[Block] = []

    def skip(self, dx: float) -> None:
        self.x += dx

    def add(self, cls: str, group: str, pose: str = "lying", sideways: bool = False,
            stack: bool = False) -> None:
        r = self.rng
        jitter = r.normal(0, 0.8)
        if sideways:
            w = self.aspect
            y = 0.5 if not stack else 0.5 + 1.0 + self.gap
            theta = 90.0 + jitter
        else:
            w = 1.0
            y = self.aspect / 2 if pose != "standing" else 0.0
            theta = jitter
        if stack:
            # The added tile of a kakan sits on the far side of the sideways tile just placed.
            x = self.blocks[-1].x
        else:
            x = self.x + w / 2
            self.x += w + self.gap * (1 + 0.5 * r.random())
        self.blocks.append(Block(cls, x + r.normal(0, 0.01), y + r.normal(0, 0.02), theta, pose,
                                 group=group, sideways=sideways, order=len(self.blocks)))


def _place(blocks: list[Block], dx: float, dy: float, angle: float) -> list[Block]:
    """Rotate row blocks by ``angle`` degrees about the origin, then shift by (dx, dy)."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for b in blocks:
        b.x, b.y = c * b.x - s * b.y + dx, s * b.x + c * b.y + dy
        b.theta += angle
    return blocks


def _meld_layout(mtype: str, codes: list[str], called: str | None, src: str | None,
                 rng: np.random.Generator) -> list[tuple[str, bool, bool]]:
    """Physical order of a meld's tiles as (class, sideways, stacked).

    The called tile is turned sideways at the side of the player it came from (left: first,
    across: second, right: last), as in riichi. Added kan: the added tile lies sideways on the
    far side of the called tile. Closed kan: the two outer tiles face down.
    """
    tiles = list(codes)
    if mtype == "ankan":
        return [("back", False, False), (tiles[1], False, False), (tiles[2], False, False),
                ("back", False, False)]
    ci = tiles.index(called) if called in tiles else 0
    called_tile = tiles.pop(ci)
    rest = tiles
    if mtype == "kakan":
        added = rest.pop()
        rest_n = len(rest)  # 2 upright tiles
        pos = {"left": 0, "across": 1, "right": rest_n}.get(src or "left", 0)
        out = [(t, False, False) for t in rest]
        out.insert(pos, (called_tile, True, False))
        out.insert(pos + 1, (added, True, True))
        return out
    pos = {"left": 0, "across": 1, "right": len(rest)}.get(src or "left", 0)
    out = [(t, False, False) for t in rest]
    out.insert(pos, (called_tile, True, False))
    return out


def hand_blocks(spec: HandSpec | dict, rng: np.random.Generator, aspect: float, standing: bool,
                dora_row: bool | None = None, dora_flip: bool = False,
                melds_in_front: bool = False) -> tuple[list[Block], dict]:
    """The blocks of a winning hand laid out as players show it (a request without
    ``win_tile``: a hand in play, its tiles in one row). Returns (blocks, request).

    Raises ValueError for a request whose tile strings are not mpsz.
    """
    if isinstance(spec, dict):
        n_fl = int(spec.get("flowers", 0) or 0)
        spec = HandSpec(spec, [f"{n}f" for n in sorted(rng.choice(8, n_fl, replace=False) + 1)])
    req = spec.request
    pose = "standing" if standing else "lying"
    row = _Row(rng, aspect, gap=float(rng.uniform(0.01, 0.06)))
    for t in split_mpsz(req["concealed"]):
        row.add(t, "concealed", pose)
    if req.get("win_tile"):     # none: a hand in play (13 tiles less 3 per meld)
        row.skip(float(rng.uniform(0.25, 0.9)))
        row.add(req["win_tile"], "win", pose)
    blocks = row.blocks

    melds = req.get("melds") or []
    if melds:
        mrow = _Row(rng, aspect, gap=float(rng.uniform(0.01, 0.05)))
        for i, m in enumerate(melds):
            for cls, side, stack in _meld_layout(m["type"], split_mpsz(m["tiles"]), m.get("called"),
                                                 m.get("from"), rng):
                mrow.add(cls, f"meld{i}", "lying", side, stack)
            mrow.skip(float(rng.uniform(0.12, 0.5)))
        if melds_in_front:
            _place(mrow.blocks, float(rng.uniform(-1, 3)), -aspect - float(rng.uniform(0.6, 1.5)), 0)
        else:
            _place(mrow.blocks, row.x + float(rng.uniform(0.5, 1.6)), -0.6 if standing else 0.0, 0)
        blocks += mrow.blocks

    dora = split_mpsz(req.get("dora_indicators", "") or "")
    if dora_row is None:
        dora_row = bool(dora)
    if dora_row and dora:
        drow = _Row(rng, aspect, gap=0.02)
        n_backs = int(rng.integers(0, 4)) if rng.random() < 0.3 else 0
        for _ in range(n_backs):
            drow.add("back", "dora", "down")
        for t in dora:
            drow.add(t, "dora")
        angle = 180.0 if dora_flip else 0.0
        w = drow.x
        x0 = float(rng.uniform(0, max(1.0, row.x - w)))
        if dora_flip:
            x0 += w
        _place(drow.blocks, x0, aspect * (1.8 if standing else 1.0) + float(rng.uniform(1.2, 3.0))
               + (aspect if dora_flip else 0), angle)
        blocks += drow.blocks

    if spec.flower_tiles:
        frow = _Row(rng, aspect, gap=0.03)
        for t in spec.flower_tiles:
            frow.add(t, "flower")
        where = rng.random()
        if where < 0.5:   # beyond the far end of the row
            _place(frow.blocks, blocks[-1].x + float(rng.uniform(1.2, 2.5)) if melds else row.x + 1.5,
                   aspect * 1.5 if melds else 0.0, 0)
        else:             # in front of the hand
            _place(frow.blocks, float(rng.uniform(0, 4)), -aspect - float(rng.uniform(0.7, 1.6)), 0)
        blocks += frow.blocks
    return blocks, req


# --------------------------------------------------------------------------------------------
# Camera
# --------------------------------------------------------------------------------------------
@dataclass
class Camera:
    """Pinhole camera looking at ``target`` from ``dist`` away; ``pitch`` 90 = straight down."""

    pitch: float
    yaw: float
    roll: float
    dist: float
    target: np.ndarray

    def frame(self) -> tuple[np.ndarray, np.ndarray]:
        p, y, r = (math.radians(v) for v in (self.pitch, self.yaw, self.roll))
        d = np.array([math.sin(y) * math.cos(p), -math.cos(y) * math.cos(p), math.sin(p)])
        centre = self.target + self.dist * d
        f = -d
        up = np.array([-math.sin(y), math.cos(y), 0.0])
        right = np.cross(f, up)
        right /= np.linalg.norm(right)
        down = np.cross(f, right)
        right, down = math.cos(r) * right + math.sin(r) * down, -math.sin(r) * right + math.cos(r) * down
        return centre, np.stack([right, down, f])

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (..., 3) -> normalised image points (..., 2) (focal length 1)."""
        c, rot = self.frame()
        pc = (pts - c) @ rot.T
        z = np.maximum(pc[..., 2:3], 1e-3)
        return pc[..., :2] / z


def _block_corners(b: Block, aspect: float, thick: float) -> tuple[np.ndarray, np.ndarray]:
    """(8, 3) corners F0..F3 (face: TL TR BR BL seen from the front), B0..B3, and normals a b n."""
    th = math.radians(b.theta)
    a = np.array([math.cos(th), math.sin(th), 0.0])
    if b.pose == "standing":
        bv = np.array([0.0, 0.0, 1.0])
        n = np.array([math.sin(th), -math.cos(th), 0.0])
        c = np.array([b.x, b.y, b.z0 + aspect / 2])
    else:
        bv = np.array([-math.sin(th), math.cos(th), 0.0])
        if b.pose == "down":
            n = np.array([0.0, 0.0, -1.0])
            c = np.array([b.x, b.y, b.z0])
        else:
            n = np.array([0.0, 0.0, 1.0])
            c = np.array([b.x, b.y, b.z0 + thick])
    hw, hh = 0.5, aspect / 2
    f = np.stack([c - a * hw + bv * hh, c + a * hw + bv * hh, c + a * hw - bv * hh, c - a * hw - bv * hh])
    back = f - thick * n
    return np.concatenate([f, back]), np.stack([a, bv, n])


# quads: (corner indices, normal sign/axis) - axis 0 = a, 1 = b, 2 = n
_SIDES = [((3, 0, 4, 7), 0, -1), ((1, 2, 6, 5), 0, 1), ((0, 1, 5, 4), 1, 1), ((2, 3, 7, 6), 1, -1)]


# --------------------------------------------------------------------------------------------
# Textures and backgrounds
# --------------------------------------------------------------------------------------------
_BACK_COLOURS = [(60, 140, 40), (150, 90, 20), (40, 170, 220), (30, 110, 230), (50, 50, 200),
                 (130, 130, 30), (40, 90, 40), (120, 60, 30), (200, 200, 200), (30, 30, 30)]


class _Textures:
    """Per-scene texture cache: resized, colour-jittered faces and a back for one style."""

    LEVELS = (12, 24, 48, 96, 192, 384)

    def __init__(self, style: TileArt, rng: np.random.Generator, jitter: bool = True):
        self.style, self.rng = style, rng
        self.hue = int(rng.integers(-8, 9)) if jitter and rng.random() < 0.5 else 0
        self.sat = float(rng.uniform(0.7, 1.3)) if jitter else 1.0
        self.val = float(rng.uniform(0.85, 1.08)) if jitter else 1.0
        self.ink = int(rng.choice([-1, 0, 0, 1])) if jitter else 0   # line weight: thin/keep/thick
        self.cache: dict[tuple[str, int], np.ndarray] = {}
        if style.back is not None and rng.random() < style.back_share:
            self.back_src = style.back
        else:
            colour = np.array(_BACK_COLOURS[int(rng.integers(len(_BACK_COLOURS)))], float)
            colour = np.clip(colour * rng.uniform(0.7, 1.2) + rng.normal(0, 12, 3), 0, 255)
            self.back_src = _synthetic_back(style.shape, colour, rng)
        self.back_bgr = tuple(int(v) for v in np.median(self.back_src[self.back_src[..., 3] > 200][:, :3], axis=0))
        body = np.array(style.body_bgr, float)
        if body.mean() < 90 or rng.random() < 0.3:   # dark faces (Black, jade) still have a light layer sometimes
            body = np.array([205, 225, 235], float) + rng.normal(0, 10, 3)
        self.body_bgr = tuple(int(v) for v in np.clip(body, 0, 255))

    def get(self, name: str, px: float) -> np.ndarray:
        level = next((lv for lv in self.LEVELS if lv >= px), self.LEVELS[-1])
        key = (name, level)
        tex = self.cache.get(key)
        if tex is None:
            src = self.back_src if name == "back" else self.style.image(name)
            h, w = src.shape[:2]
            nh = min(level, h)
            nw = max(2, round(w * nh / h))
            tex = cv2.resize(src, (nw, nh), interpolation=cv2.INTER_AREA) if nh < h else src.copy()
            if name != "back":
                if self.style.synthetic_red:
                    # mpsz art often has transparent gaps where its own 3D edge is drawn: fill
                    # them with the body so the block's face is solid.
                    body = np.array(self.style.body_bgr, np.float32)
                    a = tex[..., 3:4].astype(np.float32) / 255.0
                    tex = np.dstack([(tex[..., :3] * a + body * (1 - a)).astype(np.uint8),
                                     np.full(tex.shape[:2], 255, np.uint8)])
                tex = self._jitter(tex)
            self.cache[key] = tex
        return tex

    def _jitter(self, tex: np.ndarray) -> np.ndarray:
        bgr = tex[..., :3]
        if self.ink and tex.shape[0] >= 48:
            k = np.ones((2, 2), np.uint8)
            bgr = cv2.erode(bgr, k) if self.ink > 0 else cv2.dilate(bgr, k)
        if self.hue or self.sat != 1.0 or self.val != 1.0:
            hsv = cv2.cvtColor(np.ascontiguousarray(bgr), cv2.COLOR_BGR2HSV).astype(np.int16)
            hsv[..., 0] = (hsv[..., 0] + self.hue) % 180
            hsv[..., 1] = np.clip(hsv[..., 1] * self.sat, 0, 255)
            hsv[..., 2] = np.clip(hsv[..., 2] * self.val, 0, 255)
            bgr = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
        return np.dstack([bgr, tex[..., 3]])


def _synthetic_back(shape: tuple[int, int], colour: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A plain coloured tile back (H, W, 4) with a soft vertical gradient and rounded corners."""
    h, w = 96, max(8, round(96 * shape[1] / shape[0]))
    grad = np.linspace(1.08, 0.88, h)[:, None, None]
    img = np.clip(colour[None, None, :] * grad * np.ones((h, w, 1)), 0, 255).astype(np.uint8)
    if rng.random() < 0.3:  # an embossed pattern some sets have
        cv2.ellipse(img, (w // 2, h // 2), (w // 4, h // 5), 0, 0, 360,
                    tuple(int(v) for v in np.clip(colour * 0.8, 0, 255)), 2)
    alpha = np.zeros((h, w), np.uint8)
    rad = max(2, w // 10)
    cv2.rectangle(alpha, (rad, 0), (w - 1 - rad, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, rad), (w - 1, h - 1 - rad), 255, -1)
    for cx, cy in ((rad, rad), (w - 1 - rad, rad), (rad, h - 1 - rad), (w - 1 - rad, h - 1 - rad)):
        cv2.circle(alpha, (cx, cy), rad, 255, -1)
    return np.dstack([img, alpha])


TABLES = ("felt", "wood", "cloth", "plain", "clutter")


def background(h: int, w: int, rng: np.random.Generator, kind: str | None = None) -> np.ndarray:
    """A procedural table: felt, wood, cloth, plain or cluttered. uint8 (h, w, 3) BGR.
    Raises ValueError for an unknown ``kind``."""
    if kind is None:
        kind = rng.choice(TABLES, p=[0.3, 0.25, 0.15, 0.15, 0.15])
    elif kind not in TABLES:
        raise ValueError(f"unknown table {kind!r}; one of {', '.join(TABLES)}")
    felt = [(60, 110, 30), (90, 70, 20), (40, 40, 120), (50, 60, 50), (30, 30, 30), (120, 100, 90)]
    if kind == "felt":
        base = np.array(felt[int(rng.integers(len(felt)))], float) * rng.uniform(0.6, 1.4)
    else:
        base = rng.uniform(20, 235, 3)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array([40, 80, 130], float) * rng.uniform(0.5, 1.6)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        warp = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        period = rng.uniform(6, 40)
        stripes = 0.85 + 0.15 * np.sin(2 * math.pi * (u / period + warp * rng.uniform(0.5, 3)))
        img = base[None, None, :] * stripes[..., None]
    elif kind == "cloth":
        period = rng.uniform(2.5, 8)
        weave = 0.9 + 0.1 * np.sin(2 * math.pi * xx / period) * np.sin(2 * math.pi * yy / period)
        img = base[None, None, :] * weave[..., None]
    elif kind == "clutter":
        small = rng.uniform(0, 255, (int(rng.integers(2, 6)), int(rng.integers(2, 6)), 3)).astype(np.float32)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * 0.7 + base * 0.3
        for _ in range(int(rng.integers(0, 6))):  # cards, coins, sticks: not tiles
            col = tuple(float(v) for v in rng.uniform(0, 255, 3))
            cx, cy = int(rng.integers(w)), int(rng.integers(h))
            if rng.random() < 0.5:
                cv2.circle(img, (cx, cy), int(rng.integers(4, max(5, w // 8))), col, -1, cv2.LINE_AA)
            else:
                box = cv2.boxPoints(((cx, cy), (float(rng.uniform(5, w / 4)), float(rng.uniform(3, h / 3))),
                                     float(rng.uniform(0, 180))))
                cv2.fillConvexPoly(img, box.astype(np.int32), col, cv2.LINE_AA)
    else:
        img = np.ones((h, w, 3), np.float32) * base[None, None, :]
    # Light fall-off and fine grain.
    gx, gy = rng.uniform(-0.3, 0.3, 2)
    shade = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    img = img * shade[..., None] + rng.normal(0, rng.uniform(2, 9), (h, w, 1))
    if kind == "felt":
        img = cv2.GaussianBlur(img.astype(np.float32), (3, 3), 0.6)
    return np.clip(img, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------
def _poly(img: np.ndarray, pts: np.ndarray, colour, label: np.ndarray, idx: int) -> None:
    """Fill an anti-aliased convex polygon; label every pixel it covers by a quarter or more
    (so that thin slivers seen edge-on still count as drawn)."""
    fixed = np.round(pts * 16).astype(np.int32)
    x0, y0 = np.maximum(np.floor(pts.min(0)).astype(int) - 1, 0)
    x1, y1 = np.ceil(pts.max(0)).astype(int) + 2
    x1, y1 = min(x1, img.shape[1]), min(y1, img.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    cover = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(cover, fixed - np.array([x0 * 16, y0 * 16], np.int32), 255, cv2.LINE_AA, shift=4)
    a = cover[..., None].astype(np.float32) / 255.0
    sub = img[y0:y1, x0:x1]
    sub[:] = (sub * (1 - a) + np.array(colour, np.float32) * a + 0.5).astype(np.uint8)
    label[y0:y1, x0:x1][cover >= 64] = idx


def _draw_block(img, label, idx, uv, world, axes, cam_c, tex: _Textures, cls, light, thick_split):
    """Draw one block's visible quads; returns the class its visible top shows, or None."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(uv.min(0)).astype(int)
    x1, y1 = np.ceil(uv.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return None
    roi = img[y0:y1, x0:x1]
    lroi = label[y0:y1, x0:x1]
    off = np.array([x0, y0], float)
    shown = None
    for quad, axis, sign in _SIDES:
        normal = axes[axis] * sign
        q = world[list(quad)]
        if np.dot(normal, cam_c - q.mean(0)) <= 0:
            continue
        lam = 0.55 + 0.45 * max(0.0, float(np.dot(normal, light)))
        p = uv[list(quad)] - off
        fi, fj, bj, bi = p
        mi, mj = fi + thick_split * (bi - fi), fj + thick_split * (bj - fj)
        _poly(roi, np.stack([fi, fj, mj, mi]), tuple(c * lam for c in tex.body_bgr), lroi, idx)
        _poly(roi, np.stack([mi, mj, bj, bi]), tuple(c * lam for c in tex.back_bgr), lroi, idx)
    for face, corners, normal in (("face", (0, 1, 2, 3), axes[2]), ("back", (5, 4, 7, 6), -axes[2])):
        q = world[list(corners)]
        if np.dot(normal, cam_c - q.mean(0)) <= 0:
            continue
        name = cls if face == "face" else "back"
        p = (uv[list(corners)] - off).astype(np.float32)
        px = float(max(np.linalg.norm(p[0] - p[3]), np.linalg.norm(p[0] - p[1])))
        t = tex.get(name, px)
        th, tw = t.shape[:2]
        src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
        hm = cv2.getPerspectiveTransform(src, p)
        warped = cv2.warpPerspective(t, hm, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a = warped[..., 3:4].astype(np.float32) / 255.0
        lam = 0.8 + 0.25 * max(0.0, float(np.dot(normal, light)))
        roi[:] = np.clip(roi * (1 - a) + warped[..., :3] * (a * lam), 0, 255).astype(np.uint8)
        lroi[warped[..., 3] >= 128] = idx
        shown = name
    return shown


@dataclass
class Look:
    """Photo conditions; ``None`` fields are drawn at random by :func:`_sample_look`."""

    pitch: float | None = None
    yaw: float | None = None
    roll: float | None = None
    tile_px: float | None = None   # median tile height in pixels; None: fit the scene in frame
    effects: bool = True           # False: no colour jitter, shadows, occluders, blur, noise, JPEG
    table_bgr: tuple[int, int, int] | None = None   # a plain table of this colour (for tests)
    occlude: float = 0.15          # chance of fingers reaching into the photo
    table: str | None = None       # background kind (felt, wood, cloth, plain, clutter); None: random
    fill: float | None = None      # share of the frame the scene fills, centred; None: 0.55..0.95 anywhere
    centre: bool = False           # with tile_px: the scene centred in the frame (a hand camera), not anywhere
    glass: float = 0.0             # reflectance of a glass table top (0: none; real glass ~0.1-0.4)


def _render(blocks: list[Block], style: TileArt, rng: np.random.Generator, size: tuple[int, int],
            look: Look, fit: tuple[float, float] = (0.55, 0.95)):
    """Draw blocks; returns (image, list of (block, box, shown_class, visible_share), params)."""
    w, h = size
    aspect = style.shape[0] / style.shape[1]
    thick = float(rng.uniform(0.55, 0.9))
    texs = _Textures(style, rng, jitter=look.effects)
    if blocks:
        xs = np.array([b.x for b in blocks])
        ys = np.array([b.y for b in blocks])
        target = np.array([(xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2, 0.0])
        extent = float(max(xs.max() - xs.min(), ys.max() - ys.min(), 2.0))
    else:
        target, extent = np.zeros(3), 10.0
    cam = Camera(look.pitch, look.yaw, look.roll, extent * float(rng.uniform(1.0, 3.5)) + 4.0, target)
    cam_c, _ = cam.frame()
    worlds, uvs, axess = [], [], []
    for b in blocks:
        world, axes = _block_corners(b, aspect, thick)
        worlds.append(world)
        axess.append(axes)
        uvs.append(cam.project(world))
    img = background(h, w, rng, look.table) if look.table_bgr is None else np.full((h, w, 3), look.table_bgr, np.uint8)
    label = np.full((h, w), -1, np.int16)
    out = []
    if blocks:
        allp = np.concatenate(uvs)
        sizes = [max(np.linalg.norm(u[0] - u[3]), np.linalg.norm(u[0] - u[1])) for u in uvs]
        med = float(np.median(sizes))
        lo, hi = allp.min(0), allp.max(0)
        if look.tile_px is None:
            share = float(rng.uniform(*fit)) if look.fill is None else look.fill
            s = share * min(w / max(hi[0] - lo[0], 1e-6), h / max(hi[1] - lo[1], 1e-6))
            span = (hi - lo) * s
            if look.fill is None:
                off = np.array([rng.uniform(0, max(w - span[0], 0)), rng.uniform(0, max(h - span[1], 0))]) - lo * s
            else:
                off = (np.array([w, h]) - span) / 2 - lo * s
        else:
            s = look.tile_px / med
            if look.centre:
                off = np.array([w, h]) / 2 - (lo + hi) / 2 * s
            else:
                anchor = uvs[int(rng.integers(len(uvs)))].mean(0) * s
                off = np.array([rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h]) - anchor
        uvs = [u * s + off for u in uvs]
        tile_px = med * s
        # Light from above, to one side; shadows fall on the table.
        le = math.radians(rng.uniform(35, 80))
        la = rng.uniform(0, 2 * math.pi)
        light = np.array([math.cos(le) * math.cos(la), math.cos(le) * math.sin(la), math.sin(le)])
        if look.effects:
            shadow = np.zeros((h, w), np.float32)
            for world in worlds:
                flat = world - (world[:, 2:3] / light[2]) * light
                flat[:, 2] = 0
                pts = cam.project(flat) * s + off
                hull = cv2.convexHull(pts.astype(np.float32))
                cv2.fillConvexPoly(shadow, np.round(hull * 16).astype(np.int32).reshape(-1, 2), 1.0,
                                   cv2.LINE_AA, shift=4)
            sig = max(0.5, tile_px * rng.uniform(0.02, 0.12))
            shadow = cv2.GaussianBlur(shadow, (0, 0), sig)
            img = (img * (1 - rng.uniform(0.2, 0.55) * shadow[..., None])).astype(np.uint8)
        order = sorted(range(len(blocks)), key=lambda i: -np.linalg.norm(cam_c - worlds[i].mean(0)))
        split = float(rng.uniform(0.35, 0.7))
        if look.glass > 0:
            img = _glass_reflection(img, blocks, worlds, axess, cam, s, off, cam_c, texs, light,
                                    split, look.glass)
        shown = {}
        for i in order:
            shown[i] = _draw_block(img, label, i, uvs[i], worlds[i], axess[i], cam_c, texs,
                                   blocks[i].cls, light, split)
        if look.effects and rng.random() < look.occlude:
            _fingers(img, label, rng, tile_px)
        counts = np.bincount(label.ravel() + 1, minlength=len(blocks) + 1)[1:]
        for i, b in enumerate(blocks):
            if shown[i] is None or counts[i] == 0:
                continue
            area = cv2.contourArea(cv2.convexHull(uvs[i].astype(np.float32)))
            vis = float(counts[i]) / max(area, 1.0)
            x0, y0 = np.floor(uvs[i].min(0)).astype(int)
            x1, y1 = np.ceil(uvs[i].max(0)).astype(int) + 1
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            ys_, xs_ = np.nonzero(label[y0:y1, x0:x1] == i)
            box = [int(xs_.min() + x0), int(ys_.min() + y0), int(xs_.max() + x0 + 1), int(ys_.max() + y0 + 1)]
            if vis < MIN_VISIBLE or min(box[2] - box[0], box[3] - box[1]) < MIN_BOX_PX:
                continue
            # The row's "up" direction on the table, as seen in the image (0 = up, 180 = upside down).
            th = math.radians(b.theta - (90.0 if b.sideways else 0.0))
            c0 = worlds[i].mean(0)
            p0, p1 = (cam.project(np.stack([c0, c0 + 0.5 * np.array([-math.sin(th), math.cos(th), 0.0])])) * s + off)
            angle = math.degrees(math.atan2(p1[0] - p0[0], p0[1] - p1[1]))
            out.append((b, box, shown[i], min(1.0, vis), angle))
    else:
        tile_px = 0.0
    quality = int(rng.integers(50, 96)) if look.effects else 95
    if look.effects:
        img = _photo_effects(img, rng, tile_px)
    params = {"pitch": round(look.pitch, 1), "yaw": round(look.yaw, 1), "roll": round(look.roll, 1),
              "tile_px": round(tile_px, 1), "jpeg_quality": quality}
    return img, out, params


_MIRROR = np.array([1.0, 1.0, -1.0])      # the table plane z = 0 as a mirror


def _glass_reflection(img, blocks, worlds, axess, cam, s, off, cam_c, texs, light, split, glass):
    """``img`` with the tiles' mirror images in a glass table top blended in at ``glass``
    reflectance: each block mirrored in the table plane and drawn through the same camera.
    A standing tile's face shows upside down below it; a lying tile shows only slivers of its
    sides. Reflections are not tiles: they get no label."""
    h, w = img.shape[:2]
    mirrored = [world * _MIRROR for world in worlds]
    refl = img.copy()
    drawn = np.full((h, w), -1, np.int16)
    for i in sorted(range(len(blocks)), key=lambda i: -np.linalg.norm(cam_c - mirrored[i].mean(0))):
        _draw_block(refl, drawn, i, cam.project(mirrored[i]) * s + off, mirrored[i],
                    axess[i] * _MIRROR, cam_c, texs, blocks[i].cls, light * _MIRROR, split)
    a = np.where(drawn >= 0, glass, 0.0).astype(np.float32)[..., None]
    return (img * (1 - a) + refl * a + 0.5).astype(np.uint8)


def _fingers(img, label, rng, tile_px):
    """One or two skin-coloured fingers reaching in from a frame edge (occluders)."""
    h, w = img.shape[:2]
    skin = np.clip(np.array([115.0, 150.0, 205.0]) * rng.uniform(0.45, 1.15) + rng.normal(0, 8, 3), 0, 255)
    for _ in range(int(rng.integers(1, 3))):
        edge = int(rng.integers(4))
        t = rng.uniform(0.1, 0.9)
        start = [(t * w, 0), (t * w, h), (0, t * h), (w, t * h)][edge]
        end = (rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h)
        thick = int(max(4, tile_px * rng.uniform(0.6, 1.1)))
        p0 = tuple(int(v) for v in start)
        p1 = tuple(int(v) for v in end)
        cv2.line(img, p0, p1, tuple(float(v) for v in skin), thick, cv2.LINE_AA)
        cv2.line(img, p0, p1, tuple(float(v) for v in skin * 1.12), max(1, thick // 3), cv2.LINE_AA)
        cv2.line(label, p0, p1, -1, thick)


def _photo_effects(img: np.ndarray, rng: np.random.Generator, tile_px: float) -> np.ndarray:
    """Camera and light: colour temperature, exposure, glare, vignette, blur, noise."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    k = rng.uniform(-0.15, 0.15)                       # warm (k > 0) or cool light
    f *= np.array([1 - k, 1.0, 1 + k], np.float32)
    f = f * rng.uniform(0.75, 1.2) + rng.uniform(-20, 20)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.35:                            # specular glare from a lamp
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.05, 0.3) * max(w, h)
        f += rng.uniform(40, 140) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))[..., None]
    if rng.random() < 0.4:                             # vignette
        d = ((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2)
        f *= (1 - rng.uniform(0.2, 0.6) * d)[..., None]
    img = np.clip(f, 0, 255).astype(np.uint8)
    r = rng.random()
    if r < 0.35:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.3))
    elif r < 0.45:                                     # motion blur
        n = int(rng.integers(3, 8))
        kern = np.zeros((n, n), np.float32)
        kern[n // 2, :] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, rot, (n, n))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    if rng.random() < 0.6:
        img = np.clip(img + rng.normal(0, rng.uniform(1, 8), img.shape), 0, 255).astype(np.uint8)
    return img


def _jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else img


def _sample_look(rng: np.random.Generator, look: Look | None, standing: bool, lying_yaw_any: bool) -> Look:
    look = Look() if look is None else Look(**vars(look))
    if look.pitch is None:
        look.pitch = float(rng.uniform(20, 60) if standing else rng.uniform(20, 90))
    if look.yaw is None:
        if standing or not lying_yaw_any:
            look.yaw = float(rng.uniform(-35, 35))
        else:
            look.yaw = float(rng.uniform(-35, 35) if rng.random() < 0.75 else rng.uniform(0, 360))
    if look.roll is None:
        look.roll = float(rng.normal(0, 8) if rng.random() < 0.8 else rng.uniform(-180, 180))
    return look


def _size(imgsz: int | tuple[int, int], rng: np.random.Generator) -> tuple[int, int]:
    if isinstance(imgsz, tuple):
        return imgsz
    ratio = float(rng.choice([1.0, 4 / 3, 3 / 4, 16 / 9, 9 / 16, 3 / 2]))
    return (imgsz, int(round(imgsz / ratio))) if ratio >= 1 else (int(round(imgsz * ratio)), imgsz)


def _annotation(request, items, size, style, scene, params) -> dict:
    tiles = []
    for b, box, shown, vis, angle in sorted(items, key=lambda it: (_GROUP_ORDER.get(it[0].group.rstrip("0123"), 9),
                                                                   it[0].group, it[0].order)):
        tiles.append({"tile": shown, "box": box, "sideways": bool(b.sideways), "group": b.group,
                      "upside_down": bool(abs(angle) > 90), "angle": round(angle, 1),
                      "visible": round(vis, 3)})
    return {"request": request, "tiles": tiles, "image": {"width": size[0], "height": size[1]},
            "style": style.name, "scene": scene, **params}


_GROUP_ORDER = {"concealed": 0, "win": 1, "meld": 2, "dora": 3, "flower": 4, "loose": 5}


def render_hand(spec: HandSpec | dict, rng: np.random.Generator, style: TileArt | str, *,
                imgsz: int | tuple[int, int] = 640, standing: bool | None = None,
                look: Look | None = None, dora_row: bool | None = None, dora_flip: bool | None = None,
                upside_down: bool | None = None, melds_in_front: bool | None = None,
                discards: int = 0, jpeg: bool = True) -> tuple[np.ndarray, dict]:
    """Render a photo of a winning hand.

    ``spec``: a :class:`HandSpec` or a hand request dict (hand-json.md; for MCR, random flower
    tiles are drawn to match ``flowers``). ``rng``: the only source of randomness (same seed,
    same photo). ``style``: a TileArt or a style name. ``imgsz``: the long side in pixels (the
    aspect ratio is drawn) or an exact (width, height). ``standing``: concealed tiles standing
    up facing the camera (None: random). ``look``: camera/effects overrides. ``dora_row``:
    show the request's dora indicators as a row behind the hand (None: when it has any).
    ``dora_flip``: that row upside down. ``upside_down``: the photo taken from across the
    table (all rows upside down; lying tiles only). ``discards``: extra loose discard tiles
    (group ``loose``). ``jpeg``: apply the drawn JPEG quality (50..95) to the returned image.

    Returns ``(image_bgr, annotation)`` as described in the module docstring. Raises ValueError
    for a malformed request and KeyError when the style lacks a tile of the hand (e.g. flowers
    in riichi-tiles).
    """
    style = get_style(style) if isinstance(style, str) else style
    aspect = style.shape[0] / style.shape[1]
    if standing is None:
        standing = bool(rng.random() < 0.35)
    if upside_down:
        standing = False
    if dora_flip is None:
        dora_flip = bool(rng.random() < 0.2)
    if melds_in_front is None:
        melds_in_front = bool(rng.random() < 0.15)
    blocks, req = hand_blocks(spec, rng, aspect, standing, dora_row, dora_flip, melds_in_front)
    missing = {b.cls for b in blocks} - set(style.classes) - {"back"}
    if missing:
        raise KeyError(f"style {style.name!r} has no {' '.join(sorted(missing))}")
    if discards:
        blocks += _discard_blocks(rng, aspect, discards, style)
    look = _sample_look(rng, look, standing, lying_yaw_any=False)
    if upside_down:
        look.yaw = float(180 + rng.uniform(-30, 30))
    size = _size(imgsz, rng)
    img, items, params = _render(blocks, style, rng, size, look)
    if jpeg and look.effects:
        img = _jpeg(img, params["jpeg_quality"])
    return img, _annotation(req, items, size, style, "hand_standing" if standing else "hand_lying", params)


def _discard_blocks(rng, aspect, n, style) -> list[Block]:
    """Discard rows (6 per row) in front of the hand, as on a table mid-game."""
    pool = [c for c in style.classes if c[1] in "mpsz"]
    blocks = []
    x0 = float(rng.uniform(2, 6))
    y0 = -aspect - float(rng.uniform(1.5, 3.0))
    for k in range(n):
        r, c = divmod(k, 6)
        blocks.append(Block(str(rng.choice(pool)), x0 + c * 1.05 + 0.5, y0 - r * (aspect + 0.05),
                            float(rng.normal(0, 2)), "lying", group="loose", order=100 + k))
    return blocks


def render_rows(rng: np.random.Generator, style: TileArt | str, *, imgsz: int | tuple[int, int] = 640,
                rows: int | None = None, per_row: int | None = None, grid: bool | None = None,
                tiles: list[str] | None = None, flip_share: float = 0.3, tile_flip: float | None = None,
                look: Look | None = None, jpeg: bool = True,
                row_lengths: list[int] | None = None) -> tuple[np.ndarray, dict]:
    """Loose rows of tiles lying face up (some rows upside down), or a tight grid of a set.

    ``tiles``: classes to lay out row by row (None: random classes of the style, a few backs).
    ``flip_share``: chance of a row lying upside down; ``tile_flip``: chance of a single tile
    turned upside down (None: 0 or 0.5 at random). ``row_lengths``: how many of ``tiles`` each
    row holds (instead of ``per_row`` each).
    Returns ``(image_bgr, annotation)`` with ``request`` None and every tile in group ``loose``.
    """
    style = get_style(style) if isinstance(style, str) else style
    aspect = style.shape[0] / style.shape[1]
    grid = bool(rng.random() < 0.35) if grid is None else grid
    if rows is None:
        rows = int(rng.integers(3, 9)) if grid else int(rng.integers(1, 5))
    if per_row is None:
        per_row = int(rng.integers(6, 19)) if grid else int(rng.integers(3, 15))
    pool = [c for c in style.classes if c != "back"]
    if tiles is None:
        tiles = [("back" if rng.random() < 0.04 else str(rng.choice(pool))) for _ in range(rows * per_row)]
    tile_flip = float(rng.choice([0.0, 0.0, 0.5])) if tile_flip is None else tile_flip
    gap = float(rng.uniform(0.0, 0.06)) if grid else float(rng.uniform(0.02, 0.4))
    row_gap = float(rng.uniform(0.03, 0.2)) if grid else float(rng.uniform(0.3, 1.5))
    blocks: list[Block] = []
    starts = np.cumsum([0] + list(row_lengths)) if row_lengths else np.arange(rows + 1) * per_row
    for r in range(len(starts) - 1):
        chunk = tiles[starts[r]:starts[r + 1]]
        if not chunk:
            break
        row = _Row(rng, aspect, gap)
        if not grid:
            row.skip(float(rng.uniform(0, 2)))
        for t in chunk:
            if t == "back":
                row.add("back", "loose", "down")
            else:
                row.add(t, "loose")
                if rng.random() < tile_flip:  # product photos turn single tiles every which way
                    row.blocks[-1].theta += 180.0
        flip = rng.random() < flip_share
        y = -r * (aspect + row_gap)
        ang = float(rng.normal(0, 0 if grid else 3))
        if flip:
            _place(row.blocks, row.x, y + aspect, 180 + ang)
        else:
            _place(row.blocks, 0, y, ang)
        for b in row.blocks:
            b.order += 100 * r
        blocks += row.blocks
    look = _sample_look(rng, look, False, lying_yaw_any=True)
    size = _size(imgsz, rng)
    img, items, params = _render(blocks, style, rng, size, look)
    if jpeg and look.effects:
        img = _jpeg(img, params["jpeg_quality"])
    return img, _annotation(None, items, size, style, "grid" if grid else "rows", params)


def render_negative(rng: np.random.Generator, style: TileArt | str, *, imgsz: int | tuple[int, int] = 640,
                    backs: bool | None = None, look: Look | None = None, jpeg: bool = True):
    """A hard negative: an empty (possibly cluttered) table, or only face-down / from-behind
    tiles (labelled ``back``). Returns ``(image_bgr, annotation)``."""
    style = get_style(style) if isinstance(style, str) else style
    aspect = style.shape[0] / style.shape[1]
    backs = bool(rng.random() < 0.5) if backs is None else backs
    blocks: list[Block] = []
    standing = False
    if backs:
        standing = bool(rng.random() < 0.5)
        row = _Row(rng, aspect, float(rng.uniform(0.0, 0.05)))
        for _ in range(int(rng.integers(5, 18))):
            if standing:  # a player's standing hand seen from behind
                row.add("1m", "loose", "standing")
            else:
                row.add("back", "loose", "down")
        blocks = row.blocks
        if standing:
            _place(blocks, 0, 0, 180)
    look = _sample_look(rng, look, standing, lying_yaw_any=True)
    if standing:
        look.yaw = float(rng.uniform(-35, 35))
    size = _size(imgsz, rng)
    img, items, params = _render(blocks, style, rng, size, look)
    if jpeg and look.effects:
        img = _jpeg(img, params["jpeg_quality"])
    return img, _annotation(None, items, size, style, "negative_backs" if backs else "negative_empty", params)


def training_styles(art: str | None = None) -> list[str]:
    """Every style found, minus ``HELDOUT_STYLES``."""
    return [s for s in list_styles(art) if s not in HELDOUT_STYLES]


def render_closeup(rng: np.random.Generator, style: TileArt | str, *, imgsz: int = 416,
                   jpeg: bool = True) -> tuple[np.ndarray, dict]:
    """A close-up of a few tiles that fills the whole frame, as people photograph tiles to ask
    "what is this?": one to five touching rows of 3..12 tiles seen from above, single tiles often
    turned upside down, the photo cropped tight around them (a one-row strip comes out as a wide
    image). Tiles are ~40..200 px high at 416 px; the rest of the training mix rarely shows them
    that big and that tightly packed. Returns ``(image_bgr, annotation)`` with scene ``closeup``.
    """
    style = get_style(style) if isinstance(style, str) else style
    rows = int(rng.choice([1, 1, 2, 2, 3, 4, 5]))
    per_row = int(rng.integers(3, 13))
    look = Look(pitch=float(rng.uniform(55, 90)), yaw=float(rng.normal(0, 6)),
                roll=float(rng.normal(0, 3) + (180 if rng.random() < 0.2 else 0)), fill=0.9, occlude=0.05)
    img, ann = render_rows(rng, style, imgsz=(imgsz, imgsz), rows=rows, per_row=per_row, grid=True,
                           flip_share=0.2, tile_flip=float(rng.choice([0.0, 0.3, 0.5])), look=look, jpeg=False)
    ann["scene"] = "closeup"
    if not ann["tiles"]:                 # every tile hidden (an occluder): nothing to crop to
        return (_jpeg(img, ann["jpeg_quality"]) if jpeg else img), ann
    # Crop tight around the tiles (a margin of 0..5% of their span, often cutting into the
    # outer tiles a little), then scale so the long side is imgsz again.
    boxes = np.array([t["box"] for t in ann["tiles"]], float)
    lo, hi = boxes[:, :2].min(0), boxes[:, 2:].max(0)
    margin = (hi - lo) * rng.uniform(-0.01, 0.05, size=2)
    x0, y0 = np.maximum(np.floor(lo - margin), 0).astype(int)
    x1, y1 = np.minimum(np.ceil(hi + margin), [imgsz, imgsz]).astype(int)
    crop = img[y0:y1, x0:x1]
    k = imgsz / max(crop.shape[:2])
    w, h = max(1, int(round(crop.shape[1] * k))), max(1, int(round(crop.shape[0] * k)))
    img = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    scale = np.array([w / (x1 - x0), h / (y1 - y0)] * 2)
    kept = []
    for t in ann["tiles"]:
        bx = np.array(t["box"], float) - [x0, y0, x0, y0]
        cut = np.clip(bx, 0, [x1 - x0, y1 - y0] * 2)
        share = (cut[2] - cut[0]) * (cut[3] - cut[1]) / max((bx[2] - bx[0]) * (bx[3] - bx[1]), 1e-9)
        t["visible"] = round(float(t["visible"]) * float(np.clip(share, 0, 1)), 3)
        t["box"] = [round(float(v), 1) for v in cut * scale]
        if t["visible"] >= 0.4:
            kept.append(t)
    ann["tiles"] = kept
    ann["image"] = {"width": w, "height": h}
    if jpeg:
        img = _jpeg(img, ann["jpeg_quality"])
    return img, ann


# Scene-kind shares of random_scene: hand, rows/grid, close-up, negative.
SCENE_MIXES: dict[str, tuple[float, float, float, float]] = {
    "default": (0.5, 0.43, 0.0, 0.07),
    # Real photos people ask about are close-ups of touching tiles (models/README.md).
    "real": (0.38, 0.24, 0.30, 0.08),
    # Broadcast hand-camera frames: hands only, small tiles (hand_camera_look).
    "broadcast": (1.0, 0.0, 0.0, 0.0),
}


def hand_camera_look(rng: np.random.Generator, tile_px: float) -> Look:
    """A broadcast hand camera: level (roll ~N(0, 4) degrees), facing the hand (yaw within
    15 degrees, pitch 35..75), the hand centred, tiles ``tile_px`` (face height, pixels) ±15%."""
    return Look(occlude=0.0, centre=True, roll=float(rng.normal(0, 4)),
                yaw=float(rng.uniform(-15, 15)), pitch=float(rng.uniform(35, 75)),
                tile_px=tile_px * float(rng.uniform(0.85, 1.15)))


def random_scene(rng: np.random.Generator, styles: list[str], *, imgsz: int | tuple[int, int] = 416,
                 art: str | None = None, jpeg: bool = True, mix: str = "default",
                 glass: float = 0.0) -> tuple[np.ndarray, dict]:
    """One training scene: a hand (riichi or MCR, lying or standing, sometimes with discards),
    loose rows or a grid, a frame-filling close-up, or a hard negative, in a style drawn from
    ``styles``, with the shares of ``SCENE_MIXES[mix]``. Tile height is either fitted (the scene
    fills 55..95% of the frame) or drawn from 14..200 px (scaled by imgsz/416) so that crops and
    close-ups appear too. ``glass``: share of scenes on a glass table top (reflectance
    0.1..0.45; their reflections are not labelled, so a detector learns they are no tiles);
    0, the default, draws no extra random number, so older datasets render as before.
    Raises KeyError for an unknown ``mix``.
    """
    shares = np.cumsum(SCENE_MIXES[mix])
    weights = np.array([3.0 if s.startswith("riichi-regular") else 1.5 if s.startswith("riichi") else 1.0
                        for s in styles])
    style = get_style(str(rng.choice(styles, p=weights / weights.sum())), art)
    long_side = imgsz if isinstance(imgsz, int) else max(imgsz)
    look = Look()
    if mix == "broadcast":
        # face heights 14..32 px in a 1280-px frame: boxes about 16..45 px with the thickness
        look = hand_camera_look(rng, float(rng.uniform(14, 32)) * long_side / 1280)
        look.occlude = 0.1
    elif rng.random() < 0.3:
        look.tile_px = float(np.exp(rng.uniform(math.log(14), math.log(200)))) * long_side / 416
    if glass > 0 and rng.random() < glass:
        look.glass = float(rng.uniform(0.1, 0.45))
    kind = rng.random() * shares[-1]
    if shares[2] > shares[1] and shares[1] <= kind < shares[2]:
        return render_closeup(rng, style, imgsz=long_side, jpeg=jpeg)
    if kind < shares[0]:
        has_flowers = any(c.endswith("f") for c in style.classes)
        ruleset = "mcr" if (has_flowers and rng.random() < 0.5) else "riichi"
        spec = random_hand(rng, ruleset)
        if not all(f in style.classes for f in spec.flower_tiles):
            spec.flower_tiles = []          # this style lacks some flowers: show none
            spec.request["flowers"] = 0
        return render_hand(spec, rng, style, imgsz=imgsz, look=look, jpeg=jpeg,
                           upside_down=bool(mix != "broadcast" and rng.random() < 0.1),
                           discards=int(rng.integers(3, 19)) if rng.random() < 0.25 else 0)
    if kind < shares[1]:
        return render_rows(rng, style, imgsz=imgsz, look=look, jpeg=jpeg)
    return render_negative(rng, style, imgsz=imgsz, look=look, jpeg=jpeg)


def render_sheet(rng: np.random.Generator, style: TileArt | str, tiles: list[str], *,
                 imgsz: int | tuple[int, int] = 960, row_lengths: list[int] | None = None,
                 look: Look | None = None) -> tuple[np.ndarray, dict]:
    """A set's reference sheet (``tilescope set learn``): ``tiles`` face up in rows
    (``row_lengths``; default rows of 9), top to bottom, each left to right, none turned, photographed roughly from
    above and the right way up as a user photographs a sheet to teach a set (no fingers).
    ``look`` overrides that. Returns ``(image_bgr, annotation)``."""
    if look is None:
        look = Look(pitch=float(rng.uniform(50, 90)), yaw=float(rng.normal(0, 6)),
                    roll=float(rng.normal(0, 4)), occlude=0.0)
    row_lengths = row_lengths or [9] * (len(tiles) // 9) + ([len(tiles) % 9] if len(tiles) % 9 else [])
    return render_rows(rng, style, imgsz=imgsz, rows=len(row_lengths), per_row=max(row_lengths),
                       grid=False, tiles=list(tiles), flip_share=0.0, tile_flip=0.0, look=look,
                       row_lengths=row_lengths)
