#!/usr/bin/env bash
# The README's test command on a busy machine: scripts/test.sh with two busy loops at normal priority running
# for its whole length (a 2-vCPU CI runner shared with other work), so that a test whose verdict depends on the
# machine's load fails here rather than on a user's runner. The loops end with the run, however it ends.
#   scripts/test-under-load.sh [LOOPS] [arguments for scripts/test.sh]   (LOOPS: default 2)
set -uo pipefail
cd "$(dirname "$0")/.."
loops=2
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then loops=$1; shift; fi
pids=()
stop_loops() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop_loops EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$loops"); do
  ( while :; do :; done ) &
  pids+=($!)
done
echo "test-under-load: $loops busy loops running (pids ${pids[*]}); load before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$SECONDS
scripts/test.sh "$@"
rc=$?
echo "test-under-load: scripts/test.sh exited $rc after $((SECONDS - start)) s beside $loops busy loops" \
     "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
exit "$rc"
