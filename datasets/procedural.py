"""Procedural Chinese-style tile faces: a never-ending supply of new tile-art styles.

:func:`procedural_style` draws one whole style -- every suit, honour, red-five and
flower/season face -- in the format of ``datasets.art`` faces as the classifier trainer keeps
them: ``{class: BGRA uint8 (112, W, 4)}``, a light tile body with rounded corners (alpha 0
outside) and the face drawn on it, OpenCV channel order. Each call draws a new style: body
colour, fonts, inks, stroke weight, glyph scale and offset, aspect (w/h 0.70-0.82), dot and
bamboo designs, the 1s bird, the white dragon's frame, the flower layout, corner indices, a
coloured back layer strip, raised-paint shadow and gloss all vary. The faces follow what real
Chinese / Hong Kong / Japanese sets draw:

* characters: a Chinese numeral (一 .. 九, 五 or 伍) over 萬, sometimes an arabic corner index;
* dots: ringed circles in the standard arrangements, 1p a large ornate medallion;
* bamboo: segmented rods in the standard arrangements, 1s a bird (or 幺 / 一索);
* winds 東南西北, red 中, green 發, the white dragon an empty frame (or blank);
* red fives: the five with its suit ink red (same geometry as the five, only the ink differs);
* flowers 1f-4f: a corner digit 1-4 and 梅 蘭 菊 竹, seasons 5f-8f: digit and 春 夏 秋 冬, with
  a plant doodle, sometimes an English word or no digit.

Glyphs are drawn with Pillow from CJK TrueType fonts found in ``$TILESCOPE_FONTS``
(``os.pathsep``-separated folders) or ``.devkit/fonts`` (fetch them with
``sh datasets/get_fonts.sh``). Training tooling only; nothing here is needed at runtime.

    from datasets.procedural import load_fonts, procedural_style
    fonts = load_fonts()                      # [] when no CJK font is installed
    faces = procedural_style(np.random.default_rng(0), fonts)

One style (45 faces) takes about 0.1-0.2 s on one core. The same seed (and fonts) gives the
same faces.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
FONTS_ENV = "TILESCOPE_FONTS"
DEFAULT_FONT_DIR = REPO_ROOT / ".devkit" / "fonts"
HEIGHT = 112          # output faces are this many pixels high (the trainer's BASE_HEIGHT)
_SS = 2               # drawn at twice the size, then shrunk (anti-aliasing)

NUMERALS = "一二三四五六七八九"
WINDS = "東南西北"
FLOWER_CHARS = "梅蘭菊竹"
SEASON_CHARS = "春夏秋冬"
FLOWER_WORDS = (("PLUM", "ORCHID", "MUM", "BAMBOO"), ("PLUM", "ORCH", "CHRYS", "BAMB"))
SEASON_WORDS = (("SPRING", "SUMMER", "AUTUMN", "WINTER"), ("SPR", "SUM", "AUT", "WIN"))
FILLER = "寶龍鳳金玉樂興財"      # text some sets print inside the white dragon's frame
AMERICAN_FLOWERS = "福祿壽貴"    # American sets' 1f-4f
AD_CHARS = "金玉滿堂財源廣進吉祥如意平安興隆"   # sets that print a slogan on the flowers instead
CORE_CHARS = NUMERALS + "萬" + WINDS + "中發" + FLOWER_CHARS + SEASON_CHARS
OPTIONAL_CHARS = "伍万幺索" + FILLER + AMERICAN_FLOWERS + AD_CHARS
LATIN = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"

CLASSES: tuple[str, ...] = tuple(
    [f"{n}{s}" for s in "mps" for n in range(1, 10)] + [f"{n}z" for n in range(1, 8)]
    + ["0m", "0p", "0s"] + [f"{n}f" for n in range(1, 9)])
_FONT_SUFFIXES = (".ttf", ".ttc", ".otf", ".otc")


# --------------------------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CJKFont:
    """A TrueType font (``index`` into a collection) and the characters it really draws."""

    path: str
    index: int
    name: str
    covers: frozenset

    def has(self, text: str) -> bool:
        return all(c in self.covers or c == " " for c in text)


def font_dirs() -> list[Path]:
    """``$TILESCOPE_FONTS`` (``os.pathsep``-separated) if set, else ``.devkit/fonts``."""
    env = os.environ.get(FONTS_ENV)
    if env:
        return [Path(p).expanduser() for p in env.split(os.pathsep) if p]
    return [DEFAULT_FONT_DIR]


def find_fonts(dirs: Sequence[os.PathLike | str] | None = None) -> list[Path]:
    """Font files (``.ttf .ttc .otf .otc``) under ``dirs`` (default :func:`font_dirs`), sorted."""
    out: list[Path] = []
    for d in (font_dirs() if dirs is None else [Path(x) for x in dirs]):
        if d.is_dir():
            out += [p for p in d.rglob("*") if p.suffix.lower() in _FONT_SUFFIXES and p.is_file()]
    return sorted(set(out))


@lru_cache(maxsize=64)
def _pil_font(path: str, index: int, px: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, max(4, int(px)), index=index)


def _raw_mask(font_path: str, index: int, text: str, px: int) -> np.ndarray:
    from PIL import Image, ImageDraw

    f = _pil_font(font_path, index, px)
    w = int(px * (1.6 + 1.1 * len(text)))
    h = int(px * 2)
    im = Image.new("L", (w, h), 0)
    ImageDraw.Draw(im).text((w / 2, h / 2), text, font=f, fill=255, anchor="mm")
    return np.asarray(im)


@lru_cache(maxsize=32)
def _coverage(path: str, index: int, mtime: float) -> tuple[str, frozenset]:
    """Which of the characters we need the font draws: not blank, not its 'missing' box."""
    px = 40
    tofu = [_raw_mask(path, index, c, px) for c in ("\U0010fffd", "\uffff")]
    got = set()
    for c in CORE_CHARS + OPTIONAL_CHARS + LATIN:
        m = _raw_mask(path, index, c, px)
        if m.max() > 0 and not any(np.array_equal(m, t) for t in tofu):
            got.add(c)
    name = " ".join(_pil_font(path, index, px).getname())
    return name, frozenset(got)


def load_fonts(paths: Sequence[os.PathLike | str] | None = None) -> list[CJKFont]:
    """The usable CJK fonts: those of ``paths`` (default :func:`find_fonts`) that draw every
    numeral, 萬, wind, dragon and flower/season character. Empty when there are none (Pillow
    missing counts as none)."""
    try:
        import PIL  # noqa: F401
    except ImportError:
        return []
    out = []
    for p in (find_fonts() if paths is None else [Path(x) for x in paths]):
        try:
            name, covers = _coverage(str(p), 0, p.stat().st_mtime)
        except OSError:
            continue
        if set(CORE_CHARS) <= covers:
            out.append(CJKFont(str(p), 0, name, covers))
    return out


@lru_cache(maxsize=512)
def _text_mask(font_path: str, index: int, text: str, px: int) -> np.ndarray:
    """uint8 mask of ``text`` at ``px`` pixels per em, cropped to its ink."""
    m = _raw_mask(font_path, index, text, px)
    ys, xs = np.nonzero(m > 8)
    if len(ys) == 0:
        return np.zeros((1, 1), np.uint8)
    return np.ascontiguousarray(m[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


# --------------------------------------------------------------------------------------------
# colours (RGB in the tables, BGR float arrays in use)
# --------------------------------------------------------------------------------------------

def _bgr(rgb) -> np.ndarray:
    return np.array(rgb[::-1], np.float32)


BODIES = [(250, 246, 232), (248, 248, 244), (246, 238, 212), (240, 233, 205), (238, 237, 228),
          (242, 245, 250), (252, 250, 240), (236, 228, 200)]
BLUES = [(20, 40, 120), (25, 60, 170), (15, 30, 90), (30, 80, 190), (10, 50, 140), (40, 40, 110)]
BLACKS = [(20, 20, 25), (35, 30, 30), (10, 15, 35)]
GREENS = [(20, 90, 50), (30, 130, 60), (40, 150, 70), (0, 120, 90), (20, 110, 40), (60, 140, 40)]
REDS = [(200, 30, 30), (180, 20, 40), (220, 60, 30), (160, 20, 20), (210, 20, 50), (190, 40, 20)]
BACKS = [(20, 120, 60), (30, 70, 160), (230, 140, 30), (230, 200, 40), (200, 40, 40),
         (240, 150, 170), (30, 30, 30), (0, 140, 140), (110, 60, 150)]
PINKS = [(240, 120, 150), (230, 70, 100), (250, 170, 190), (220, 50, 70)]
YELLOWS = [(240, 190, 30), (250, 150, 20), (230, 210, 50)]
PURPLES = [(120, 60, 160), (90, 50, 170), (160, 70, 170)]
BROWNS = [(110, 70, 40), (80, 50, 30), (60, 60, 50)]


def _pick(rng: np.random.Generator, table) -> np.ndarray:
    c = np.array(table[int(rng.integers(len(table)))], np.float32)
    return _bgr(np.clip(c + rng.uniform(-12, 12, 3), 0, 255))


def _redden(c: np.ndarray, red: np.ndarray) -> np.ndarray:
    """The red-five version of an ink colour: red, darker for dark inks, lighter for light ones."""
    lum = float(c.mean()) / 255.0
    return np.clip(red * (0.75 + 0.6 * lum), 0, 255).astype(np.float32)


# --------------------------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------------------------

class _Painter:
    """A float BGR canvas plus an ink-coverage layer; shapes are drawn as masks, then painted."""

    def __init__(self, body: np.ndarray):
        self.img = body.copy()
        self.h, self.w = body.shape[:2]
        self.ink = np.zeros((self.h, self.w), np.float32)

    def layer(self) -> np.ndarray:
        return np.zeros((self.h, self.w), np.uint8)

    def put(self, mask: np.ndarray, colour: np.ndarray, x: int = 0, y: int = 0) -> None:
        if mask.shape == (self.h, self.w) and x == 0 and y == 0:   # a full layer: its ink only
            bx, by, bw, bh = cv2.boundingRect(mask)
            if bw == 0:
                return
            mask, x, y = mask[by:by + bh, bx:bx + bw], bx, by
        mh, mw = mask.shape
        xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + mw, self.w), min(y + mh, self.h)
        if xb <= xa or yb <= ya:
            return
        a = mask[ya - y:yb - y, xa - x:xb - x].astype(np.float32) / 255.0
        reg = self.img[ya:yb, xa:xb]
        reg *= 1.0 - a[..., None]
        reg += a[..., None] * colour
        np.maximum(self.ink[ya:yb, xa:xb], a, out=self.ink[ya:yb, xa:xb])

    def text(self, font: CJKFont, text: str, cx: float, cy: float, em: float, colour: np.ndarray,
             stretch: float = 1.0, max_w: float | None = None, max_h: float | None = None,
             stroke: float | None = None, norm: bool = True) -> tuple[int, int]:
        """Draw ``text`` centred on (cx, cy), ``em`` px per em, widened by ``stretch``, shrunk to
        fit ``max_w`` x ``max_h``; returns the drawn (w, h). ``norm``: scale the em so that every
        font's 萬 comes out the same height; ``stroke``: thicken or thin the strokes towards
        this width per em (None: as the font draws them)."""
        ink_h, ink_w = _font_metrics(font.path, font.index)
        if norm:
            em *= float(np.clip(0.9 / ink_h, 0.85, 1.5))
        m = _text_mask(font.path, font.index, text, max(6, int(round(em))))
        mh, mw = m.shape
        k = 1.0
        if max_w:
            k = min(k, max_w / (mw * stretch))
        if max_h:
            k = min(k, max_h / mh)
        w, h = max(1, int(round(mw * stretch * k))), max(1, int(round(mh * k)))
        if (w, h) != (mw, mh):
            m = cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        if stroke is not None:
            d = (stroke - ink_w) * em * k / 2            # radius to add (px)
            if d >= 0.5:
                r = int(round(min(d, 4)))
                m = cv2.copyMakeBorder(m, r, r, r, r, cv2.BORDER_CONSTANT, value=0)
                m = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2))
            elif d < -0.6 and min(w, h) > 20:
                m = cv2.erode(m, np.ones((2, 2), np.uint8))
        mh, mw = m.shape
        self.put(m, colour, int(round(cx - mw / 2)), int(round(cy - mh / 2)))
        return mw, mh


@lru_cache(maxsize=64)
def _font_metrics(path: str, index: int) -> tuple[float, float]:
    """(ink height of 萬, stroke width) per em of a font: brush and mincho faces differ a lot."""
    m = (_text_mask(path, index, "萬", 100) > 127).astype(np.uint8)
    if m.shape[0] < 10:
        return 0.9, 0.08
    dist = cv2.distanceTransform(m, cv2.DIST_L2, 3)
    return m.shape[0] / 100.0, float(4 * dist[m > 0].mean()) / 100.0


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x)), int(round(y))


def _bezier(p0, p1, p2, p3, n: int = 20) -> np.ndarray:
    t = np.linspace(0, 1, n)[:, None]
    p0, p1, p2, p3 = (np.asarray(p, np.float32) for p in (p0, p1, p2, p3))
    return ((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3)


def _poly(mask: np.ndarray, pts: np.ndarray) -> None:
    cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA)


def _polyline(mask: np.ndarray, pts: np.ndarray, thick: int) -> None:
    cv2.polylines(mask, [np.round(pts).astype(np.int32)], False, 255, max(1, int(thick)), cv2.LINE_AA)


def _ellipse(mask: np.ndarray, c, ax, ay, ang: float = 0.0, thick: int = -1) -> None:
    cv2.ellipse(mask, _pt(*c), (max(1, int(round(ax))), max(1, int(round(ay)))), ang, 0, 360,
                255, thick, cv2.LINE_AA)


def _circle(mask: np.ndarray, c, r: float, thick: int = -1) -> None:
    cv2.circle(mask, _pt(*c), max(1, int(round(r))), 255, thick, cv2.LINE_AA)


# --------------------------------------------------------------------------------------------
# the style's random choices
# --------------------------------------------------------------------------------------------

@dataclass
class _Look:
    W: int
    H: int
    box: tuple[float, float, float, float]      # face area x0, y0, x1, y1 (drawing pixels)
    body: np.ndarray
    fonts: dict
    ink: dict
    red: np.ndarray
    p: dict                                      # every other per-style choice


def _sample_look(rng: np.random.Generator, fonts: Sequence[CJKFont]) -> _Look:
    H = HEIGHT * _SS
    W = int(round(H * rng.uniform(0.70, 0.82)))
    p: dict = {}
    # body: ivory / white / cream; sometimes a coloured back layer strip at the bottom or top
    body = _pick(rng, BODIES)
    p["radius"] = rng.uniform(0.06, 0.16) * W
    p["bevel"] = rng.uniform(0.0, 0.12)
    p["strip"] = None
    if rng.random() < 0.25:
        p["strip"] = (_pick(rng, BACKS), rng.uniform(0.05, 0.13) * H, "bottom" if rng.random() < 0.75 else "top")
    mx = rng.uniform(0.07, 0.13) * W
    my = rng.uniform(0.06, 0.10) * H
    y0, y1 = my, H - my
    if p["strip"] is not None:
        if p["strip"][2] == "bottom":
            y1 -= p["strip"][1]
        else:
            y0 += p["strip"][1]
    dx, dy = rng.normal(0, 0.015 * W), rng.normal(0, 0.012 * H)     # the print is a bit off-centre
    box = (mx + dx, y0 + dy, W - mx + dx, y1 + dy)

    def font_with(chars: str, prefer=None):
        ok = [f for f in fonts if f.has(chars)]
        if prefer is not None and prefer in ok and rng.random() < 0.7:
            return prefer
        return ok[int(rng.integers(len(ok)))] if ok else None

    main = fonts[int(rng.integers(len(fonts)))]
    f = {"main": main,
         "num": main if rng.random() < 0.7 else font_with(NUMERALS),
         "honour": main if rng.random() < 0.6 else font_with(WINDS + "中發"),
         "flower": main if rng.random() < 0.5 else font_with(FLOWER_CHARS + SEASON_CHARS),
         "latin": font_with(LATIN, main)}
    p["five"] = "伍" if main.has("伍") and rng.random() < 0.45 else "五"
    p["wan"] = "万" if main.has("万") and rng.random() < 0.04 else "萬"
    p["stroke"] = rng.uniform(0.06, 0.13) if rng.random() < 0.85 else None   # None: the font's own

    blue, green, red = _pick(rng, BLUES), _pick(rng, GREENS), _pick(rng, REDS)
    black = _pick(rng, BLACKS)
    dark = blue if rng.random() < 0.55 else black
    ink = {"blue": blue, "green": green, "red": red, "black": black}
    # never red: a red numeral would make the five and the red five the same tile
    ink["num"] = dark if rng.random() < 0.85 else green
    ink["wan"] = red if rng.random() < 0.85 else (black if rng.random() < 0.5 else _pick(rng, REDS))
    r = rng.random()
    ink["wind"] = (black if r < 0.5 else blue) if r < 0.85 else (green if r < 0.93 else red)
    ink["chun"] = red if rng.random() < 0.7 else _pick(rng, REDS)
    ink["hatsu"] = green if rng.random() < 0.7 else _pick(rng, GREENS)
    ink["haku"] = blue if rng.random() < 0.6 else (black if rng.random() < 0.5 else green)
    ink["haku2"] = red if rng.random() < 0.4 else ink["haku"]
    ink["index"] = [dark, red, black, blue][int(rng.integers(4))]
    # dots / bamboo: three inks, sometimes the "blue" one black-ish, sometimes all one colour
    suit = {"b": blue if rng.random() < 0.8 else black, "g": green, "r": red}
    if rng.random() < 0.12:
        one = suit["b"] if rng.random() < 0.5 else green
        suit = {"b": one, "g": one, "r": red if rng.random() < 0.5 else one}
    ink["suit"] = suit
    red_five = _pick(rng, [(215, 25, 30), (230, 40, 40), (200, 20, 20), (235, 30, 60)])

    # characters
    p["num_y"] = rng.uniform(0.22, 0.30)
    p["num_em"] = rng.uniform(0.34, 0.46)
    p["num_stretch"] = rng.uniform(0.95, 1.45)
    p["wan_y"] = rng.uniform(0.68, 0.75)
    p["wan_em"] = rng.uniform(0.44, 0.56)
    p["wan_stretch"] = rng.uniform(0.9, 1.2)
    p["red_m"] = "num" if rng.random() < 0.7 else "all"
    # corner index (digits on suits, letters on winds): American / some HK sets
    p["index"] = rng.random() < 0.3
    p["index_pos"] = "left" if rng.random() < 0.7 else "right"
    p["index_em"] = rng.uniform(0.13, 0.2) * H
    # dots
    p["dot"] = str(rng.choice(["rings", "rings", "coin", "flower", "spokes", "target"]))
    p["dot_fill"] = rng.uniform(0.82, 0.97)
    p["dot_ring"] = rng.uniform(0.16, 0.3)
    p["dot_second"] = "r" if rng.random() < 0.5 else str(rng.choice(["b", "g", "same"]))
    p["p1"] = str(rng.choice(["petals", "rings", "spokes", "flower"]))
    p["dot_scheme"] = "standard" if rng.random() < 0.8 else "mono"
    # bamboo
    p["stick"] = str(rng.choice(["segmented", "hollow", "hollow", "two-tone", "beads"]))
    p["stick_w"] = rng.uniform(0.45, 0.72)
    p["stick_len"] = rng.uniform(0.92, 1.05)
    p["stick_nodes"] = int(rng.integers(1, 3))
    p["s1"] = str(rng.choice(["peacock", "sparrow", "sparrow", "char"]))
    p["bird_flip"] = bool(rng.random() < 0.5)
    p["s1_char"] = "幺" if main.has("幺") and rng.random() < 0.5 else "一索"
    # honours
    p["hon_em"] = rng.uniform(0.52, 0.68)
    p["hon_stretch"] = rng.uniform(0.9, 1.25)
    p["haku"] = str(rng.choice(["frame", "frame", "double", "notched", "blank", "filler"],
                               p=[0.32, 0.16, 0.2, 0.15, 0.07, 0.1]))
    p["haku_w"] = rng.uniform(0.55, 0.85)
    p["haku_h"] = rng.uniform(0.6, 0.9)
    p["haku_t"] = rng.uniform(0.035, 0.08) * W
    # flowers / seasons
    p["fl_layout"] = str(rng.choice(["doodle", "doodle", "char", "side"]))
    p["fl_digit"] = rng.random() > 0.1
    p["fl_digit_pos"] = "left" if rng.random() < 0.6 else "right"
    p["fl_words"] = rng.random() < 0.15
    p["fl_words_only"] = p["fl_words"] and rng.random() < 0.4
    p["fl_short"] = int(rng.integers(2))
    p["fl_ink"] = (dark, red) if rng.random() < 0.6 else (ink["index"], ink["index"])
    p["fl_char_ink"] = [dark, red, black, green][int(rng.integers(4))]
    p["fl_typical"] = rng.uniform(0.4, 0.9)
    # the characters: 梅蘭菊竹 / 春夏秋冬 mostly; American 福祿壽貴 flowers; or a slogan, one
    # character per tile, where only the number (and its colour) tells the tile
    ffont = f["flower"]
    p["fl_chars"] = (FLOWER_CHARS, SEASON_CHARS)
    r = rng.random()
    if r < 0.08 and ffont.has(AMERICAN_FLOWERS):
        p["fl_chars"] = (AMERICAN_FLOWERS, SEASON_CHARS)
    elif r < 0.16:
        pool = [c for c in AD_CHARS if ffont.has(c)]
        if len(pool) >= 8:
            pick = rng.permutation(len(pool))[:8]
            p["fl_chars"] = ("".join(pool[i] for i in pick[:4]), "".join(pool[i] for i in pick[4:]))
            p["fl_digit"] = True
            p["fl_ink"] = (dark, red)          # flowers and seasons told apart by the digit's colour
    # finish: raised paint shadow, gloss
    p["shadow"] = rng.uniform(0.1, 0.35) if rng.random() < 0.5 else 0.0
    p["shadow_off"] = int(rng.integers(1, 4))
    p["gloss"] = rng.uniform(0.08, 0.3) if rng.random() < 0.4 else 0.0
    return _Look(W=W, H=H, box=box, body=body, fonts=f, ink=ink, red=red_five, p=p)


def _body(look: _Look) -> tuple[np.ndarray, np.ndarray]:
    """The blank tile (float BGR) and its alpha (uint8), drawing size."""
    H, W = look.H, look.W
    alpha = np.zeros((H, W), np.uint8)
    r = int(round(look.p["radius"]))
    cv2.rectangle(alpha, (r, 0), (W - 1 - r, H - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (W - 1, H - 1 - r), 255, -1)
    for c in ((r, r), (W - 1 - r, r), (r, H - 1 - r), (W - 1 - r, H - 1 - r)):
        cv2.circle(alpha, c, r, 255, -1, cv2.LINE_AA)
    img = np.empty((H, W, 3), np.float32)
    img[:] = look.body
    strip = look.p["strip"]
    if strip is not None:
        colour, t, side = strip
        t = int(round(t))
        if side == "bottom":
            img[H - t:] = colour
            img[H - t:H - t + 2] = colour * 0.7
        else:
            img[:t] = colour
            img[t - 2:t] = colour * 0.7
    if look.p["bevel"] > 0:   # acrylic bevel: darker towards the rim
        d = cv2.distanceTransform((alpha > 127).astype(np.uint8), cv2.DIST_L2, 3)
        img *= (1.0 - look.p["bevel"] * np.exp(-d / (0.04 * W)))[..., None]
    return img, alpha


def _finish(look: _Look, pt: _Painter, alpha: np.ndarray) -> np.ndarray:
    img = pt.img
    if look.p["shadow"] > 0:   # raised paint: a soft shadow down-right of the ink
        o = look.p["shadow_off"]
        sh = np.zeros_like(pt.ink)
        sh[o:, o:] = pt.ink[:-o, :-o]
        sh = cv2.GaussianBlur(sh, (0, 0), 1.5)
        img = img * (1.0 - look.p["shadow"] * sh * (1.0 - pt.ink))[..., None]
    if look.p["gloss"] > 0:    # a soft highlight along the top of the face
        if "gloss_map" not in look.p:
            H, W = look.H, look.W
            yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
            look.p["gloss_map"] = (look.p["gloss"] * np.exp(
                -(((xx - W * 0.45) / (0.5 * W)) ** 2 + ((yy - 0.12 * H) / (0.12 * H)) ** 2)))[..., None]
        g = look.p["gloss_map"]
        img = img * (1 - g) + 255.0 * g
    # outside the tile: body colour (no dark fringe when shrunk), alpha 0
    if "outside" not in look.p:
        look.p["outside"] = alpha == 0
    out = np.empty((look.H, look.W, 4), np.uint8)
    out[..., :3] = np.clip(img + 0.5, 0, 255)
    out[..., :3][look.p["outside"]] = np.round(look.body).astype(np.uint8)
    out[..., 3] = alpha
    return cv2.resize(out, (int(round(look.W / _SS)), HEIGHT), interpolation=cv2.INTER_AREA)


# --------------------------------------------------------------------------------------------
# faces
# --------------------------------------------------------------------------------------------

def _fbox(look: _Look):
    x0, y0, x1, y1 = look.box
    return x0, y0, x1 - x0, y1 - y0


def _corner_index(look: _Look, pt: _Painter, text: str, colour=None) -> None:
    x0, y0, fw, fh = _fbox(look)
    em = look.p["index_em"]
    cx = x0 + 0.5 * em * 0.6 if look.p["index_pos"] == "left" else x0 + fw - 0.5 * em * 0.6
    font = look.fonts["latin"] or look.fonts["main"]
    pt.text(font, text, cx, y0 + 0.45 * em, em, look.ink["index"] if colour is None else colour,
            max_w=em * 0.9 * len(text), stroke=look.p["stroke"], norm=False)


def _content_box(look: _Look, has_index: bool):
    """The face area left for the main drawing (beside a corner index when there is one)."""
    x0, y0, fw, fh = _fbox(look)
    if not has_index:
        return x0, y0, fw, fh
    em = look.p["index_em"]
    return x0 + 0.1 * fw * (look.p["index_pos"] == "left"), y0 + 0.55 * em, fw * 0.9, fh - 0.55 * em


def _face_characters(look, pt, n, red, rng) -> None:
    x0, y0, fw, fh = _content_box(look, look.p["index"])
    p = look.p
    num = p["five"] if n == 5 else NUMERALS[n - 1]
    num_font = look.fonts["num"] if look.fonts["num"].has(num) else look.fonts["main"]
    c_num = look.ink["num"]
    c_wan = look.ink["wan"]
    if red:
        c_num = _redden(c_num, look.red)
        if p["red_m"] == "all":
            c_wan = _redden(c_wan, look.red)
    em = p["num_em"] * fh * rng.uniform(0.96, 1.04)
    pt.text(num_font, num, x0 + fw / 2, y0 + p["num_y"] * fh, em, c_num, stretch=p["num_stretch"],
            max_w=fw * 0.95, max_h=fh * 0.42, stroke=look.p["stroke"])
    pt.text(look.fonts["main"], p["wan"], x0 + fw / 2, y0 + p["wan_y"] * fh, p["wan_em"] * fh,
            c_wan, stretch=p["wan_stretch"], max_w=fw * 0.98, max_h=fh * 0.5, stroke=look.p["stroke"])
    if p["index"]:
        _corner_index(look, pt, str(n))


_DOTS = {
    1: [(.5, .5)],
    2: [(.5, .25), (.5, .75)],
    3: [(.25, .2), (.5, .5), (.75, .8)],
    4: [(.27, .25), (.73, .25), (.27, .75), (.73, .75)],
    5: [(.24, .2), (.76, .2), (.5, .5), (.24, .8), (.76, .8)],
    6: [(.27, .17), (.73, .17), (.27, .5), (.73, .5), (.27, .83), (.73, .83)],
    7: [(.2, .11), (.5, .25), (.8, .39), (.28, .63), (.72, .63), (.28, .88), (.72, .88)],
    8: [(.28, .12), (.72, .12), (.28, .37), (.72, .37), (.28, .63), (.72, .63), (.28, .88), (.72, .88)],
    9: [(x, y) for y in (.17, .5, .83) for x in (.2, .5, .8)],
}
# colour roles of the dots, in the order above (blue, green, red as Chinese sets paint them)
_DOT_ROLES = {
    2: "gb", 3: "brg", 4: "bggb", 5: "bgrgb", 6: "ggrrrr", 7: "gggrrrr", 8: "bbbbbbbb",
    9: "bbbrrrggg",
}


def _radius(pts: np.ndarray, box) -> float:
    """Largest radius that keeps circles at ``pts`` apart and inside ``box``."""
    x0, y0, fw, fh = box
    edge = min(np.min(pts[:, 0] - x0), np.min(x0 + fw - pts[:, 0]),
               np.min(pts[:, 1] - y0), np.min(y0 + fh - pts[:, 1]))
    if len(pts) > 1:
        d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
        d[np.eye(len(pts), dtype=bool)] = np.inf
        return float(min(edge, d.min() / 2))
    return float(edge)


def _dot(look, pt, c, r, colour, second, design) -> None:
    ring = max(2, int(round(r * look.p["dot_ring"])))
    if design == "coin":          # a solid disc with a light ring and a centre
        m = pt.layer(); _circle(m, c, r); pt.put(m, colour)
        m = pt.layer(); _circle(m, c, r * 0.62, max(2, ring // 2)); pt.put(m, look.body)
        m = pt.layer(); _circle(m, c, r * 0.25); pt.put(m, second)
    elif design == "flower":      # ring, then a ring of small petals round a centre
        m = pt.layer(); _circle(m, c, r - ring / 2, ring); pt.put(m, colour)
        m = pt.layer()
        for k in range(8):
            a = k * np.pi / 4
            _circle(m, (c[0] + 0.5 * r * np.cos(a), c[1] + 0.5 * r * np.sin(a)), 0.14 * r)
        _circle(m, c, 0.2 * r)
        pt.put(m, second)
    elif design == "spokes":      # ring with short radial strokes, a centre dot
        m = pt.layer(); _circle(m, c, r - ring / 2, ring); pt.put(m, colour)
        m = pt.layer()
        for k in range(12):
            a = k * np.pi / 6
            p0 = (c[0] + 0.35 * r * np.cos(a), c[1] + 0.35 * r * np.sin(a))
            p1 = (c[0] + 0.62 * r * np.cos(a), c[1] + 0.62 * r * np.sin(a))
            cv2.line(m, _pt(*p0), _pt(*p1), 255, max(1, ring // 2), cv2.LINE_AA)
        pt.put(m, second)
        m = pt.layer(); _circle(m, c, 0.22 * r); pt.put(m, colour)
    elif design == "target":      # concentric: outer ring, inner ring, centre
        m = pt.layer(); _circle(m, c, r - ring / 2, ring); _circle(m, c, 0.22 * r); pt.put(m, colour)
        m = pt.layer(); _circle(m, c, 0.55 * r, max(2, int(ring * 0.7))); pt.put(m, second)
    else:                         # rings: thick outer ring, filled inner disc with a light eye
        m = pt.layer(); _circle(m, c, r - ring / 2, ring); pt.put(m, colour)
        m = pt.layer(); _circle(m, c, 0.5 * r); pt.put(m, second)
        m = pt.layer(); _circle(m, c, 0.18 * r); pt.put(m, look.body)


def _medallion(look, pt, c, r, cols, design, rng) -> None:
    """1p: a big ornate circle."""
    a, b, d = cols
    m = pt.layer(); _circle(m, c, r * 0.96, max(2, int(r * 0.07))); pt.put(m, a)
    if design == "petals":
        n = int(rng.integers(8, 13))
        m1, m2 = pt.layer(), pt.layer()
        for k in range(n):
            ang = 360.0 * k / n
            rad = np.deg2rad(ang)
            pc = (c[0] + 0.62 * r * np.cos(rad), c[1] + 0.62 * r * np.sin(rad))
            _ellipse(m1 if k % 2 else m2, pc, 0.22 * r, 0.1 * r, ang)
        pt.put(m1, b); pt.put(m2, d)
    elif design == "spokes":
        m = pt.layer()
        for k in range(24):
            rad = k * np.pi / 12
            cv2.line(m, _pt(c[0] + .45 * r * np.cos(rad), c[1] + .45 * r * np.sin(rad)),
                     _pt(c[0] + .82 * r * np.cos(rad), c[1] + .82 * r * np.sin(rad)), 255,
                     max(1, int(r * 0.04)), cv2.LINE_AA)
        pt.put(m, b)
    elif design == "flower":
        m = pt.layer()
        for k in range(16):
            rad = k * np.pi / 8
            _circle(m, (c[0] + .7 * r * np.cos(rad), c[1] + .7 * r * np.sin(rad)), 0.1 * r)
        pt.put(m, d)
    m = pt.layer(); _circle(m, c, r * 0.78, max(2, int(r * 0.05))); pt.put(m, b if design != "rings" else d)
    m = pt.layer(); _circle(m, c, r * 0.42, max(2, int(r * 0.09))); pt.put(m, d if design != "rings" else b)
    m = pt.layer(); _circle(m, c, r * 0.24); pt.put(m, a)
    m = pt.layer(); _circle(m, c, r * 0.09); pt.put(m, look.body)


def _suit_inks(look, red: bool) -> dict:
    """The style's suit inks, all turned red for a red five."""
    suit = dict(look.ink["suit"])
    return {k: _redden(v, look.red) for k, v in suit.items()} if red else suit


def _face_dots(look, pt, n, red, rng) -> None:
    p = look.p
    box = _content_box(look, p["index"])
    x0, y0, fw, fh = box
    suit = _suit_inks(look, red)
    pts = np.array([(x0 + u * fw, y0 + v * fh) for u, v in _DOTS[n]], np.float32)
    if n == 1:
        r = 0.47 * min(fw, fh) * rng.uniform(0.92, 1.0)
        _medallion(look, pt, pts[0], r, (suit["g"], suit["b"], suit["r"]), p["p1"], rng)
    else:
        r = _radius(pts, box) * p["dot_fill"]
        roles = _DOT_ROLES[n] if p["dot_scheme"] == "standard" else "b" * n
        for c, role in zip(pts, roles):
            colour = suit[role]
            sec = p["dot_second"]
            second = colour if sec == "same" or sec == role else suit[sec]
            if sec == "r" and role == "r":
                second = suit["b"]
            _dot(look, pt, c, r, colour, second, p["dot"])
    if p["index"]:
        _corner_index(look, pt, str(n))


# bamboo: (u, v, length as a share of the face height, tilt in degrees)
def _sticks(n: int) -> list[tuple[float, float, float, float]]:
    if n == 2:
        return [(.5, .26, .44, 0), (.5, .74, .44, 0)]
    if n == 3:
        return [(.5, .26, .44, 0), (.28, .74, .44, 0), (.72, .74, .44, 0)]
    if n == 4:
        return [(x, y, .44, 0) for y in (.26, .74) for x in (.28, .72)]
    if n == 5:
        return [(.2, .26, .44, 0), (.8, .26, .44, 0), (.5, .5, .44, 0), (.2, .74, .44, 0), (.8, .74, .44, 0)]
    if n == 6:
        return [(x, y, .44, 0) for y in (.26, .74) for x in (.2, .5, .8)]
    if n == 7:
        return [(.5, .16, .3, 0)] + [(x, y, .3, 0) for y in (.5, .84) for x in (.2, .5, .8)]
    if n == 8:
        return [(.12, .26, .44, 0), (.37, .26, .44, 18), (.63, .26, .44, -18), (.88, .26, .44, 0),
                (.12, .74, .44, 0), (.37, .74, .44, -18), (.63, .74, .44, 18), (.88, .74, .44, 0)]
    return [(x, y, .3, 0) for y in (.17, .5, .83) for x in (.2, .5, .8)]


_STICK_ROLES = {2: "bg", 3: "bgg", 4: "gbbg", 5: "gbrbg", 6: "gggbbb", 7: "rgggbbb", 8: "gggggggg",
                9: "grbgrbgrb"}


def _stick(look, pt, c, length, width, tilt, colour) -> None:
    p = look.p
    a = np.deg2rad(tilt)
    d = np.array([np.sin(a), -np.cos(a)], np.float32)     # along the rod (up)
    nrm = np.array([d[1], -d[0]], np.float32)
    c = np.asarray(c, np.float32)
    nodes = [0.5] if p["stick_nodes"] == 1 else [1 / 3, 2 / 3]
    ts = [0.0, 0.05, 0.1]
    ws = [0.85, 1.1, 0.78]
    for q in nodes:
        ts += [q - 0.05, q, q + 0.05]
        ws += [0.78, 1.02, 0.78]
    ts += [0.9, 0.95, 1.0]
    ws += [0.78, 1.1, 0.85]
    ts = np.array(ts) - 0.5
    ws = np.array(ws) * width / 2
    left = c + ts[:, None] * length * d + ws[:, None] * nrm
    right = c + ts[:, None] * length * d - ws[:, None] * nrm
    m = pt.layer()
    _poly(m, np.concatenate([left, right[::-1]]))
    pt.put(m, colour)
    lw = max(1, int(round(width * 0.12)))
    style = p["stick"]
    if style == "hollow":          # a light core with a centre line, as riichi sets draw them
        inner = pt.layer()
        t2 = np.array([-0.42, 0.42])
        core_w = width * 0.22
        l2 = c + t2[:, None] * length * d + core_w * nrm
        r2 = c + t2[:, None] * length * d - core_w * nrm
        _poly(inner, np.concatenate([l2, r2[::-1]]))
        pt.put(inner, look.body)
        m = pt.layer()
        cv2.line(m, _pt(*(c - 0.42 * length * d)), _pt(*(c + 0.42 * length * d)), 255, lw, cv2.LINE_AA)
        pt.put(m, colour)
    elif style == "two-tone":      # a light stripe down one side
        m = pt.layer()
        cv2.line(m, _pt(*(c - 0.4 * length * d + 0.2 * width * nrm)),
                 _pt(*(c + 0.4 * length * d + 0.2 * width * nrm)), 255, max(1, int(width * 0.18)), cv2.LINE_AA)
        pt.put(m, colour * 0.45 + look.body * 0.55)
    elif style == "beads":         # a row of light dots along the rod
        m = pt.layer()
        for t in np.linspace(-0.36, 0.36, 5):
            _circle(m, c + t * length * d, width * 0.14)
        pt.put(m, look.body)
    # node rings: body-coloured cuts across the rod
    m = pt.layer()
    for q in nodes + [0.07, 0.93]:
        mid = c + (q - 0.5) * length * d
        cv2.line(m, _pt(*(mid - 0.6 * width * nrm)), _pt(*(mid + 0.6 * width * nrm)), 255, lw, cv2.LINE_AA)
    pt.put(m, look.body)


def _bird(look, pt, box, red, rng) -> None:
    """1s: a stylised bird -- peacock with a fan of eyed feathers, or a perched sparrow."""
    x0, y0, fw, fh = box
    flip = look.p["bird_flip"]
    suit = look.ink["suit"]
    body_c, wing_c, tail_c = suit["g"], suit["r"], suit["b"]
    if red:
        body_c, wing_c, tail_c = (_redden(c, look.red) for c in (body_c, wing_c, tail_c))

    def P(u, v):
        return (x0 + (1 - u if flip else u) * fw, y0 + v * fh)

    s = min(fw, fh)
    ang = lambda a: (180 - a) if flip else a  # noqa: E731
    if look.p["s1"] == "peacock":
        m1, m2 = pt.layer(), pt.layer()
        for k in range(7):                                    # fan of tail feathers behind
            a = np.deg2rad(200 + k * 23)
            tip = (0.45 + 0.38 * np.cos(a), 0.55 + 0.42 * np.sin(a))
            base = P(0.45, 0.58)
            tp = P(*tip)
            cv2.line(m1, _pt(*base), _pt(*tp), 255, max(2, int(s * 0.025)), cv2.LINE_AA)
            _ellipse(m1, tp, s * 0.085, s * 0.06, np.rad2deg(a) if not flip else 180 - np.rad2deg(a))
            _circle(m2, tp, s * 0.035)
        pt.put(m1, tail_c); pt.put(m2, wing_c)
        m = pt.layer()
        _ellipse(m, P(0.5, 0.66), s * 0.16, s * 0.22, ang(-15))           # body
        neck = np.array([P(0.52, 0.5), P(0.6, 0.36), P(0.62, 0.26), P(0.7, 0.26), P(0.66, 0.4), P(0.62, 0.55)])
        _poly(m, neck)
        _circle(m, P(0.66, 0.25), s * 0.06)                              # head
        pt.put(m, body_c)
        m = pt.layer()
        _poly(m, np.array([P(0.71, 0.23), P(0.8, 0.26), P(0.71, 0.28)]))   # beak
        for k in range(3):                                               # crest
            cv2.line(m, _pt(*P(0.65, 0.2)), _pt(*P(0.6 + 0.05 * k, 0.12)), 255, 2, cv2.LINE_AA)
            _circle(m, P(0.6 + 0.05 * k, 0.12), s * 0.015)
        _ellipse(m, P(0.46, 0.68), s * 0.1, s * 0.15, ang(-25))           # wing
        pt.put(m, wing_c)
        m = pt.layer()
        cv2.line(m, _pt(*P(0.47, 0.84)), _pt(*P(0.44, 0.95)), 255, max(2, int(s * 0.02)), cv2.LINE_AA)
        cv2.line(m, _pt(*P(0.56, 0.84)), _pt(*P(0.58, 0.95)), 255, max(2, int(s * 0.02)), cv2.LINE_AA)
        _circle(m, P(0.67, 0.245), s * 0.013)
        pt.put(m, look.ink["black"])
        return
    # sparrow on a bamboo twig, long tail down-left
    m = pt.layer()
    twig = np.array([P(0.05, 0.8), P(0.95, 0.7)])
    _polyline(m, twig, max(3, int(s * 0.045)))
    pt.put(m, suit["g"] if not red else _redden(suit["g"], look.red))
    m = pt.layer()
    for k, (du, dv) in enumerate(((0.0, 0.0), (0.05, 0.03), (-0.05, 0.035))):
        tail = np.array([P(0.36 + du, 0.58), P(0.08 + du, 0.9 + dv), P(0.16 + du, 0.93 + dv), P(0.45 + du, 0.62)])
        _poly(m, tail)
    pt.put(m, tail_c)
    m = pt.layer()
    _ellipse(m, P(0.5, 0.5), s * 0.26, s * 0.17, ang(-30))
    _circle(m, P(0.7, 0.3), s * 0.12)
    pt.put(m, body_c)
    m = pt.layer()
    _ellipse(m, P(0.45, 0.5), s * 0.17, s * 0.09, ang(-25))
    _poly(m, np.array([P(0.79, 0.26), P(0.93, 0.31), P(0.8, 0.34)]))
    pt.put(m, wing_c)
    m = pt.layer()
    _circle(m, P(0.74, 0.28), s * 0.025)
    cv2.line(m, _pt(*P(0.5, 0.62)), _pt(*P(0.48, 0.76)), 255, max(2, int(s * 0.02)), cv2.LINE_AA)
    cv2.line(m, _pt(*P(0.58, 0.6)), _pt(*P(0.58, 0.74)), 255, max(2, int(s * 0.02)), cv2.LINE_AA)
    pt.put(m, look.ink["black"])


def _face_bamboo(look, pt, n, red, rng) -> None:
    p = look.p
    box = _content_box(look, p["index"])
    x0, y0, fw, fh = box
    suit = _suit_inks(look, red)
    if n == 1:
        if p["s1"] == "char":
            font = look.fonts["main"]
            text = p["s1_char"]
            if text == "幺":
                pt.text(font, text, x0 + fw / 2, y0 + fh / 2, fh * 0.62, suit["g"], max_w=fw * 0.95,
                        max_h=fh * 0.85, stroke=look.p["stroke"])
            else:
                pt.text(font, "一", x0 + fw / 2, y0 + 0.25 * fh, fh * 0.42, look.ink["num"], max_w=fw * 0.9,
                        max_h=fh * 0.4, stroke=look.p["stroke"], stretch=p["num_stretch"])
                pt.text(font, "索", x0 + fw / 2, y0 + 0.72 * fh, fh * 0.5, suit["g"], max_w=fw * 0.95,
                        max_h=fh * 0.5, stroke=look.p["stroke"])
        else:
            _bird(look, pt, box, red, rng)
    else:
        sticks = _sticks(n)
        cols = sorted({round(u, 2) for u, _, _, _ in sticks})
        gap = min(np.diff(cols)) if len(cols) > 1 else 0.5
        width = min(gap * fw, 0.5 * fw) * p["stick_w"]
        width = min(width, 0.21 * fw if n != 2 else 0.25 * fw)
        for (u, v, ln, tilt), role in zip(sticks, _STICK_ROLES[n]):
            _stick(look, pt, (x0 + u * fw, y0 + v * fh), ln * fh * p["stick_len"], width, tilt, suit[role])
    if p["index"]:
        _corner_index(look, pt, str(n))


def _face_honour(look, pt, n, rng) -> None:
    p = look.p
    x0, y0, fw, fh = _fbox(look)
    if n <= 4 and p["index"]:
        _corner_index(look, pt, "ESWN"[n - 1])
        x0, y0, fw, fh = _content_box(look, True)
    font = look.fonts["honour"]
    if n <= 4 or n >= 6:
        ch = WINDS[n - 1] if n <= 4 else ("發" if n == 6 else "中")
        colour = look.ink["wind"] if n <= 4 else look.ink["hatsu" if n == 6 else "chun"]
        pt.text(font, ch, x0 + fw / 2, y0 + fh / 2, p["hon_em"] * fh, colour, stretch=p["hon_stretch"],
                max_w=fw * 0.98, max_h=fh * 0.8, stroke=look.p["stroke"])
        return
    # white dragon
    kind = p["haku"]
    if kind == "blank":
        return
    cx, cy = x0 + fw / 2, y0 + fh / 2
    hw, hh = p["haku_w"] * fw / 2, p["haku_h"] * fh / 2
    t = max(2, int(round(p["haku_t"])))
    m = pt.layer()
    cv2.rectangle(m, _pt(cx - hw, cy - hh), _pt(cx + hw, cy + hh), 255, t, cv2.LINE_AA)
    if kind == "notched":
        q = t * 2.2
        for sx in (-1, 1):
            for sy in (-1, 1):
                cv2.rectangle(m, _pt(cx + sx * hw - q, cy + sy * hh - q), _pt(cx + sx * hw + q, cy + sy * hh + q),
                              255, -1)
    pt.put(m, look.ink["haku"])
    if kind in ("double", "notched"):
        m = pt.layer()
        i = t * 1.3 + 3
        cv2.rectangle(m, _pt(cx - hw + i, cy - hh + i), _pt(cx + hw - i, cy + hh - i), 255,
                      max(2, t // 2), cv2.LINE_AA)
        pt.put(m, look.ink["haku2"])
    if kind == "notched":
        m = pt.layer()
        q = t * 1.1
        for sx in (-1, 1):
            for sy in (-1, 1):
                cv2.rectangle(m, _pt(cx + sx * hw - q, cy + sy * hh - q),
                              _pt(cx + sx * hw + q, cy + sy * hh + q), 255, -1)
        pt.put(m, look.body)
    if kind == "filler":
        fill = [c for c in FILLER if look.fonts["main"].has(c)]
        if fill:
            ch = fill[int(rng.integers(len(fill)))]
            pt.text(look.fonts["main"], ch, cx, cy, min(hw, hh) * 1.1, look.ink["red"],
                    max_w=hw * 1.3, max_h=hh * 1.3)


# --- flowers / seasons ------------------------------------------------------------------------

def _doodle(look, pt, kind, box, rng) -> None:
    """A plant-ish picture in ``box`` (x0, y0, w, h)."""
    x0, y0, w, h = box

    def P(u, v):
        return (x0 + u * w, y0 + v * h)

    s = min(w, h)
    green = _pick(rng, GREENS)
    if kind == "blossom":         # plum / spring: a dark branch with five-petal blossoms
        m = pt.layer()
        main = _bezier(P(0.1, 0.95), P(0.3, 0.6), P(0.5, 0.5), P(0.9, 0.1))
        _polyline(m, main, max(3, int(s * 0.06)))
        for k in range(int(rng.integers(1, 3))):
            i = int(rng.integers(5, 15))
            b = main[i]
            _polyline(m, np.array([b, P(rng.uniform(0.1, 0.9), rng.uniform(0.05, 0.5))]), max(2, int(s * 0.03)))
        pt.put(m, _pick(rng, BROWNS))
        petal, centre = _pick(rng, PINKS), _pick(rng, YELLOWS)
        for _ in range(int(rng.integers(3, 6))):
            c = main[int(rng.integers(3, 20))] + rng.normal(0, s * 0.12, 2)
            r = s * rng.uniform(0.09, 0.14)
            m = pt.layer()
            for k in range(5):
                a = k * 2 * np.pi / 5 + rng.uniform(0, 1)
                _circle(m, (c[0] + 0.55 * r * np.cos(a), c[1] + 0.55 * r * np.sin(a)), 0.5 * r)
            pt.put(m, petal)
            m = pt.layer(); _circle(m, c, 0.28 * r); pt.put(m, centre)
    elif kind == "orchid":        # long arching leaves, a few small purple flowers
        m = pt.layer()
        for k in range(int(rng.integers(3, 6))):
            end = P(rng.uniform(0.0, 1.0), rng.uniform(0.05, 0.45))
            mid = P(rng.uniform(0.2, 0.8), rng.uniform(0.3, 0.6))
            _polyline(m, _bezier(P(0.5, 0.97), mid, mid, end), max(2, int(s * rng.uniform(0.03, 0.05))))
        pt.put(m, green)
        col = _pick(rng, PURPLES)
        for _ in range(int(rng.integers(2, 4))):
            c = P(rng.uniform(0.2, 0.8), rng.uniform(0.15, 0.55))
            m = pt.layer()
            for k in range(3):
                a = k * 2 * np.pi / 3 + rng.uniform(0, 1)
                _ellipse(m, (c[0] + 0.1 * s * np.cos(a), c[1] + 0.1 * s * np.sin(a)), 0.1 * s, 0.05 * s, np.rad2deg(a))
            pt.put(m, col)
    elif kind == "chrysanthemum":  # many thin radiating petals, a leaf or two
        m = pt.layer()
        _polyline(m, _bezier(P(0.5, 0.98), P(0.45, 0.8), P(0.55, 0.6), P(0.5, 0.45)), max(2, int(s * 0.04)))
        _ellipse(m, P(0.35, 0.78), s * 0.14, s * 0.06, 30)
        _ellipse(m, P(0.65, 0.7), s * 0.14, s * 0.06, -30)
        pt.put(m, green)
        col = _pick(rng, YELLOWS + [(230, 90, 30), (200, 40, 60)])
        for c, r in ((P(0.5, 0.35), s * 0.3), (P(rng.uniform(0.2, 0.8), 0.12), s * 0.15))[: int(rng.integers(1, 3))]:
            m = pt.layer()
            n = 18
            for k in range(n):
                a = 2 * np.pi * k / n
                _ellipse(m, (c[0] + 0.55 * r * np.cos(a), c[1] + 0.55 * r * np.sin(a)), 0.45 * r, 0.09 * r,
                         np.rad2deg(a))
            pt.put(m, col)
            m = pt.layer(); _circle(m, c, 0.2 * r); pt.put(m, col * 0.7)
    elif kind == "bamboo":        # stalks with nodes and dark narrow leaves
        m = pt.layer()
        for u in rng.uniform(0.25, 0.75, int(rng.integers(1, 3))):
            cv2.line(m, _pt(*P(u, 0.98)), _pt(*P(u + rng.uniform(-0.1, 0.1), 0.05)), 255,
                     max(3, int(s * 0.07)), cv2.LINE_AA)
        pt.put(m, green)
        m = pt.layer()
        for _ in range(int(rng.integers(4, 8))):
            c = P(rng.uniform(0.15, 0.85), rng.uniform(0.1, 0.8))
            _ellipse(m, c, s * 0.17, s * 0.04, rng.uniform(-60, 60))
        pt.put(m, green * 0.7)
    elif kind == "lotus":         # summer: pink cup petals over a round leaf, water lines
        m = pt.layer()
        _ellipse(m, P(0.5, 0.8), s * 0.38, s * 0.1)
        pt.put(m, green)
        m = pt.layer()
        cv2.line(m, _pt(*P(0.5, 0.75)), _pt(*P(0.5, 0.5)), 255, max(2, int(s * 0.03)), cv2.LINE_AA)
        pt.put(m, green * 0.8)
        col = _pick(rng, PINKS)
        m = pt.layer()
        for a in (-50, -25, 0, 25, 50):
            _ellipse(m, (P(0.5, 0.38)[0] + a * s * 0.004, P(0.5, 0.38)[1]), s * 0.07, s * 0.17, a)
        pt.put(m, col)
        m = pt.layer()
        for v in (0.92, 0.98):
            _polyline(m, _bezier(P(0.1, v), P(0.35, v - 0.04), P(0.65, v + 0.04), P(0.9, v)), 2)
        pt.put(m, _pick(rng, BLUES))
    elif kind == "maple":         # autumn: a few pointed red/orange leaves on a twig
        m = pt.layer()
        _polyline(m, _bezier(P(0.1, 0.9), P(0.4, 0.7), P(0.6, 0.5), P(0.9, 0.2)), max(2, int(s * 0.03)))
        pt.put(m, _pick(rng, BROWNS))
        col = _pick(rng, [(220, 70, 20), (200, 30, 30), (230, 140, 20)])
        m = pt.layer()
        for _ in range(int(rng.integers(3, 6))):
            c = np.array(P(rng.uniform(0.2, 0.85), rng.uniform(0.15, 0.8)))
            r = s * rng.uniform(0.1, 0.16)
            star = []
            for k in range(10):
                a = k * np.pi / 5 + rng.uniform(-0.1, 0.1)
                rr = r if k % 2 == 0 else 0.45 * r
                star.append(c + rr * np.array([np.sin(a), -np.cos(a)]))
            _poly(m, np.array(star))
        pt.put(m, col)
    else:                         # pine / winter: dark green tiers, a trunk, blue snow dots
        m = pt.layer()
        cv2.line(m, _pt(*P(0.5, 0.98)), _pt(*P(0.5, 0.2)), 255, max(3, int(s * 0.05)), cv2.LINE_AA)
        pt.put(m, _pick(rng, BROWNS))
        m = pt.layer()
        for k, v in enumerate((0.25, 0.45, 0.65)):
            hw = 0.2 + 0.1 * k
            _poly(m, np.array([P(0.5, v - 0.17), P(0.5 - hw, v + 0.1), P(0.5 + hw, v + 0.1)]))
        pt.put(m, green * 0.8)
        m = pt.layer()
        for _ in range(10):
            _circle(m, P(rng.uniform(0.05, 0.95), rng.uniform(0.05, 0.95)), s * 0.02)
        pt.put(m, _pick(rng, BLUES))


_TYPICAL = {1: ["blossom"], 2: ["orchid"], 3: ["chrysanthemum"], 4: ["bamboo"],
            5: ["blossom", "orchid"], 6: ["lotus"], 7: ["maple", "chrysanthemum"], 8: ["pine", "blossom"]}
_DOODLES = ["blossom", "orchid", "chrysanthemum", "bamboo", "lotus", "maple", "pine"]


def _face_flower(look, pt, n, rng) -> None:
    p = look.p
    x0, y0, fw, fh = _fbox(look)
    season = n >= 5
    k = (n - 1) % 4
    char = p["fl_chars"][1 if season else 0][k]
    word = (SEASON_WORDS if season else FLOWER_WORDS)[p["fl_short"]][k]
    font = look.fonts["flower"]
    digit_c = p["fl_ink"][1 if season else 0]
    em_d = fh * rng.uniform(0.16, 0.22)
    top = y0
    if p["fl_digit"]:
        dx = x0 + em_d * 0.35 if p["fl_digit_pos"] == "left" else x0 + fw - em_d * 0.35
        dfont = look.fonts["latin"] or look.fonts["main"]
        pt.text(dfont, str(k + 1), dx, y0 + em_d * 0.5, em_d, digit_c, max_w=em_d * 0.8,
                stroke=look.p["stroke"], norm=False)
        top = y0 + em_d * 0.35
    show_char = not p["fl_words_only"]
    show_word = p["fl_words"]
    layout = p["fl_layout"]
    bottom = y0 + fh
    latin = look.fonts["latin"] or font
    if show_word:
        wh = fh * 0.11
        pt.text(latin, word, x0 + fw / 2, bottom - wh / 2, wh, digit_c, max_w=fw * 0.95, max_h=wh, norm=False)
        bottom -= wh * 1.25
    c_char = p["fl_char_ink"]
    if layout == "char" and show_char:
        h = bottom - top
        pt.text(font, char, x0 + fw / 2 + (0.06 if p["fl_digit_pos"] == "left" else -0.06) * fw,
                top + h * 0.55, h * 0.62, c_char, max_w=fw * 0.85, max_h=h * 0.7, stroke=look.p["stroke"])
        return
    kind = (_TYPICAL[n][int(rng.integers(len(_TYPICAL[n])))] if rng.random() < p["fl_typical"]
            else _DOODLES[int(rng.integers(len(_DOODLES)))])
    if not show_char:
        _doodle(look, pt, kind, (x0 + 0.05 * fw, top + 0.05 * fh, fw * 0.9, bottom - top - 0.05 * fh), rng)
        return
    if layout == "side":      # the character down one side, the picture beside it
        cw = fw * 0.36
        right = p["fl_digit_pos"] == "left"
        cx = x0 + fw - cw / 2 if right else x0 + cw / 2
        pt.text(font, char, cx, (top + bottom) / 2 + 0.1 * fh, cw * 1.1, c_char, max_w=cw, max_h=fh * 0.4,
                stroke=look.p["stroke"])
        dx0 = x0 if right else x0 + cw
        _doodle(look, pt, kind, (dx0, top + 0.1 * fh, fw - cw, bottom - top - 0.12 * fh), rng)
        return
    ch_h = fh * 0.3
    _doodle(look, pt, kind, (x0 + 0.05 * fw, top + 0.05 * fh, fw * 0.9, bottom - top - ch_h - 0.05 * fh), rng)
    pt.text(font, char, x0 + fw / 2, bottom - ch_h / 2, ch_h * 0.95, c_char, max_w=fw * 0.7, max_h=ch_h * 0.95,
            stroke=look.p["stroke"])


# --------------------------------------------------------------------------------------------
# the style
# --------------------------------------------------------------------------------------------

_CODE = {c: i for i, c in enumerate(CLASSES)}


def procedural_style(rng: np.random.Generator, fonts: Sequence[CJKFont] | None = None
                     ) -> dict[str, np.ndarray]:
    """One new Chinese-style tile set: ``{class: BGRA uint8 (112, W, 4)}`` for every class of
    :data:`CLASSES` (suits, honours, red fives, flowers/seasons; no ``back``), all the same shape.

    ``fonts``: from :func:`load_fonts` (default: loaded now). Raises ValueError when there is no
    usable CJK font. Deterministic for a given ``rng`` state and font list.
    """
    fonts = load_fonts() if fonts is None else list(fonts)
    if not fonts:
        raise ValueError("no CJK font: run `sh datasets/get_fonts.sh` (or set $TILESCOPE_FONTS)")
    look = _sample_look(rng, fonts)
    seed = int(rng.integers(2 ** 62))
    base, alpha = _body(look)
    out: dict[str, np.ndarray] = {}
    for cls in CLASSES:
        n, kind = int(cls[0]), cls[1]
        red = n == 0
        if red:
            n = 5
        # the red five shares the five's random stream: same geometry, only the ink differs
        frng = np.random.default_rng([seed, _CODE[f"{n}{kind}"]])
        pt = _Painter(base)
        if kind == "m":
            _face_characters(look, pt, n, red, frng)
        elif kind == "p":
            _face_dots(look, pt, n, red, frng)
        elif kind == "s":
            _face_bamboo(look, pt, n, red, frng)
        elif kind == "z":
            _face_honour(look, pt, n, frng)
        else:
            _face_flower(look, pt, n, frng)
        out[cls] = _finish(look, pt, alpha)
    return out


def procedural_art(seed: int, fonts: Sequence[CJKFont] | None = None):
    """The set :func:`procedural_style` draws from ``seed``, as ``datasets.art.TileArt`` that
    ``datasets.render`` photographs: named ``procedural-SEED``, with a plain back of its own
    colour (one per set, as a physical set has). Same seed and fonts, same set."""
    from datasets.art import TileArt, _body_colour, bare_body
    from datasets.render import _BACK_COLOURS, _synthetic_back

    rng = np.random.default_rng(seed)
    faces = procedural_style(rng, fonts)
    shape = next(iter(faces.values())).shape[:2]
    colour = np.array(_BACK_COLOURS[int(rng.integers(len(_BACK_COLOURS)))], float)
    back = _synthetic_back(shape, colour, rng)
    body = bare_body([faces[c] for c in CLASSES])
    return TileArt(name=f"procedural-{seed}", source=Path(f"procedural:{seed}"), faces=faces,
                   front=body, back=back, body_bgr=_body_colour(body), synthetic_red=False)


def contact_sheet(styles: Sequence[dict[str, np.ndarray]], wrap: int = 23) -> np.ndarray:
    """BGR image of whole styles: each style's faces in :data:`CLASSES` order, ``wrap`` to a
    row, each labelled, on a grey ground."""
    grey = (120, 120, 120)
    rows = []
    for faces in styles:
        for i in range(0, len(CLASSES), wrap):
            tiles = []
            for c in CLASSES[i:i + wrap]:
                f = faces[c]
                a = f[..., 3:4].astype(np.float32) / 255.0
                t = (f[..., :3] * a + 120 * (1 - a)).astype(np.uint8)
                t = cv2.copyMakeBorder(t, 14, 3, 3, 3, cv2.BORDER_CONSTANT, value=grey)
                cv2.putText(t, c, (4, 11), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (255, 255, 255), 1, cv2.LINE_AA)
                tiles.append(t)
            rows.append(np.hstack(tiles))
    w = max(r.shape[1] for r in rows)
    return np.vstack([cv2.copyMakeBorder(r, 0, 0, 0, w - r.shape[1], cv2.BORDER_CONSTANT, value=grey)
                      for r in rows])


def main(argv: list[str] | None = None) -> int:
    import argparse
    import time

    ap = argparse.ArgumentParser(description="write a contact sheet of procedural tile styles")
    ap.add_argument("--out", default="/tmp/procedural_sheet.png")
    ap.add_argument("--n", type=int, default=3, help="how many styles")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--wrap", type=int, default=23, help="faces per row of the sheet")
    args = ap.parse_args(argv)
    fonts = load_fonts()
    if not fonts:
        print("no CJK font found: sh datasets/get_fonts.sh (or set $TILESCOPE_FONTS)", flush=True)
        return 2
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    styles = [procedural_style(rng, fonts) for _ in range(args.n)]
    dt = (time.perf_counter() - t0) / max(1, args.n)
    cv2.imwrite(args.out, contact_sheet(styles, args.wrap))
    print(f"{args.n} styles, {dt * 1000:.0f} ms each; {len(fonts)} fonts; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
