#!/usr/bin/env bash
# Installs what fmwork-cpp needs on Debian 12 (idempotent): compilers, CMake, Ninja, LibTorch, CLI11, fmt,
# nlohmann_json, GoogleTest, and an optimised BLAS (Debian's LibTorch otherwise uses the reference BLAS,
# ~15x slower on fp32 GEMM).
set -euo pipefail

packages=(g++ cmake ninja-build git libtorch-dev libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev
          libopenblas0-openmp time)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
