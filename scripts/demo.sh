#!/usr/bin/env bash
# The README's first command: install, build, and run the driver on the embedded default model on CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/driver --platform cpu --model_class BertModel --model_name build/models/encoder-mini/model.pt \
  --input_sizes 64,128 --batch_sizes 1,4 --reps 10 --eval
