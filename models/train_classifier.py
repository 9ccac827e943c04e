"""Train the crop classifier: a detector box -> one of the 46 tile classes.

Second stage of the two-stage reader (a ``tile``/``back`` YOLO detector + this classifier).
Crops are rendered on the fly from tile artwork, made to look like what a detector box cuts out
of a photo: a tile body (sometimes with its thickness and coloured back layer showing), bits of
neighbouring tiles at the edges, a box a few per cent too loose or too tight, perspective,
all four 90-degree turns (upside-down rows, sideways called tiles), small broadcast-size tiles
(16-34 px high) scaled back up, blur, noise, JPEG, colour temperature, hue/saturation, glare,
shadow and partial occlusion. Red fives of styles that have none are made by recolouring the
ink of the five red. One art style is held out and only used for the test numbers.

Run from the repo root, on CPU (``nice`` it; it shares the machine)::

    mkdir -p runs/classifier && nice -n 10 .venv/bin/python models/train_classifier.py \
        >> runs/classifier/train.log 2>&1 &

2000 steps of 96 crops take about 15 minutes on 2 idle cores. It is resumable: it saves
``--ckpt`` (default ``runs/classifier/classifier.pt``, not tracked; the bundled run's is
``models/checkpoints/classifier.pt``, with ``--init`` the weights to start a new run from)
every ``--save-every`` steps and continues from there
when started again (``--fresh`` starts over); ``--minutes M`` ends a chunk early on a busy
machine, and the learning-rate schedule follows steps, so chunks add up to the same run. At the end it evaluates on
the held-out style and exports ``--onnx`` (input ``crops``
``(N, 3, 48, 48)`` float32 BGR 0..1, outputs ``probs`` ``(N, 46)`` in ``vision.read.classes`` order and ``embedding`` ``(N, 120)``,
the L2-normalised pooled features set profiles compare).

``--procedural N`` adds N procedural Chinese-style sets (``datasets.procedural``: CJK fonts from
``sh datasets/get_fonts.sh``) that take ``--procedural-share`` of every batch; one of them is
replaced by a newly drawn set every ``--procedural-every`` batches (about 0.1 s per set). They
are never part of the held-out evaluation.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from datasets import art  # noqa: E402
from vision.read.classes import CLASS_INDEX, TILE_CLASSES  # noqa: E402
from vision.read.tile_crops import CROP_SIZE, contrast_crops, fit_square  # noqa: E402

HELD_OUT_STYLE = art.HELDOUT_STYLES[0]   # the detector's held-out style too
BASE_HEIGHT = 112                      # art is pre-scaled to this many pixels high
RED_FIVES = {"0m": "5m", "0p": "5p", "0s": "5s"}
# Share of face crops whose tile body is repainted, and the share of those made dark with
# light ink (defaults of --recolour, --dark-share; v14 and v15 used 0.3 and 0.5).
RECOLOUR = 0.15
DARK_SHARE = 0.33
GREY_SHARE = 0.0       # crops drawn in grey (--grey; v20 only)
CONTRAST_SHARE = 0.0   # crops drawn as the reader's contrast views (--contrast; 0.25-0.3 from v21 on)
RANDCONV_SHARE = 0.0   # crops passed through a random convolution (--randconv; v28 on)
RANDCONV_KERNELS = (1, 1, 3, 5)   # 1x1 = a random colour mix (white ink on red -> any ink on any body)



# --------------------------------------------------------------------------------------------
# artwork
# --------------------------------------------------------------------------------------------

def _scaled(img: np.ndarray, height: int = BASE_HEIGHT) -> np.ndarray:
    h, w = img.shape[:2]
    interp = cv2.INTER_AREA if h > height else cv2.INTER_CUBIC
    return cv2.resize(img, (max(1, round(w * height / h)), height), interpolation=interp)


def load_all_styles(art_dir: Path | None) -> dict[str, dict[str, np.ndarray]]:
    """``{style: {class: BGRA image BASE_HEIGHT px high}}`` for every style under ``art_dir``.

    Read through ``datasets.art`` (the scene renderer's loader), so both stages see the same
    faces and the same synthetic red fives; ``back`` is present where the style has one.
    """
    out = {}
    for name in art.list_styles(art_dir):
        style = art.load_style(name, art_dir)
        tiles = dict(style.faces)
        if style.back is not None:
            tiles["back"] = style.back
        out[name] = {c: _scaled(img) for c, img in tiles.items()}
    return out


# --------------------------------------------------------------------------------------------
# rendering one crop
# --------------------------------------------------------------------------------------------

def _body_colour(tile: np.ndarray) -> np.ndarray:
    """Median colour of the opaque pixels: the tile body (faces cover less than half)."""
    opaque = tile[..., 3] > 200
    return np.median(tile[..., :3][opaque], axis=0) if opaque.any() else np.array([230, 235, 240])


def _outlined(ink: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The ink mask (H, W, 1) float 0..1 reduced to its outline, 1-3 px wide at BASE_HEIGHT:
    line-art sets (jade-like) draw circles and bamboo sticks hollow. Strokes thinner than the
    outline stay solid, so characters keep their shape."""
    width = int(rng.integers(1, 4))
    inner = cv2.erode(ink[..., 0], np.ones((2 * width + 1, 2 * width + 1), np.uint8))
    return np.clip(ink[..., 0] - inner, 0, 1)[..., None]


def _grain(shape: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """Soft streaks (H, W, 1), mean ~1: the polished grain of a stone or wood-look tile body."""
    h, w = shape
    n = rng.normal(0, 1, (max(2, h // 10), 3)).astype(np.float32)
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    if rng.random() < 0.5:
        m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.uniform(-40, 40), 1.3)
        n = cv2.warpAffine(n, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    return (1 + rng.uniform(0.08, 0.25) * n)[..., None]


def recolour_body(tile: np.ndarray, rng: np.random.Generator, dark_share: float = DARK_SHARE,
                  keep_ink_hue: bool = False) -> np.ndarray:
    """Repaint the tile body in another colour, keeping the ink: a tinted set (ivory, green,
    blue) or, a ``dark_share`` of the time, a dark body with light ink (jade, black sets).

    A dark repaint sometimes also grains the body, draws the ink near-white (unless
    ``keep_ink_hue``: a red five's ink must stay red) or draws only the ink's outline, as
    line-art sets do. ``tile``: BGRA (H, W, 4) uint8; returns the same shape."""
    body = _body_colour(tile).astype(np.float32)
    bgr = tile[..., :3].astype(np.float32)
    ink = np.clip((np.abs(bgr - body).max(axis=2) - 30) / 80, 0, 1)[..., None]
    if rng.random() < dark_share:
        hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(60, 255), rng.uniform(20, 110)]]])
        new_body = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        if rng.random() < 0.5:
            new_body = new_body * _grain(tile.shape[:2], rng)
        if keep_ink_hue:      # red stays saturated red: a pale pink five reads as a plain one
            new_ink = bgr * rng.uniform(0.9, 1.2) + rng.uniform(0, 40)
        elif rng.random() < 0.5:
            new_ink = np.full_like(bgr, rng.uniform(190, 255)) * rng.uniform(0.85, 1.0, 3)
        else:
            new_ink = 255 - (255 - bgr) * rng.uniform(0.2, 0.5)      # lighter ink, same hue
        if rng.random() < 0.4:
            ink = _outlined(ink, rng)
    else:
        new_body = body * rng.uniform(0.65, 1.0, 3).astype(np.float32)
        new_ink = bgr
    out = tile.copy()
    out[..., :3] = np.clip(new_body * (1 - ink) + new_ink * ink, 0, 255).astype(np.uint8)
    return out


def synthetic_back(rng: np.random.Generator, h: int = BASE_HEIGHT) -> np.ndarray:
    """A face-down tile: a rounded block in a saturated back colour, slight shading."""
    w = int(h * rng.uniform(0.68, 0.82))
    hue = rng.uniform(0, 180)
    sat, val = rng.uniform(90, 255), rng.uniform(80, 235)
    hsv = np.zeros((h, w, 3), np.float32)
    hsv[..., 0], hsv[..., 1], hsv[..., 2] = hue, sat, val
    grad = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(0.9, 1.15), h)[:, None]
    hsv[..., 2] = np.clip(hsv[..., 2] * grad, 0, 255)
    bgr = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    if rng.random() < 0.3:  # some backs carry a pattern
        pat = (rng.random((h // 8 + 1, w // 8 + 1)) * 40 - 20).astype(np.float32)
        pat = cv2.resize(pat, (w, h), interpolation=cv2.INTER_NEAREST)
        bgr = np.clip(bgr + pat[..., None], 0, 255).astype(np.uint8)
    alpha = np.zeros((h, w), np.uint8)
    r = int(w * rng.uniform(0.05, 0.15))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    return np.dstack([bgr, alpha])


def _with_thickness(tile: np.ndarray, rng: np.random.Generator,
                    side_look: tuple[float, np.ndarray, float] | None = None) -> np.ndarray:
    """Add the tile's side seen in perspective: body colour, then a coloured back layer.
    ``side_look``: (body shade, back layer BGR, split) of a set, the same on all its tiles
    (default: drawn for this tile)."""
    h, w = tile.shape[:2]
    t = int(h * rng.uniform(0.08, 0.3))
    if side_look is not None:
        shade, back, split = side_look
        body = _body_colour(tile) * shade
        back = np.asarray(back, np.float32)
    else:
        body = _body_colour(tile) * rng.uniform(0.7, 0.95)
        back_hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(80, 255), rng.uniform(60, 220)]]])
        back = cv2.cvtColor(back_hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
        split = rng.uniform(0.3, 0.8)
    side = np.zeros((t, w, 4), np.uint8)
    side[: int(t * split), :, :3] = body
    side[int(t * split):, :, :3] = back * 0.85
    side[..., 3] = 255
    out = np.concatenate([tile, side], axis=0)
    # the top face's alpha corners let the side show; fill transparent gaps with the side colour
    return out if rng.random() < 0.6 else out[::-1].copy()


def _background(rng: np.random.Generator, size: int) -> np.ndarray:
    kind = rng.integers(4)
    colour = rng.uniform(0, 255, 3)
    bg = np.empty((size, size, 3), np.float32)
    bg[:] = colour
    if kind >= 1:  # texture (felt, wood grain, cloth)
        n = rng.normal(0, rng.uniform(4, 25), (size // 4 + 1, size // 4 + 1, 1)).astype(np.float32)
        n = cv2.resize(n, (size, size), interpolation=cv2.INTER_LINEAR)
        if kind == 2:
            n = cv2.resize(n[:, :1], (size, size))  # streaks
        bg += n[..., None] if n.ndim == 2 else n
    if kind == 3:
        g = np.linspace(rng.uniform(0.6, 1), rng.uniform(0.6, 1.2), size)[:, None, None]
        bg *= g
    return np.clip(bg, 0, 255).astype(np.uint8)


def _paste(canvas: np.ndarray, tile: np.ndarray, x: int, y: int) -> None:
    h, w = tile.shape[:2]
    H, W = canvas.shape[:2]
    xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    if xb <= xa or yb <= ya:
        return
    t = tile[ya - y:yb - y, xa - x:xb - x]
    a = t[..., 3:4].astype(np.float32) / 255.0
    region = canvas[ya:yb, xa:xb].astype(np.float32)
    canvas[ya:yb, xa:xb] = (t[..., :3] * a + region * (1 - a)).astype(np.uint8)


def _colour_jitter(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    f = img.astype(np.float32)
    temp = rng.uniform(-0.18, 0.18)                     # colour temperature: warm/cool light
    f[..., 0] *= 1 - temp
    f[..., 2] *= 1 + temp
    f = f * rng.uniform(0.6, 1.25) + rng.uniform(-30, 30)   # exposure
    f = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        hsv = cv2.cvtColor(f, cv2.COLOR_BGR2HSV).astype(np.int16)
        hsv[..., 0] = (hsv[..., 0] + rng.integers(-5, 6)) % 180   # small: red must stay red
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.55, 1.3), 0, 255)
        f = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    if rng.random() < 0.3:
        gamma = rng.uniform(0.7, 1.4)
        f = (255 * (f / 255.0) ** gamma).astype(np.uint8)
    return f


def _glare_shadow_occlusion(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.2:  # specular glare: a soft bright ellipse
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(0.1, 0.5) * w, rng.uniform(0.05, 0.3) * h
        g = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2)) * rng.uniform(0.3, 0.85)
        f = f * (1 - g[..., None]) + 255 * g[..., None]
    if rng.random() < 0.25:  # shadow: a darker half-plane with a soft edge
        ang = rng.uniform(0, 2 * np.pi)
        d = (xx - w / 2) * np.cos(ang) + (yy - h / 2) * np.sin(ang) - rng.uniform(-0.4, 0.4) * w
        s = 1 - rng.uniform(0.2, 0.55) / (1 + np.exp(-d / (0.05 * w + 1)))
        f *= s[..., None]
    if rng.random() < 0.12:  # finger or frame edge over part of the tile
        colour = (rng.uniform(60, 140), rng.uniform(100, 170), rng.uniform(150, 230)) \
            if rng.random() < 0.6 else tuple(rng.uniform(0, 255, 3))
        side = rng.integers(4)
        depth = rng.uniform(0.1, 0.3)
        pts = {0: [(0, 0), (w * depth, 0), (w * depth * rng.uniform(0.5, 1.5), h), (0, h)],
               1: [(w, 0), (w * (1 - depth), 0), (w * (1 - depth * rng.uniform(0.5, 1.5)), h), (w, h)],
               2: [(0, 0), (w, 0), (w, h * depth), (0, h * depth * rng.uniform(0.5, 1.5))],
               3: [(0, h), (w, h), (w, h * (1 - depth)), (0, h * (1 - depth * rng.uniform(0.5, 1.5)))]}
        poly = np.array(pts[int(side)], np.int32)
        cv2.fillPoly(f, [poly], colour)
    return np.clip(f, 0, 255).astype(np.uint8)


def _degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    h, w = img.shape[:2]
    # tile size in the photo: small broadcast tiles (16-34 px) often, larger ones otherwise
    target = rng.uniform(16, 34) if rng.random() < 0.4 else rng.uniform(34, 110)
    scale = min(1.0, target / h) if h >= w else min(1.0, target / w)
    if scale < 1:
        img = cv2.resize(img, (max(2, round(w * scale)), max(2, round(h * scale))),
                         interpolation=cv2.INTER_AREA if rng.random() < 0.7 else cv2.INTER_LINEAR)
    small = min(img.shape[:2]) < 40   # a broadcast-size tile: one more blur wipes it out
    r = rng.random()
    if r < (0.05 if small else 0.15):
        img = cv2.GaussianBlur(img, (3, 3) if small else (5, 5), 0)
    elif r < (0.1 if small else 0.25):  # motion blur
        k = 3 if small else int(rng.integers(3, 6))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        m = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kern = cv2.warpAffine(kern, m, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    if rng.random() < 0.5:
        img = np.clip(img + rng.normal(0, rng.uniform(2, 9), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return img


def greyed(crop: np.ndarray, cls: str, rng: np.random.Generator, share: float) -> np.ndarray:
    """``crop`` (H, W, 3) BGR drawn in grey a ``share`` of the time, never a red five's: a set
    is told apart by its shapes, not its ink colours (one set's red 萬 is another's white), while
    a red five is told from its five only by the red."""
    if share <= 0 or cls in RED_FIVES or rng.random() >= share:
        return crop
    return cv2.cvtColor(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)


def contrasted(crop: np.ndarray, cls: str, rng: np.random.Generator, share: float) -> np.ndarray:
    """``crop`` (S, S, 3) BGR uint8 drawn as the reader's contrast view
    (:func:`vision.read.tile_crops.contrast_crops`: dark ink on a light body along the crop's main
    colour axis) a ``share`` of the time, never a red five's: the reader looks at an unsure
    photo's tiles that way too, and takes a five's red from the colour views alone."""
    if share <= 0 or cls in RED_FIVES or rng.random() >= share:
        return crop
    chw = crop.transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    out = contrast_crops(chw)[0].transpose(1, 2, 0)
    return (out * 255).round().astype(np.uint8)


PAINT = (RECOLOUR, DARK_SHARE, GREY_SHARE, CONTRAST_SHARE)

_FIVE_OF = np.arange(len(TILE_CLASSES))
for _red, _five in RED_FIVES.items():
    _FIVE_OF[CLASS_INDEX[_red]] = CLASS_INDEX[_five]


def all_contrasted(xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A batch ``(N, S, S, 3) uint8`` BGR and its labels ``(N,)`` as the contrast classifier
    learns them (``--contrast-only``): every crop drawn as the reader's contrast view, a red
    five labelled as its five (the view keeps a five's shape, not its red; the reader takes
    the red from the colour views)."""
    chw = xs.transpose(0, 3, 1, 2).astype(np.float32) / 255.0
    out = contrast_crops(chw).transpose(0, 2, 3, 1)
    return (out * 255).round().astype(np.uint8), _FIVE_OF[ys]


def random_convolution(x: torch.Tensor, y: torch.Tensor, share: float,
                       gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """A ``share`` of the batch ``x`` (B, 3, S, S) float 0..1 passed through a random
    convolution (RandConv: Xu et al., "Robust and Generalizable Visual Representation Learning
    via Random Convolutions", ICLR 2021): per crop, a fresh 3->3 kernel of one size drawn from
    ``RANDCONV_KERNELS``, weights N(0, 1/(3 k^2)), output scaled to 0..1 and mixed with the crop
    at a random weight. Shapes survive, colours and textures do not, which is what a set drawn
    in other inks on another body asks of the classifier.

    Returns ``(x, targets)``: targets (B, 46) class probabilities. A five or red five that was
    convolved is labelled half five, half red five: its ink colour no longer tells them apart
    (the reader takes a five's red from its colour views alone)."""
    b = x.shape[0]
    target = F.one_hot(y, len(TILE_CLASSES)).float()
    pick = torch.nonzero(torch.rand(b, generator=gen) < share).flatten()
    if share <= 0 or len(pick) == 0:
        return x, target
    k = RANDCONV_KERNELS[int(torch.randint(len(RANDCONV_KERNELS), (1,), generator=gen))]
    n = len(pick)
    w = torch.randn(n * 3, 3, k, k, generator=gen) * (1.0 / (3 * k * k)) ** 0.5
    src = x[pick]
    out = F.conv2d(src.reshape(1, n * 3, *src.shape[2:]), w, padding=k // 2, groups=n)
    out = out.reshape(n, 3, *src.shape[2:])
    lo = out.amin(dim=(1, 2, 3), keepdim=True)
    hi = out.amax(dim=(1, 2, 3), keepdim=True)
    out = (out - lo) / (hi - lo).clamp_min(1e-6)
    alpha = torch.rand(n, 1, 1, 1, generator=gen) * 0.5     # at most half the original colours
    x = x.clone()
    x[pick] = alpha * src + (1 - alpha) * out
    for red, five in RED_FIVES.items():
        r, f = CLASS_INDEX[red], CLASS_INDEX[five]
        hit = pick[(y[pick] == r) | (y[pick] == f)]
        target[hit, r] = 0.5
        target[hit, f] = 0.5
    return x, target


def render_crop(style: dict[str, np.ndarray], cls: str, rng: np.random.Generator,
                paint: tuple[float, ...] = PAINT, look: dict | None = None) -> np.ndarray:
    """One training crop of class ``cls`` in ``style``: ``(CROP_SIZE, CROP_SIZE, 3) uint8`` BGR.
    ``paint``: (share of faces repainted, share of those dark, share of crops drawn grey, share
    drawn as contrast views). ``look``: one set drawn consistently (``models.train_sets``):
    ``style`` is already that set's faces, no face is repainted here, ``look["back"]`` is its
    back and ``look["side"]`` its thickness colours (see :func:`_with_thickness`)."""
    if cls == "back":
        if look is not None:
            tile = look["back"]
        else:
            tile = style["back"] if "back" in style and rng.random() < 0.4 else synthetic_back(rng)
    else:
        tile = style[cls]
        if look is None and rng.random() < paint[0]:
            tile = recolour_body(tile, rng, paint[1], keep_ink_hue=cls in RED_FIVES)
    if rng.random() < 0.5:
        tile = _with_thickness(tile, rng, None if look is None else look.get("side"))
    h, w = tile.shape[:2]
    side = 3 * max(h, w)
    canvas = _background(rng, side)
    x0, y0 = (side - w) // 2, (side - h) // 2
    # neighbouring tiles of the same set, touching or nearly, as in a row of a hand
    others = [c for c in style if c != "back"]
    for dx in (-1, 1):
        if rng.random() < 0.55:
            nb = style[others[rng.integers(len(others))]]
            nb = cv2.resize(nb, (w, h)) if nb.shape[:2] != (h, w) else nb
            gap = int(rng.integers(0, 4))
            _paste(canvas, nb, x0 + dx * (w + gap), y0 + int(rng.integers(-3, 4)))
    _paste(canvas, tile, x0, y0)

    # perspective: foreshortening, keystone, small roll, then a quarter turn
    src = np.float32([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]])
    fy = rng.uniform(0.5, 1.0) if rng.random() < 0.6 else 1.0
    key = rng.uniform(0.0, 0.15)
    hw, hh = w / 2, h * fy / 2
    dst = np.float32([[-hw * (1 - key), -hh], [hw * (1 - key), -hh], [hw, hh], [-hw, hh]])
    dst += rng.normal(0, 0.03 * max(w, h), dst.shape).astype(np.float32)
    # roll: mostly small, but rows photographed at a slant put neighbours into the box
    ang = np.deg2rad(rng.uniform(-10, 10) if rng.random() < 0.6 else rng.uniform(-35, 35))
    quarter = rng.choice(4, p=[0.45, 0.3, 0.125, 0.125])
    ang += quarter * np.pi / 2
    rot = np.float32([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    dst = dst @ rot.T + side / 2
    m = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
    warped = cv2.warpPerspective(canvas, m, (side, side), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REFLECT)

    # the detector's box: the tile's bounding box, a few per cent loose or tight per side
    x1, y1 = dst.min(axis=0)
    x2, y2 = dst.max(axis=0)
    bw, bh = x2 - x1, y2 - y1
    jit = rng.uniform(-0.05, 0.08, 4)
    xa = int(np.clip(x1 - jit[0] * bw, 0, side - 2))
    ya = int(np.clip(y1 - jit[1] * bh, 0, side - 2))
    xb = int(np.clip(x2 + jit[2] * bw, xa + 2, side))
    yb = int(np.clip(y2 + jit[3] * bh, ya + 2, side))
    crop = warped[ya:yb, xa:xb]
    crop = _colour_jitter(crop, rng)
    crop = greyed(crop, cls, rng, paint[2])
    crop = _glare_shadow_occlusion(crop, rng)
    crop = _degrade(crop, rng)
    return contrasted(fit_square(crop, CROP_SIZE), cls, rng, paint[3])


def classes_of(style: dict[str, np.ndarray]) -> list[str]:
    """Classes this style can render (backs are synthesised where the style has none)."""
    return [c for c in TILE_CLASSES if c in style or c == "back"]


def sample_batch(styles: dict[str, dict[str, np.ndarray]], n: int, rng: np.random.Generator,
                 paint: tuple[float, ...] = PAINT) -> tuple[np.ndarray, np.ndarray]:
    """``n`` crops, classes uniform over the 46, style uniform among those that have the class;
    ``paint``: as :func:`render_crop` takes it."""
    names = list(styles)
    have = {c: [s for s in names if c in classes_of(styles[s])] for c in TILE_CLASSES}
    xs = np.empty((n, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    ys = np.empty(n, np.int64)
    for i in range(n):
        cls = TILE_CLASSES[rng.integers(len(TILE_CLASSES))]
        while not have[cls]:
            cls = TILE_CLASSES[rng.integers(len(TILE_CLASSES))]
        style = styles[have[cls][rng.integers(len(have[cls]))]]
        xs[i] = render_crop(style, cls, rng, paint)
        ys[i] = CLASS_INDEX[cls]
    return xs, ys


# --------------------------------------------------------------------------------------------
# model
# --------------------------------------------------------------------------------------------

def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class TileNet(nn.Module):
    """Small VGG-style CNN: 48x48 BGR crop -> 46 class probabilities (softmax at export)."""

    def __init__(self, num_classes: int = len(TILE_CLASSES), width: int = 20):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            nn.Conv2d(3, w, 3, padding=1, bias=False), nn.BatchNorm2d(w), nn.ReLU(inplace=True),
            nn.MaxPool2d(2),                      # 24
            nn.Conv2d(w, 2 * w, 3, padding=1, bias=False), nn.BatchNorm2d(2 * w),
            nn.ReLU(inplace=True), nn.MaxPool2d(2),   # 12
            _block(2 * w, 4 * w), nn.MaxPool2d(2),  # 6
            _block(4 * w, 6 * w), nn.MaxPool2d(2),  # 3
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(6 * w * 9, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features((x - 0.5) / 0.25))


class WithSoftmax(nn.Module):
    """The exported model: class probabilities and the crop's embedding.

    ``embedding`` is the last conv block's output averaged over its 3x3 grid and L2-normalised
    (N, 6 * width): the features a set profile (``vision.read.tileset``) compares crops in, by cosine.
    """

    def __init__(self, net: nn.Module):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        feats = self.net.features((x - 0.5) / 0.25)
        probs = F.softmax(self.net.head(feats), dim=1)
        return probs, F.normalize(feats.mean(dim=(2, 3)), dim=1)


# --------------------------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------------------------

def scene_index(folder: Path, min_visible: float = 0.6) -> list[tuple[Path, np.ndarray, np.ndarray]]:
    """The training split of a ``datasets.make_dataset`` folder as ``(image path, boxes (K, 4),
    class ids (K,))``, keeping tiles at least ``min_visible`` visible (what a detector boxes).
    Raises FileNotFoundError when the folder has no annotations."""
    ann_dir = folder / "annotations" / "train"
    files = sorted(ann_dir.glob("*.json")) if ann_dir.is_dir() else []
    if not files:
        raise FileNotFoundError(f"{ann_dir}: no annotations (make them with python -m datasets.make_dataset)")
    out = []
    for f in files:
        tiles = [t for t in json.loads(f.read_text())["tiles"] if t["visible"] >= min_visible]
        if tiles:
            out.append((folder / "images" / "train" / f"{f.stem}.jpg",
                        np.array([t["box"] for t in tiles], np.float64),
                        np.array([CLASS_INDEX[t["tile"]] for t in tiles], np.int64)))
    return out


def scene_crops(index: list, n: int, rng: np.random.Generator, per_image: int = 8,
                grey: float = 0.0, contrast: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` crops cut from rendered scenes exactly as the reader cuts them
    (``vision.read.tile_crops.crop_boxes``), each true box moved by up to 6% of its size per side
    (a detector box is never exact), turned a random quarter turn half the time and drawn grey
    a ``grey`` share of the time (:func:`greyed`) and drawn as a contrast view a ``contrast``
    share (:func:`contrasted`)."""
    from vision.read.tile_crops import crop_boxes

    xs = np.empty((n, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    ys = np.empty(n, np.int64)
    i = 0
    while i < n:
        path, boxes, cls = index[int(rng.integers(len(index)))]
        img = cv2.imread(str(path))
        if img is None:
            continue
        pick = rng.choice(len(boxes), size=min(per_image, len(boxes), n - i), replace=False)
        b = boxes[pick].copy()
        wh = np.repeat(b[:, 2:] - b[:, :2], 2, axis=0).reshape(-1, 4)
        b += rng.uniform(-0.06, 0.06, size=b.shape) * wh
        crops = (crop_boxes(img, b).transpose(0, 2, 3, 1) * 255).round().astype(np.uint8)
        for crop, y in zip(crops, cls[pick]):
            if rng.random() < 0.5:
                crop = np.ascontiguousarray(np.rot90(crop, int(rng.integers(1, 4))))
            name = TILE_CLASSES[y]
            xs[i], ys[i] = contrasted(greyed(crop, name, rng, grey), name, rng, contrast), y
            i += 1
    return xs, ys


class CropStream(torch.utils.data.IterableDataset):
    """Endless batches: rendered single-tile crops, and with ``scenes`` (folders written by
    ``datasets.make_dataset``) a ``scene_share`` of each batch cut from their scene photos."""

    def __init__(self, art: Path, exclude: str, batch: int, seed: int,
                 scenes: list[Path] | None = None, scene_share: float = 0.5,
                 procedural: int = 0, procedural_share: float = 0.3, procedural_every: int = 2,
                 paint: tuple[float, ...] = PAINT, contrast_only: bool = False):
        self.paint, self.contrast_only = paint, contrast_only
        self.art, self.exclude, self.batch, self.seed = art, exclude, batch, seed
        self.scenes, self.scene_share = scenes, scene_share
        self.procedural, self.procedural_share = procedural, procedural_share
        self.procedural_every = max(1, procedural_every)

    def __iter__(self):
        cv2.setNumThreads(1)
        torch.set_num_threads(1)
        info = torch.utils.data.get_worker_info()
        wid = info.id if info else 0
        styles = {k: v for k, v in load_all_styles(self.art).items() if k != self.exclude}
        index = [item for folder in self.scenes or [] for item in scene_index(folder)]
        n_scene = int(round(self.batch * self.scene_share)) if index else 0
        rng = np.random.default_rng([self.seed, wid, int(time.time())])
        # procedural Chinese-style sets: a pool of `procedural`, one replaced every few batches
        n_proc = min(int(round(self.batch * self.procedural_share)), self.batch - n_scene) \
            if self.procedural > 0 else 0
        if n_proc:
            from datasets.procedural import load_fonts, procedural_style

            fonts = load_fonts()

            def new_style() -> dict[str, np.ndarray]:
                return {c: _scaled(img) for c, img in procedural_style(rng, fonts).items()}

            pool = [new_style() for _ in range(self.procedural)]
        n_batches = 0
        while True:
            xs, ys = sample_batch(styles, self.batch - n_scene - n_proc, rng, self.paint)
            if n_proc:
                px, py = sample_batch({f"procedural-{i}": s for i, s in enumerate(pool)}, n_proc, rng,
                                      self.paint)
                xs, ys = np.concatenate([xs, px]), np.concatenate([ys, py])
                n_batches += 1
                if n_batches % self.procedural_every == 0:
                    pool = pool[1:] + [new_style()]
            if n_scene:
                sx, sy = scene_crops(index, n_scene, rng, grey=self.paint[2], contrast=self.paint[3])
                xs, ys = np.concatenate([xs, sx]), np.concatenate([ys, sy])
            if self.contrast_only:
                xs, ys = all_contrasted(xs, ys)
            yield torch.from_numpy(xs).permute(0, 3, 1, 2).float() / 255.0, torch.from_numpy(ys)


def evaluate(net: nn.Module, styles: dict, n: int, seed: int) -> dict:
    """Accuracy on ``n`` rendered crops of ``styles``; red-five vs five confusion on its own."""
    rng = np.random.default_rng(seed)
    xs, ys = sample_batch(styles, n, rng)
    net.eval()
    with torch.no_grad():
        dev = next(net.parameters()).device
        pred = torch.cat([net((torch.from_numpy(xs[i:i + 256]).permute(0, 3, 1, 2).float() / 255.0).to(dev))
                          .argmax(1).cpu() for i in range(0, n, 256)]).numpy()
    res = {"n": int(n), "top1": float((pred == ys).mean())}
    pairs = {}
    for red, five in RED_FIVES.items():
        r, f = CLASS_INDEX[red], CLASS_INDEX[five]
        pairs[f"{red}->{five}"] = int(((ys == r) & (pred == f)).sum())
        pairs[f"{five}->{red}"] = int(((ys == f) & (pred == r)).sum())
        pairs[f"n_{red}"] = int((ys == r).sum())
        pairs[f"n_{five}"] = int((ys == f).sum())
    res["red_five_confusion"] = pairs
    per = {}
    for c in TILE_CLASSES:
        k = ys == CLASS_INDEX[c]
        if k.any():
            per[c] = round(float((pred[k] == ys[k]).mean()), 3)
    res["per_class_recall"] = per
    return res


def export_onnx(net: nn.Module, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    net = net.cpu()
    net.eval()
    model = WithSoftmax(net)
    dummy = torch.zeros(1, 3, CROP_SIZE, CROP_SIZE)
    torch.onnx.export(model, dummy, str(path), input_names=["crops"],
                      output_names=["probs", "embedding"],
                      dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}, "embedding": {0: "n"}}, opset_version=17,
                      dynamo=False)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--art", type=Path, default=None,
                   help="artwork folder (default $TILESCOPE_ART or ../shared/art)")
    p.add_argument("--steps", type=int, default=2000,
                   help="schedule length in batches (2000 take about 15 min on 2 idle cores)")
    p.add_argument("--minutes", type=float, default=None,
                   help="stop this chunk after so many minutes (resume later to finish)")
    p.add_argument("--batch", type=int, default=96)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads", type=int, default=2, help="torch threads for the training step")
    p.add_argument("--hold-out", default=HELD_OUT_STYLE, help="style kept for the test only")
    # a run's own files by default (runs/ is not tracked): the bundled checkpoint and model are
    # overwritten only when named, so a trial run neither resumes v24 nor replaces it
    p.add_argument("--ckpt", type=Path, default=REPO / "runs" / "classifier" / "classifier.pt",
                   help="checkpoint to save and to resume from when it exists (default "
                        "runs/classifier/classifier.pt; the bundled run: models/checkpoints/classifier.pt)")
    p.add_argument("--onnx", type=Path, default=REPO / "runs" / "classifier" / "classifier.onnx",
                   help="where the final model is exported (default runs/classifier/classifier.onnx; "
                        "the reader loads vision/weights/classifier.onnx, or pass --weights DIR)")
    p.add_argument("--save-every", type=int, default=200)
    p.add_argument("--replay", type=int, default=1, help="extra steps on earlier batches per new one")
    p.add_argument("--replay-pool", type=int, default=24, help="how many recent batches to replay")
    p.add_argument("--eval-n", type=int, default=2300)
    p.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    p.add_argument("--init", type=Path, help="start from these weights (a classifier .pt) "
                   "with a new schedule, e.g. to continue a finished run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu", help="torch device for the training step (cpu, cuda, cuda:0)")
    p.add_argument("--scenes", type=Path, nargs="+", default=None,
                   help="also cut crops from these datasets.make_dataset folders' rendered scenes")
    p.add_argument("--scene-share", type=float, default=0.5, help="share of each batch cut from --scenes")
    p.add_argument("--procedural", type=int, default=0, metavar="N",
                   help="also draw from N procedural Chinese-style sets (datasets.procedural; needs CJK "
                   "fonts: sh datasets/get_fonts.sh or $TILESCOPE_FONTS); never in the held-out test")
    p.add_argument("--procedural-share", type=float, default=0.3,
                   help="share of each batch rendered from the procedural sets")
    p.add_argument("--procedural-every", type=int, default=2, metavar="K",
                   help="replace one procedural set by a newly drawn one every K batches")
    p.add_argument("--recolour", type=float, default=RECOLOUR,
                   help="share of face crops whose tile body is repainted")
    p.add_argument("--dark-share", type=float, default=DARK_SHARE,
                   help="share of the repainted ones made dark with light ink")
    p.add_argument("--grey", type=float, default=GREY_SHARE,
                   help="share of crops (rendered and scene) drawn in grey; red fives never are")
    p.add_argument("--randconv", type=float, default=RANDCONV_SHARE,
                   help="share of each training batch passed through a random convolution "
                        "(random_convolution); a convolved five is labelled half red")
    p.add_argument("--contrast", type=float, default=CONTRAST_SHARE,
                   help="share of crops (rendered and scene) drawn as the reader's contrast views; "
                        "red fives never are")
    p.add_argument("--contrast-only", action="store_true",
                   help="train a classifier of the contrast views alone (tried as c1, not read by "
                        "the reader): every crop a contrast view, red fives labelled as fives "
                        "(all_contrasted)")
    args = p.parse_args(argv)
    if args.init is not None:
        if not args.init.is_file():
            print(f"train_classifier: --init {args.init}: no such file", file=sys.stderr)
            return 2
        if args.ckpt.exists() and not args.fresh:
            # the checkpoint would be resumed and --init ignored, without a word
            print(f"train_classifier: --init {args.init} with an existing checkpoint {args.ckpt}, "
                  "which would be resumed instead: pass --ckpt NEW.pt for a new run from "
                  "--init, or drop --init to resume", file=sys.stderr)
            return 2
    if args.contrast_only and args.contrast > 0:
        print("train_classifier: --contrast-only draws every crop as a contrast view; "
              "leave --contrast at 0", file=sys.stderr)
        return 2
    if args.procedural > 0:
        from datasets.procedural import load_fonts

        share = args.procedural_share + (args.scene_share if args.scenes else 0.0)
        if not 0 < args.procedural_share <= 1 or share > 1:
            print("train_classifier: --procedural-share must be in (0, 1] and, with --scene-share, "
                  "at most 1", file=sys.stderr)
            return 2
        if not load_fonts():
            print("train_classifier: --procedural needs CJK fonts: run `sh datasets/get_fonts.sh` "
                  "(or set $TILESCOPE_FONTS) and have Pillow installed", file=sys.stderr)
            return 2
    if args.scenes is not None:
        try:
            for folder in args.scenes:
                scene_index(folder)
        except FileNotFoundError as exc:
            print(f"train_classifier: {exc}", file=sys.stderr)
            return 2

    try:
        art.list_styles(args.art)
    except art.ArtError as exc:
        print(f"train_classifier: {exc}", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    net = TileNet()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    step, elapsed = 0, 0.0
    if args.ckpt.exists() and not args.fresh:
        state = torch.load(args.ckpt, map_location="cpu", weights_only=False)
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, elapsed = state["step"], state["elapsed_s"]
        print(f"resumed at step {step} ({elapsed:.0f}s done)", flush=True)
    elif args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu", weights_only=False)["model"])
        print(f"starting from the weights in {args.init}", flush=True)
    device = torch.device(args.device)
    net.to(device)                       # the optimizer keeps the same Parameter objects
    for st in opt.state.values():        # a resumed AdamW state follows the weights
        for k, v in st.items():
            if torch.is_tensor(v) and k != "step":
                st[k] = v.to(device)
    args.ckpt.parent.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        tmp = args.ckpt.with_suffix(".tmp")
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(),
                    "step": step, "elapsed_s": elapsed_now(), "hold_out": args.hold_out, "crop_size": CROP_SIZE,
                    "classes": list(TILE_CLASSES)}, tmp)
        os.replace(tmp, args.ckpt)

    stream = CropStream(args.art, args.hold_out, args.batch, args.seed + step, args.scenes, args.scene_share,
                        args.procedural, args.procedural_share, args.procedural_every,
                        (args.recolour, args.dark_share, args.grey, args.contrast), args.contrast_only)
    loader = torch.utils.data.DataLoader(stream, batch_size=None, num_workers=args.workers,
                                         prefetch_factor=4 if args.workers else None,
                                         persistent_workers=False)
    t0 = time.time()

    def elapsed_now() -> float:
        return elapsed + time.time() - t0

    def progress() -> float:
        # the schedule follows steps, so a run split into chunks (--minutes) anneals the same way
        return step / args.steps

    def out_of_time() -> bool:
        return args.minutes is not None and time.time() - t0 > args.minutes * 60

    def lr_at(p: float) -> float:
        warm = 0.05
        if p < warm:
            return args.lr * (0.1 + 0.9 * p / warm)
        return args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * (p - warm) / (1 - warm))))

    net.train()
    seen, correct, loss_sum = 0, 0, 0.0
    replay: list[tuple[torch.Tensor, torch.Tensor]] = []
    gen = torch.Generator().manual_seed(args.seed + step)
    for fresh in loader:
        if progress() >= 1 or out_of_time():
            break
        # rendering is the slow part on 2 shared cores: each rendered batch is also replayed
        # later, turned by a random quarter turn (the classifier learns all four anyway)
        replay = (replay + [fresh])[-args.replay_pool:]
        batches = [fresh]
        for _ in range(args.replay):
            x, y = replay[int(torch.randint(len(replay), (1,), generator=gen))]
            batches.append((torch.rot90(x, int(torch.randint(4, (1,), generator=gen)), (2, 3)), y))
        for x, y in batches:
            x, target = random_convolution(x, y, args.randconv, gen)   # on the CPU, with gen
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            for group in opt.param_groups:
                group["lr"] = lr_at(progress())
            logits = net(x)
            loss = F.cross_entropy(logits, target, label_smoothing=0.05)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            seen += len(y)
            correct += int((logits.argmax(1) == y).sum())
            loss_sum += float(loss.detach()) * len(y)
        if seen >= 50 * args.batch:
            print(f"step {step}/{args.steps} loss {loss_sum / seen:.3f} train-acc {correct / seen:.3f} "
                  f"lr {opt.param_groups[0]['lr']:.2e} {elapsed_now():.0f}s", flush=True)
            seen, correct, loss_sum = 0, 0, 0.0
        if step % args.save_every < 1 + args.replay:
            save()
    save()
    print(f"stopped at step {step} after {elapsed_now():.0f}s", flush=True)
    if step < args.steps:
        print(f"chunk done; run again to continue ({args.steps - step} steps left)", flush=True)
        return 0

    all_styles = load_all_styles(args.art)
    report = {"step": step, "hold_out": args.hold_out}
    if args.hold_out in all_styles:
        report["held_out"] = evaluate(net, {args.hold_out: all_styles[args.hold_out]},
                                      args.eval_n, seed=1234)
    report["train_styles"] = evaluate(
        net, {k: v for k, v in all_styles.items() if k != args.hold_out}, args.eval_n // 2, seed=99)
    print(json.dumps(report, indent=1), flush=True)
    (args.ckpt.parent / "classifier_eval.json").write_text(json.dumps(report, indent=1))
    export_onnx(net, args.onnx)
    print(f"exported {args.onnx} ({args.onnx.stat().st_size / 1e6:.2f} MB)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
