#!/usr/bin/env bash
# The torch-free core under AddressSanitizer + UndefinedBehaviorSanitizer: fmwork_core, core_tests (the
# parsers' tests included) and the fuzz targets over their seed corpus and regressions, run with ctest. Any
# sanitizer report fails the run. Extra arguments go to ctest.
# With clang and libFuzzer (scripts/install-deps.sh installs them), the build is build-fuzz/, the one that
# scripts/fuzz.sh then fuzzes from (scripts/lib.sh, fmwork_fuzz_build): the core compiled once for both stages.
# Without them (a machine with .carry/ and no packages), gcc builds build-asan/ and the replayers, and the
# summary says that the fuzz stage will be skipped.
#
# Environment: FMWORK_JOBS  build and test jobs (default: the number of CPUs)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
jobs=${FMWORK_JOBS:-$(nproc)}
start=$SECONDS
# Leaks are findings too; a report stops the test that made it (halt_on_error), and its stack is printed.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ -n "$(fmwork_fuzz_cxx)" ]; then
  fmwork_fuzz_build "$jobs"
  ctest --test-dir build-fuzz --output-on-failure -j"$jobs" "$@"
  echo "sanitize: ASan + UBSan build (clang, build-fuzz/) and tests passed in $((SECONDS - start)) s"
  exit 0
fi
echo "sanitize: no clang++ with libFuzzer: gcc builds build-asan/ (the fuzz stage will be skipped)"
# -O0 (Debug): the sanitizers at -O2 triple the compile time of these template-heavy files; the tests run
# in seconds either way.
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
args=(-DCMAKE_BUILD_TYPE=Debug -DFMWORK_CORE_ONLY=ON -DCMAKE_CXX_FLAGS="$flags"
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined")
args+=(-DFMWORK_CARRY_DIR="$(fmwork_carry_dir)")  # said either way: CMake keeps an earlier configure's folder
cmake -S . -B build-asan -G Ninja "${args[@]}" >/dev/null
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure -j"$jobs" "$@"
echo "sanitize: ASan + UBSan build (gcc, build-asan/) and tests passed in $((SECONDS - start)) s"
