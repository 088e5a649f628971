#!/usr/bin/env bash
# hash_files' throughput on one file (bench/hash_throughput.cpp): first pass, then from the page cache.
# Usage: bench/hash_throughput.sh [build dir] [MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" --target hash_throughput >/dev/null
"$build/hash_throughput" "${2:-256}"
