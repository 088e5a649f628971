#!/usr/bin/env bash
# The README's test command on a busy machine: scripts/test.sh with two busy loops at normal priority running
# for its whole length (a 2-vCPU CI runner shared with other work), so that a test whose verdict depends on the
# machine's load fails here rather than on a user's runner. The loops end with the run, however it ends: at its
# end, on Ctrl-C, kill (TERM) or a closed terminal (HUP) the run is stopped and the loops with it, and each loop
# ends itself once this script is gone (a kill -9 runs no trap).
#   scripts/test-under-load.sh [LOOPS] [arguments for scripts/test.sh]   (LOOPS: default 2)
set -uo pipefail
cd "$(dirname "$0")/.."
loops=2
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then loops=$1; shift; fi
pids=()
run_pid=
# The run is a session of its own (setsid below): its process group holds ctest and every test it started.
stop() {
  trap - EXIT INT TERM HUP
  [ -z "$run_pid" ] || kill -TERM -- "-$run_pid" 2>/dev/null
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap 'stop; exit 129' HUP
me=$$
for _ in $(seq "$loops"); do
  ( while kill -0 "$me" 2>/dev/null; do for ((i = 0; i < 100000; i++)); do :; done; done ) &
  pids+=($!)
done
echo "test-under-load: $loops busy loops running (pids ${pids[*]}); load before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$SECONDS
# In the background, waited for: bash runs a trap only once the command in the foreground has ended, so a
# TERM sent to this script waited for the whole run (the loops with it) before anything stopped. A background
# command starts with SIGINT and SIGQUIT ignored; the run gets them back as a command in the foreground has
# them (the tests of the driver's Ctrl-C send it SIGINT).
setsid env --default-signal=INT,QUIT scripts/test.sh "$@" &
run_pid=$!
wait "$run_pid"
rc=$?
run_pid=
echo "test-under-load: scripts/test.sh exited $rc after $((SECONDS - start)) s beside $loops busy loops" \
     "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
exit "$rc"
