#!/usr/bin/env bash
# Configures and builds fmwork-cpp into build/ (Release, Ninja) against the LibTorch of the Python that
# scripts/lib.sh chooses (run scripts/install-deps.sh first); with .carry/ present (scripts/gpu-carry.sh),
# the carried header-only dependencies replace Debian's. Extra arguments go to the cmake configure.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
python=$(fmwork_python)
[ -n "$python" ] || { echo "error: no Python with torch: run scripts/install-deps.sh first" >&2; exit 2; }
carry=$(fmwork_carry_dir)
args=(-DCMAKE_BUILD_TYPE=Release -DFMWORK_PYTHON="$python")
if [ -n "$carry" ]; then args+=(-DFMWORK_CARRY_DIR="$carry"); fi
cmake -S . -B build -G Ninja "${args[@]}" "$@"
cmake --build build -j"$(nproc)"
