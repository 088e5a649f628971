#!/usr/bin/env bash
# Configures and builds fmwork-cpp into build/ (Release, Ninja). Extra arguments go to the cmake configure.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j"$(nproc)"
