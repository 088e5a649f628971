#!/usr/bin/env bash
# The fast loop while working: builds build/ (incrementally; scripts/build.sh) and runs the core's tests (label
# `core`, seconds) plus the suites of every test folder a change touches: a file under src/<folder>/,
# include/fmwork/<folder>/ or tests/<folder>/ brings in the suites of tests/<folder>/ (the mirror of its layer).
# The change is the work tree against REF (default HEAD: what is not committed yet; when nothing is, the last
# commit). Not a replacement for scripts/test.sh, which CI runs.
#   scripts/test-changed.sh [REF] [extra ctest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
ref=HEAD
case "${1:-}" in
  -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then ref=$1; shift; fi
git rev-parse --verify --quiet "$ref^{commit}" >/dev/null ||
  { echo "error: test-changed: '$ref' is not a commit of this repository (a branch, tag or hash: main, HEAD~3)" >&2; exit 2; }
changed=$( { git diff --name-only "$ref" --; git ls-files --others --exclude-standard; } | sort -u)
if [ -z "$changed" ] && [ "$ref" = HEAD ]; then changed=$(git diff --name-only HEAD~1 HEAD --); fi
folders=$(echo "$changed" | sed -nE 's#^(src|tests)/([a-z_]+)/.*#\2#p; s#^include/fmwork/([a-z_]+)/.*#\1#p' | sort -u)
suites=()
for f in $folders; do
  [ -d "tests/$f" ] || continue
  while IFS= read -r s; do suites+=("$s"); done < <(grep -hoE '^(TEST|TEST_F)\([A-Za-z0-9_]+,' -r "tests/$f" |
    sed -E 's/^[A-Z_]+\(([A-Za-z0-9_]+),/\1/' | sort -u)
done
echo "test-changed: against $ref: folders ${folders//$'\n'/ } -> ${#suites[@]} suites beside the core's tests"
log=$(mktemp)
scripts/build.sh >"$log" 2>&1 || { tail -n 40 "$log"; rm -f "$log"; echo "test-changed: the build failed (above)" >&2; exit 1; }
rm -f "$log"
cd build
ctest --output-on-failure -j"$(nproc)" -L core "$@"
if [ ${#suites[@]} -gt 0 ]; then
  pattern=$(IFS='|'; echo "^(${suites[*]})\$")
  ctest --output-on-failure -j"$(nproc)" -R "$pattern" "$@"
fi
