#!/usr/bin/env bash
# The detector recipe of models/README.md on a GPU: more data, bigger input, more epochs.
# Usage (repo root, venv with the `train` extra):  bash models/train_detector_gpu.sh [DATA_DIR] [ART_DIR]
# Rendering is CPU work: ~0.12 s per 640-px image per core, so 20,000 images take ~10 min on 16 cores.
set -euo pipefail
DATA=${1:-data/tiles640}
ART=${2:-${TILESCOPE_ART:-../shared/art}}
PY=${PY:-.venv/bin/python}
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=0

$PY -m datasets.make_dataset --out "$DATA" --n 20000 --val 1000 --test 1000 --seed 1 \
    --imgsz 640 --art "$ART" --workers "$(nproc)"
$PY -m models.train_detector --data "$DATA" --imgsz 640 --epochs 120 --batch 64 \
    --workers 8 --device 0 --cache ram --name yolov8n_2cls_gpu
$PY -m models.train_detector --data "$DATA" --imgsz 640 --eval --device 0 --name yolov8n_2cls_gpu
$PY -m models.train_detector --data "$DATA" --imgsz 640 --name yolov8n_2cls_gpu \
    --export vision/weights/detector.onnx
