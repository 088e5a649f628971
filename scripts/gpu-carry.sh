#!/usr/bin/env bash
# Run HERE (a Debian machine with the packages): packs what the GPU machine lacks into .carry/ (git-ignored):
# the CLI11, fmt and nlohmann_json headers and the GoogleTest sources. Then, on the GPU machine (no package
# registry; PyTorch 2.x, CMake, ninja, nvcc present), with .carry/ carried along: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
rm -rf .carry && mkdir -p .carry/include
cp -r /usr/include/CLI /usr/include/fmt /usr/include/nlohmann .carry/include/
cp -r /usr/src/googletest .carry/googletest
du -sh .carry
