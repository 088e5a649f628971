#!/usr/bin/env bash
# Run ON THE GPU MACHINE: builds against the PyTorch wheel's LibTorch (CUDA), with the header-only
# dependencies and GoogleTest from .carry/ (scripts/gpu-carry.sh), into build-gpu/, then runs the tests.
# CUDA-only sources (src/cuda/) are compiled because the wheel's LibTorch defines the torch_cuda target.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d .carry/include ] || { echo "error: .carry/ missing: run scripts/gpu-carry.sh on a machine with the packages" >&2; exit 2; }
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DFMWORK_CARRY_DIR="$PWD/.carry" "$@"
cmake --build build-gpu -j"$(nproc)"
(cd build-gpu && ctest --output-on-failure -j"$(nproc)")
