"""Train the tile detector (2 classes: ``tile`` = any face-up tile, ``back`` = face-down tile).

    python -m models.train_detector --data /work/data/tiles416 --imgsz 416 --epochs 30 --time 1.1

Steps: (1) derive a 2-class copy of a ``datasets.make_dataset`` folder (images hard-linked,
labels collapsed: every class but ``back`` -> 0 ``tile``, ``back`` -> 1), (2) train ultralytics
YOLOv8n from its model yaml (``pretrained=False``: no weights are downloaded), on CPU unless
``--device`` says otherwise, capped at ``--time`` hours, (3) ``--resume`` continues from the run's
``last.pt`` after an interruption. Export and evaluation: ``--export`` writes the ONNX model,
``--eval`` reports mAP50 / precision / recall on the held-out-style ``test`` split.

Run it in the background (the machine is shared)::

    YOLO_OFFLINE=1 nohup nice -n 10 .venv/bin/python -m models.train_detector ... > train.log 2>&1 &

ultralytics is AGPL-3.0; so is a model trained with it (see models/README.md).
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

# No downloads, no installs, no font fetches: this machine is offline.
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")

DETECTOR_CLASSES = ("tile", "back")
BACK_CLASS_46 = 45  # index of 'back' in vision.read.classes.TILE_CLASSES
REPO = Path(__file__).resolve().parents[1]


def collapse_line(line: str) -> str:
    """One YOLO label line of the 46-class set -> the 2-class set (``back`` -> 1, else 0)."""
    parts = line.split()
    if len(parts) != 5:
        raise ValueError(f"not a YOLO box line: {line!r}")
    cls = int(parts[0])
    if not 0 <= cls <= BACK_CLASS_46:
        raise ValueError(f"class {cls} out of range 0..45 in {line!r}")
    return " ".join(["1" if cls == BACK_CLASS_46 else "0"] + parts[1:])


def _same_file(a: Path, b: Path) -> bool:
    """``b`` is ``a``'s hard link, or (a copy across file systems) its size and time."""
    sa, sb = a.stat(), b.stat()
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino) or (
        sa.st_size == sb.st_size and int(sa.st_mtime) == int(sb.st_mtime))


def make_two_class(src: Path, dst: Path) -> Path:
    """Write the 2-class copy of dataset ``src`` to ``dst``; returns its data.yaml path.

    Images are hard-linked (copied across file systems) rather than symlinked, because
    ultralytics resolves symlinks and would then read the 46-class labels next to the originals.
    """
    if not (src / "images").is_dir():
        raise FileNotFoundError(f"{src} has no images/ folder: make it with python -m datasets.make_dataset")
    for split in ("train", "val", "test"):
        simg, slab = src / "images" / split, src / "labels" / split
        if not simg.is_dir():
            continue
        dimg, dlab = dst / "images" / split, dst / "labels" / split
        dimg.mkdir(parents=True, exist_ok=True)
        dlab.mkdir(parents=True, exist_ok=True)
        for img in sorted(simg.iterdir()):
            lab = slab / (img.stem + ".txt")
            if not lab.exists():
                continue  # an image still being written by make_dataset
            target = dimg / img.name
            if target.exists() and not _same_file(img, target):
                target.unlink()     # a re-rendered dataset at the same path: not the old image
            if not target.exists():
                try:
                    os.link(img, target)
                except OSError:
                    shutil.copy2(img, target)
            lines = [collapse_line(ln) for ln in lab.read_text().splitlines() if ln.strip()]
            (dlab / lab.name).write_text("".join(ln + "\n" for ln in lines))
    yaml = dst / "data.yaml"
    yaml.write_text(f"path: {dst.resolve()}\ntrain: images/train\nval: images/val\ntest: images/test\n"
                    f"nc: 2\nnames:\n  0: tile\n  1: back\n")
    return yaml


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.train_detector", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="dataset folder written by datasets.make_dataset")
    ap.add_argument("--project", default=str(REPO / "runs" / "detector"), help="ultralytics project folder")
    ap.add_argument("--name", default="yolov8n_2cls", help="run name inside --project")
    ap.add_argument("--model", default="yolov8n.yaml", help="model yaml (trained from scratch)")
    ap.add_argument("--imgsz", type=int, default=416)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--time", type=float, default=None, help="hours cap for this run (ultralytics time=)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--cache", default="ram", help="ram, disk or none")
    ap.add_argument("--resume", action="store_true", help="continue the run from its last.pt")
    ap.add_argument("--export", default=None, metavar="ONNX", help="export the run's best.pt to this ONNX path and exit")
    ap.add_argument("--eval", action="store_true", help="evaluate best.pt on the test split and exit")
    ap.add_argument("--weights", default=None, help="checkpoint for --export/--eval (default: the run's best.pt)")
    ap.add_argument("--amp", action="store_true", help="mixed precision (GPU only; off by default)")
    ap.add_argument("--fliplr", type=float, default=None,
                    help="mirror share (default 0.5 for tile/back, 0 for 46 classes: a mirrored 3m is no tile)")
    ap.add_argument("--all-classes", action="store_true",
                    help="train/evaluate the single-stage 46-class detector on the dataset's own labels")
    args = ap.parse_args(argv)

    src = Path(args.data)
    two = src.parent / (src.name + "_2cls")
    run_dir = Path(args.project) / args.name
    weights = Path(args.weights) if args.weights else run_dir / "weights" / "best.pt"
    try:
        from ultralytics import YOLO
    except ImportError:
        print("error: ultralytics is not installed: pip install -e '.[train]'", file=sys.stderr)
        return 2

    if args.all_classes:
        if not (src / "data.yaml").exists():
            print(f"error: {src / 'data.yaml'} not found: make the dataset with datasets.make_dataset", file=sys.stderr)
            return 2
        prepare = lambda: src / "data.yaml"  # noqa: E731
    else:
        prepare = lambda: make_two_class(src, two)  # noqa: E731
    names = "46 tile classes" if args.all_classes else "tile/back"
    if args.export:
        return export_onnx(weights, Path(args.export), args.imgsz)
    if args.eval:
        yaml = prepare()
        m = YOLO(str(weights))
        res = m.val(data=str(yaml), split="test", imgsz=args.imgsz, batch=args.batch, device=args.device,
                    workers=args.workers, plots=False, project=str(Path(args.project)), name=args.name + "_test",
                    exist_ok=True, verbose=True)
        box = res.box
        print(f"test mAP50 {box.map50:.4f}  mAP50-95 {box.map:.4f}  precision {box.mp:.4f}  recall {box.mr:.4f}")
        print(f"classes: {names}")
        for j, ci in enumerate(box.ap_class_index):
            print(f"  {res.names[int(ci)]}: P {box.p[j]:.4f} R {box.r[j]:.4f} AP50 {box.ap50[j]:.4f}")
        return 0

    if args.resume:
        last = run_dir / "weights" / "last.pt"
        if not last.exists():
            print(f"error: nothing to resume: {last} not found", file=sys.stderr)
            return 2
        import torch
        state = torch.load(last, map_location="cpu", weights_only=False)
        if not isinstance(state, dict) or state.get("optimizer") is None or state.get("epoch", -1) < 0:
            # ultralytics strips the optimizer from a finished run's last.pt; resuming it
            # starts a new training on its default data set (coco8) instead
            print(f"error: {last} is a finished run (no optimizer state left to resume): start a "
                  f"new run from it with --model {last}", file=sys.stderr)
            return 2
        YOLO(str(last)).train(resume=True)
        return 0

    yaml = prepare()
    model = YOLO(args.model)
    model.train(
        data=str(yaml), epochs=args.epochs, time=args.time, imgsz=args.imgsz, batch=args.batch,
        workers=args.workers, device=args.device, cache=False if args.cache == "none" else args.cache,
        # A .pt model continues from its weights (ultralytics drops them when pretrained=False);
        # a yaml trains from scratch, as nothing may be downloaded here.
        pretrained=args.model if str(args.model).endswith(".pt") else False,
        plots=False, project=str(Path(args.project)), name=args.name, exist_ok=True,
        amp=args.amp, patience=100, seed=0, deterministic=False, warmup_epochs=1,
        # Tiles are already small and rotated by the renderer: zoom out little, no rotation;
        # a mirrored tile is still a tile (2 classes), so horizontal flips are harmless there.
        scale=0.3, degrees=0.0, translate=0.1, mosaic=1.0, close_mosaic=3,
        fliplr=(0.0 if args.all_classes else 0.5) if args.fliplr is None else args.fliplr,
    )
    return 0


def export_onnx(weights: Path, dest: Path, imgsz: int) -> int:
    """Export ``weights`` to ONNX (opset 12, fixed imgsz, simplified when onnxslim is present)."""
    from ultralytics import YOLO

    if not weights.exists():
        print(f"error: checkpoint {weights} not found", file=sys.stderr)
        return 2
    try:
        import onnxslim  # noqa: F401
        simplify = True
    except ImportError:
        simplify = False
    out = YOLO(str(weights)).export(format="onnx", imgsz=imgsz, opset=12, simplify=simplify,
                                    dynamic=False, half=False, device="cpu")
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out, dest)
    print(f"wrote {dest} ({dest.stat().st_size / 1e6:.1f} MB, imgsz {imgsz}, simplify={simplify})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
