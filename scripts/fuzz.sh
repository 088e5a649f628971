#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, ASan + UBSan, FMWORK_FUZZ) into build-fuzz/ (kept between
# runs; the same build as scripts/sanitize.sh's, which has usually built them already) and runs each for a bounded time from its seed corpus (fuzz/corpus/<target>) and past findings
# (fuzz/regressions/<target>), printing the executions done. Any crash, leak, timeout, out-of-memory or
# sanitizer report fails the run; the input that caused it is kept as build-fuzz/findings/<target>/crash-*
# (reproduce: build-fuzz/fuzz/<target>_fuzz <that file>). New corpus entries go to build-fuzz/corpus/<target>,
# never into the repository. See fuzz/README.md.
#
# Arguments: target names (default: every fuzz/<name>_fuzz.cpp). Environment:
#   FMWORK_FUZZ_SECONDS  seconds per target (default 10; 0 skips the run)
#   FMWORK_JOBS          build jobs, and targets fuzzed at once (default: the number of CPUs)
#   CXX                  the clang++ to build with (default clang++-14, else clang++)
# Without clang and libFuzzer (a machine with .carry/ and no packages) the run is skipped with a note that
# scripts/test.sh's summary repeats.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
seconds=${FMWORK_FUZZ_SECONDS:-10}
jobs=${FMWORK_JOBS:-$(nproc)}
# The targets are the files fuzz/<name>_fuzz.cpp, as fuzz/CMakeLists.txt builds them: one list, the folder.
all=()
for f in fuzz/*_fuzz.cpp; do n=${f#fuzz/}; all+=("${n%_fuzz.cpp}"); done
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

if [ "$seconds" = 0 ]; then echo "fuzz: SKIPPED (FMWORK_FUZZ_SECONDS=0)"; exit 3; fi
if [ -z "$(fmwork_fuzz_cxx)" ]; then
  echo "fuzz: SKIPPED: no clang++ with libFuzzer (Debian: apt-get install clang-14 libclang-rt-14-dev)"
  exit 3  # scripts/test.sh names a skipped stage in its summary
fi
fmwork_fuzz_build "$jobs" "${targets[@]/%/_fuzz}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One target a process, FMWORK_JOBS of them at a time (each libFuzzer process is one job of its own): the
# targets are independent, so on 2 cores two run side by side and the stage takes half the time.
fuzz_one() {  # fuzz_one TARGET: runs it; its log is build-fuzz/TARGET.log and its status build-fuzz/TARGET.status
  local t=$1 corpus=build-fuzz/corpus/$1 findings=build-fuzz/findings/$1 log=build-fuzz/$1.log seeds dict
  mkdir -p "$corpus" "$findings"
  seeds=(fuzz/corpus/"$t")
  [ -d fuzz/regressions/"$t" ] && seeds+=(fuzz/regressions/"$t")
  dict=(); [ -f fuzz/"$t".dict ] && dict=(-dict=fuzz/"$t".dict)
  # 2 s an input at most, 2 GiB at most, 64 KiB inputs.
  if build-fuzz/fuzz/"$t"_fuzz "$corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" -timeout=2 \
      -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$findings/" >"$log" 2>&1; then
    echo ok >build-fuzz/"$t".status
  else
    echo FAILED >build-fuzz/"$t".status
  fi
}
running=0
for t in "${targets[@]}"; do
  rm -f build-fuzz/"$t".status
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
failed=()
for t in "${targets[@]}"; do  # reported in the targets' order, whichever finished first
  log=build-fuzz/$t.log findings=build-fuzz/findings/$t
  status=$(cat build-fuzz/"$t".status 2>/dev/null || echo FAILED)
  [ "$status" = ok ] || failed+=("$t")
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  echo "fuzz: $t: ${runs:-?} executions in ${seconds} s: $status"
  if [ "$status" = FAILED ]; then
    grep -E "ERROR|SUMMARY|terminate|uncaught|runtime error|Test unit written" "$log" | head -8 | sed 's/^/  /'
    echo "  full log: $log; reproduce: build-fuzz/fuzz/${t}_fuzz $findings/<the crash file>"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}: fix the parser, and add the input to fuzz/regressions/<target>/" >&2
  exit 1
fi
