"""Tile artwork: load one tile-art style as face images keyed by detector class.

Two kinds of source folder are understood:

* ``riichi-tiles`` (FluffyStuff/riichi-mahjong-tiles, public domain / CC0): ``Export/Regular``
  and ``Export/Black``, 600x800 RGBA PNGs. Faces (``Man1`` .. ``Sou9``, ``Ton Nan Shaa Pei``,
  ``Haku Hatsu Chun``, red fives ``Man5-Dora`` ..) are transparent overlays drawn on
  ``Front.png``; ``Back.png`` is the tile back. This set has no flowers. Styles
  ``riichi-regular`` and ``riichi-black``.
* mpsz-named folders (``<art>/styles/<name>``, rendered from Debian tile sets): only
  ``[1-9][mpsz].png``, ``[1-8]f.png``, ``back.png`` and ``front.png`` are read (``montage.png``
  and ``extras/`` are not tiles). They have no red fives: ``0m 0p 0s`` are made by recolouring
  the five's ink red (see :func:`make_red_five`).

Images are ``uint8`` arrays of shape (H, W, 4) in **OpenCV channel order B, G, R, A**, cropped to
the tile outline (the union of the style's opaque pixels), so a face's corners are the tile's
corners. Every face of one style has the same shape.

The artwork is not part of the project. Get it from
https://github.com/FluffyStuff/riichi-mahjong-tiles (public domain) and pass ``--art DIR`` or
set ``TILESCOPE_ART``; by default ``../shared/art`` next to the repository is used.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.read.classes import TILE_CLASSES

ART_ENV = "TILESCOPE_ART"
REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ART_ROOT = REPO_ROOT.parent / "shared" / "art"

RIICHI_STYLES = {"riichi-regular": "Regular", "riichi-black": "Black"}
# Held out of every training set so that test numbers measure an unseen tile design.
HELDOUT_STYLES: tuple[str, ...] = ("kmahjongg-jade",)

_RIICHI_NAMES: dict[str, str] = {
    **{f"{n}m": f"Man{n}" for n in range(1, 10)},
    **{f"{n}p": f"Pin{n}" for n in range(1, 10)},
    **{f"{n}s": f"Sou{n}" for n in range(1, 10)},
    "1z": "Ton", "2z": "Nan", "3z": "Shaa", "4z": "Pei",
    "5z": "Haku", "6z": "Hatsu", "7z": "Chun",
    "0m": "Man5-Dora", "0p": "Pin5-Dora", "0s": "Sou5-Dora",
}
_MPSZ_FILE = re.compile(r"^(?:[1-9][mpsz]|[1-8]f)\.png$")
MISSING_ART_HINT = (
    "get the artwork from https://github.com/FluffyStuff/riichi-mahjong-tiles (public domain) "
    f"and pass --art DIR (or set {ART_ENV})"
)


class ArtError(FileNotFoundError):
    """The artwork folder or a style in it is missing or unreadable."""


@dataclass
class TileArt:
    """One tile-art style.

    ``faces``: class name (from ``vision.read.classes.TILE_CLASSES``, never ``back``) -> BGRA uint8
    image (H, W, 4) of the whole tile face as seen from the front, body included. Classes the
    style lacks (flowers in riichi-tiles, some xmahjongg flowers) are absent.
    ``front``: blank tile face (same shape) or None. ``back``: the face-down side or None.
    ``body_bgr``: typical colour of the tile body (for drawing the block's sides).
    ``synthetic_red``: True when ``0m 0p 0s`` were made by recolouring (no source art).
    ``back_share``: the share of scenes whose tile backs are ``back`` (else a random colour).
    """

    name: str
    source: Path
    faces: dict[str, np.ndarray]
    front: np.ndarray | None = None
    back: np.ndarray | None = None
    body_bgr: tuple[int, int, int] = (230, 235, 240)
    synthetic_red: bool = False
    # The share of scenes drawn with the style's own back (the rest get a random plain back):
    # 0.5 for training variety; 1.0 for one physical set (benchmarks.set_unseen).
    back_share: float = 0.5
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def classes(self) -> list[str]:
        """Classes this style can draw, in ``TILE_CLASSES`` order (``back`` when it has one)."""
        have = set(self.faces) | ({"back"} if self.back is not None else set())
        return [c for c in TILE_CLASSES if c in have]

    @property
    def shape(self) -> tuple[int, int]:
        """(height, width) in pixels of every face of this style."""
        return next(iter(self.faces.values())).shape[:2]

    def image(self, name: str) -> np.ndarray:
        """Face image of a class, ``back`` or ``front``; raises KeyError naming what is missing."""
        if name == "back":
            img = self.back
        elif name == "front":
            img = self.front
        else:
            img = self.faces.get(name)
        if img is None:
            raise KeyError(f"style {self.name!r} has no image for {name!r}")
        return img


def art_root(path: str | os.PathLike | None = None) -> Path:
    """The artwork folder: ``path`` if given, else ``$TILESCOPE_ART``, else ``../shared/art``.

    Raises ArtError with instructions when the folder does not exist.
    """
    chosen = path or os.environ.get(ART_ENV) or DEFAULT_ART_ROOT
    root = Path(chosen).expanduser()
    if not root.is_dir():
        raise ArtError(f"tile artwork folder {root} not found: {MISSING_ART_HINT}")
    return root


def list_styles(root: str | os.PathLike | None = None) -> list[str]:
    """Names of the styles found under the art root (``riichi-regular``, ``riichi-black``, then
    every ``styles/<name>`` folder with at least the 34 playing tiles), sorted within each group.
    A folder that is itself a riichi-tiles checkout (has ``Export/``) is accepted as the root too.
    """
    base = art_root(root)
    names: list[str] = []
    riichi = _riichi_dir(base)
    if riichi is not None:
        names += [n for n, sub in RIICHI_STYLES.items() if (riichi / "Export" / sub / "Front.png").is_file()]
    styles = base / "styles"
    if styles.is_dir():
        for d in sorted(styles.iterdir()):
            if d.is_dir() and sum(1 for p in d.iterdir() if _MPSZ_FILE.match(p.name)) >= 34:
                names.append(d.name)
    if not names:
        raise ArtError(f"no tile styles under {base}: {MISSING_ART_HINT}")
    return names


def load_style(name_or_dir: str | os.PathLike, root: str | os.PathLike | None = None) -> TileArt:
    """Load a style by name (see :func:`list_styles`) or from a folder path.

    A folder is read as riichi-tiles when it holds ``Front.png`` (an ``Export/<variant>``
    folder), else as an mpsz-named folder. Raises ArtError when the style is missing or
    lacks any of the 34 playing tiles.
    """
    text = str(name_or_dir)
    as_dir = Path(text).expanduser()
    if text in RIICHI_STYLES:
        riichi = _riichi_dir(art_root(root))
        if riichi is None:
            raise ArtError(f"riichi-tiles not found under {art_root(root)}: {MISSING_ART_HINT}")
        return _load_riichi(riichi / "Export" / RIICHI_STYLES[text], text)
    if as_dir.is_dir() and (os.sep in text or not (art_root(root) / "styles" / text).is_dir()):
        if (as_dir / "Front.png").is_file():
            return _load_riichi(as_dir, as_dir.name)
        return _load_mpsz(as_dir, as_dir.name)
    folder = art_root(root) / "styles" / text
    if not folder.is_dir():
        raise ArtError(f"unknown tile style {text!r} (have: {', '.join(list_styles(root))})")
    return _load_mpsz(folder, text)


def _riichi_dir(base: Path) -> Path | None:
    for cand in (base / "riichi-tiles", base):
        if (cand / "Export" / "Regular" / "Front.png").is_file():
            return cand
    return None


def _read_rgba(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None:
        raise ArtError(f"cannot read tile image {path}")
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
    elif img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def _over(base: np.ndarray, top: np.ndarray) -> np.ndarray:
    """Porter-Duff 'over' of two BGRA images of the same shape."""
    a_t = top[..., 3:4].astype(np.float32) / 255.0
    a_b = base[..., 3:4].astype(np.float32) / 255.0
    a_o = a_t + a_b * (1.0 - a_t)
    rgb = top[..., :3] * a_t + base[..., :3] * a_b * (1.0 - a_t)
    rgb = np.where(a_o > 0, rgb / np.maximum(a_o, 1e-6), 0)
    return np.dstack([rgb, a_o * 255.0]).round().clip(0, 255).astype(np.uint8)


def _crop_box(images: list[np.ndarray], thresh: int = 32) -> tuple[int, int, int, int]:
    """Union bounding box (y1, y2, x1, x2) of the opaque pixels of same-sized images."""
    alpha = np.zeros(images[0].shape[:2], bool)
    for img in images:
        alpha |= img[..., 3] >= thresh
    ys, xs = np.nonzero(alpha)
    if len(ys) == 0:
        h, w = images[0].shape[:2]
        return 0, h, 0, w
    return int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1


def _body_colour(img: np.ndarray) -> tuple[int, int, int]:
    opaque = img[img[..., 3] > 200][:, :3]
    if len(opaque) == 0:
        return (230, 235, 240)
    return tuple(int(v) for v in np.median(opaque, axis=0))


def _dominant_colour(img: np.ndarray) -> tuple[float, float, float]:
    """Mean colour of the most common coarse colour bin among opaque pixels (the background)."""
    px = img[img[..., 3] > 200][:, :3].astype(np.int32)
    if len(px) == 0:
        return (255.0, 255.0, 255.0)
    q = px // 16
    keys = q[:, 0] * 256 + q[:, 1] * 16 + q[:, 2]
    top = np.bincount(keys).argmax()
    return tuple(float(v) for v in px[keys == top].mean(axis=0))


def _load_riichi(folder: Path, name: str) -> TileArt:
    if not (folder / "Front.png").is_file():
        raise ArtError(f"{folder} has no Front.png: not a riichi-tiles Export folder")
    front = _read_rgba(folder / "Front.png")
    faces = {}
    for cls, stem in _RIICHI_NAMES.items():
        path = folder / f"{stem}.png"
        if not path.is_file():
            raise ArtError(f"{path} missing: {MISSING_ART_HINT}")
        faces[cls] = _over(front, _read_rgba(path))
    back = _read_rgba(folder / "Back.png") if (folder / "Back.png").is_file() else None
    y1, y2, x1, x2 = _crop_box([front] + ([back] if back is not None else []))
    crop = lambda im: np.ascontiguousarray(im[y1:y2, x1:x2])  # noqa: E731
    return TileArt(
        name=name, source=folder,
        faces={c: crop(faces[c]) for c in TILE_CLASSES if c in faces},
        front=crop(front), back=None if back is None else crop(back),
        body_bgr=_body_colour(front), synthetic_red=False,
    )


def _load_mpsz(folder: Path, name: str) -> TileArt:
    found = {p.stem: _read_rgba(p) for p in sorted(folder.iterdir()) if _MPSZ_FILE.match(p.name)}
    missing = [f"{n}{s}" for s in "mpsz" for n in range(1, 10 if s != "z" else 8) if f"{n}{s}" not in found]
    if missing:
        raise ArtError(f"style folder {folder} lacks {' '.join(missing)}: not a tile style")
    front = _read_rgba(folder / "front.png") if (folder / "front.png").is_file() else None
    back = _read_rgba(folder / "back.png") if (folder / "back.png").is_file() else None
    shape = next(iter(found.values())).shape
    extra = [im for im in (front, back) if im is not None and im.shape == shape]
    y1, y2, x1, x2 = _crop_box(list(found.values()) + extra)
    crop = lambda im: np.ascontiguousarray(im[y1:y2, x1:x2]) if im.shape == shape else im  # noqa: E731
    faces = {k: crop(v) for k, v in found.items()}
    body = bare_body(list(faces.values()))
    for five, red in (("5m", "0m"), ("5p", "0p"), ("5s", "0s")):
        faces[red] = make_red_five(faces[five], body)
    front_c = crop(front) if front is not None else None
    return TileArt(
        name=name, source=folder,
        faces={c: faces[c] for c in TILE_CLASSES if c in faces},
        front=front_c, back=crop(back) if back is not None else None,
        body_bgr=_body_colour(front_c if front_c is not None else body), synthetic_red=True,
    )


def bare_body(faces: list[np.ndarray]) -> np.ndarray:
    """The tile body without a face, from a style's faces (BGRA ``(H, W, 4)``, one shape):
    at each pixel, the face whose colour there is nearest the faces' common background colour.

    A per-pixel median is ink wherever most faces have ink (the dots of 4p..9p share their
    places), and a five's ink there was then taken for body and left unpainted (jade's 0p was a
    white-ink 5p). Some face is bare at almost every pixel (the white dragon is blank in most
    sets), and the bevel and shading are the same on every face, so they stay body."""
    stack = np.stack(faces)                                         # (F, H, W, 4)
    median = np.median(stack, axis=0).astype(np.uint8)
    background = np.array(_dominant_colour(median), np.float32)
    dist = np.abs(stack[..., :3].astype(np.float32) - background).max(axis=3)   # (F, H, W)
    nearest = dist.argmin(axis=0)
    return np.take_along_axis(stack, nearest[None, ..., None], axis=0)[0]


def make_red_five(five: np.ndarray, body: np.ndarray, red_bgr: tuple[int, int, int] = (40, 30, 215)) -> np.ndarray:
    """Red five from a five: pixels that differ from the bare tile body (the ink) turn red.

    ``five``, ``body``: BGRA (H, W, 4) of the same shape; ``body`` is the tile without a face
    (:func:`bare_body` of a style's faces). The ink keeps its shading: dark ink becomes dark
    red, light ink on a dark body bright red (as in the Black set's red fives). Real sets vary
    (some colour only the 5's central dot), so a fully red face is a choice, not a rule.
    """
    if five.shape != body.shape:
        raise ValueError(f"five {five.shape} and body {body.shape} differ in shape")
    f = five[..., :3].astype(np.float32)
    # Ink differs from the bare body at that pixel (bare_body: no face's ink in it). Not from
    # the five's commonest colour: on a grained body that is the ink itself (jade's white).
    diff = np.abs(f - body[..., :3].astype(np.float32)).max(axis=2)
    ink = np.clip((diff - 25.0) / 60.0, 0.0, 1.0)[..., None] * (five[..., 3:4] > 0)
    lum = f.mean(axis=2, keepdims=True) / 255.0
    body_lum = body[..., :3].astype(np.float32).mean(axis=2, keepdims=True) / 255.0
    # Keep the ink's contrast against the body: scale red by luminance relative to the body.
    shade = np.where(body_lum > 0.5, 0.55 + 0.45 * lum / np.maximum(body_lum, 1e-3), 0.6 + 0.4 * lum)
    red = np.array(red_bgr, np.float32) * np.clip(shade, 0.3, 1.2)
    out = five.copy()
    out[..., :3] = np.clip(f * (1.0 - ink) + red * ink, 0, 255).astype(np.uint8)
    return out
