#!/usr/bin/env bash
# The README's second command: install, build, and run the whole test suite (ctest); then the torch-free
# core under ASan + UBSan (scripts/sanitize.sh) and each fuzz target for a bounded time (scripts/fuzz.sh,
# FMWORK_FUZZ_SECONDS a target). Arguments go to the first ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)" "$@")
scripts/sanitize.sh
scripts/fuzz.sh
