#!/usr/bin/env bash
# The CUDA build, made on a machine without a GPU: the GPU machine's own torch from PyPI, the driver and its tests
# linked against it here, so that device time is spent running, not compiling (docs/design-notes.md, "The GPU build").
#   scripts/cuda-build.sh [all]    .venv-cuda/ (git-ignored) with torch==$FMWORK_TORCH_CUDA_VERSION, then driver,
#                                  process and torch_tests built into build-cuda/ (git-ignored)
#   scripts/cuda-build.sh driver   the same, the driver only (what .ci/run links: a CUDA compile or link break fails CI)
#   scripts/cuda-build.sh stage    `all`, then the binaries stripped and packed into .carry/gpu-bin/ (in the folder
#                                  scripts/gpu-carry.sh packs for the GPU machine; scripts/gpu-check.sh runs them)
# Each step prints its seconds. The three things a CUDA wheel's TorchConfig needs here (the toolkit, nvrtc,
# libstdc++ first) are in cmake/torch.cmake and cmake/torch_cuda_wheel.cmake: a plain configure gets them.
#
# Environment:
#   FMWORK_TORCH_CUDA_VERSION   the torch pinned in .venv-cuda (default 2.11.0: PyPI's Linux x86-64 wheel of 2.11.0
#                               is the cu130 build, the same revision as the GPU machine's 2.11.0+cu130, and its
#                               C++ libraries are the same for every Python). Never unpinned.
#   FMWORK_CUDA_PIP_ARGS        extra pip arguments (another index, say; not FMWORK_PIP_ARGS, which may name the
#                               CPU index for .venv)
#   FMWORK_GPU_SITE_PACKAGES    the GPU machine's site-packages, named in the binaries' RUNPATH beside this
#                               machine's folders (default /opt/torch/.venv/lib/python3.12/site-packages)
#   CUDA_HOME                   the CUDA toolkit (default /usr/local/cuda)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
mode=${1:-all}
case "$mode" in
  all|driver|stage) ;;
  *) echo "error: scripts/cuda-build.sh takes all, driver or stage, not '$mode'" >&2; exit 2 ;;
esac
torch_version=${FMWORK_TORCH_CUDA_VERSION:-2.11.0}
[[ "$torch_version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  { echo "error: FMWORK_TORCH_CUDA_VERSION is a release like 2.11.0, not '$torch_version'" >&2; exit 2; }
gpu_site=${FMWORK_GPU_SITE_PACKAGES:-/opt/torch/.venv/lib/python3.12/site-packages}
venv=$PWD/.venv-cuda
build=$PWD/build-cuda
timed() {  # timed LABEL COMMAND...: runs it niced (the machine is shared), then prints its seconds
  local label=$1 t0=$SECONDS; shift
  nice "$@"
  echo "cuda-build: $label: $((SECONDS - t0)) s"
}

# --- 1. The environment: torch only (its CUDA libraries come as its dependencies); nothing else is needed to build.
installed=$("$venv/bin/python" -W ignore -c 'import torch; print(torch.__version__)' 2>/dev/null || true)
if [[ "$installed" == "$torch_version" || "$installed" == "$torch_version+"* ]]; then  # PyPI's says 2.11.0+cu130
  echo "cuda-build: $venv has torch $installed"
else
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  # shellcheck disable=SC2206
  extra_pip=(${FMWORK_CUDA_PIP_ARGS:-})
  echo "cuda-build: pip install torch==$torch_version into $venv (with its CUDA libraries: 4.6 GB installed)"
  # pip's output only when it fails (its warnings about this machine's absent local index folders are noise)
  if ! log=$(timed "pip install" "$venv/bin/python" -m pip install -q --disable-pip-version-check \
               ${extra_pip[@]+"${extra_pip[@]}"} "torch==$torch_version" 2>&1); then
    { echo "$log" | grep -v "is ignored: it is neither" || true; } >&2
    echo "error: pip could not install torch==$torch_version into $venv (a cap in /etc/xdg/pip or a pip.conf" \
         "constraint, or no such wheel: FMWORK_TORCH_CUDA_VERSION picks another)" >&2
    exit 1
  fi
  echo "$log" | grep "^cuda-build:"
fi
"$venv/bin/python" -W ignore -c 'import torch, sys; sys.exit(torch.version.cuda is None)' ||
  { echo "error: torch in $venv is not a CUDA build (torch.version.cuda is None)" >&2; exit 1; }

# --- 2. The build. The binaries' RUNPATH names the GPU machine's torch and CUDA libraries beside this machine's
# (each machine lacks the other's folders), so the same binaries run in both places; fmt compiled in (the GPU
# machine has no libfmt). Debian's header packages,
# never .carry's (this machine has a registry; switching would rebuild everything after each scripts/gpu-carry.sh).
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DFMWORK_PYTHON="$venv/bin/python" -DFMWORK_BUILD_TESTS=ON -DFMWORK_FMT_HEADER_ONLY=ON
      "-DCMAKE_BUILD_RPATH=$gpu_site/torch/lib;$gpu_site/nvidia/cu13/lib")
mkdir -p "$build"
t0=$SECONDS
nice cmake -S . -B "$build" "${args[@]}" >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; echo "error: configuring $build failed" >&2; exit 1; }
grep -E "^-- (CUDA LibTorch|LibTorch|PyTorch: CUDA detected)" "$build/configure.log" | sed 's/^-- /cuda-build: /'
echo "cuda-build: configure: $((SECONDS - t0)) s"
if [ "$mode" = driver ]; then targets=(driver); else targets=(driver process torch_tests); fi
timed "build ${targets[*]}" cmake --build "$build" -j2 --target "${targets[@]}"
# (ldd's output taken whole: `ldd | grep -q` fails under pipefail when grep stops reading first)
[[ "$(ldd "$build/driver")" == *libtorch_cuda* ]] ||
  { echo "error: $build/driver does not link libtorch_cuda" >&2; exit 1; }
"$build/driver" --help >/dev/null || { echo "error: $build/driver --help failed" >&2; exit 1; }
echo "cuda-build: $build/driver links libtorch_cuda and runs ($(du -h "$build/driver" | cut -f1))"
[ "$mode" = stage ] || exit 0

# --- 3. Staged for the GPU machine, in the folder a device call carries: the binaries stripped and packed with
# xz (14 MiB become under 3: the call carries 64 MiB with MiniLM's 45 MB), STAGED.md saying what was built from
# what, REVISION the commit (scripts/gpu-check.sh unpacks, reports and checks them). The plugins go beside the
# driver (it looks in <its folder>/plugins), make_model too (torch_tests runs it, found through
# FMWORK_TEST_BIN_DIR), torch_tests in tests/ as in a build folder, so that a build and the stage look alike.
tree=$build/stage
rm -rf "$tree" && mkdir -p "$tree/plugins/testing" "$tree/tests"
for exe in driver process make_model tests/torch_tests; do strip -o "$tree/$exe" "$build/$exe"; done
for so in "$build"/plugins/*.so "$build"/plugins/testing/*.so; do
  strip --strip-unneeded -o "$tree/${so#"$build"/}" "$so"
done
stage=.carry/gpu-bin
rm -rf "$stage" && mkdir -p "$stage"
t0=$SECONDS
tar -cJf "$stage/binaries.tar.xz" -C "$tree" .
{
  echo "Built by scripts/cuda-build.sh stage on $(date -u +%Y-%m-%dT%H:%M:%SZ) from git $(git rev-parse --short HEAD)" \
       "$(git diff --quiet HEAD -- 2>/dev/null || echo '(with uncommitted changes)')"
  echo "against torch $("$venv/bin/python" -W ignore -c 'import torch; print(torch.__version__, "CUDA", torch.version.cuda)')."
  echo "RUNPATH: $(readelf -d "$tree/driver" | sed -n 's/.*RUNPATH.*\[\(.*\)\]/\1/p')"
  echo "Files (KiB, unpacked):"
  (cd "$tree" && find . -type f -printf '  %k  %P\n' | sort -k2)
} >"$stage/STAGED.md"
echo "git $(git rev-parse HEAD)" >"$stage/REVISION"
echo "cuda-build: staged into $stage: $(du -sh "$tree" | cut -f1) of binaries as $(du -h "$stage/binaries.tar.xz" |
  cut -f1) packed ($((SECONDS - t0)) s)"
fmwork_check_carry_size "cuda-build"
