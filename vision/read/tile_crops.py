"""Cut detector boxes out of a photo into the crop classifier's input tensor.

The same function feeds training (``models/train_classifier.py``) and inference
(``vision.read.detector``), so the classifier sees at run time exactly what it was trained on.

A crop keeps its aspect ratio: it is scaled to fit a ``CROP_SIZE`` square and the rest is padded
with mid-grey. Sideways and upright tiles, and tiles foreshortened by a low camera, therefore all
fit without stretching; the classifier is trained on all four 90-degree turns of a tile, so no
guess about which way a sideways tile was turned is needed before classifying it.
"""
from __future__ import annotations

import cv2
import numpy as np

CROP_SIZE = 48          # pixels, side of the square classifier input (a 22x30 tile is 35x48)
PAD_VALUE = 127         # mid-grey fill around the letterboxed crop
CONTEXT = 0.04          # share of the box size added on each side (detector boxes are tight)


def fit_square(crop_bgr: np.ndarray, size: int = CROP_SIZE) -> np.ndarray:
    """Scale one crop ``(h, w, 3) uint8`` to fit a ``size`` x ``size`` square, centred, grey pad.

    Returns ``(size, size, 3) uint8``. Raises ``ValueError`` for an empty crop.
    """
    h, w = crop_bgr.shape[:2]
    if h < 1 or w < 1:
        raise ValueError(f"empty crop ({w}x{h} px)")
    scale = size / max(h, w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(crop_bgr, (nw, nh), interpolation=interp)
    out = np.full((size, size, 3), PAD_VALUE, np.uint8)
    y0, x0 = (size - nh) // 2, (size - nw) // 2
    out[y0:y0 + nh, x0:x0 + nw] = resized
    return out


def to_tensor(squares_bgr: np.ndarray) -> np.ndarray:
    """``(N, S, S, 3) uint8 BGR`` -> ``(N, 3, S, S) float32`` in 0..1, the classifier's input."""
    return np.ascontiguousarray(squares_bgr.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


def crop_boxes(image_bgr: np.ndarray, boxes: np.ndarray, size: int = CROP_SIZE,
               context: float = CONTEXT) -> np.ndarray:
    """Cut each box out of the image, widened by ``context`` per side, and fit it to a square.

    ``image_bgr``: ``(H, W, 3) uint8``. ``boxes``: ``(N, 4)`` x1, y1, x2, y2 in image pixels
    (clipped to the image here). Returns ``(N, 3, size, size) float32`` ready for the ONNX
    classifier (0..1, BGR channel order).
    """
    img_h, img_w = image_bgr.shape[:2]
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    squares = np.empty((len(boxes), size, size, 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        mx, my = (x2 - x1) * context, (y2 - y1) * context
        xa = int(np.clip(np.floor(x1 - mx), 0, img_w - 1))
        ya = int(np.clip(np.floor(y1 - my), 0, img_h - 1))
        xb = int(np.clip(np.ceil(x2 + mx), xa + 1, img_w))
        yb = int(np.clip(np.ceil(y2 + my), ya + 1, img_h))
        squares[i] = fit_square(image_bgr[ya:yb, xa:xb], size)
    return to_tensor(squares)


def contrast_crops(crops: np.ndarray) -> np.ndarray:
    """Classifier input ``(N, 3, S, S) float32`` BGR drawn in grey along each crop's own main
    colour axis (its first principal component), signed so that the crop's commonest colour,
    the tile body, is light, and stretched to 0..1 between the 2nd and 98th percentiles.

    A set's ink is whatever differs most from its body, so white ink on a dark red body, red ink
    on a red body (a red five of such a set) and black ink on ivory all come out as dark ink on
    a light body, where plain grey (luminance) loses red-on-red ink."""
    n = crops.shape[0]
    if n == 0:
        return crops.astype(np.float32, copy=True)
    x = crops.reshape(n, 3, -1).astype(np.float32)
    d = x - x.mean(axis=2, keepdims=True)
    cov = np.einsum("kcp,kdp->kcd", d, d) / d.shape[2]
    axis = np.linalg.eigh(cov)[1][:, :, -1]                        # (N, 3), largest eigenvalue
    proj = np.einsum("kcp,kc->kp", d, axis)
    proj *= np.where(np.median(proj, axis=1, keepdims=True) >= 0, 1.0, -1.0)
    lo, hi = np.percentile(proj, (2, 98), axis=1, keepdims=True)
    out = np.clip((proj - lo) / np.maximum(hi - lo, 1e-3), 0, 1).astype(np.float32)
    return np.repeat(out.reshape(n, 1, *crops.shape[2:]), 3, axis=1)


def turned_over(crops: np.ndarray, theta: float) -> np.ndarray:
    """Classifier input ``(N, 3, S, S) float32`` mirrored in the line through each crop's centre
    at ``theta`` radians (image coordinates, y down): 0 turns a crop over top to bottom, pi/2
    left to right. What lies outside the square after the turn is mid-grey padding."""
    n, size = crops.shape[0], crops.shape[2]
    if n == 0:
        return crops.copy()
    c2, s2 = np.cos(2 * theta), np.sin(2 * theta)
    mid = (size - 1) / 2
    m = np.array([[c2, s2, mid - c2 * mid - s2 * mid], [s2, -c2, mid - s2 * mid + c2 * mid]], np.float32)
    out = np.empty_like(crops)
    for i in range(n):
        img = np.ascontiguousarray(crops[i].transpose(1, 2, 0))
        out[i] = cv2.warpAffine(img, m, (size, size), flags=cv2.INTER_LINEAR,
                                borderValue=(PAD_VALUE / 255.0,) * 3).transpose(2, 0, 1)
    return out
