#!/usr/bin/env bash
# Configures and builds fmwork-cpp into build/ (Release, Ninja) against the LibTorch of the Python that
# scripts/lib.sh chooses (run scripts/install-deps.sh first); with .carry/ present (scripts/gpu-carry.sh),
# the carried header-only dependencies replace Debian's.
#   scripts/build.sh [demo] [cmake configure arguments...]
# `demo` builds only the driver (no tests, plugins or tools: what scripts/demo.sh runs); without it,
# everything, tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
mode=all
if [ "${1:-}" = demo ]; then mode=demo; shift; fi
python=$(fmwork_python)
[ -n "$python" ] || { echo "error: no Python with torch: run scripts/install-deps.sh first" >&2; exit 2; }
carry=$(fmwork_carry_dir)
args=(-DCMAKE_BUILD_TYPE=Release -DFMWORK_PYTHON="$python")
if [ "$mode" = demo ]; then args+=(-DFMWORK_BUILD_TESTS=OFF); else args+=(-DFMWORK_BUILD_TESTS=ON); fi
# Said either way: CMake keeps the cached folder of an earlier configure, which may since have gone.
args+=(-DFMWORK_CARRY_DIR="$carry")
cmake -S . -B build -G Ninja "${args[@]}" "$@"
if [ "$mode" = demo ]; then
  cmake --build build -j"$(nproc)" --target driver
else
  cmake --build build -j"$(nproc)"
fi
