#!/usr/bin/env bash
# The torch-free core under AddressSanitizer + UndefinedBehaviorSanitizer: fmwork_core, core_tests (the
# parsers' tests included) and the fuzz targets' replayers over their seed corpus and regressions, built with
# gcc into build-asan/ (FMWORK_CORE_ONLY: no LibTorch; kept between runs) and run with ctest. Any sanitizer
# report fails the run. Extra arguments go to ctest.
#
# Environment: FMWORK_JOBS  build and test jobs (default: the number of CPUs)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
jobs=${FMWORK_JOBS:-$(nproc)}
# -O0 (Debug): the sanitizers at -O2 triple the compile time of these template-heavy files; the tests run
# in seconds either way.
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
args=(-DCMAKE_BUILD_TYPE=Debug -DFMWORK_CORE_ONLY=ON -DCMAKE_CXX_FLAGS="$flags"
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined")
carry=$(fmwork_carry_dir)
args+=(-DFMWORK_CARRY_DIR="$carry")  # said either way: CMake keeps an earlier configure's folder
start=$SECONDS
cmake -S . -B build-asan -G Ninja "${args[@]}" >/dev/null
cmake --build build-asan -j"$jobs"
# Leaks are findings too; a report stops the test that made it (halt_on_error), and its stack is printed.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-asan --output-on-failure -j"$jobs" "$@"
echo "sanitize: ASan + UBSan build and tests passed in $((SECONDS - start)) s"
