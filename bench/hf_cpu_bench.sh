#!/usr/bin/env bash
# CPU speed and memory of the native encoder on the granite-embedding-125m-english architecture (RoBERTa,
# 12 x 768, vocab 50265) in float32:
#   - median latency at (input, batch) = (128, 1), (512, 1), (128, 8) from the driver's RES lines;
#   - FLOPs per forward (analytic) and achieved FLOP/s against the machine's fp32 GEMM rate, measured in the
#     same run by `hf_bench gemm` on the model's own GEMM shapes and token count;
#   - load time (FMWORK SETUP) of a real-size float32 safetensors folder with random weights;
#   - peak RSS (/usr/bin/time -v) against weights + an activation estimate.
#
# Usage: bench/hf_cpu_bench.sh [BUILD_DIR]      (default: build)
# Env:   THREADS (exported as OMP_NUM_THREADS to every process; default: unset, LibTorch's own default, which
#        the driver and hf_bench share), REPS (default 20),
#        WORK (scratch folder for the 500 MB model, default a mktemp dir, removed at the end),
#        RUNNER=driver|hf_bench (default: driver when BUILD_DIR/driver exists; hf_bench forward is a stand-in
#        that prints the same SETUP / RES lines).
# Needs: BUILD_DIR/hf_bench (CMake target hf_bench, bench/hf_bench.cpp), BUILD_DIR/driver, /usr/bin/time, awk,
# python3 (bench/fmwork_log.py reads the lines).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
CONFIG_DIR=$ROOT/configs/models/granite-embedding-125m-english
REPS=${REPS:-20}
if [ -n "${THREADS:-}" ]; then export OMP_NUM_THREADS=$THREADS; fi
HF_BENCH=$BUILD/hf_bench
DRIVER=$BUILD/driver
RUNNER=${RUNNER:-$([ -x "$DRIVER" ] && echo driver || echo hf_bench)}
cmake --build "$BUILD" --target hf_bench >/dev/null || { echo "error: could not build $HF_BENCH (cmake --build $BUILD --target hf_bench)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK"

# Model facts (config.json): layers, hidden, intermediate, heads, vocab, max positions.
cfg() { awk -v k="\"$1\"" -F'[:,]' '$1 ~ k { gsub(/ /, "", $2); print $2 }' "$CONFIG_DIR/config.json"; }
LAYERS=$(cfg num_hidden_layers); H=$(cfg hidden_size); I=$(cfg intermediate_size); HEADS=$(cfg num_attention_heads)
V=$(cfg vocab_size); P=$(cfg max_position_embeddings)

# One forward: runs the model at (input, batch) under /usr/bin/time; prints "latency_ms setup_s peak_rss_mb".
run_model() {  # DIR INPUT BATCH REPS [extra args]
  local dir=$1 L=$2 B=$3 reps=$4; shift 4
  local log=$WORK/run-$L-$B.log
  if [ "$RUNNER" = driver ]; then
    /usr/bin/time -v "$DRIVER" --platform cpu --model_class RobertaModel --model_name "$dir" \
      --input_sizes "$L" --batch_sizes "$B" --reps "$reps" "$@" >"$log" 2>"$log.time"
  else
    local extra=(); [ "$*" = "--model:random_weights@ True" ] && extra=(--random)
    /usr/bin/time -v "$HF_BENCH" forward "$dir" --class RobertaModel --input "$L" --batch "$B" --reps "$reps" \
      "${extra[@]}" >"$log" 2>"$log.time"
  fi
  local lat setup rss
  lat=$(python3 "$ROOT/bench/fmwork_log.py" RES latency_ms "$log" | tail -1)
  setup=$(python3 "$ROOT/bench/fmwork_log.py" SETUP seconds "$log" | tail -1)
  rss=$(awk -F: '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$log.time")
  [ -n "$lat" ] || { echo "error: no RES line; see $log" >&2; cat "$log" "$log.time" >&2; exit 1; }
  echo "$lat $setup $rss"
}

BASE=$("$HF_BENCH" gemm --tokens 16 --seconds 0.1 | awk '/GEMM_RSS/ { sub("rss_baseline_mb=", "", $2); print $2 }')
NTHREADS=$("$HF_BENCH" gemm --tokens 16 --seconds 0.1 | awk '$1 == "GEMM" { for (i = 2; i <= NF; i++) if ($i ~ /^threads=/) { sub("threads=", "", $i); print $i } }')
echo "# hf_cpu_bench: granite-embedding-125m-english architecture, float32, $NTHREADS intra-op threads, $REPS reps, runner $RUNNER"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# model: layers=$LAYERS hidden=$H heads=$HEADS intermediate=$I vocab=$V positions=$P"
echo

printf "%-9s %9s %9s %9s %9s %6s %7s %8s %8s %7s %7s\n" "input/bat" "lat_ms" "GFLOP/fw" "GFLOP/s" "GEMM_GF/s" "ratio" "ratio_i" "rss_MB" "est_MB" "rss/est" "net/est"
PARAMS=$(awk -v L="$LAYERS" -v H="$H" -v I="$I" -v V="$V" -v P="$P" \
  'BEGIN { printf "%.0f", V*H + P*H + H + 2*H + L*(4*H*H + 4*H + 2*H*I + I + H + 4*H) + H*H + H }')
for combo in 128,1 512,1 128,8; do
  L=${combo%,*}; B=${combo#*,}
  read -r LAT _ RSS < <(run_model "$CONFIG_DIR" "$L" "$B" "$REPS" --model:random_weights@ True)
  # GEMM rate at the same number of tokens (batch x input) on the model's shapes, measured now.
  GEMM=$("$HF_BENCH" gemm --tokens $((L * B)) --hidden "$H" --intermediate "$I" --seconds 3 | awk '$1 == "GEMM" { sub("gflops=", "", $NF); print $NF }')
  # The same ratio with each forward followed by its own GEMMs (interleaved: robust to other load).
  RATIO_I=$("$HF_BENCH" forward "$CONFIG_DIR" --class RobertaModel --random --gemm --input "$L" --batch "$B" \
    --reps $(( REPS < 6 ? REPS : 6 )) | awk '$1 == "HF_BENCH_GEMM" { for (i = 2; i <= NF; i++) if ($i ~ /^ratio=/) { sub("ratio=", "", $i); print $i } }')
  awk -v L="$L" -v B="$B" -v NL="$LAYERS" -v H="$H" -v I="$I" -v NH="$HEADS" -v lat="$LAT" -v gemm="$GEMM" \
      -v rss="$RSS" -v params="$PARAMS" -v base="$BASE" -v ri="$RATIO_I" 'BEGIN {
    T = B * L
    # per layer: q,k,v,out (4 H^2) + FFN (2 H I) GEMMs, plus Q K^T and P V (2 x 2 B L^2 H); then the pooler
    flops = NL * (2 * T * (4 * H * H + 2 * H * I) + 4 * B * L * L * H) + 2 * B * H * H
    gfs = flops / (lat / 1e3) / 1e9
    # activations alive at the peak of a layer (float32): x, qkv, q/k/v copies, context (8 T H), FFN hidden
    # (T I), scores + probabilities (2 B heads L^2), embeddings/output (2 T H)
    act = 4 * (10 * T * H + T * I + 2 * B * NH * L * L)
    est = (4 * params + act) / 1048576
    printf "%-9s %9.1f %9.2f %9.1f %9.1f %5.0f%% %6.0f%% %8.1f %8.1f %7.2f %7.2f\n", L "/" B, lat, flops / 1e9, gfs, gemm, 100 * gfs / gemm, 100 * ri, rss, est, rss / est, (rss - base) / est
  }'
done
echo "# ratio: achieved FLOP/s over the GEMM rate measured just after; ratio_i: the same with the GEMMs timed"
echo "# after each forward (hf_bench forward --gemm); est: weights + activation estimate; net: RSS less the"
echo "# ${BASE} MB a process has with LibTorch loaded and nothing allocated"

echo
echo "# load time: real-size float32 model.safetensors with random weights (page cache warm: just written)"
"$HF_BENCH" write-folder "$CONFIG_DIR/config.json" "$WORK/granite-125m-random" 0 float32
read -r LAT SETUP RSS < <(run_model "$WORK/granite-125m-random" 128 1 5)
echo "FMWORK SETUP ${SETUP}s (target < 0.5 s); (128,1) latency ${LAT} ms; peak RSS ${RSS} MB"
grep -E "weights:|q/k/v:|attention:" "$WORK/run-128-1.log" | sed 's/^/  /'
