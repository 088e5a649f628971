#!/usr/bin/env bash
# Writes what a refactoring must not change, for one build, into a folder: diff two such folders.
#   scripts/golden-outputs.sh BUILD_DIR OUT_DIR [LOGS_DIR]
# - args/*.txt: the ARG, RES-layout and MODEL-free lines of driver runs over several command lines (the
#   timings are dropped; the RES line is checked against its REP lines by tools/res_from_reps.py instead).
# - process/*: `process` in every format over the logs in LOGS_DIR (default: the logs these runs wrote
#   into OUT_DIR/logs). Give both builds the same LOGS_DIR to compare `process` byte for byte.
set -euo pipefail
build=$(cd "$1" && pwd)
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out/args" "$out/logs" "$out/process"
logs=${3:-$out/logs}
driver=$build/driver
process=$build/process
source "$root/scripts/lib.sh"
py=$(fmwork_python)
minilm=$(fmwork_minilm_folder)

run() {  # run NAME ARGS...: the log, and its stable lines
  local name=$1; shift
  set +e
  "$driver" "$@" >"$out/logs/$name.log" 2>"$out/args/$name.stderr"
  echo "exit $?" >>"$out/args/$name.stderr"
  set -e
  # Stable: ARG lines, the RES layout without its timestamps and numbers, FAIL and CHECK lines.
  grep -E '^FMWORK (ARG|FAIL|CHECK)' "$out/logs/$name.log" | sed -E 's/max_abs=[^ ]*|max_rel=[^ ]*|cosine=[^ ]*//g' \
    >"$out/args/$name.txt" || true
  awk '/^FMWORK RES /{print $1, $2, $5, $6, $7, $8}' "$out/logs/$name.log" >>"$out/args/$name.txt"
  "$py" "$root/tools/res_from_reps.py" "$out/logs/$name.log" >>"$out/args/$name.txt"
}

common=(--input_sizes 8,16 --batch_sizes 1,2 --reps 5)
run embedded --platform cpu --model_class RobertaModel --model_root "$root/configs/models" \
  --model_name granite-embedding-30m-english "${common[@]}" --eval --model:random_weights@ True
run minilm --platform cpu --model_class BertModel --model_name "$minilm" "${common[@]}" --eval \
  --model:torch_dtype@ torch.bfloat16 --model:attn_implementation sdpa --torch.call:set_grad_enabled@ False \
  --model:trust_remote_code@ True --seed 7
run minilm_save --platform cpu --model_class BertModel --model_name "$minilm" --input_sizes 8 --batch_sizes 2 \
  --reps 3 --save_outputs /tmp/fmwork-golden-saved
run minilm_check --platform cpu --model_class BertModel --model_name "$minilm" --input_sizes 8 --batch_sizes 2 \
  --reps 3 --check_outputs /tmp/fmwork-golden-saved --check_outputs:atol@ 1e-4
run torchscript --platform cpu --model_class BertModel --model_name "$build/models/encoder-mini/model.pt" \
  "${common[@]}" --eval --compile --compile:backend torchscript --torch.set:backends.mkldnn.enabled@ True \
  --compile:options:foo@ "{'a': [1, 2.5e-7, None], 'b': ('x', True)}" --compile:options:bar $'caf\xc3\xa9'
run fail --platform cpu --model_class RobertaModel --model_root "$root/configs/models" \
  --model_name granite-embedding-30m-english --input_sizes 8,100000 --batch_sizes 1 --reps 3 \
  --model:random_weights@ True
run refdev --platform refdev --model_class BertModel --model_name "$build/models/encoder-mini/model.pt" \
  "${common[@]}" --platform:emulate spyre
run refdev_ok --platform refdev --model_class BertModel --model_name "$build/models/encoder-mini/model.pt" \
  "${common[@]}" --compile --torch.call:set_grad_enabled@ False
run bad_literal --platform cpu --model_class BertModel --model_name x --input_sizes 8 --batch_sizes 1 --reps 2 \
  --model:vocab_size@ "[1, 2"
run usage --platform cpu --model_class BertModel --model_name x --input_sizes 8 --batch_sizes 1 --reps 1

for f in "$logs"/*.log; do
  name=$(basename "$f" .log)
  for fmt in json csv summary; do
    "$process" --path "$f" --format "$fmt" >"$out/process/$name.$fmt" 2>&1 || echo "exit $?" >>"$out/process/$name.$fmt"
  done
  "$process" --path "$f" --upstream >"$out/process/$name.upstream.json" 2>&1 || true
done
echo "written: $out"
