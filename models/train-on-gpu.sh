#!/usr/bin/env bash
# Trains the shipped detector on the GPU machine (one H100, 16 cores, no network), in stages
# that each fit one 10-minute call of the device tool and each end with a finished model, so
# a lost machine costs one stage, never the whole run. From the repository root:
#
#   here:    bash models/train-on-gpu.sh pack
#              writes .gpu/pack.tar (about 52 MB): the rendered art of the training decks
#              (the machine has no rsvg-convert), the real photos (../shared does not travel)
#              and the ultralytics wheels for Python 3.12 (the machine has torch,
#              torchvision, onnx, onnxruntime and opencv, but no ultralytics)
#   device:  bash models/train-on-gpu.sh scratch                  carry: .gpu
#              builds the data sets, trains from the model yaml for what is left of $BUDGET
#   device:  bash models/train-on-gpu.sh more .gpu/best.pt        carry: .gpu
#              goes on from a checkpoint, as long, at a lower learning rate
#   device:  bash models/train-on-gpu.sh finish .gpu/best.pt      carry: .gpu
#              a short fine-tune with more real photos, ONNX export, and the real
#              validation photos measured
#
# Between stages, copy best.pt from the call's files into .gpu/. The whole call must stay
# under the device tool's 64 MiB: the pack, one checkpoint (5.4 MB for yolo11n) and the
# tracked files fit. A fresh machine rebuilds the data sets (about two minutes); a warm one
# keeps them in datasets/build/. What is worth keeping lands in $OUT: best.pt, results.csv,
# the log, and after `finish` the ONNX model and the evaluation. The held-out designs are
# measured back here (they are not in the pack):
#   cribcam data build --out datasets/build/heldout --images 1000 --seed 2 --split heldout
#   cribcam eval --images datasets/build/heldout/images/test \
#       --labels datasets/build/heldout/labels-test.json --model models/cribcam-cards.onnx
set -euo pipefail
cd "$(dirname "$0")/.."

STAGE=${1:?usage: bash models/train-on-gpu.sh pack|scratch|more CHECKPOINT|finish CHECKPOINT}
CHECKPOINT=${2:-}
MODEL=${MODEL:-yolo11n.yaml}
IMGSZ=${IMGSZ:-640}
IMAGES=${IMAGES:-40000}          # synthetic training scenes (10 % go to validation)
BUDGET=${BUDGET:-570}            # seconds a stage may take in all (a device call: 600 at most)
FINISH_HOURS=${FINISH_HOURS:-0.04}
REAL_REPEAT=${REAL_REPEAT:-20}   # each real training photo listed this many times
BATCH=${BATCH:-128}
DEVICE=${DEVICE:-0}              # cpu for a dry run of the whole script on any machine
WORKERS=${WORKERS:-16}
OUT=${OUT:-runs/out}
PACK=.gpu/pack.tar
BUILD=datasets/build
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1

if [[ $STAGE == pack ]]; then
    stage=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 --platform any \
        -d "$stage/wheels" ultralytics==8.4.190 ultralytics-thop==2.2.3
    # Loading the training decks renders any that are not cached yet.
    python3 -c "from cribcam.datagen.decks import load_decks; load_decks('train')"
    mkdir -p "$stage/render"
    for deck in $(python3 -c "from cribcam.datagen.decks import load_manifest
print(' '.join(d['name'] for d in load_manifest()['decks'] if d['split'] == 'train'))"); do
        cp -r "datasets/cache/decks/render/$deck" "$stage/render/"
        # A deck whose corners were rejected is skipped on its meta.json alone.
        if grep -q '"corner_error": "' "$stage/render/$deck"/w*/meta.json; then
            find "$stage/render/$deck" -name '*.png' -delete
        fi
    done
    cp -r "${CRIBCAM_SHARED:-../shared}/real-photos" "$stage/real-photos"
    mkdir -p .gpu
    tar -cf "$PACK" -C "$stage" wheels render real-photos
    rm -rf "$stage"
    du -h "$PACK"
    exit 0
fi

[[ -f $PACK ]] || { echo "no $PACK: run 'bash models/train-on-gpu.sh pack' here first" >&2; exit 2; }
# Checked before the unpacking and the data build, which take minutes on a fresh machine.
case $STAGE in
    scratch) ;;
    more|finish) [[ -f $CHECKPOINT ]] || { echo "$STAGE needs a checkpoint, e.g. .gpu/best.pt" >&2; exit 2; } ;;
    *) echo "unknown stage $STAGE" >&2; exit 2 ;;
esac
mkdir -p "$OUT" /tmp/pack /tmp/site datasets/cache/decks
tar -xf "$PACK" -C /tmp/pack
cp -rn /tmp/pack/render datasets/cache/decks/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site /tmp/pack/wheels/*.whl
export PYTHONPATH=/tmp/site:$PWD
cribcam() { python3 -m cribcam "$@"; }
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || echo "no GPU"; } | tee "$OUT/gpu.txt"

# Data: the same seeds give the same bytes, so a rebuilt set is the set trained on before.
[[ -f $BUILD/synth/data.yaml ]] || cribcam data build --out $BUILD/synth --images "$IMAGES" --seed 1 --force
[[ -f $BUILD/real/data.yaml ]] || cribcam data real --src /tmp/pack/real-photos --out $BUILD/real --force

# Training time left in the stage's budget, in hours: the data build takes longer on a fresh
# machine, and the last evaluation, the export and the copies need about a minute.
hours_left() { python3 -c "print(round(max($BUDGET - $SECONDS - 75, 60) / 3600, 4))"; }

train() {  # name, model, hours, real repeat, then further ultralytics settings
    local name=$1 model=$2 hours=$3 repeat=$4
    shift 4
    echo "$name: training for $hours h"
    cribcam train --data $BUILD/synth/data.yaml --real $BUILD/real/data.yaml --real-repeat "$repeat" \
        --model "$model" --imgsz "$IMGSZ" --batch "$BATCH" --epochs 1000 --patience 1000 --device "$DEVICE" \
        --workers "$WORKERS" --project runs --name "$name" --out "$OUT/cribcam-cards.onnx" \
        --set time="$hours" "$@" 2>&1 | tee "$OUT/$name.log"
    cp "runs/$name/weights/best.pt" "$OUT/best.pt"
    cp "runs/$name/results.csv" "$OUT/results.csv"
}

# The later stages name SGD because optimizer=auto (MuSGD for a long run) ignores lr0, and
# going on from a checkpoint wants a lower learning rate than starting afresh.
case $STAGE in
    scratch) train scratch "$MODEL" "$(hours_left)" "$REAL_REPEAT" ;;
    more)    train more "$CHECKPOINT" "$(hours_left)" "$REAL_REPEAT" optimizer=SGD lr0=0.003 warmup_epochs=0.3 ;;
    finish)
        train finish "$CHECKPOINT" "$FINISH_HOURS" $((REAL_REPEAT * 3)) \
            optimizer=SGD lr0=0.001 warmup_epochs=0 mosaic=0
        cribcam eval --images $BUILD/real/images/val --labels $BUILD/real/labels-val.json \
            --model "$OUT/cribcam-cards.onnx" --json | tee "$OUT/eval-real-val.json" ;;
esac
