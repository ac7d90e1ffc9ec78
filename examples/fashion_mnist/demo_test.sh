#!/usr/bin/env bash
# The C++ demo's short mode (a ctest): one epoch on 1024 samples must save a checkpoint that
# reloads to the same accuracy; --resume must continue with epoch 2, whose training loss is
# below epoch 1's.
#   demo_test.sh path/to/fashion_mnist
set -euo pipefail
exe=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
args=(--limit 1024 --threads 1 --checkpoint "$dir/demo.ckpt")

fail() { echo "demo_test: $*" >&2; exit 1; }
epoch_loss() { awk -v e="epoch $1:" 'index($0, e) == 1 { print $5 }'; }

"$exe" "${args[@]}" --epochs 1 >"$dir/first.txt" || fail "first run failed: $(cat "$dir/first.txt")"
cat "$dir/first.txt"
grep -q "reloaded test accuracy .* (same)" "$dir/first.txt" || fail "the checkpoint did not reload to the same accuracy"
[[ -f $dir/demo.ckpt ]] || fail "no checkpoint written"
loss1=$(epoch_loss 1 <"$dir/first.txt")

"$exe" "${args[@]}" --epochs 2 --resume >"$dir/second.txt" || fail "resumed run failed: $(cat "$dir/second.txt")"
cat "$dir/second.txt"
grep -q "resumed from .* after epoch 1" "$dir/second.txt" || fail "--resume did not start after epoch 1"
grep -q "^epoch 1:" "$dir/second.txt" && fail "--resume trained epoch 1 again"
loss2=$(epoch_loss 2 <"$dir/second.txt")
[[ -n $loss1 && -n $loss2 ]] || fail "no epoch loss printed"
awk -v a="$loss1" -v b="$loss2" 'BEGIN { exit !(b < a) }' || fail "training loss did not fall: $loss1 -> $loss2"
grep -q "reloaded test accuracy .* (same)" "$dir/second.txt" || fail "the resumed checkpoint did not reload"
echo "demo_test: ok (loss $loss1 -> $loss2)"
