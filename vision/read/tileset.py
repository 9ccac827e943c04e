"""Set profiles: what the tiles of one physical set look like, learned from a photo of it.

A user plays with one set. The classifier was trained on other sets, and where it errs on a
new one it errs the same way every time (a blank haku read as a back, 1s as 2p). A profile
holds a few reference crops per kind of the user's own set and their ``embedding`` (the
classifier's pooled, L2-normalised features, a second output of ``classifier.onnx``); a crop
of that set is then named by the references it is most like, beside the classifier's own
reading (:func:`combine`), with a weight decided for this set when it is learned
(:func:`calibrate`: how surely the classifier names the set's own references, how far apart
the features hold its kinds). Kinds the profile lacks keep the classifier's reading.

The profile file (``.npz``, no pickles; ``docs/sets.md``): ``meta`` (JSON text: format,
version, name, the classifier's fingerprint, one kind and one source per reference, the
calibration), ``crops`` ``(N, 48, 48, 3) uint8`` BGR as the classifier sees them (so a later
model can embed them anew) and ``embeddings`` ``(N, D) float16`` for the classifier named in
``meta``.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .classes import CLASS_INDEX, TILE_CLASSES
from .set_sheet import DEFAULT_SHEET, FLOWER_SHEET, NAME_PATTERN, SetError, is_name  # noqa: F401 - public here

BACK = CLASS_INDEX["back"]
FIVES = tuple((CLASS_INDEX[f"5{s}"], CLASS_INDEX[f"0{s}"]) for s in "mps")

FORMAT = "tilescope-set"
VERSION = 2                     # 2: the set's calibration kept in meta; 1 still reads
MAX_REFERENCES = 2000           # a profile is a few crops per kind; this bounds a crafted file

# How a crop's likeness to the references joins the classifier's reading (:func:`combine`): a
# log-linear rule, each kind's log-probability plus the set's weight times its likeness less
# the most alike kind's. The weight is decided per set when it is learned (:func:`calibrate`),
# from how surely the classifier names the set's own references: a look it was trained on
# (rendered riichi sets: 0.96-0.98 on their own kind) keeps the classifier's word, a set it
# never saw (real sets 0.67-0.79, procedural sets 0.7-0.8) lets the references decide.
# Tuned on 20 procedural sets and held-out jade (benchmarks.set_unseen), guarded on the
# training styles (models/README.md, "Set profiles").
# The set's weight rises from WEIGHT_FAMILIAR to WEIGHT_UNFAMILIAR as the classifier's mean
# probability of each reference's own kind falls from FAMILIAR to UNFAMILIAR (the rendered
# training styles 0.95-0.98; real and procedural sets 0.65-0.84), and falls back as that mean
# falls on from LOST_ABOVE to LOST_AT: a set the classifier is lost on is one its features (the
# same network's) do not hold apart either (procedural sets at 0.42-0.59 and jade: their
# nearest reference names 42-64% of crops, the classifier 52-77%). Chosen on the crops of 20
# procedural sets, jade and the real crops (benchmarks.set_unseen --evidence): with these, the
# profile names at least as many tiles as the better of its two witnesses on every one of them.
FAMILIAR, UNFAMILIAR = 0.97, 0.80
LOST_ABOVE, LOST_AT = 0.65, 0.55
WEIGHT_FAMILIAR, WEIGHT_UNFAMILIAR = 10.0, 30.0
# How far apart the features hold a set's kinds: the 10th percentile over its references of
# 1 - the cosine to the nearest reference of another kind; a misread kind weighs more as this
# rises from SEPARATE_LOW to SEPARATE_HIGH (procedural sets 0.08-0.22, real crops 0.23-0.28).
SEPARATE_LOW, SEPARATE_HIGH = 0.20, 0.26
# A sheet the classifier reads surely as other kinds than named is doubted: its pictures weigh
# nothing. Measured as the mean over references of (the classifier's top probability - its
# probability of the kind named), from CONTRADICTED_LOW (still full weight) to CONTRADICTED_HIGH
# (none). An unfamiliar set leaves the classifier unsure (procedural sets 0.01-0.12, real crops
# 0.02-0.11; jade 0.03); a sheet unlike the set's hands, or named in another order, leaves it
# sure of other kinds (procedural-14 and -103: 0.34 and 0.35, their nearest reference right on
# 46% and 36% of the hands' tiles where the classifier names 65% and 75%).
CONTRADICTED_LOW, CONTRADICTED_HIGH = 0.20, 0.30
# A kind whose own reference the classifier misreads: a crop most like it is the set's to name.
OVERRULE = 60.0
MISREAD_BELOW = 0.5
# A kind the profile lacks (flowers, a back) counts as this much less alike than the most
# alike kind, but at least UNLIKE_SET: a crop unlike every reference is left to the classifier.
UNHELD_GAP = 0.15
UNLIKE_SET = 0.6
# The set's word makes the joined reading surer than it is right: on the procedural sets' crops
# 36% of the profile's wrong tiles were named with 0.6 or more, against 13% of the classifier's,
# and a sure tile is not looked at again when the hand is not complete (vision.joint_fix) nor
# listed as unsure. The joined log-probabilities are tempered, by 1 at WEIGHT_FAMILIAR rising to
# TEMPER at WEIGHT_UNFAMILIAR (the weight of the crop's most alike kind); the kind named does
# not change. Procedural sets 0-9 (benchmarks.set_unseen): hands 184 -> 196 of 500 (+16 -4).
TEMPER = 2.0
# When one kind stands out from the next by DECIDES, the set has named the crop: no further
# views are needed (SURE) and a weak box is confirmed as a tile (vision.read.detector).
DECIDES = 0.2
# A hand is photographed lower and smaller than a sheet: each reference is also matched in
# LOOKS altered copies (foreshortened, blurred small, lighter or darker; :func:`looks`), which
# lifted nearest-reference accuracy on rendered broadcast frames from 85% to 90%.
LOOKS = 8
# A blank haku on a dark body is as like the set's back as its own haku crops are (rendered
# riichi-black: 0.91 against 0.88 median): only a light haku, or a profile holding a back,
# lets the set overrule the classifier's "back". Light is told against the set's own faces, not
# an absolute grey, as a photo's light varies: the middle of a blank face on a light body is at
# least as light as a drawn one (the mean middle of the sheet's faces; ratio 0.75-1.26 on 20
# procedural sets, 0.78-1.15 on real and scanned tiles, 0.87 for a real haku of grey 135), of
# one on a dark body far less (rendered riichi-black 0.14-0.48, jade 0.58-0.64).
HAKU_LIGHT = 0.7
# A crop the set decides for, named with at least this much, needs no further views (quarter
# turns, contrast views): a learned set reads faster.
SURE = 0.97


@dataclass(frozen=True)
class TileSet:
    """One set's reference crops. ``kinds``/``sources`` name each reference (a class of
    ``vision.read.classes.TILE_CLASSES``; where it came from). ``crops``: ``(N, S, S, 3) uint8`` BGR.
    ``embeddings``: ``(N, D) float32`` unit rows, from the classifier whose fingerprint is
    ``model``."""

    name: str
    kinds: tuple[str, ...]
    crops: np.ndarray
    embeddings: np.ndarray
    model: str
    sources: tuple[str, ...] = ()
    calibration: "Calibration | None" = None     # how much its word weighs (calibrate)
    _kind_ids: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        n = len(self.kinds)
        if not (len(self.crops) == len(self.embeddings) == n) or (self.sources and len(self.sources) != n):
            raise SetError(f"set {self.name!r}: {n} kinds, {len(self.crops)} crops, "
                           f"{len(self.embeddings)} embeddings: the counts differ")
        unknown = [k for k in self.kinds if k not in CLASS_INDEX]
        if unknown:
            raise SetError(f"set {self.name!r}: unknown tile kind {unknown[0]!r}")
        object.__setattr__(self, "_kind_ids", np.array([CLASS_INDEX[k] for k in self.kinds], np.int64))

    def __len__(self) -> int:
        return len(self.kinds)

    def held(self) -> list[str]:
        """The kinds the profile holds references of, in ``TILE_CLASSES`` order."""
        have = set(self.kinds)
        return [k for k in TILE_CLASSES if k in have]

    def added(self, kinds, crops: np.ndarray, embeddings: np.ndarray, sources) -> "TileSet":
        """A new profile with these references added after the present ones."""
        if len(self) + len(kinds) > MAX_REFERENCES:
            raise SetError(f"set {self.name!r} would hold {len(self) + len(kinds)} references; "
                           f"at most {MAX_REFERENCES}")
        if not len(self):
            return TileSet(self.name, tuple(kinds), np.asarray(crops, np.uint8),
                           np.asarray(embeddings, np.float32), self.model, tuple(sources))
        return TileSet(self.name, self.kinds + tuple(kinds), np.concatenate([self.crops, crops]),
                       np.concatenate([self.embeddings, embeddings]).astype(np.float32),
                       self.model, self.sources + tuple(sources))

    def without_last(self, n: int) -> "TileSet":
        """The profile before its last ``n`` references were added (undo of a correction)."""
        keep = max(0, len(self) - n)
        return TileSet(self.name, self.kinds[:keep], self.crops[:keep], self.embeddings[:keep],
                       self.model, self.sources[:keep])

    def likeness(self, embeddings: np.ndarray) -> np.ndarray:
        """:meth:`References.likeness` against the references as stored (no altered looks)."""
        return References(self._kind_ids, self.embeddings).likeness(embeddings)

    # ---- file -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> Path:
        """Write the profile to ``path``, named as given, whole or not at all
        (:func:`vision.common.safe_files.atomic_write`: a new file opened exclusively, never through a
        link, then renamed); returns the path. A writer that read the file first holds
        :func:`vision.common.safe_files.locked` around both."""
        from vision.common.safe_files import atomic_write

        path = Path(path)
        meta = {"format": FORMAT, "version": VERSION, "name": self.name, "model": self.model,
                "kinds": list(self.kinds), "sources": list(self.sources)}
        if self.calibration is not None:
            meta["calibration"] = self.calibration.to_meta()
        data = io.BytesIO()
        np.savez_compressed(data, meta=np.array(json.dumps(meta)),
                            crops=np.ascontiguousarray(self.crops, np.uint8),
                            embeddings=self.embeddings.astype(np.float16))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, data.getvalue())
        except OSError as exc:
            raise SetError(f"cannot write the set to {str(path)!r}: {exc.strerror or exc}") from None
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> "TileSet":
        """Read a profile file; ``SetError`` names what is wrong with it."""
        path = Path(path)
        try:
            _check_arrays(path)
            with np.load(path, allow_pickle=False) as data:
                if not {"meta", "crops", "embeddings"} <= set(data.files):
                    raise SetError(f"{path.name!r} is not a tilescope set (no meta/crops/embeddings)")
                meta = json.loads(str(data["meta"]))
                if not isinstance(meta, dict) or meta.get("format") != FORMAT:
                    raise SetError(f"{path.name!r} is not a tilescope set")
                if meta.get("version") not in (1, VERSION):
                    raise SetError(f"{path.name!r} is a set file of version {meta.get('version')!r}; "
                                   f"this tilescope reads versions 1 and {VERSION}: learn the set again")
                n = len(meta.get("kinds", ()))
                if n > MAX_REFERENCES:
                    raise SetError(f"{path.name!r} holds {n} references; at most {MAX_REFERENCES}")
                crops, emb = data["crops"], data["embeddings"]
                if len(crops) != n:
                    raise SetError(f"{path.name!r}: {n} kinds but {len(crops)} crops")
                # version 1 kept no calibration: the reader decides it from the crops (with_set)
                calibration = (Calibration.from_meta(meta["calibration"])
                               if meta.get("version") == VERSION and "calibration" in meta else None)
                return cls(str(meta.get("name", path.stem)), tuple(meta["kinds"]), crops,
                           emb.astype(np.float32), str(meta.get("model", "")),
                           tuple(meta.get("sources") or ()), calibration)
        except SetError:
            raise
        except FileNotFoundError:
            raise SetError(f"no set file {str(path)!r}") from None
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError, zipfile.BadZipFile,
                MemoryError):
            raise SetError(f"{path.name!r} is not a readable tilescope set (a set file is the "
                           "'.npz' that tilescope set learn writes)") from None


# What a profile file may hold, checked from its headers before any array is read: a crafted
# file declaring huge arrays is refused, not decoded (issue 39).
CROP = 48                       # px: references are kept as the classifier sees them
MAX_EMBEDDING = 1024            # numbers per embedding
MAX_FILE = 64 << 20             # bytes of the .npz itself
MAX_META = 1 << 20              # bytes of its JSON


def _check_arrays(path: Path) -> None:
    """Refuse a profile file whose arrays are not what a set holds, from the file's size and
    each array's ``.npy`` header (shape and type) inside the zip: ``crops`` ``(N, 48, 48, 3)``
    uint8 with N at most MAX_REFERENCES, ``embeddings`` ``(N, D)`` float, D at most
    MAX_EMBEDDING, ``meta`` one short text. Raises ``SetError`` naming what is wrong."""
    from vision.common.safe_files import open_regular

    with open_regular(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size > MAX_FILE:
            raise SetError(f"{path.name!r} is over {MAX_FILE >> 20} MB: not a set profile")
        with zipfile.ZipFile(fh) as z:
            members = {i.filename: i for i in z.infolist()}
            shapes = {}
            for name in ("meta", "crops", "embeddings"):
                info = members.get(f"{name}.npy")
                if info is None:
                    raise SetError(f"{path.name!r} is not a tilescope set (no meta/crops/embeddings)")
                with z.open(info) as f:
                    version = np.lib.format.read_magic(f)
                    read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                            else np.lib.format.read_array_header_2_0)
                    shape, _, dtype = read(f, max_header_size=10000)
                shapes[name] = (tuple(shape), np.dtype(dtype))
    (meta, meta_t), (crops, crops_t), (emb, emb_t) = (shapes[k] for k in ("meta", "crops", "embeddings"))
    if meta != () or meta_t.kind != "U" or meta_t.itemsize > MAX_META:
        raise SetError(f"{path.name!r}: its meta is not one short text")
    if (crops_t != np.uint8 or len(crops) != 4 or crops[1:] != (CROP, CROP, 3)
            or crops[0] > MAX_REFERENCES):
        raise SetError(f"{path.name!r}: crops of shape {crops} {crops_t}; a set holds at most "
                       f"{MAX_REFERENCES} crops of {CROP}x{CROP}x3 uint8")
    if emb_t.kind != "f" or len(emb) != 2 or emb[0] != crops[0] or not 1 <= emb[1] <= MAX_EMBEDDING:
        raise SetError(f"{path.name!r}: embeddings of shape {emb} {emb_t}, not one row per crop")


@dataclass(frozen=True)
class References:
    """What a reader matches crops against: class ids ``(M,)`` and unit embeddings ``(M, D)``
    (a profile's references and their altered looks, :func:`looks`)."""

    kind_ids: np.ndarray
    embeddings: np.ndarray

    def likeness(self, embeddings: np.ndarray) -> np.ndarray:
        """``(K, 46)`` cosine likeness of each crop to each kind's nearest reference, -1 for the
        kinds the profile lacks. ``embeddings``: ``(V, K, D)``, the crops in V views (turns): a
        crop is as alike as its most alike view."""
        sims = np.einsum("vkd,nd->vkn", embeddings, self.embeddings).max(axis=0)      # (K, M)
        out = np.full((sims.shape[0], len(TILE_CLASSES)), -1.0, np.float32)
        for j in np.unique(self.kind_ids):
            out[:, j] = sims[:, self.kind_ids == j].max(axis=1)
        return out


def empty(name: str, model: str) -> TileSet:
    """A profile with no references yet."""
    return TileSet(name, (), np.zeros((0, 48, 48, 3), np.uint8), np.zeros((0, 1), np.float32), model)


@dataclass(frozen=True)
class Calibration:
    """How much one set's references weigh against the classifier (:func:`calibrate`), kept in
    the profile. ``weights``: per kind (``TILE_CLASSES`` order), the set's word on a crop most
    like that kind; ``weight``: their median over the kinds held, the set's word in one number;
    ``overrule``: kinds whose own reference the classifier misreads (``misread``: each with
    what it reads it as), weighed more; ``haku_not_back``: a crop most like the set's haku is
    not a back (the profile holds a back, or its haku is light); ``familiar``: the
    classifier's mean probability of each reference's own kind; ``separation``: the 10th
    percentile of how far the features hold each reference from another kind's;
    ``contradicted``: how much surer the classifier is of another kind than of the kind named,
    on average over the references (a doubted sheet weighs nothing)."""

    weight: float
    overrule: tuple[str, ...] = ()
    misread: tuple[tuple[str, str], ...] = ()
    haku_not_back: bool = False
    familiar: float = 1.0
    separation: float = 0.0
    weights: tuple[float, ...] = ()
    contradicted: float = 0.0

    def kind_weights(self) -> np.ndarray:
        """``(46,)``: the weight of a crop most like each kind (``weight`` where none is kept)."""
        if len(self.weights) == len(TILE_CLASSES):
            return np.asarray(self.weights, np.float32)
        return np.full(len(TILE_CLASSES), self.weight, np.float32)

    def to_meta(self) -> dict:
        return {"weight": round(float(self.weight), 3), "overrule": list(self.overrule),
                "misread": [list(m) for m in self.misread], "haku_not_back": self.haku_not_back,
                "familiar": round(float(self.familiar), 4), "separation": round(float(self.separation), 4),
                "weights": [round(float(w), 3) for w in self.weights],
                "contradicted": round(float(self.contradicted), 4)}

    @classmethod
    def from_meta(cls, meta) -> "Calibration":
        """From a profile file's ``calibration``; ValueError when it is malformed."""
        if not isinstance(meta, dict):
            raise ValueError("calibration is not an object")
        weight, familiar = float(meta["weight"]), float(meta.get("familiar", 1.0))
        separation = float(meta.get("separation", 0.0))
        contradicted = float(meta.get("contradicted", 0.0))
        weights = tuple(float(w) for w in meta.get("weights", ()))
        if weights and len(weights) != len(TILE_CLASSES):
            raise ValueError("calibration weights are not one per kind")
        if not all(0.0 <= w <= OVERRULE for w in (weight, *weights)) or not (
                0.0 <= familiar <= 1.0 and 0.0 <= separation <= 2.0 and 0.0 <= contradicted <= 1.0):
            raise ValueError("calibration out of range")
        overrule = tuple(str(k) for k in meta.get("overrule", ()))
        misread = tuple((str(a), str(b)) for a, b in meta.get("misread", ()))
        if any(k not in CLASS_INDEX for k in overrule + tuple(k for m in misread for k in m)):
            raise ValueError("calibration names an unknown kind")
        return cls(weight, overrule, misread, bool(meta.get("haku_not_back", False)), familiar,
                   separation, weights, contradicted)

    def words(self) -> list[str]:
        """What was decided, as ``tilescope set show`` says it."""
        knows = (f"the classifier knows this look ({self.familiar:.2f} sure of the sheet's own tiles)"
                 if self.familiar >= FAMILIAR else
                 f"the classifier does not know this look ({self.familiar:.2f} sure of the sheet's own tiles)")
        distinct = (f"the set's tiles look distinct ({self.separation:.2f} apart)"
                    if self.separation >= SEPARATE_HIGH else
                    f"some of the set's tiles look alike ({self.separation:.2f} apart)")
        who = ("the set's pictures decide" if self.weight >= (WEIGHT_FAMILIAR + WEIGHT_UNFAMILIAR) / 2
               else "the classifier leads and the set's pictures help")
        if self.contradicted >= CONTRADICTED_HIGH:
            return [f"this set: its pictures are not used: the classifier reads many of the sheet's "
                    f"tiles surely as other kinds ({self.contradicted:.2f}); check the tiles lie in "
                    f"the order named and photograph the sheet again, in the light the hands are "
                    f"photographed in (docs/sets.md)"]
        out = [f"this set: {who}: {knows}, {distinct}; weight {self.weight:.0f} (docs/sets.md)"]
        if self.contradicted > CONTRADICTED_LOW:
            out.append(f"the classifier reads some of the sheet's tiles surely as other kinds "
                       f"({self.contradicted:.2f}): the set's word is lowered")
        for kind, read in self.misread:
            what = "a back" if read == "back" else read
            how = "the set names it" if kind in self.overrule else "the classifier keeps its word"
            out.append(f"the classifier reads its {_KIND_WORDS.get(kind, kind)} as {what}: {how}")
        if not self.haku_not_back:
            out.append("haku or back: the classifier tells them apart (learn a face-down tile "
                       "too to let the set decide)")
        return out


_KIND_WORDS = {"5z": "haku", "6z": "hatsu", "7z": "chun", "1z": "East", "2z": "South",
               "3z": "West", "4z": "North"}


def apart(kinds, embeddings: np.ndarray) -> np.ndarray:
    """How far the features hold each reference from the other kinds: ``(N,)`` 1 - the cosine
    to the nearest reference of another kind (a five and its red five are one kind; 0 with
    fewer than two kinds)."""
    ids = np.array([CLASS_INDEX[k] for k in kinds], np.int64)
    for five, red in FIVES:
        ids = np.where(ids == red, five, ids)
    if len(set(ids.tolist())) < 2:
        return np.zeros(len(ids))
    cos = embeddings @ embeddings.T
    return 1.0 - np.where(ids[:, None] == ids[None, :], -1.0, cos).max(axis=1)


def calibrate(kinds, sheet_probs: np.ndarray, crops: np.ndarray, embeddings: np.ndarray) -> Calibration:
    """Decide how much a set's references weigh, from its sheet: ``kinds`` of the references,
    the classifier's probabilities ``(N, 46)`` for each reference crop, the crops
    ``(N, S, S, 3) uint8`` BGR and their unit embeddings ``(N, D)``.

    The set's weight rises from WEIGHT_FAMILIAR to WEIGHT_UNFAMILIAR as the classifier's mean
    probability of each reference's own kind falls from FAMILIAR to UNFAMILIAR, and back as it
    falls on from LOST_ABOVE to LOST_AT; a kind whose reference the classifier gives under
    MISREAD_BELOW weighs more, towards OVERRULE, as far as the set is separated."""
    ids = np.array([CLASS_INDEX[k] for k in kinds], np.int64)
    if len(ids) == 0:
        return Calibration(WEIGHT_FAMILIAR)
    own = sheet_probs[np.arange(len(ids)), ids]
    familiar, separation = float(own.mean()), float(np.percentile(apart(kinds, embeddings), 10))
    unfamiliar = float(np.clip((FAMILIAR - familiar) / (FAMILIAR - UNFAMILIAR), 0.0, 1.0))
    not_lost = float(np.clip((familiar - LOST_AT) / (LOST_ABOVE - LOST_AT), 0.0, 1.0))
    separated = float(np.clip((separation - SEPARATE_LOW) / (SEPARATE_HIGH - SEPARATE_LOW), 0.0, 1.0))
    weight = WEIGHT_FAMILIAR + unfamiliar * not_lost * (WEIGHT_UNFAMILIAR - WEIGHT_FAMILIAR)
    held = set(kinds)
    haku_not_back = "back" in held
    if "5z" in held:
        s = crops.shape[1]
        middle = crops[:, s // 4:3 * s // 4, s // 4:3 * s // 4].reshape(len(crops), -1).mean(axis=1)
        haku = middle[[i for i, k in enumerate(kinds) if k == "5z"]].mean()
        faces = middle[[i for i, k in enumerate(kinds) if k != "back"]].mean()
        haku_not_back |= bool(haku >= HAKU_LIGHT * faces)
    weights = np.full(len(TILE_CLASSES), weight, np.float64)
    misread, overrule = [], []
    for kind in dict.fromkeys(kinds):
        mine = ids == CLASS_INDEX[kind]
        if own[mine].max() < MISREAD_BELOW:
            misread.append((kind, TILE_CLASSES[int(sheet_probs[mine].mean(axis=0).argmax())]))
            # as far as the features hold the set's kinds apart: in a set whose kinds lie close
            # (procedural sets), a crop most like a misread 5m is often a 2m, 3m or 4m, and
            # overruling it turned runs into triplets (procedural-11: 4 hands lost, 3 won)
            # not the back, nor a dark haku: a dark set's back is like its dark faces (rendered
            # riichi-black: its back read as a haku, and an 8p taken for a back when overruled)
            if separated > 0 and kind != "back" and (kind != "5z" or haku_not_back):
                overrule.append(kind)
                weights[CLASS_INDEX[kind]] = weight + separated * (OVERRULE - weight)
    # a sheet the classifier reads surely as other kinds: the photo is not of what the hands
    # show (its light, or its order): its pictures weigh nothing rather than mislead
    contradicted = float((sheet_probs.max(axis=1) - own).mean())
    trusted = 1.0 - float(np.clip((contradicted - CONTRADICTED_LOW) / (CONTRADICTED_HIGH - CONTRADICTED_LOW), 0.0, 1.0))
    weights *= trusted
    return Calibration(float(weight * trusted), tuple(overrule), tuple(misread), haku_not_back, familiar,
                       separation, tuple(float(w) for w in weights), contradicted)


def combine(probs: np.ndarray, likeness: np.ndarray, calibration: Calibration | None = None
            ) -> tuple[np.ndarray, np.ndarray]:
    """The classifier's probabilities ``(K, 46)`` and the crops' likeness to a profile's kinds
    (:meth:`TileSet.likeness`; -1 for kinds it lacks) -> ``(probabilities (K, 46), decided (K,))``.

    Each crop's log-probabilities gain the weight of the kind it is most like
    (:meth:`Calibration.kind_weights`) times each kind's likeness less the most alike kind's.
    A kind the profile lacks counts as UNHELD_GAP less alike than the most alike kind, or
    UNLIKE_SET when that is more (a flower against a sheet of suits); a back the profile lacks
    counts as alike as the most alike kind (the classifier tells a back) unless
    ``haku_not_back`` and the crop is most like the haku; a back the profile holds counts as
    no less alike than a kind it lacks. A five and its red five are one kind
    to the set: the classifier's colour says which. ``decided`` marks the crops whose most
    alike kind stands out from the next by DECIDES. The joined log-probabilities are tempered
    by up to TEMPER as the set's weight rises (the kind named is the same)."""
    if len(likeness) == 0:
        return probs, np.zeros(0, bool)
    cal = calibration or Calibration(WEIGHT_FAMILIAR)
    held = likeness[0] > -1
    likeness = likeness.copy()
    for five, red in FIVES:      # the set says "a five"; the classifier's colour says red or not
        if held[five] and held[red]:
            likeness[:, five] = likeness[:, red] = np.maximum(likeness[:, five], likeness[:, red])
    own = np.where(held, likeness, -1.0)
    nearest, best = own.argmax(axis=1), own.max(axis=1)
    alike = np.where(held, likeness, np.maximum(best - UNHELD_GAP, UNLIKE_SET)[:, None])
    if not held[BACK]:
        haku = nearest == CLASS_INDEX["5z"]
        alike[:, BACK] = np.where(haku & cal.haku_not_back, alike[:, BACK], np.maximum(best, UNLIKE_SET))
    else:    # a back unlike the one learned (a set with two back colours) counts as one not held
        alike[:, BACK] = np.maximum(alike[:, BACK], best - UNHELD_GAP)
    weight = cal.kind_weights()[nearest]
    top2 = np.sort(own, axis=1)[:, -2:]
    decided = ((top2[:, 1] - top2[:, 0]) >= DECIDES) & (weight > 0)     # a doubted sheet decides nothing
    logits = np.log(probs + 1e-6) + weight[:, None] * (alike - alike.max(axis=1, keepdims=True))
    logits -= logits.max(axis=1, keepdims=True)
    logits /= 1.0 + np.clip((weight - WEIGHT_FAMILIAR) / (WEIGHT_UNFAMILIAR - WEIGHT_FAMILIAR),
                            0.0, 1.0)[:, None] * (TEMPER - 1.0)
    out = np.exp(logits)
    out /= out.sum(axis=1, keepdims=True)
    return out.astype(np.float32), decided


def looks(crops: np.ndarray, n: int = LOOKS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each reference crop ``(N, S, S, 3) uint8`` and ``n`` altered copies of it, as a hand's
    photo may show the tile: foreshortened (a camera lower than the sheet's), blurred small
    (a broadcast frame's 22x30 px), lighter or darker. Returns ``(crops (N * (n + 1), S, S,
    3), index into the originals)``; the same for the same ``seed``."""
    import cv2

    from .tile_crops import PAD_VALUE, fit_square

    rng = np.random.default_rng(seed)
    out, index = [], []
    for i, crop in enumerate(crops):
        out.append(crop)
        index.append(i)
        body = np.abs(crop.astype(np.int16) - PAD_VALUE).sum(axis=2) > 6     # the tile, not the pad
        ys, xs = np.nonzero(body)
        tile = crop[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(ys) else crop
        h, w = tile.shape[:2]
        for _ in range(n):
            size = (max(4, round(w * rng.uniform(0.9, 1.05))), max(4, round(h * rng.uniform(0.55, 1.0))))
            alt = cv2.resize(tile, size, interpolation=cv2.INTER_AREA)
            if rng.random() < 0.5:
                f = rng.uniform(0.35, 0.7)
                small = (max(3, round(size[0] * f)), max(3, round(size[1] * f)))
                alt = cv2.resize(cv2.resize(alt, small, interpolation=cv2.INTER_AREA), size,
                                 interpolation=cv2.INTER_LINEAR)
            alt = np.clip(alt.astype(np.float32) * rng.uniform(0.75, 1.2) + rng.uniform(-20, 20), 0, 255)
            out.append(fit_square(alt.astype(np.uint8), crop.shape[0]))
            index.append(i)
    return np.asarray(out, np.uint8).reshape(-1, *crops.shape[1:]), np.asarray(index, np.int64)


def fingerprint(path: str | os.PathLike) -> str:
    """Short hash of a model file: a profile's embeddings belong to one classifier."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


# ---- where named profiles live ------------------------------------------------------------

def data_dir() -> Path:
    """The folder of named profiles: ``$TILESCOPE_DATA/sets`` or the user's data folder."""
    from vision.common.userdata import user_folder

    return user_folder("sets")



def path_of(name_or_file: str) -> Path:
    """The file of ``--set NAME`` (in :func:`data_dir`) or ``--set FILE``."""
    return data_dir() / f"{name_or_file}.npz" if is_name(name_or_file) else Path(name_or_file)


def load(name_or_file: str) -> TileSet:
    """The profile ``--set`` names: a set in :func:`data_dir`, else a file (``.npz`` added when
    the name was given without it, as ``set learn --out FILE`` writes it); ``SetError`` when
    there is none or it is unreadable."""
    text = str(name_or_file)
    candidates = ([data_dir() / f"{text}.npz"] if is_name(text) else []) + [Path(text)]
    if not text.endswith(".npz"):
        candidates.append(Path(text + ".npz"))
    for path in candidates:
        if path.is_file():
            return TileSet.load(path)
    if is_name(text):
        known = ", ".join(sorted(p.stem for p in data_dir().glob("*.npz"))) or "none yet"
        raise SetError(f"no set named {text!r} (sets learned: {known}; "
                       "learn one with `tilescope set learn PHOTO --name NAME`)")
    raise SetError(f"no set file {text[:200]!r}")


def listed() -> list[tuple[str, TileSet | SetError]]:
    """Every named profile in :func:`data_dir`, by name, or the error reading it."""
    out = []
    for p in sorted(data_dir().glob("*.npz")):
        try:
            out.append((p.stem, TileSet.load(p)))
        except SetError as exc:
            out.append((p.stem, exc))
    return out
