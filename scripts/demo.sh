#!/usr/bin/env bash
# The README's first command: install, build, and run the driver on the embedded default model on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
# The granite-embedding-125m-english architecture (configs/models: config.json and tokenizer facts, no
# weights), run by the native encoder with seeded random weights: an opt-in, printed loudly in MODEL.
build/driver --platform cpu --model_class RobertaModel --model_root configs/models \
  --model_name granite-embedding-125m-english --input_sizes 64,128 --batch_sizes 1,2 --reps 5 --eval \
  --model:random_weights@ True
