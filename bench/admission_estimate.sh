#!/usr/bin/env bash
# The sweep's memory admission estimate (inputs + activations + packed weights, sweep.cpp / hf::Encoder::
# activation_bytes) against what a forward really adds to the process's peak RSS, on the real
# all-MiniLM-L6-v2, float32 on the CPU, for sdpa and eager attention over a few shapes. One process per
# shape (hf_bench forward): measured = peak RSS - RSS after loading. A ratio estimate/measured near 1 (and
# not far below it) is what keeps the admission from refusing runs that fit or admitting runs that do not.
#   bench/admission_estimate.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target hf_bench >/dev/null
source scripts/lib.sh
model=$(fmwork_minilm_folder)
printf '%-6s %6s %6s %12s %12s %8s\n' attn batch input measured_mb estimate_mb ratio
for attn in sdpa eager; do
  for shape in "1 128" "8 512" "32 256" "64 512" "128 128"; do
    set -- $shape
    line=$("$build/hf_bench" forward "$model" --class BertModel --batch "$1" --input "$2" --reps 3 --attn "$attn" | grep '^HF_BENCH ')
    loaded=$(sed 's/.*rss_after_load_mb=\([0-9.]*\).*/\1/' <<<"$line")
    peak=$(sed 's/.*rss_peak_mb=\([0-9.]*\).*/\1/' <<<"$line")
    estimate=$(sed 's/.*admission_estimate_mb=\([0-9.]*\).*/\1/' <<<"$line")
    awk -v a="$attn" -v b="$1" -v i="$2" -v l="$loaded" -v p="$peak" -v e="$estimate" \
      'BEGIN { m = p - l; printf "%-6s %6d %6d %12.1f %12.1f %8.2f\n", a, b, i, m, e, (m > 0 ? e / m : 0) }'
  done
done
