#!/usr/bin/env bash
# Run HERE (a Debian machine with the packages): packs what the GPU machine lacks into .carry/ (git-ignored):
# the CLI11, fmt and nlohmann_json headers and the GoogleTest sources. Then, on the GPU machine (no package
# registry; PyTorch 2.x, CMake, ninja, nvcc present), with .carry/ carried along: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
FMWORK_PYTHON=true scripts/install-deps.sh >/dev/null 2>&1 || true  # the Debian packages; no Python needed here
for d in /usr/include/CLI /usr/include/fmt /usr/include/nlohmann /usr/src/googletest; do
  [ -d "$d" ] || { echo "error: $d missing: run scripts/install-deps.sh first" >&2; exit 1; }
done
rm -rf .carry && mkdir -p .carry/include
cp -r /usr/include/CLI /usr/include/fmt /usr/include/nlohmann .carry/include/
cp -r /usr/src/googletest .carry/googletest
du -sh .carry
