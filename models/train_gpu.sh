#!/usr/bin/env bash
# One GPU session, start to finish (run on an H200 with 16 cores): render a dataset with every
# core, then train the tile/back detector (two-stage design) — and with DET46=1 the single-stage
# 46-class detector beside it on the same images under the same time cap — copying checkpoints
# to OUT as they improve (a session cut short still leaves weights behind). With CLS_STEPS > 0
# it then renders 960-px scenes and continues the crop classifier from
# models/checkpoints/classifier.pt on the GPU, half its batches' share cut from those scenes.
#
#   bash models/train_gpu.sh OUT [ART]
#   env: PY (python3), N (training images cap, 40000), RENDER_S (render seconds, 120),
#        TRAIN_H (hours per detector, 0.1), IMGSZ (416), DEVICE (0 or cpu), BATCH (64),
#        DET46 (0), CLS_STEPS (0), SCENE_S (scene render seconds, 120)
#
# Set features instead (issue 33): SETS_MIN=M trains the classifier by episodes of one set
# (models/train_sets.py, from models/checkpoints/classifier.pt) for M minutes and nothing else:
# all cores but two render episodes while the GPU trains; OUT gets classifier.pt,
# classifier.onnx and sets_eval.json every minute and at the end, and sets.log. Procedural
# sets need CJK fonts: FONTS (default .devkit/fonts_sub, the fonts of datasets/get_fonts.sh
# cut to the characters used: see models/README.md). SETS_SCENE_S (60): seconds of scene
# rendering first (0: none), whose crops go into the head's batches. SETS_ARGS: more options.
#
#   SETS_MIN=7.5 SETS_ARGS="--lr 1e-3 --episodes 6 --max-steps-per-item 6" \
#       bash models/train_gpu.sh $OUT .art                 # one H200 session, ~9.5 minutes
#   SETS_MIN=0.3 SETS_SCENE_S=10 DEVICE=cpu PY=.venv/bin/python SETS_ARGS="--max-items 4" \
#       bash models/train_gpu.sh /tmp/out .art              # the dry run, here
#
# Run of 29 Nov 2026 (the bundled detector): DET46=1 RENDER_S=115 TRAIN_H=0.095, 10 minutes.
#
# Afterwards, on any machine: export ONNX with `python -m models.train_detector --export`
# (see models/README.md) and measure on the real photos with benchmarks/real_photos.py.
set -uo pipefail
OUT=${1:?usage: train_gpu.sh OUT [ART]}
ART=${2:-${TILESCOPE_ART:-../shared/art}}
PY=${PY:-python3}; N=${N:-40000}; RENDER_S=${RENDER_S:-120}; TRAIN_H=${TRAIN_H:-0.1}
IMGSZ=${IMGSZ:-416}; DEVICE=${DEVICE:-0}; BATCH=${BATCH:-64}
DET46=${DET46:-0}; CLS_STEPS=${CLS_STEPS:-0}; SCENE_S=${SCENE_S:-120}
DATA=${DATA:-/tmp/tilescope_data/tiles$IMGSZ}
PROJECT=${PROJECT:-/tmp/tilescope_runs}
W=$(nproc); HALF=$(( W > 3 ? W / 2 - 1 : 1 ))
export YOLO_OFFLINE=1 YOLO_AUTOINSTALL=0 PYTHONUNBUFFERED=1
mkdir -p "$OUT"
log() { echo "[$(date +%T)] $*"; }

SETS_MIN=${SETS_MIN:-0}
if [ "$SETS_MIN" != 0 ]; then
    SDEV=$([ "$DEVICE" = cpu ] && echo cpu || echo "cuda:$DEVICE")
    SW=${SETS_WORKERS:-$(( W > 3 ? W - 2 : 1 ))}
    FONTS=${FONTS:-.devkit/fonts_sub}
    [ -d "$FONTS" ] || log "no fonts in $FONTS: training styles only, no procedural sets"
    # the trainer stops itself after SETS_MIN minutes; the timeout only catches a hang
    CAP=$(awk "BEGIN { print int($SETS_MIN * 60 + 120) }")
    # scenes first (SETS_SCENE_S seconds, all cores): broadcast frames and 960-px photos, whose
    # crops take 40% of the head's ordinary batches, as v24's did (without them the first, CPU,
    # run lost the small broadcast tiles)
    SETS_SCENE_S=${SETS_SCENE_S:-60}
    SCENE_ARGS=()
    if [ "$SETS_SCENE_S" != 0 ]; then
        HW=$(( W > 1 ? W / 2 : 1 ))
        log "sets: rendering scenes for ${SETS_SCENE_S}s ($HW workers each: broadcast 1280, default 960)"
        for spec in "bc1280 1280 broadcast 21" "sc960 960 default 22"; do
            set -- $spec
            $PY -m datasets.make_dataset --out "/tmp/tilescope_data/$1" --n 100000 --val 0 --test 0 \
                --seed "$4" --imgsz "$2" --mix "$3" --art "$ART" --workers "$HW" \
                --max-seconds "$SETS_SCENE_S" > "/tmp/tilescope_data.$1.log" 2>&1 &
        done
        wait
        for d in bc1280 sc960; do
            n=$(ls /tmp/tilescope_data/$d/annotations/train 2>/dev/null | wc -l)
            log "  $d: $n scenes"; [ "$n" -gt 0 ] && SCENE_ARGS+=("/tmp/tilescope_data/$d")
        done
        [ ${#SCENE_ARGS[@]} -gt 0 ] && SCENE_ARGS=(--scenes "${SCENE_ARGS[@]}")
        log "  train_sets.py ${SCENE_ARGS[*]}"
    fi
    log "sets: episodic training for $SETS_MIN min on $SDEV, $SW render workers (fonts $FONTS)"
    nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader 2>/dev/null
    TILESCOPE_FONTS=$FONTS timeout -s INT -k 30 "$CAP" $PY models/train_sets.py --art "$ART" \
        --init models/checkpoints/classifier.pt --device "$SDEV" --workers "$SW" \
        --minutes "$SETS_MIN" --time-schedule --steps-per-item 0 --out "$OUT" "${SCENE_ARGS[@]}" \
        ${SETS_ARGS:-} 2>&1 | tee "$OUT/sets.log"
    rc=${PIPESTATUS[0]}
    echo "train_sets exit $rc" | tee -a "$OUT/sets.log"
    log "done"; ls -la "$OUT"
    exit "$rc"
fi

log "render: up to $N images for ${RENDER_S}s on $W cores"
$PY -m datasets.make_dataset --out "$DATA" --n "$N" --val 400 --test 300 --seed 1 --imgsz "$IMGSZ" \
    --art "$ART" --workers "$W" --mix real --max-seconds "$RENDER_S" 2>&1 | tr '\r' '\n' | grep -v "img/s\]$" | tail -3
cp "$DATA/dataset.json" "$OUT/dataset.json"

train() {  # name, extra args
    local name=$1; shift
    local workers=$HALF
    for attempt in 1 2; do
        $PY -m models.train_detector --data "$DATA" --imgsz "$IMGSZ" --epochs 300 --time "$TRAIN_H" \
            --batch "$BATCH" --workers "$workers" --device "$DEVICE" --cache ram --project "$PROJECT" \
            --name "$name" "$@" >> "$PROJECT.$name.log" 2>&1
        local rc=$?
        echo "$name attempt $attempt (workers $workers) exit $rc" >> "$PROJECT.$name.log"
        # A loader crash (e.g. a small /dev/shm) before the first epoch: once more in-process.
        [ $rc -eq 0 ] || [ -f "$PROJECT/$name/results.csv" ] && break
        workers=0
    done
}
mkdir -p "$PROJECT"
df -h /dev/shm 2>/dev/null | tail -1
log "train: two detectors, ${TRAIN_H} h each, $HALF loader workers each"
train det2 & P2=$!
P46=$P2
[ "$DET46" = 1 ] && { train det46 --all-classes & P46=$!; }

copy() {
    for n in det2 det46; do
        [ -f "$PROJECT/$n/weights/best.pt" ] && cp "$PROJECT/$n/weights/best.pt" "$OUT/$n.best.pt"
        # one file per model: per-epoch results, then the end of the training log
        [ -f "$PROJECT.$n.log" ] && { cat "$PROJECT/$n/results.csv" 2>/dev/null; \
            tr '\r' '\n' < "$PROJECT.$n.log" | grep -v "it/s\]$\|s/it\]$" | tail -60; } > "$OUT/$n.log"
    done
}
while kill -0 $P2 2>/dev/null || kill -0 $P46 2>/dev/null; do sleep 20; copy; done
wait
copy

if [ "$CLS_STEPS" -gt 0 ]; then
    SCENES=${SCENES:-/tmp/tilescope_data/scenes960}
    CDEV=$([ "$DEVICE" = cpu ] && echo cpu || echo "cuda:$DEVICE")
    log "classifier: render 960-px scenes for ${SCENE_S}s, then $CLS_STEPS steps on $CDEV"
    $PY -m datasets.make_dataset --out "$SCENES" --n 100000 --val 0 --test 0 --seed 11 --imgsz 960 \
        --art "$ART" --workers "$W" --mix real --max-seconds "$SCENE_S" 2>&1 | tail -1
    $PY models/train_classifier.py --art "$ART" --init models/checkpoints/classifier.pt \
        --steps "$CLS_STEPS" --lr 1e-3 --batch 256 --replay 1 --workers $(( W > 3 ? W - 2 : 1 )) \
        --device "$CDEV" --scenes "$SCENES" --scene-share 0.4 \
        --ckpt "$OUT/classifier.pt" --onnx "$OUT/classifier.onnx" > "$OUT/classifier.log" 2>&1
    echo "classifier exit $?" >> "$OUT/classifier.log"
fi
log "done"; ls -la "$OUT"
