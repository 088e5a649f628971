#!/usr/bin/env bash
# Peak RSS and wall time of `process` on a large synthetic driver log: memory should follow the records
# kept (a RES a combination, 8 bytes a REP), not the size of the file.
# Usage: bench/process_memory.sh [build dir] [MB of log] [reps a combination] [format ...]
#   defaults: build-core (else build), 1024 MB, 1000 reps, csv. PROCESS=/path/to/process measures another
#   binary (an older commit's) on the same log. The log is written into a temporary folder, removed at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-}
if [[ -z $build ]]; then build=build-core; [[ -d $build ]] || build=build; fi
mb=${2:-1024}
reps=${3:-1000}
shift $(( $# < 3 ? $# : 3 ))
formats=("${@:-csv}")
if [[ -z ${PROCESS:-} ]]; then
  nice -n 10 cmake --build "$build" --target process >/dev/null
  PROCESS=$build/process
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The lines of a real run (tests/support/process_fixtures.hpp's kOurLog, docs/log-lines.md): the ARG block
# and META once, then per combination `reps` REP lines, its RES, STAT and MEM, timestamps moving forward.
python3 - "$tmp/big.log" "$mb" "$reps" <<'EOF'
import sys
path, mb, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
target = mb * 1000 * 1000
head = ("FMWORK ARG --batch_sizes 1,2,4,8\nFMWORK ARG --input_sizes 16,32,64,128,256,512\n"
        "FMWORK ARG --model_class BertModel\nFMWORK ARG --model_name all-MiniLM-L6-v2\n"
        f"FMWORK ARG --platform cpu\nFMWORK ARG --reps {reps}\n"
        "FMWORK META driver=0.1.0 git=abc1234 torch=2.13.0 platform=cpu device=cpu threads=2 interop_threads=2 "
        "dtype=float32 seed=0 grad=off\nFMWORK SETUP 0.412345\n")
written, t, combo = 0, 1_000_000_000_000, 0  # nanoseconds
with open(path, "w") as out:
    out.write(head)
    written += len(head)
    while written < target:
        inp, batch = (16, 32, 64, 128, 256, 512)[combo % 6], (1, 2, 4, 8)[combo // 6 % 4]
        combo += 1
        lines, first = [], t
        for r in range(1, reps + 1):
            d = 3_000_000 + (r * 7919) % 400_000
            lines.append(f"FMWORK REP {r} {reps} {t // 10**9}.{t % 10**9:09d} {(t + d) // 10**9}.{(t + d) % 10**9:09d} "
                         f"{d // 10**9}.{d % 10**9:09d}\n")
            t += d + 50_000
        lines.append(f"FMWORK RES {first // 10**9}.{first % 10**9:09d} {t // 10**9}.{t % 10**9:09d} all-MiniLM-L6-v2 "
                     f"BertModel {inp} {batch} 3.200 {1000 * batch / 3.2:.1f}\n")
        lines.append(f"FMWORK STAT input={inp} batch={batch} reps={reps} dropped={max(reps // 5, 1)} mean_ms=3.200000 "
                     "stddev_ms=0.115000 min_ms=3.000000 p50_ms=3.190000 p90_ms=3.350000 p99_ms=3.390000 max_ms=3.400000\n")
        lines.append(f"FMWORK MEM input={inp} batch={batch} allocated_peak_bytes=1048576 reserved_peak_bytes=2097152\n")
        block = "".join(lines)
        out.write(block)
        written += len(block)
EOF

size=$(stat -c %s "$tmp/big.log")
echo "log: $((size / 1000000)) MB, $(grep -c '^FMWORK RES' "$tmp/big.log") combinations of $reps reps; process: $PROCESS"
printf '%-8s %14s %10s %s\n' format "peak RSS MiB" "wall s" exit
for format in "${formats[@]}"; do
  status=0
  /usr/bin/time -v "$PROCESS" --path "$tmp/big.log" --format "$format" >/dev/null 2>"$tmp/time.txt" || status=$?
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time.txt")
  secs=$(awk -v w="$wall" 'BEGIN { n = split(w, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }')
  printf '%-8s %14.1f %10.2f %s\n' "$format" "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$secs" "$status"
  [[ $status -eq 0 ]] || grep -m1 '^error' "$tmp/time.txt" || grep -v '^\s' "$tmp/time.txt" | head -3
done
