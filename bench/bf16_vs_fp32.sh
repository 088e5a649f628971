#!/usr/bin/env bash
# bfloat16 against float32 on this CPU, in this driver and in the upstream-style Python driver (transformers):
# all-MiniLM-L6-v2 from its wheel, one point, 1 thread, alternating, ROUNDS rounds. On a CPU without bf16
# instructions (AVX2 only) bf16 is emulated and several times slower in both; with AMX it is faster.
# Usage: bench/bf16_vs_fp32.sh [build dir] [rounds] [input] [batch]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}; rounds=${2:-2}; input=${3:-128}; batch=${4:-8}
source scripts/lib.sh
py=$(fmwork_python)
model=$(fmwork_minilm_folder)
grep -m1 "model name" /proc/cpuinfo
common=(--platform cpu --model_class BertModel --model_name "$model" --input_sizes "$input" --batch_sizes "$batch"
        --reps 6 --eval --torch.call:set_num_threads@ 1)
echo "round dtype ours_ms python_ms"
for round in $(seq "$rounds"); do
  for dtype in float32 bfloat16; do
    ours=$("$build/driver" "${common[@]}" --model:torch_dtype "$dtype" 2>/dev/null | python3 bench/fmwork_log.py RES latency_ms)
    python=$(HF_HUB_OFFLINE=1 "$py" bench/upstream_driver.py "${common[@]}" --model:dtype@ "torch.$dtype" 2>/dev/null |
             python3 bench/fmwork_log.py RES latency_ms)
    echo "$round $dtype $ours $python"
  done
done
