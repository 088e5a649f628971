#!/usr/bin/env bash
# The driver's own timing floor and the demo's end-to-end wall time, measured in one run.
#  0. The floor decomposed in one process (bench/timing_floor.cpp): a bare LibTorch loop, then each piece the
#     driver adds (grad mode, its model call, synchronise, clock, fresh inputs, run_sweep itself).
#  1. Timing floor: the median rep duration on a model whose forward returns its input (`make_model --kind
#     identity`): what the timed region costs when the model does nothing (TorchScript call + synchronise),
#     over several driver runs.
#  2. The same sweep on the embedded default model, for scale.
#  3. The end-to-end wall time of the demo command (process start to exit), median of N runs.
# Usage: bench/timing_floor.sh [build-dir] [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target timing_floor make_model >/dev/null
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$build/make_model" --kind identity --out "$work/identity/model.pt" --vocab 30522 >/dev/null

median_field() {  # median of column $2 of stdin (numbers), awk-only
  sort -g | awk -v col=1 '{v[NR]=$col} END {if (NR%2) print v[(NR+1)/2]; else printf "%.9f\n", (v[NR/2]+v[NR/2+1])/2}'
}

echo "== timing floor decomposed (bench/timing_floor.cpp: one process, one row per piece added)"
"$build/timing_floor" "$work/identity/model.pt" --calls 20000

echo "== timing floor of the driver itself: identity model, 1000 reps per combination, $runs driver runs"
for i in $(seq "$runs"); do
  "$build/driver" --platform cpu --model_class Identity --model_name "$work/identity/model.pt" \
    --input_sizes 128 --batch_sizes 1,8 --reps 1000 --eval > "$work/identity.log"
  python3 bench/fmwork_log.py STAT batch,p50_ms "$work/identity.log"
done > "$work/floor.stat"
for batch in 1 8; do
  awk -v b="$batch" '$1 == b {print $2}' "$work/floor.stat" | median_field |
    awk -v b="$batch" -v n="$runs" '{printf "input=128 batch=%s  median rep (median of %d runs'"'"' p50): %.3f us\n", b, n, $1 * 1000}'
done

echo "== default model (4 layers, hidden 256), 50 reps"
"$build/driver" --platform cpu --model_class BertModel --model_name "$build/models/encoder-mini/model.pt" \
  --input_sizes 64,128 --batch_sizes 1,4 --reps 50 --eval > "$work/default.log"
python3 bench/fmwork_log.py RES input,batch,latency_ms,throughput "$work/default.log" |
  awk '{printf "input=%s batch=%s  latency=%s ms  throughput=%s seq/s\n", $1, $2, $3, $4}'

echo "== demo end to end (driver process wall time, $runs runs)"
for i in $(seq "$runs"); do
  s=$(date +%s.%N)
  "$build/driver" --platform cpu --model_class BertModel --model_name "$build/models/encoder-mini/model.pt" \
    --input_sizes 64,128 --batch_sizes 1,4 --reps 10 --eval > /dev/null
  e=$(date +%s.%N)
  awk -v e="$e" -v s="$s" 'BEGIN {printf "%.6f\n", e - s}'
done | median_field | awk '{printf "median wall time: %.3f s\n", $1}'
