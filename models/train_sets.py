"""Train the crop classifier's features for sets: episodes of one set, a prototype loss.

A set profile (``vision.read.tileset``) names a crop by the nearest of a set's reference crops in the
classifier's ``embedding`` (the last conv block averaged over its 3x3 grid, L2-normalised). This
trains those features so that two crops of one kind *in one set* lie close and crops of
different kinds lie far apart, whatever the set's colours and drawing, beside the classifier's
own cross-entropy (so the head keeps reading without a profile).

Each **episode** is one set: a training style (never the held-out ``kmahjongg-jade``) or a
procedurally drawn Chinese-style set (``datasets.procedural``), drawn *consistently*: one body
repaint, ink and outline, one back and one thickness colour for every crop of the episode
(``paint_set``), ``--n-per`` crops per kind of the set rendered as the reader cuts them
(``train_classifier.render_crop``). On the training device the whole episode then goes through
one random colour transform (channel mix, tint, inversion; ``colour_transform``), K crops per
kind (1-3) become the references, their normalised mean the kind's prototype, and the others
are named by cosine to the prototypes (scale ``--scale``, cross-entropy over the set's kinds).
Beside it: the head's cross-entropy on ordinary crops (``train_classifier.sample_batch`` with
v24's paint; with ``--scenes`` a ``--scene-share`` of them cut from rendered scenes, as v24's
batches were), distilled towards the starting model (``--distill``), and on the crops of the
untransformed episodes (``--episode-ce``). BatchNorm statistics stay frozen (the training
forward is the exported model's).

Rendering is the slow part: DataLoader workers (``--workers``) render items of one episode +
one ordinary batch; each item is kept on the device in a pool and every fresh item is followed
by ``--steps-per-item`` steps of ``--episodes`` episodes (the fresh one and pooled ones, each
under a new colour transform and quarter turn).

    # GPU (models/train_gpu.sh SETS_MIN=...): about 14 workers on 16 cores
    python models/train_sets.py --init models/checkpoints/classifier.pt --device cuda \\
        --workers 14 --minutes 8 --time-schedule --out OUT
    # CPU, resumable chunks (run again to continue; the schedule follows --steps)
    nice -n 10 .venv/bin/python models/train_sets.py --init models/checkpoints/classifier.pt \\
        --workers 1 --steps 3000 --minutes 30 --out runs/sets

``--out DIR`` gets ``classifier.pt`` (the train_classifier checkpoint format; resumed when it
exists), ``classifier.onnx`` (inputs/outputs as the bundled model: ``crops`` -> ``probs``,
``embedding``) every ``--save-seconds`` and at the end, and ``sets_eval.json``.
"""
from __future__ import annotations

import argparse
import copy
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
from models.train_classifier import (  # noqa: E402
    HELD_OUT_STYLE, RED_FIVES, TileNet, _body_colour, _grain, _scaled, classes_of,
    export_onnx, load_all_styles, render_crop, sample_batch, scene_crops, scene_index, synthetic_back)
from vision.read.classes import CLASS_INDEX, TILE_CLASSES  # noqa: E402
from vision.read.tile_crops import CROP_SIZE  # noqa: E402

N_KINDS = len(TILE_CLASSES)
CE_PAINT = (0.35, 0.6, 0.0, 0.3)     # v24's mix for the ordinary crops: recolour, dark, grey, contrast
NO_PAINT = (0.0, 0.0, 0.0, 0.0)      # episode crops: the set's look is drawn once, in paint_set


# --------------------------------------------------------------------------------------------
# one set, drawn consistently
# --------------------------------------------------------------------------------------------

def set_look(rng: np.random.Generator, repaint: float, dark_share: float) -> dict:
    """The look of one set: how its bodies are repainted (or not), its back, its thickness."""
    look: dict = {"paint": None}
    if rng.random() < repaint:
        dark = rng.random() < dark_share
        p = {"dark": dark}
        if dark:
            hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(60, 255), rng.uniform(20, 110)]]])
            p["body"] = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
            p["grain_seed"] = int(rng.integers(2 ** 31)) if rng.random() < 0.5 else None
            p["ink"] = ("white", float(rng.uniform(190, 255)), rng.uniform(0.85, 1.0, 3)) \
                if rng.random() < 0.5 else ("lighter", float(rng.uniform(0.2, 0.5)))
            p["red"] = (float(rng.uniform(0.9, 1.2)), float(rng.uniform(0, 40)))
            p["outline"] = int(rng.integers(1, 4)) if rng.random() < 0.4 else 0
        else:
            p["tint"] = rng.uniform(0.65, 1.0, 3).astype(np.float32)
        look["paint"] = p
    look["back"] = synthetic_back(rng)
    back_hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(80, 255), rng.uniform(60, 220)]]])
    look["side"] = (float(rng.uniform(0.7, 0.95)),
                    cv2.cvtColor(back_hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32),
                    float(rng.uniform(0.3, 0.8)))
    return look


def set_body(faces: dict[str, np.ndarray]) -> np.ndarray:
    """The body colour of a set: the median of its faces' median colours (a face covered in
    ink, like 9p, has its ink as its own median)."""
    return np.median([_body_colour(t) for c, t in faces.items() if c != "back"], axis=0).astype(np.float32)


def paint_face(tile: np.ndarray, p: dict | None, red: bool, body: np.ndarray | None = None) -> np.ndarray:
    """``tile`` (BGRA) repainted by a set's paint ``p`` (:func:`set_look`); as
    ``train_classifier.recolour_body`` does for one crop, but the same for every face.
    ``body``: the set's body colour (:func:`set_body`; default this face's median)."""
    if p is None:
        return tile
    body = (_body_colour(tile) if body is None else body).astype(np.float32)
    bgr = tile[..., :3].astype(np.float32)
    ink = np.clip((np.abs(bgr - body).max(axis=2) - 30) / 80, 0, 1)[..., None]
    if p["dark"]:
        new_body = p["body"]
        if p["grain_seed"] is not None:
            new_body = new_body * _grain(tile.shape[:2], np.random.default_rng(p["grain_seed"]))
        if red:
            new_ink = bgr * p["red"][0] + p["red"][1]
        elif p["ink"][0] == "white":
            new_ink = np.full_like(bgr, p["ink"][1]) * p["ink"][2]
        else:
            new_ink = 255 - (255 - bgr) * p["ink"][1]
        if p["outline"]:
            width = p["outline"]
            inner = cv2.erode(ink[..., 0], np.ones((2 * width + 1, 2 * width + 1), np.uint8))
            ink = np.clip(ink[..., 0] - inner, 0, 1)[..., None]
    else:
        new_body, new_ink = body * p["tint"], bgr
    out = tile.copy()
    out[..., :3] = np.clip(new_body * (1 - ink) + new_ink * ink, 0, 255).astype(np.uint8)
    return out


def draw_set(faces: dict[str, np.ndarray], rng: np.random.Generator, repaint: float = 0.6,
             dark_share: float = 0.5) -> tuple[dict[str, np.ndarray], dict, list[str]]:
    """One set from a style's faces: ``(faces as painted, look, kinds)``; kinds include
    ``back`` (the style's own back half the time, else the look's)."""
    look = set_look(rng, repaint, dark_share)
    body = set_body(faces) if look["paint"] is not None else None
    painted = {c: paint_face(t, look["paint"], c in RED_FIVES, body) for c, t in faces.items() if c != "back"}
    if "back" in faces and rng.random() < 0.5:
        look["back"] = faces["back"]
    kinds = [c for c in classes_of(painted)]
    return painted, look, kinds


def render_episode(faces: dict[str, np.ndarray], look: dict, kinds: list[str], n_per: int,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``(crops (46, n_per, S, S, 3) uint8, mask (46,) bool)``: ``n_per`` crops of every kind
    of the set at its class index; kinds the set lacks are zeros with mask False."""
    x = np.zeros((N_KINDS, n_per, CROP_SIZE, CROP_SIZE, 3), np.uint8)
    mask = np.zeros(N_KINDS, bool)
    for c in kinds:
        i = CLASS_INDEX[c]
        mask[i] = True
        for j in range(n_per):
            x[i, j] = render_crop(faces, c, rng, NO_PAINT, look=look)
    return x, mask


class EpisodeStream(torch.utils.data.IterableDataset):
    """Endless items ``(episode crops, mask, ordinary crops, labels)`` (uint8 HWC, as numpy
    turned to tensors). Styles are loaded once in the parent (the workers fork with them)."""

    def __init__(self, styles: dict[str, dict[str, np.ndarray]], exclude: str, seed: int, n_per: int = 4,
                 ce_batch: int = 128, procedural_share: float = 0.5, repaint: float = 0.6,
                 dark_share: float = 0.5, fonts: list | None = None, scenes: list[Path] | None = None,
                 scene_share: float = 0.4):
        self.styles = {k: v for k, v in styles.items() if k != exclude}
        self.scenes, self.scene_share = scenes or [], scene_share
        self.seed, self.n_per, self.ce_batch = seed, n_per, ce_batch
        self.procedural_share = procedural_share if fonts else 0.0
        self.repaint, self.dark_share, self.fonts = repaint, dark_share, fonts

    def __iter__(self):
        cv2.setNumThreads(1)
        torch.set_num_threads(1)
        info = torch.utils.data.get_worker_info()
        wid = info.id if info else 0
        rng = np.random.default_rng([self.seed, wid, os.getpid()])
        names = list(self.styles)
        pool, n = [], 0
        index = [entry for folder in self.scenes for entry in scene_index(folder)]
        n_scene = int(round(self.ce_batch * self.scene_share)) if index else 0
        if self.procedural_share > 0:
            from datasets.procedural import procedural_style

            def new_set() -> dict[str, np.ndarray]:
                return {c: _scaled(img) for c, img in procedural_style(rng, self.fonts).items()}

            pool = [new_set() for _ in range(3)]
        while True:
            if pool and rng.random() < self.procedural_share:
                faces = pool[int(rng.integers(len(pool)))]
                n += 1
                if n % 3 == 0:
                    pool = pool[1:] + [new_set()]
            else:
                faces = self.styles[names[int(rng.integers(len(names)))]]
            painted, look, kinds = draw_set(faces, rng, self.repaint, self.dark_share)
            ex, mask = render_episode(painted, look, kinds, self.n_per, rng)
            cx, cy = sample_batch(self.styles, self.ce_batch - n_scene, rng, CE_PAINT)
            if n_scene:     # crops cut from rendered scenes as the reader cuts them (broadcast frames)
                sx, sy = scene_crops(index, n_scene, rng, contrast=CE_PAINT[3])
                cx, cy = np.concatenate([cx, sx]), np.concatenate([cy, sy])
            yield (torch.from_numpy(ex), torch.from_numpy(mask), torch.from_numpy(cx), torch.from_numpy(cy))


# --------------------------------------------------------------------------------------------
# on the device: colour transforms, losses
# --------------------------------------------------------------------------------------------

def to_float(x: torch.Tensor) -> torch.Tensor:
    """uint8 (..., S, S, 3) HWC -> float (..., 3, S, S) 0..1."""
    return x.movedim(-1, -3).float() / 255.0


def colour_transform(x: torch.Tensor, gen: torch.Generator, identity: float = 0.25,
                     invert: float = 0.4) -> tuple[torch.Tensor, bool]:
    """One episode ``x`` (N, 3, S, S) float 0..1 under one random colour transform: a channel
    mix (a permutation blended with a random matrix; sometimes near grey), a tint, an
    inversion ``invert`` of the time; rescaled to 0..1 over the whole episode so that its
    crops keep their relations. ``identity`` of the time unchanged. Returns (x, changed)."""
    def u(lo: float = 0.0, hi: float = 1.0, *shape: int) -> torch.Tensor:
        return lo + (hi - lo) * torch.rand(shape or (1,), generator=gen)

    if float(u()) < identity:
        return x, False
    perm = torch.randperm(3, generator=gen)
    m = torch.eye(3)[perm]
    a = float(u(0.0, 1.0))
    m = (1 - a) * m + a * torch.randn(3, 3, generator=gen) * 0.6
    if float(u()) < 0.1:                          # near grey: one row for all channels
        m = m[:1].repeat(3, 1) + 0.05 * torch.randn(3, 3, generator=gen)
    m = m.to(x.device, x.dtype)
    y = torch.einsum("ij,njhw->nihw", m, x)
    lo = y.amin(dim=(0, 2, 3), keepdim=True)
    hi = y.amax(dim=(0, 2, 3), keepdim=True)
    y = (y - lo) / (hi - lo).clamp_min(0.05)
    t = float(u(0.6, 1.0))
    tint = u(0.0, 1.0, 1, 3, 1, 1).to(x.device, x.dtype)
    y = t * y + (1 - t) * tint
    if float(u()) < invert:
        y = 1 - y
    return y.clamp(0, 1), True


def embed(net: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits, embedding) exactly as the exported model computes them (before softmax)."""
    feats = net.features((x - 0.5) / 0.25)
    return net.head(feats), F.normalize(feats.float().mean(dim=(2, 3)), dim=1)


def prototype_loss(emb: torch.Tensor, mask: torch.Tensor, k: int, scale: float
                   ) -> tuple[torch.Tensor, torch.Tensor]:
    """``emb`` (E, 46, n_per, D) normalised, ``mask`` (E, 46): the first ``k`` crops of each
    kind are references (their normalised mean the prototype), the others queries named by
    cosine to the prototypes of the set's kinds. Returns (loss, accuracy)."""
    e, kinds, n_per, d = emb.shape
    proto = F.normalize(emb[:, :, :k].mean(dim=2), dim=-1)            # (E, 46, D)
    q = emb[:, :, k:]                                                 # (E, 46, Q, D)
    logits = scale * torch.einsum("ekqd,ecd->ekqc", q, proto)         # (E, 46, Q, 46)
    logits = logits.masked_fill(~mask[:, None, None, :], -1e4)
    target = torch.arange(kinds, device=emb.device)[None, :, None].expand(e, kinds, n_per - k)
    valid = mask[:, :, None].expand(e, kinds, n_per - k)
    loss = F.cross_entropy(logits[valid].float(), target[valid])
    acc = (logits[valid].argmax(-1) == target[valid]).float().mean()
    return loss, acc


def step_loss(net: nn.Module, teacher: nn.Module | None, picks: list, ce_items: tuple, gen: torch.Generator,
              args: argparse.Namespace, fast: bool) -> tuple[torch.Tensor, dict]:
    """The loss of one step: ``picks`` are pooled items whose episodes (each under a new colour
    transform and quarter turn) give the prototype loss; ``ce_items`` (the fresh item and one
    replayed, turned) their ordinary crops for the head (cross-entropy + distillation)."""
    device = picks[0][0].device
    amp = torch.autocast(device.type, dtype=torch.bfloat16, enabled=fast)
    item, other = ce_items
    k = int(torch.multinomial(torch.tensor([0.5, 0.25, 0.25]), 1, generator=gen)) + 1
    k = min(k, args.n_per - 1)
    eps, masks, plain = [], [], []
    for pe in picks:
        x = to_float(pe[0])                                   # (46, n_per, 3, S, S)
        turn = int(torch.randint(4, (1,), generator=gen))
        x = torch.rot90(x, turn, (3, 4)) if turn else x
        flat, changed = colour_transform(x.flatten(0, 1), gen, args.identity, args.invert)
        eps.append(flat.view_as(x))
        masks.append(pe[1])
        plain.append(not changed)
    ep = torch.stack(eps)                                     # (E, 46, n_per, 3, S, S)
    m = torch.stack(masks)                                    # (E, 46)
    turn = int(torch.randint(4, (1,), generator=gen))
    cex = torch.cat([to_float(item[2]), torch.rot90(to_float(other[2]), turn, (2, 3))])
    cey = torch.cat([item[3], other[3]])
    sel = ep[m]                                               # (V, n_per, 3, S, S)
    n_ep = sel.shape[0] * sel.shape[1]
    xin = torch.cat([sel.flatten(0, 1), cex])
    if fast:
        xin = xin.contiguous(memory_format=torch.channels_last)
    with amp:
        logits, emb = embed(net, xin)
    logits = logits.float()
    full = torch.zeros(*m.shape, args.n_per, emb.shape[1], device=device, dtype=emb.dtype)
    full[m] = emb[:n_ep].view(sel.shape[0], args.n_per, -1)
    lp, acc = prototype_loss(full, m, k, args.scale)
    lc = F.cross_entropy(logits[n_ep:], cey, label_smoothing=0.05)
    loss = args.proto * lp + lc
    lk = torch.zeros((), device=device)
    if teacher is not None:
        with torch.no_grad(), amp:
            tl = teacher(cex).float()
        tt = 2.0
        lk = F.kl_div(F.log_softmax(logits[n_ep:] / tt, 1), F.log_softmax(tl / tt, 1),
                      log_target=True, reduction="batchmean") * tt * tt
        loss = loss + args.distill * lk
    le = torch.zeros((), device=device)
    if args.episode_ce > 0 and any(plain):
        lab = torch.arange(N_KINDS, device=device)[None, :, None].expand(*m.shape, args.n_per)
        keep = torch.tensor(plain, device=device)[:, None].expand(*m.shape) & m
        sub = keep[m]                                         # (V,) of the selected kinds
        el = logits[:n_ep].view(sel.shape[0], args.n_per, -1)[sub].flatten(0, 1)
        le = F.cross_entropy(el, lab[m][sub].flatten(), label_smoothing=0.05)
        loss = loss + args.episode_ce * le
    return loss, {"proto": lp, "acc": acc, "ce": lc, "kd": lk, "ece": le}


def freeze_bn(net: nn.Module) -> None:
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


# --------------------------------------------------------------------------------------------
# monitoring (log only, never selects a model)
# --------------------------------------------------------------------------------------------

def fixed_episodes(faces_by_name: dict, n: int, seed: int, n_per: int, repaint: float) -> list:
    rng = np.random.default_rng(seed)
    names = list(faces_by_name)
    out = []
    for i in range(n):
        painted, look, kinds = draw_set(faces_by_name[names[i % len(names)]], rng, repaint, 0.5)
        out.append(render_episode(painted, look, kinds, n_per, rng))
    return out


@torch.no_grad()
def one_ref_accuracy(net: nn.Module, episodes: list, device: torch.device) -> float:
    if not episodes:
        return float("nan")
    modes = [(m, m.training) for m in net.modules()]
    net.eval()
    accs = []
    for ex, mask in episodes:
        x = to_float(torch.from_numpy(ex).to(device))
        m = torch.from_numpy(mask).to(device)
        emb = torch.zeros(N_KINDS, ex.shape[1], net.head[-1].in_features // 9, device=device)
        emb[m] = embed(net, x[m].flatten(0, 1))[1].view(int(m.sum()), ex.shape[1], -1)
        accs.append(float(prototype_loss(emb[None], m[None], 1, 16.0)[1]))
    for m, mode in modes:
        m.training = mode
    return float(np.mean(accs))


# --------------------------------------------------------------------------------------------
# training
# --------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--art", type=Path, default=None, help="artwork folder (default $TILESCOPE_ART or ../shared/art)")
    p.add_argument("--out", type=Path, default=REPO / "runs" / "sets",
                   help="classifier.pt (resumed when present), classifier.onnx, sets_eval.json")
    p.add_argument("--init", type=Path, help="start from these weights (a classifier .pt)")
    p.add_argument("--teacher", type=Path, help="distil the head towards these weights (a classifier .pt; "
                   "default --init's), e.g. the bundled model when continuing a sets run")
    p.add_argument("--fresh", action="store_true", help="ignore an existing --out checkpoint")
    p.add_argument("--width", type=int, default=20, help="TileNet width (must match --init)")
    p.add_argument("--device", default="cpu")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", type=int, default=3000, help="schedule length in steps")
    p.add_argument("--minutes", type=float, default=None, help="stop this chunk after so many minutes")
    p.add_argument("--time-schedule", action="store_true",
                   help="the learning rate follows the time (elapsed / --minutes), not --steps: "
                        "a capped GPU run anneals exactly at its end")
    p.add_argument("--max-items", type=int, default=None, help="stop after so many rendered items (tests)")
    p.add_argument("--lr", type=float, default=6e-4)
    p.add_argument("--episodes", type=int, default=4, help="episodes (sets) per step")
    p.add_argument("--steps-per-item", type=int, default=3,
                   help="steps per freshly rendered item (the others come from the pool); 0: as many "
                        "as keep the device busy while the workers render (1 to --max-steps-per-item)")
    p.add_argument("--max-steps-per-item", type=int, default=4)
    p.add_argument("--pool", type=int, default=400, help="rendered items kept for replay")
    p.add_argument("--n-per", type=int, default=4, help="crops rendered per kind per episode")
    p.add_argument("--ce-batch", type=int, default=128, help="ordinary crops per item")
    p.add_argument("--scenes", type=Path, nargs="+", default=None,
                   help="datasets.make_dataset folders: a --scene-share of the ordinary crops is cut "
                        "from their scenes (v24's recipe; the small broadcast tiles)")
    p.add_argument("--scene-share", type=float, default=0.4)
    p.add_argument("--procedural-share", type=float, default=0.5,
                   help="share of episodes that are procedural sets (needs CJK fonts)")
    p.add_argument("--repaint", type=float, default=0.6, help="share of sets whose bodies are repainted")
    p.add_argument("--dark-share", type=float, default=0.5, help="share of those dark, light ink")
    p.add_argument("--identity", type=float, default=0.25, help="share of episodes without colour transform")
    p.add_argument("--invert", type=float, default=0.4, help="share of transformed episodes inverted")
    p.add_argument("--scale", type=float, default=16.0, help="cosine scale of the prototype loss")
    p.add_argument("--proto", type=float, default=1.0, help="weight of the prototype loss")
    p.add_argument("--distill", type=float, default=1.0,
                   help="weight of the distillation towards --init's head on the ordinary crops")
    p.add_argument("--episode-ce", type=float, default=0.3,
                   help="weight of the head's cross-entropy on untransformed episodes")
    p.add_argument("--bf16", action="store_true",
                   help="bfloat16 autocast and channels-last (always on for cuda; on CPU only to test)")
    p.add_argument("--bn-train", action="store_true", help="update BatchNorm statistics (default frozen)")
    p.add_argument("--save-seconds", type=float, default=60.0)
    p.add_argument("--val-episodes", type=int, default=6, help="fixed episodes logged (0: none)")
    p.add_argument("--hold-out", default=HELD_OUT_STYLE)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    try:
        art.list_styles(args.art)
    except art.ArtError as exc:
        print(f"train_sets: {exc}", file=sys.stderr)
        return 2
    fonts = None
    if args.procedural_share > 0:
        from datasets.procedural import load_fonts

        fonts = load_fonts() or None
        if fonts is None:
            print("train_sets: no CJK fonts (sh datasets/get_fonts.sh or $TILESCOPE_FONTS): "
                  "training styles only", flush=True)
    # no OpenCV thread pool in this process: the loader's workers fork from it, and a forked
    # child's first OpenCV call can wait forever on its parent's pool
    cv2.setNumThreads(1)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    ckpt_path, onnx_path = args.out / "classifier.pt", args.out / "classifier.onnx"

    net = TileNet(width=args.width)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    step, items, elapsed = 0, 0, 0.0
    init_state = None
    if ckpt_path.exists() and not args.fresh:
        state = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, elapsed, items = state["step"], state["elapsed_s"], state.get("items", 0)
        init_state = state.get("teacher") or state["model"]
        print(f"resumed at step {step} ({elapsed:.0f}s done)", flush=True)
    elif args.init:
        init_state = torch.load(args.init, map_location="cpu", weights_only=False)["model"]
        net.load_state_dict(init_state)
        print(f"starting from the weights in {args.init}", flush=True)
    if args.teacher is not None:
        init_state = torch.load(args.teacher, map_location="cpu", weights_only=False)["model"]
    teacher = None
    if args.distill > 0 and init_state is not None:
        teacher = TileNet(width=args.width)
        teacher.load_state_dict(init_state)
        teacher.eval()
        for prm in teacher.parameters():
            prm.requires_grad_(False)

    for folder in args.scenes or []:
        try:
            scene_index(folder)
        except FileNotFoundError as exc:
            print(f"train_sets: {exc}", file=sys.stderr)
            return 2
    all_styles = load_all_styles(args.art)
    stream = EpisodeStream(all_styles, args.hold_out, args.seed + step, args.n_per, args.ce_batch,
                           args.procedural_share, args.repaint, args.dark_share, fonts, args.scenes,
                           args.scene_share)
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    loader = torch.utils.data.DataLoader(stream, batch_size=None, num_workers=args.workers,
                                         prefetch_factor=4 if args.workers else None,
                                         pin_memory=cuda, persistent_workers=False)
    it = iter(loader)                    # the workers fork here, before CUDA is touched
    val_train = fixed_episodes(stream.styles, args.val_episodes, 4321, args.n_per, 1.0)
    val_jade = fixed_episodes({args.hold_out: all_styles[args.hold_out]}, args.val_episodes // 2,
                              4322, args.n_per, 0.0) if args.hold_out in all_styles else []
    net.to(device)
    if teacher is not None:
        teacher.to(device)
    for st in opt.state.values():
        for k, v in st.items():
            if torch.is_tensor(v) and k != "step":
                st[k] = v.to(device)
    if cuda:
        torch.backends.cudnn.benchmark = False   # the batch changes size with the sets' kinds
    gen = torch.Generator().manual_seed(args.seed + step)
    t0 = time.time()

    def elapsed_now() -> float:
        return elapsed + time.time() - t0

    def progress() -> float:
        if args.time_schedule and args.minutes:
            return min(1.0, elapsed_now() / (args.minutes * 60))
        return step / args.steps

    def lr_at(pr: float) -> float:
        warm = 0.05
        if pr < warm:
            return args.lr * (0.1 + 0.9 * pr / warm)
        return args.lr * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * min(1.0, (pr - warm) / (1 - warm)))))

    history: list[dict] = []

    def save(final: bool = False) -> None:
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "step": step, "items": items,
                    "elapsed_s": elapsed_now(), "hold_out": args.hold_out, "crop_size": CROP_SIZE,
                    "classes": list(TILE_CLASSES), "teacher": init_state, "recipe": "train_sets",
                    "args": {k: str(v) for k, v in vars(args).items()}}, tmp)
        os.replace(tmp, ckpt_path)
        try:    # a failed export must not end a GPU session: the checkpoint is there to export
            export_onnx(copy.deepcopy(net).float(), onnx_path.with_suffix(".tmp.onnx"))
            os.replace(onnx_path.with_suffix(".tmp.onnx"), onnx_path)
        except Exception as exc:  # noqa: BLE001
            print(f"ONNX export failed ({exc!r}); export later with models.train_classifier.export_onnx",
                  flush=True)
        rec = {"step": step, "items": items, "elapsed_s": round(elapsed_now(), 1),
               "val_train_sets_1ref": round(one_ref_accuracy(net, val_train, device), 4),
               "val_jade_1ref_log_only": round(one_ref_accuracy(net, val_jade, device), 4)}
        history.append(rec)
        (args.out / "sets_eval.json").write_text(json.dumps({"history": history, "final": final}, indent=1))
        print(f"saved {rec}", flush=True)

    net.train()
    if not args.bn_train:
        freeze_bn(net)
    pool: list = []
    sums = {"proto": 0.0, "acc": 0.0, "ce": 0.0, "kd": 0.0, "ece": 0.0, "n": 0}
    last_log = last_save = time.time()
    items_at_start, step0 = items, step
    fast = cuda or args.bf16
    if fast:
        net.to(memory_format=torch.channels_last)
    print(f"training on {device}: {args.workers} workers, {args.episodes} episodes/step, "
          f"{args.steps_per_item or 'auto'} steps/item", flush=True)
    stop = False
    spi = args.steps_per_item or 2
    waits: list[bool] = []
    while not stop:
        tw = time.time()
        ex, mask, cx, cy = next(it)
        if not args.steps_per_item and items - items_at_start > args.workers:   # past the start-up
            # waiting for the workers: the device has time for more steps per item; an item always
            # ready: the workers are ahead, fewer steps per item keeps the data fresh
            waits.append(time.time() - tw > 0.003)
            if len(waits) == 20:
                share = sum(waits) / 20
                spi = min(args.max_steps_per_item, spi + 1) if share > 0.5 else \
                    max(1, spi - 1) if share < 0.1 else spi
                waits = []
        items += 1
        item = tuple(t.to(device, non_blocking=True) for t in (ex, mask, cx, cy))
        pool = (pool + [item])[-args.pool:]
        for r in range(spi):
            if progress() >= 1 or (args.minutes and time.time() - t0 > args.minutes * 60) \
                    or (args.max_items and items - items_at_start > args.max_items):
                stop = True
                break
            picks = [item if r == 0 else pool[int(torch.randint(len(pool), (1,), generator=gen))]]
            picks += [pool[int(torch.randint(len(pool), (1,), generator=gen))] for _ in range(args.episodes - 1)]
            other = pool[int(torch.randint(len(pool), (1,), generator=gen))]
            for g in opt.param_groups:
                g["lr"] = lr_at(progress())
            loss, stats = step_loss(net, teacher, picks, (item, other), gen, args, fast)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            step += 1
            for key, v in stats.items():
                sums[key] += float(v.detach())
            sums["n"] += 1
        now = time.time()
        if now - last_log > 15 and sums["n"]:
            n = sums.pop("n")
            rate = (items - items_at_start) / (now - t0)
            print(f"step {step} items {items} ({rate:.2f} episodes/s, {(step - step0) / max(1e-9, now - t0):.1f} steps/s) "
                  + " ".join(f"{k} {v / n:.3f}" for k, v in sums.items())
                  + f" lr {opt.param_groups[0]['lr']:.2e} steps/item {spi} {elapsed_now():.0f}s", flush=True)
            sums = {"proto": 0.0, "acc": 0.0, "ce": 0.0, "kd": 0.0, "ece": 0.0, "n": 0}
            last_log = now
        if now - last_save > args.save_seconds:
            save()
            last_save = time.time()
    save(final=progress() >= 1)
    print(f"stopped at step {step}, {items} items after {elapsed_now():.0f}s "
          f"({(items - items_at_start) / (time.time() - t0):.2f} episodes/s)", flush=True)
    del it
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
