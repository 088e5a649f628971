#!/usr/bin/env bash
# parse_json's time on a wide object against one 4x wider (bench/json_linear.cpp): linear ~4x, quadratic ~16x.
# Usage: bench/json_linear.sh [build dir] [keys] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target json_linear >/dev/null
"$build/json_linear" "${2:-50000}" "${3:-5}"
