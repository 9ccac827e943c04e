"""Read the tiles in a photo: YOLO detector (ONNX) + crop classifier (ONNX), onnxruntime only.

Two stages (see ``models/README.md``): the detector finds every tile and tells face-up
(``tile``) from face-down (``back``); the classifier names each box from a crop cut out of the
full-resolution photo, where red fives are still red. A 46-class detector (class names equal
to ``vision.read.classes.TILE_CLASSES``) also works, with or without the classifier.

Post-processing follows the ultralytics YOLOv8 ONNX export: the input is an RGB letterboxed
square (grey 114 padding) scaled to 0..1; the output is ``(1, 4 + nc, N)``: box centre x, y,
width, height in letterbox pixels, then one sigmoid score per class. The functions
``letterbox``, ``decode_yolo``, ``nms``, ``unletterbox_boxes``, ``mark_sideways`` and
``reading_order`` are pure numpy and tested on hand-computed cases.
"""
from __future__ import annotations

import ast
import copy
import os
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from .classes import CLASS_INDEX, TILE_CLASSES
from .detections import MAX_BOXES, SECOND_LOOKS, Detection, Detections
from .reflections import reflections
from .tile_counts import assign_within_counts
from .tile_crops import contrast_crops, crop_boxes, to_tensor, turned_over
from .tileset import SURE as SET_SURE, References, combine, fingerprint, looks
from .zoom import blind_windows, cut_by_window, plan_windows, span, within

WEIGHTS_DIR = Path(__file__).resolve().parent.parent / "weights"
DETECTOR_FILE = "detector.onnx"
CLASSIFIER_FILE = "classifier.onnx"
# A crop this sure after two turns skips the other two (TileReader.classify).
SURE_AFTER_TWO_TURNS = 0.95
# A photo whose tiles the colour views name unsurely is looked at again in contrast views
# (TileReader.classify): an unfamiliar set is read by its shapes, where its body and ink colours
# mislead a classifier that learnt the training sets' colours. Median top probability of a
# photo's crops: held-out jade 0.25 (90% of photos under 0.58), riichi-regular 0.95 (10% under
# 0.79), riichi-black 0.92 (models/README.md).
CONTRAST_VIEWS = True
CONTRAST_BELOW = 0.6
LETTERBOX_PAD = 114          # ultralytics' padding grey
# Closer looks after the first: tiles the first pass missed at the ends of a row, found by the
# zoomed pass, can lie outside its windows' margin; the windows are planned again (at most this
# many times) while they reach further.
ZOOM_AGAIN = 1
# With a set profile, detector boxes from CONFIRM_FROM up are looked at, and one under the
# reader's threshold is kept when the set decides its kind and its nearest reference is at least
# CONFIRM_ALIKE alike (a clear tile standing apart at a row's end scored 0.21 against 0.25).
CONFIRM_FROM = 0.1
CONFIRM_ALIKE = 0.85
SIDEWAYS_RATIO = 1.25        # box aspect / row's typical aspect above which a tile lies sideways


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the square model input: ``scale`` then ``(pad_x, pad_y)``."""

    scale: float
    pad_x: int
    pad_y: int


def letterbox(image_bgr: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
    """Fit ``(H, W, 3) uint8`` BGR into a ``size`` square, keeping aspect, centred, grey padding.

    Same arithmetic as ultralytics' ``LetterBox`` (scale ``r = min(size/H, size/W)``, resized to
    ``round(W r) x round(H r)``, padding split ``round(d/2 -/+ 0.1)``). Returns the model input
    ``(1, 3, size, size) float32`` RGB in 0..1 and the ``Letterbox`` to map boxes back.
    """
    h, w = image_bgr.shape[:2]
    r = min(size / h, size / w)
    nw, nh = max(1, int(round(w * r))), max(1, int(round(h * r))) # a 2x3000 photo too
    dw, dh = (size - nw) / 2, (size - nh) / 2
    left, top = int(round(dw - 0.1)), int(round(dh - 0.1))
    resized = image_bgr if (nw, nh) == (w, h) else cv2.resize(image_bgr, (nw, nh),
                                                               interpolation=cv2.INTER_LINEAR)
    canvas = np.full((size, size, 3), LETTERBOX_PAD, np.uint8)
    canvas[top:top + nh, left:left + nw] = resized
    blob = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return np.ascontiguousarray(blob), Letterbox(r, left, top)


def decode_yolo(output: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """YOLOv8 raw output ``(1, 4 + nc, N)`` -> boxes ``(K, 4)`` x1 y1 x2 y2 (letterbox pixels),
    scores ``(K,)`` and class ids ``(K,)`` of the candidates whose best class score >= ``conf``.

    Raises ``ValueError`` when the array is not shaped ``(1, 4 + nc, N)`` with ``nc >= 1``.
    """
    out = np.asarray(output)
    if out.ndim != 3 or out.shape[0] != 1 or out.shape[1] < 5:
        raise ValueError(f"expected YOLO output (1, 4+nc, N), got {out.shape}")
    pred = out[0].T                                    # (N, 4 + nc)
    cls_scores = pred[:, 4:]
    class_ids = cls_scores.argmax(axis=1)
    scores = cls_scores[np.arange(len(pred)), class_ids]
    keep = scores >= conf
    cx, cy, w, h = pred[keep, :4].T
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1).astype(np.float32)
    return boxes.reshape(-1, 4), scores[keep].astype(np.float32), class_ids[keep].astype(np.int64)


def decode_end2end(output: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NMS-free export output ``(1, K, 6)``: x1 y1 x2 y2 (letterbox pixels), score, class id
    (ultralytics ``end2end`` models) -> the same triple as ``decode_yolo``. Raises ValueError
    for an output of another shape."""
    out = np.asarray(output)
    if out.ndim != 3 or out.shape[0] != 1 or out.shape[2] != 6:
        raise ValueError(f"expected end-to-end output (1, K, 6), got {out.shape}")
    pred = out[0][out[0][:, 4] >= conf]
    return (pred[:, :4].astype(np.float32), pred[:, 4].astype(np.float32),
            pred[:, 5].round().astype(np.int64))


def box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """IoU of one ``(4,)`` box with ``(K, 4)`` boxes, all x1 y1 x2 y2."""
    ix1 = np.maximum(box[0], boxes[:, 0])
    iy1 = np.maximum(box[1], boxes[:, 1])
    ix2 = np.minimum(box[2], boxes[:, 2])
    iy2 = np.minimum(box[3], boxes[:, 3])
    inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / np.maximum(area + areas - inter, 1e-9)


def _best(boxes: np.ndarray, scores: np.ndarray, cls: np.ndarray,
          most: int = MAX_BOXES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``most`` best-scored boxes (all of them when there are no more)."""
    if len(scores) <= most:
        return boxes, scores, cls
    keep = np.sort(np.argsort(-scores, kind="stable")[:most])
    return boxes[keep], scores[keep], cls[keep]


def nms(boxes: np.ndarray, scores: np.ndarray, class_ids: np.ndarray | None = None,
        iou: float = 0.5) -> np.ndarray:
    """Greedy non-maximum suppression of ``boxes`` ``(K, 4)`` x1 y1 x2 y2 with ``scores``
    ``(K,)`` (and ``class_ids`` ``(K,)``, or None for one class); returns the kept indices
    ``(M,)`` int, best score first.

    A box is dropped when it overlaps a better box *of the same class* by IoU > ``iou``
    (class-aware); pass ``class_ids=None`` to suppress across classes.
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    order = np.argsort(-np.asarray(scores), kind="stable")
    cls = np.zeros(len(boxes), np.int64) if class_ids is None else np.asarray(class_ids)
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        overlap = box_iou(boxes[i], boxes[rest])
        order = rest[~((overlap > iou) & (cls[rest] == cls[i]))]
    return np.asarray(keep, np.int64)


def unletterbox_boxes(boxes: np.ndarray, lb: Letterbox, width: int, height: int) -> np.ndarray:
    """Letterbox-pixel boxes ``(K, 4)`` -> original-image pixels, clipped to ``width x height``."""
    out = np.asarray(boxes, np.float64).reshape(-1, 4).copy()
    out[:, [0, 2]] = (out[:, [0, 2]] - lb.pad_x) / lb.scale
    out[:, [1, 3]] = (out[:, [1, 3]] - lb.pad_y) / lb.scale
    out[:, [0, 2]] = out[:, [0, 2]].clip(0, width)
    out[:, [1, 3]] = out[:, [1, 3]].clip(0, height)
    return out


def _rows(boxes: np.ndarray) -> list[list[int]]:
    """Group boxes into rows: sorted by centre y, a new row starts when the centre jumps by more
    than 0.6 median tile heights from the previous tile's (a chain, so a slightly tilted row and a
    sideways tile sitting lower stay in their row)."""
    if len(boxes) == 0:
        return []
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    short = np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    gap = 0.6 * float(np.median(np.maximum(boxes[:, 3] - boxes[:, 1], short)))
    rows: list[list[int]] = []
    for i in np.argsort(cy, kind="stable"):
        if rows and cy[i] - cy[rows[-1][-1]] <= gap:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return rows


def reading_order(boxes: np.ndarray) -> np.ndarray:
    """Indices of ``(K, 4)`` boxes ordered left to right within rows, rows top to bottom."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    cx = (boxes[:, 0] + boxes[:, 2]) / 2
    return np.asarray([i for row in _rows(boxes) for i in sorted(row, key=lambda j: cx[j])],
                      np.int64)


def mark_sideways(boxes: np.ndarray, ratio: float = SIDEWAYS_RATIO) -> np.ndarray:
    """``(K,) bool``: a box is sideways when its aspect (w/h) is ``ratio`` times its row's median.

    An upright tile's face is about 3:4 and a turned one's 4:3, a factor of 1.78 that a low camera
    angle does not change (it squeezes both alike); boxes that include the tile's thickness
    shrink the factor (1.35-1.5 on the bundled rendered hands), while upright tiles of one row
    stay within 1.15 of the median, hence 1.25. A row of one or two tiles has no typical aspect;
    its tiles count as sideways only when wider than 1.2 times their height. The layout parser
    may refine this with the meld structure.
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    aspect = (boxes[:, 2] - boxes[:, 0]) / np.maximum(boxes[:, 3] - boxes[:, 1], 1e-9)
    out = np.zeros(len(boxes), bool)
    for row in _rows(boxes):
        a = aspect[row]
        if len(row) >= 3:
            out[row] = a > ratio * np.median(a)
        else:
            out[row] = a > 1.2
    return out


class ModelError(RuntimeError):
    """The ONNX weights are missing or not the shape this reader expects."""


def _session(path: Path, threads: int):
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"model file {path} not found")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # Spinning worker threads burn a core while idle; on a 2-core laptop shared with the
    # stream reader and the server, turning it off halved the detector's wall time.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # onnxruntime's arena keeps the largest buffers any photo needed for the life of the
    # process: without it `tilescope serve` idled at 187 MB after a burst of 32 photos, not
    # 274 MB, and a photo read in the same time (0.09 s against 0.08 s, within the noise)
    opts.enable_cpu_mem_arena = False
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelError(f"cannot load {path}: {exc}") from exc


def _detector_names(session) -> list[str]:
    meta = session.get_modelmeta().custom_metadata_map
    if "names" in meta:  # ultralytics writes "{0: 'tile', 1: 'back'}"
        names = ast.literal_eval(meta["names"])
        return [names[k] for k in sorted(names)]
    nc = session.get_outputs()[0].shape[1] - 4
    if nc == len(TILE_CLASSES):
        return list(TILE_CLASSES)
    if nc == 2:
        return ["tile", "back"]
    raise ModelError(f"detector has {nc} classes and no 'names' metadata")


class TileReader:
    """Finds and names the tiles in a photo. Sessions are loaded once; ``read`` is thread-safe.

    ``weights_dir``: folder with ``detector.onnx`` and (for a tile/back detector)
    ``classifier.onnx``; default the bundled ``vision/weights``. ``conf``: minimum detector
    score. ``iou``: NMS overlap threshold. ``imgsz``: detector input side in pixels (default:
    the model's own). ``threads``: onnxruntime threads per session (default: CPU count, at most 4).
    ``turns``: 1, 2 or 4 — the classifier sees each crop under that many quarter turns (0°,
    180°, then 90° and 270°) and the log-probabilities are averaged. It was trained on all four
    turns, so each is a fair second opinion; 4 turns lifted per-tile F1 on the real photos from
    0.852 to 0.881 (models/README.md) for ~4× the classifier's share of the time. With 4,
    a crop already sure after the first two turns is not turned further.
    ``zoom``: when the tiles found are small in the detector's input (a broadcast frame), look
    again at their area through enlarged windows (``vision.read.zoom``); costs one detector pass
    per window, only on such photos. ``counts``: name the tiles so that none is named more
    often than one set holds (``vision.read.tile_counts``: four of a tile, one of each flower, one
    red five per suit); the classifier's surplus names go to each tile's next guess.
    ``contrast``: look again at a photo whose tiles are named unsurely in contrast views (each
    tile as dark ink on a light body; :meth:`classify`, ``CONTRAST_BELOW``).
    ``mirrors``: leave out boxes that are a tile's reflection in a glass table top
    (:func:`vision.read.reflections.reflections`; they are listed in ``Detections.reflections``).
    Raises ``ModelError`` when a model is missing or malformed, ``ValueError`` for bad ``turns``.
    """

    # without a set profile (with_set); class defaults, so a reader made without __init__ has them
    embeds = False          # the classifier gives an ``embedding`` output
    model_id = ""           # the classifier's fingerprint (vision.read.tileset.fingerprint)
    tileset = references = None
    confirm_below = 0.0     # with a set: boxes under this score need its word

    def __init__(self, weights_dir: str | os.PathLike | None = None, conf: float = 0.25,
                 iou: float = 0.5, imgsz: int | None = None, threads: int | None = None,
                 turns: int = 4, zoom: bool = True, counts: bool = True,
                 contrast: bool = CONTRAST_VIEWS, mirrors: bool = True):
        if turns not in (1, 2, 4):
            raise ValueError(f"turns must be 1, 2 or 4, not {turns!r}")
        self.turns, self.zoom, self.counts, self.contrast = turns, zoom, counts, contrast
        self.mirrors = mirrors
        folder = Path(weights_dir) if weights_dir else WEIGHTS_DIR
        if not folder.is_dir():
            raise ModelError(f"weights folder {folder} not found")
        threads = threads or max(1, min(4, os.cpu_count() or 1))
        self.conf, self.iou = conf, iou
        self.detector = _session(folder / DETECTOR_FILE, threads)
        self.names = _detector_names(self.detector)
        meta = self.detector.get_modelmeta().custom_metadata_map
        self.end2end = meta.get("end2end", "False") == "True"
        shape = self.detector.get_inputs()[0].shape
        model_size = shape[2] if isinstance(shape[2], int) else None
        self.imgsz = int(imgsz or model_size or 640)
        if model_size and imgsz and imgsz != model_size:
            raise ModelError(f"detector takes {model_size} px input, not imgsz={imgsz}")
        self.single_stage = self.names == list(TILE_CLASSES)
        cls_path = folder / CLASSIFIER_FILE
        if self.single_stage and not cls_path.is_file():
            self.classifier = None
        else:
            self.classifier = _session(cls_path, threads)
            out = self.classifier.get_outputs()[0].shape
            if out[-1] != len(TILE_CLASSES):
                raise ModelError(f"classifier gives {out[-1]} classes, expected {len(TILE_CLASSES)}")
            self.crop_size = int(self.classifier.get_inputs()[0].shape[2])
            # a second output ``embedding`` (N, D): what set profiles compare (vision.read.tileset)
            self.embeds = [o.name for o in self.classifier.get_outputs()[1:2]] == ["embedding"]
            self.model_id = fingerprint(cls_path)

    def with_set(self, tileset) -> "TileReader":
        """This reader naming tiles with the help of a set profile (:mod:`vision.read.tileset`); the
        models are shared, not loaded again. References embedded by another classifier are
        embedded anew from their crops. ``None``: the reader without a profile.
        Raises ``ModelError`` when the classifier gives no embedding."""
        reader = copy.copy(self)
        reader.tileset = reader.references = None
        reader.conf, reader.confirm_below = max(self.conf, self.confirm_below), 0.0
        if tileset is None or len(tileset) == 0:
            return reader
        if self.classifier is None or not self.embeds:
            raise ModelError("this classifier gives no embedding output, which a set profile needs "
                             "(re-export it with models/train_classifier.py)")
        if tileset.model != self.model_id:
            tileset = replace(tileset, embeddings=self.embed(tileset.crops), model=self.model_id,
                              calibration=None)
        if tileset.calibration is None:     # a version-1 profile, or another classifier's
            from .set_learning import calibrated

            tileset = calibrated(self, tileset)
        altered, index = looks(tileset.crops)
        reader.tileset = tileset
        # boxes down to CONFIRM_FROM are looked at; those under the reader's own threshold are
        # kept only when the set confirms them (TileReader._read)
        reader.conf, reader.confirm_below = min(reader.conf, CONFIRM_FROM), reader.conf
        reader.references = References(np.array([CLASS_INDEX[k] for k in tileset.kinds])[index],
                                       self.embed(altered))
        return reader

    def reference_probs(self, squares_bgr: np.ndarray) -> np.ndarray:
        """The classifier's probabilities ``(N, 46)`` for reference crops ``(N, S, S, 3) uint8``
        BGR (upright, as a sheet lies): the mean of the 0° and 180° views, as a sheet is read."""
        tensors = to_tensor(squares_bgr)
        logp = self._log_probs([tensors, tensors[:, :, ::-1, ::-1]]).mean(axis=0)
        out = np.exp(logp - logp.max(axis=1, keepdims=True))
        return out / out.sum(axis=1, keepdims=True)

    def embed(self, squares_bgr: np.ndarray) -> np.ndarray:
        """Embeddings ``(N, D)`` of crops ``(N, S, S, 3) uint8`` BGR as :func:`crop_boxes` cuts them."""
        return self._views([to_tensor(squares_bgr)])[1][0]

    def detect(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Detector only: boxes ``(K, 4)`` in image pixels, scores ``(K,)``, class ids ``(K,)``.

        One pass over the whole photo; with ``zoom``, small tiles are looked at again through
        the windows of :func:`vision.read.zoom.plan_windows` and those windows' boxes replace the
        first pass's (a tile cut by a window's inner edge is taken from its neighbour); the
        windows are planned once more from those boxes if they reach beyond. When
        the first pass finds nothing in a large frame, a coarse grid
        (:func:`vision.read.zoom.blind_windows`) looks for tiles first.
        """
        return self._detect(image_bgr)[:3]

    def _detect(self, image_bgr: np.ndarray, hint: tuple = ()) -> tuple:
        """:meth:`detect`, and the windows whose boxes were kept (``()``: the first pass's).
        ``hint``: windows to look through first instead of a pass over the whole image (the
        previous frame's, in a stream); they are checked as a first pass's boxes would be."""
        h, w = image_bgr.shape[:2]
        seen = None        # the span of the windows looked through so far
        kept: tuple = ()
        if hint and self.zoom:
            boxes, scores, cls = self._detect_windows(image_bgr, list(hint))
            if len(boxes):
                seen, kept = span(hint), tuple(hint)
        if seen is None:
            boxes, scores, cls = self._detect_once(image_bgr)
            if not self.zoom:
                return (*_best(boxes, scores, cls), ())
            if len(boxes) == 0:
                coarse = blind_windows(w, h, self.imgsz)
                if coarse:
                    boxes, scores, cls = self._detect_windows(image_bgr, coarse)
        for _ in range(1 + ZOOM_AGAIN):
            windows = plan_windows(boxes, w, h, self.imgsz)
            if not windows or (seen is not None and within(span(windows), seen)):
                break
            found = self._detect_windows(image_bgr, windows)
            if len(found[0]) == 0:      # a closer look that sees nothing is no better
                break
            boxes, scores, cls = found
            kept = tuple(windows)
            seen = span(windows) if seen is None else span([seen, span(windows)])
            if len(boxes) >= MAX_BOXES:     # grain read as tiles (Detections.crowded): no closer look
                break
        return (*_best(boxes, scores, cls), kept)

    def _detect_windows(self, image_bgr: np.ndarray, windows: list[tuple[int, int, int, int]]
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One pass per window (image pixels); boxes cut by an inner window edge are dropped
        (the overlapping neighbour sees the tile whole), the rest merged by NMS."""
        h, w = image_bgr.shape[:2]
        parts = []
        for win in windows:
            x1, y1, x2, y2 = win
            b, s, c = _best(*self._detect_once(image_bgr[y1:y2, x1:x2]))   # grain: no NMS of thousands
            b = b + np.array([x1, y1, x1, y1], np.float64)
            whole = ~cut_by_window(b, win, w, h)
            parts.append((b[whole], s[whole], c[whole]))
        boxes = np.concatenate([p[0] for p in parts]).reshape(-1, 4)
        scores = np.concatenate([p[1] for p in parts])
        cls = np.concatenate([p[2] for p in parts])
        keep = nms(boxes, scores, None, self.iou)
        return boxes[keep], scores[keep], cls[keep]

    def _detect_once(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One detector pass over the whole of ``image_bgr`` (letterboxed to ``imgsz``)."""
        h, w = image_bgr.shape[:2]
        blob, lb = letterbox(image_bgr, self.imgsz)
        raw = self.detector.run(None, {self.detector.get_inputs()[0].name: blob})[0]
        decode = decode_end2end if self.end2end else decode_yolo
        boxes, scores, cls = decode(raw, self.conf)
        # one physical tile has one class, so a tile box and a back box on it compete
        keep = nms(boxes, scores, None, self.iou)
        return unletterbox_boxes(boxes[keep], lb, w, h), scores[keep], cls[keep]

    def classify(self, image_bgr: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Class probabilities ``(K, 46)`` (``TILE_CLASSES`` order) for boxes in image pixels.

        With 4 turns, a crop already named with at least ``SURE_AFTER_TWO_TURNS`` after 0° and
        180° is not turned further: on 538 crops of the real photos and samples, 46% were that
        sure and the other two turns changed none of their names (models/README.md).

        With ``contrast``, a photo whose tiles the colour views name unsurely (median top
        probability under ``CONTRAST_BELOW``: a tile design unlike the training sets) is looked
        at again in :func:`vision.read.tile_crops.contrast_crops` views (0° and 180°), averaged with
        the colour views, each five's red-or-not share taken from the colour views alone
        (:func:`_red_split`); so ``boxes`` should be all the tiles of one photo.

        With a set profile (:meth:`with_set`), each crop is also named by its likeness to the
        set's references (:func:`vision.read.tileset.combine`); a crop the set names surely needs no
        further turns, and counts as sure for the contrast views' median."""
        probs, likeness = self._classify(image_bgr, boxes)
        return probs if likeness is None else combine(probs, likeness, self.tileset.calibration)[0]

    def _classify(self, image_bgr: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """:meth:`classify` before the set profile's word: the classifier's probabilities
        ``(K, 46)`` and the crops' likeness to the set's kinds (``None`` without a set)."""
        if len(boxes) == 0:
            return np.zeros((0, len(TILE_CLASSES)), np.float32), None
        crops = crop_boxes(image_bgr, boxes, self.crop_size)      # (K, 3, S, S)
        logp, emb = self._views([crops, crops[:, :, ::-1, ::-1]][:self.turns])
        logp = logp.mean(axis=0)
        sure = logp.max(axis=1) >= np.log(SURE_AFTER_TWO_TURNS)
        likeness = None
        if self.references is not None:
            likeness = self.references.likeness(emb)
            by_set, decided = combine(np.exp(logp), likeness, self.tileset.calibration)
            # a learned look needs no more turns, but a blank face against a profile without
            # backs does: the set cannot tell it from a back (vision.read.tileset.combine)
            blank = (by_set.argmax(axis=1) == CLASS_INDEX["5z"]) & (likeness[0, CLASS_INDEX["back"]] == -1)
            sure |= decided & (by_set.max(axis=1) >= SET_SURE) & ~blank
        if self.turns == 4:
            unsure = np.flatnonzero(~sure)
            if len(unsure):
                rest, rest_emb = self._views([np.rot90(crops[unsure], k, (2, 3)) for k in (1, 3)])
                logp[unsure] = (logp[unsure] + rest.mean(axis=0)) / 2   # the mean over all four
                if likeness is not None:     # a sideways tile is like its references turned
                    likeness[unsure] = np.maximum(likeness[unsure], self.references.likeness(rest_emb))
        # log of each crop's top probability once the views' mean is normalised
        top = -np.log(np.exp(logp - logp.max(axis=1, keepdims=True)).sum(axis=1))
        colour = logp
        if likeness is not None:      # the set's references named most crops: no contrast views
            top = np.where(sure, 0.0, top)
        look_again = self.contrast and np.median(top) < np.log(CONTRAST_BELOW)
        if look_again:
            contrast = contrast_crops(crops)
            views = [contrast, contrast[:, :, ::-1, ::-1]][:max(1, self.turns // 2)]
            logp = (colour + self._log_probs(views).mean(axis=0)) / 2
        out = np.exp(logp - logp.max(axis=1, keepdims=True))
        out /= out.sum(axis=1, keepdims=True)
        return (_red_split(out, colour) if look_again else out), likeness

    def _views(self, turned: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray | None]:
        """Log-probabilities ``(V, K, 46)`` of the same K crops seen in V views, and their
        embeddings ``(V, K, D)`` (None when the classifier gives none)."""
        batch = np.ascontiguousarray(np.concatenate(turned))
        name = self.classifier.get_inputs()[0].name
        outs = [self.classifier.run(None, {name: batch[i:i + 64]}) for i in range(0, len(batch), 64)]
        v, k = len(turned), len(turned[0])
        probs = np.concatenate([o[0] for o in outs])
        logp = np.log(probs.reshape(v, k, -1) + 1e-6)
        if not self.embeds:
            return logp, None
        return logp, np.concatenate([o[1] for o in outs]).reshape(v, k, -1)

    def _log_probs(self, turned: list[np.ndarray]) -> np.ndarray:
        """Log-probabilities ``(V, K, 46)`` of the same K crops seen in V views."""
        return self._views(turned)[0]

    def read(self, image_bgr: np.ndarray, windows: tuple = ()) -> Detections:
        """All tiles in an ``(H, W, 3) uint8`` BGR photo, in reading order (see module doc).

        ``windows``: zoom windows to look through first, as an earlier
        :attr:`Detections.windows` of the same scene gave them (a stream's previous frame):
        that frame's tiles are seen without a pass over the whole image. When they show no
        tile the image is read as usual; tiles that came into view outside them are found
        by the next read without ``windows``."""
        return self._read(image_bgr, windows)

    def look_again(self, image_bgr: np.ndarray, how: str) -> Detections:
        """:meth:`read` once more, the detector looking at the photo another way, for when the
        tiles first found do not add up (:data:`SECOND_LOOKS`): ``"x"`` mirrored left to
        right, ``"y"`` top to bottom. Its boxes are mirrored back and the tiles named from the
        photo as it is. In a tight, foreshortened row the detector's boxes depend on which way
        the row runs: on 15 rendered hands whose boxes did not add up, the left-right mirror
        found exactly the tiles in 7 (models/README.md). Raises ValueError for another ``how``."""
        if how not in SECOND_LOOKS:
            raise ValueError(f"how must be one of {', '.join(SECOND_LOOKS)}, not {how!r}")
        return self._read(image_bgr, (), flip=how)

    def _read(self, image_bgr: np.ndarray, windows: tuple = (), flip: str = "") -> Detections:
        """:meth:`read`; ``flip`` (``"x"``, ``"y"``): detect on the photo mirrored so."""
        h, w = image_bgr.shape[:2]
        if flip:
            flipped = np.ascontiguousarray(image_bgr[:, ::-1] if flip == "x" else image_bgr[::-1])
            boxes, det_scores, det_cls, used = self._detect(flipped)
            boxes = _flipped_back(boxes, flip, w, h)
            used = tuple(tuple(int(v) for v in b) for b in _flipped_back(used, flip, w, h))
        else:
            boxes, det_scores, det_cls, used = self._detect(image_bgr, tuple(windows))
        if len(boxes) >= MAX_BOXES:     # no hand: not worth seconds of naming (Detections.crowded)
            return Detections(width=w, height=h, tiles=[], windows=used, crowded=len(boxes))
        mirrored: tuple = ()
        if self.classifier is not None:
            if self.references is None:
                probs, likeness = self.classify(image_bgr, boxes), None
            else:
                probs, likeness = self._classify(image_bgr, boxes)
            if not self.single_stage:
                probs = _merge_back(probs, det_cls, self.names)
            if likeness is not None:   # after the detector's back call: a haku the set holds stays one
                probs, decided = combine(probs, likeness, self.tileset.calibration)
                weak = det_scores < self.confirm_below
                if weak.any():         # a box under the threshold is a tile if the set knows it
                    sure = decided & (likeness.max(axis=1) >= CONFIRM_ALIKE)
                    keep = ~weak | sure
                    det_scores = np.where(weak & sure, likeness.max(axis=1), det_scores)
                    boxes, det_scores, det_cls, probs = boxes[keep], det_scores[keep], det_cls[keep], probs[keep]
            if self.mirrors:
                gone = reflections(image_bgr, boxes, probs.argmax(axis=1),
                                   lambda idx, theta: self._turned_over(image_bgr, boxes[idx], theta),
                                   mark_sideways(boxes))
                mirrored = tuple(tuple(float(v) for v in b) for b in boxes[gone])
                boxes, det_scores, probs = boxes[~gone], det_scores[~gone], probs[~gone]
        else:  # single-stage detector: its class scores are the only opinion
            probs = np.zeros((len(boxes), len(TILE_CLASSES)), np.float32)
            probs[np.arange(len(boxes)), det_cls] = 1.0
        sideways = mark_sideways(boxes)
        names = assign_within_counts(probs) if self.counts else probs.argmax(axis=1)
        tiles = []
        for i in reading_order(boxes):
            best = int(names[i])
            top = [int(j) for j in np.argsort(-probs[i])[:4] if j != best][:3]
            conf = float(det_scores[i]) * float(probs[i, best])
            alts = tuple((TILE_CLASSES[j], round(float(det_scores[i] * probs[i, j]), 4))
                         for j in top if probs[i, j] > 0.001)
            tiles.append(Detection(tile=TILE_CLASSES[best], box=tuple(float(v) for v in boxes[i]),
                                   confidence=conf, sideways=bool(sideways[i]),
                                   alternatives=alts[:3]))
        return Detections(width=w, height=h, tiles=tiles, windows=used, reflections=mirrored)

    def _turned_over(self, image_bgr: np.ndarray, boxes: np.ndarray, theta: float) -> np.ndarray:
        """The class index ``(K,)`` of each box read turned over across a row at ``theta``
        radians (mirrored in a line along the row), as a mirror image in the table top would be
        put right; the mean of the 0° and 180° views."""
        crops = turned_over(crop_boxes(image_bgr, boxes, self.crop_size), theta)
        logp = self._log_probs([crops, crops[:, :, ::-1, ::-1]]).mean(axis=0)
        return logp.argmax(axis=1)


def _flipped_back(boxes, axis: str, width: int, height: int) -> np.ndarray:
    """Boxes ``(K, 4)`` found in a photo mirrored along ``axis`` (``x`` or ``y``), mapped back."""
    out = np.array(boxes, np.float64).reshape(-1, 4)
    if axis == "x":
        out[:, [0, 2]] = width - out[:, [2, 0]]
    else:
        out[:, [1, 3]] = height - out[:, [3, 1]]
    return out


_FIVE_PAIRS = tuple((TILE_CLASSES.index(f"5{s}"), TILE_CLASSES.index(f"0{s}")) for s in "mps")


def _red_split(probs: np.ndarray, colour_logp: np.ndarray) -> np.ndarray:
    """``probs`` (K, 46) with each suit's five-or-red-five total kept and shared out as the
    colour views say (``colour_logp`` (K, 46)): a contrast view sees a five but not its red."""
    colour = np.exp(colour_logp)
    for five, red in _FIVE_PAIRS:
        total = probs[:, five] + probs[:, red]
        share = colour[:, red] / (colour[:, red] + colour[:, five] + 1e-12)
        probs[:, red] = total * share
        probs[:, five] = total - probs[:, red]
    return probs


def _merge_back(probs: np.ndarray, det_cls: np.ndarray, names: list[str]) -> np.ndarray:
    """Combine the detector's tile/back call with the classifier's 46 probabilities.

    The classifier sees the box at full resolution and may overrule the detector either way,
    but a detector ``back`` call halves every face probability first, so a blurry back is not
    named a haku (a blank face) on the classifier's word alone.
    """
    if "back" not in names:
        return probs
    back_id, back_col = names.index("back"), TILE_CLASSES.index("back")
    out = probs.copy()
    is_back = det_cls == back_id
    out[is_back] *= 0.5
    out[is_back, back_col] += 0.5
    return out
