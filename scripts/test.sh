#!/usr/bin/env bash
# The README's second command: install, build, then the whole test suite, every test once (the ctest stage).
# Three more passes of the same code are stages too; CI runs them after this command (.ci/run), and
# FMWORK_TEST_STAGES=all runs all four here:
#   ctest        the whole suite (build/)
#   ctest-avx2   on a CPU with AVX-512, the LibTorch and integration tests (ctest label `torch`, less the suites
#                labelled `orchestration`, whose results no kernel decides) and the check against transformers
#                again (its cases that reach each kernel once: FMWORK_KERNEL_CASES=1), with ATen, MKL and oneDNN
#                held to AVX2: the code paths of an AVX2-only machine, exercised on any machine that runs this
#                stage (skipped on an AVX2-only CPU, where the first pass ran them)
#   sanitize     the torch-free core under ASan + UBSan (scripts/sanitize.sh; clang's build-fuzz/)
#   fuzz         each fuzz target for FMWORK_FUZZ_SECONDS (scripts/fuzz.sh; the sanitize stage's build)
# Why the default is the first alone: the test command is held to 20 minutes on a fresh 2-vCPU machine, busy or
# not, and beside two busy loops the four took 33-57 (bench/results/test-times.txt).
# Each stage runs even when an earlier one failed; the failed ones are named at the end (exit 1).
# A stage that cannot run here says so in the summary (SKIPPED, and why); with CI=true a skipped fuzz stage
# fails the run: scripts/install-deps.sh installs clang, so a skip there means something is missing.
# The stages run with a HOME, XDG_CACHE_HOME, FMWORK_CACHE and TMPDIR made for this run and removed after it,
# so that no cache or file a machine's earlier runs left behind can make a test pass (or fail) here: what CI
# sees is what a fresh machine sees. Arguments go to the first ctest.
#
# Environment: FMWORK_TEST_STAGES  the stages to run, always in the order above (default: ctest; `all`: the four)
#              FMWORK_KEEP_SCRATCH=1 keeps the run's scratch folder (its path is printed)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
start=$SECONDS
all_stages="ctest ctest-avx2 sanitize fuzz"
read -r -a asked <<< "${FMWORK_TEST_STAGES:-ctest}"  # any spaces, tabs or newlines between the names
stages="${asked[*]}"
[ "$stages" != all ] || stages=$all_stages
for s in $stages; do
  [[ " $all_stages " == *" $s "* ]] || { echo "error: FMWORK_TEST_STAGES: no stage '$s' (stages: $all_stages; or all)" >&2; exit 2; }
done

scripts/install-deps.sh || { echo "test: installing the dependencies failed (above); nothing was tested" >&2; exit 1; }
installed_s=$((SECONDS - start))
built=1
# The tests hold the openvino backend too: a build that did not find OpenVINO is an error here, not a skip.
scripts/build.sh -DFMWORK_REQUIRE_OPENVINO=ON || built=0
built_s=$((SECONDS - start - installed_s))

# The run's own home, caches and temporary folder.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/fmwork-test-run.XXXXXX") || { echo "error: cannot make a scratch folder" >&2; exit 1; }
if [ "${FMWORK_KEEP_SCRATCH:-0}" = 1 ]; then
  echo "test: scratch folder kept: $scratch"
else
  trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$scratch/home" "$scratch/cache" "$scratch/fmwork-cache" "$scratch/tmp"
export HOME=$scratch/home XDG_CACHE_HOME=$scratch/cache FMWORK_CACHE=$scratch/fmwork-cache TMPDIR=$scratch/tmp
export HF_HOME=$scratch/cache/huggingface HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

# Whether this CPU runs ATen's AVX-512 kernels: then the AVX2 pass is a different set of code paths.
avx512_cpu() { grep -qw avx512f /proc/cpuinfo 2>/dev/null; }

failed=()
timings=()
stage() {  # stage NAME COMMAND...: runs it, records its time and whether it failed (exit 3: skipped, said why)
  local name=$1 t0=$SECONDS rc=0
  shift
  [[ " $stages " == *" $name "* ]] || return 0
  echo "test: stage $name"
  "$@" || rc=$?
  if [ "$rc" = 0 ]; then
    timings+=("$name ok $((SECONDS - t0)) s")
  elif [ "$rc" = 3 ]; then
    timings+=("$name SKIPPED (its reason is above) $((SECONDS - t0)) s")
    if [ "$name" = fuzz ] && [ "${CI:-}" = true ]; then failed+=("$name(skipped)"); fi
  else
    failed+=("$name")
    timings+=("$name FAILED $((SECONDS - t0)) s")
  fi
}
needs_build() {
  if [ "$built" = 0 ]; then echo "test: the build failed (above): no ctest" >&2; return 1; fi
  "$@"
}
ctest_all() { (cd build && ctest --output-on-failure -j"$(nproc)" "$@"); }
ctest_avx2() {
  if ! avx512_cpu; then
    echo "test: ctest-avx2 SKIPPED: this CPU has no AVX-512, so the first pass ran the AVX2 paths"
    return 3
  fi
  (cd build && ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 FMWORK_KERNEL_CASES=1 \
     ctest --output-on-failure -j"$(nproc)" -L torch -LE orchestration)
}

stage ctest needs_build ctest_all "$@"
stage ctest-avx2 needs_build ctest_avx2
stage sanitize scripts/sanitize.sh
stage fuzz scripts/fuzz.sh

echo "test: $((SECONDS - start)) s in all"
echo "test:   install ok $installed_s s"
echo "test:   build $([ "$built" = 1 ] && echo ok || echo FAILED) $built_s s"
for t in "${timings[@]}"; do echo "test:   $t"; done
if [ ${#failed[@]} -gt 0 ] || [ "$built" = 0 ]; then
  [ "$built" = 1 ] || failed=(build "${failed[@]}")
  echo "test: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "test: every stage run passed ($stages)"
