#!/usr/bin/env bash
# Seconds per training epoch of the Fashion-MNIST demo, Ember against PyTorch, at the same
# thread count: the Python demo (examples/fashion_mnist/train.py), optionally the C++ demo,
# and benchmarks/fashion_mnist_torch.py (the same model, data, optimizer and loop in torch).
# Each prints `seconds_per_epoch S`, the training loop's time without evaluation.
#
#   benchmarks/compare_epoch.sh [--threads T] [--epochs N] [--limit N] [--cpp]
#
# Ember is taken from $EMBER_BUILD_DIR (default: build). ratio = torch s / Ember s.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${EMBER_BUILD_DIR:-$ROOT/build}" && pwd)
PYTHON=/usr/bin/python3
THREADS=$(nproc) EPOCHS=1 LIMIT=0 CPP=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --threads) THREADS=$2; shift 2 ;;
    --epochs) EPOCHS=$2; shift 2 ;;
    --limit) LIMIT=$2; shift 2 ;;
    --cpp) CPP=1; shift ;;
    *) echo "usage: $0 [--threads T] [--epochs N] [--limit N] [--cpp]" >&2; exit 2 ;;
  esac
done
CKPT=$(mktemp -d)
trap 'rm -rf "$CKPT"' EXIT
ARGS=(--epochs "$EPOCHS" --threads "$THREADS" --limit "$LIMIT")

seconds() { awk '/^seconds_per_epoch/ { print $2 }'; }
echo "threads $THREADS, epochs $EPOCHS, limit $LIMIT (0: all samples)"
ember_s=$(PYTHONPATH="$BUILD/python" "$PYTHON" "$ROOT/examples/fashion_mnist/train.py" "${ARGS[@]}" \
          --checkpoint "$CKPT/py.ckpt" | tee /dev/stderr | seconds)
torch_s=$("$PYTHON" "$ROOT/benchmarks/fashion_mnist_torch.py" "${ARGS[@]}" | tee /dev/stderr | seconds)
printf 'ember (Python) %.2f s/epoch   torch %.2f s/epoch   ratio %.2f\n' "$ember_s" "$torch_s" \
  "$(awk -v t="$torch_s" -v e="$ember_s" 'BEGIN { print t / e }')"
if [[ $CPP == 1 ]]; then
  cpp_s=$("$BUILD/examples/fashion_mnist" "${ARGS[@]}" --checkpoint "$CKPT/cpp.ckpt" | tee /dev/stderr | seconds)
  printf 'ember (C++)    %.2f s/epoch   torch %.2f s/epoch   ratio %.2f\n' "$cpp_s" "$torch_s" \
    "$(awk -v t="$torch_s" -v e="$cpp_s" 'BEGIN { print t / e }')"
fi
