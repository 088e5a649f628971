#!/usr/bin/env python3
"""The rotary families (ModernBERT, Qwen3) in this driver beside the upstream-style Python driver.

For each architecture and point (input, batch) and thread count, both drivers run one process each,
alternating round by round so that both see the same machine state, on the same configs/models folder with
random weights (--model:random_weights@ True: ours builds them natively, the Python driver with
transformers' from_config), float32, the same attention implementation and thread count:
  python  bench/upstream_driver.py (transformers eager, autograd off, timed the upstream way)
  ours    build/driver
Each process prints RES (the mean of the kept reps, upstream's rule); the ratio ours / python is taken per
round, and its median over the rounds reported. At --gflops-point the achieved GFLOP/s of both are set
against torch.mm's rate on [tokens, hidden] x [hidden, 4 hidden] float32 at the same thread count, measured
in the same run (FLOPs: 2 x the linear layers' weights x tokens, plus 4 x layers x batch x input^2 x
attention width for Q K^T and P V).

Usage: .venv/bin/python bench/families_vs_python.py [--build build] [--rounds 3] [--threads 1 2] [--reps 6]
           [--only granite-embedding-english-r2 Qwen3-Embedding-0.6B] [--attention sdpa]
Prints one markdown table per architecture.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import fmwork_log  # bench/fmwork_log.py: the log's fields by name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {  # folder -> (--model_class, points)
    "granite-embedding-english-r2": ("ModernBertModel", [(16, 1), (128, 1), (512, 1), (128, 8)]),
    "Qwen3-Embedding-0.6B": ("AutoModel", [(16, 1), (128, 1), (128, 8)]),
}
GFLOPS_POINT = (128, 8)


def res_ms(text):
    res = fmwork_log.first(text, "RES")
    return float(res["latency_ms"]) if res else None


def run(cmd, env=None):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    ms = res_ms(proc.stdout)
    if ms is None:
        sys.exit(f"no FMWORK RES from {' '.join(cmd)} (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    return ms


def forward_gflop(config, input_size, batch):
    """FLOPs of one forward: 2 x linear weights x tokens, plus Q K^T and P V over the attention width."""
    h, layers, inter = config["hidden_size"], config["num_hidden_layers"], config["intermediate_size"]
    heads = config["num_attention_heads"]
    if config["model_type"] == "qwen3":
        d, kv = config.get("head_dim", 128), config.get("num_key_value_heads", heads)
        linear = h * (heads * d + 2 * kv * d) + heads * d * h + 3 * h * inter
        width = heads * d
    else:  # modernbert: Wqkv, Wo, Wi (2 x intermediate), Wo
        linear = 3 * h * h + h * h + 2 * h * inter + inter * h
        width = h
    tokens = input_size * batch
    return (2 * linear * layers * tokens + 4 * layers * batch * input_size * input_size * width) / 1e9


def mm_gflops(python, threads, tokens, hidden):
    code = (f"import torch,time\ntorch.set_num_threads({threads})\na=torch.randn({tokens},{hidden})\n"
            f"b=torch.randn({hidden},{4 * hidden})\n[torch.mm(a,b) for _ in range(3)]\nn=20\nt=time.perf_counter()\n"
            f"[torch.mm(a,b) for _ in range(n)]\nprint(2*{tokens}*{hidden}*{4 * hidden}*n/(time.perf_counter()-t)/1e9)")
    return float(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--reps", type=int, default=6)
    p.add_argument("--only", nargs="+", default=list(MODELS))
    p.add_argument("--attention", default="sdpa", help="eager or sdpa, for both (transformers' default is sdpa)")
    args = p.parse_args()
    python = sys.executable
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"CPU: {cpu}; {time.strftime('%Y-%m-%d')}; float32, random weights, attention {args.attention}, "
          f"{args.rounds} rounds, {args.reps} reps")
    for name in args.only:
        model_class, points = MODELS[name]
        folder = os.path.join(ROOT, "configs", "models", name)
        config = json.load(open(os.path.join(folder, "config.json")))
        print(f"\n### {name} ({model_class})\n")
        print("| point | threads | ours ms (median) | python ms (median) | ours / python per round | median |")
        print("| --- | --- | --- | --- | --- | --- |")
        for input_size, batch in points:
            for threads in args.threads:
                common = ["--platform", "cpu", "--model_class", model_class, "--model_name", folder,
                          "--input_sizes", str(input_size), "--batch_sizes", str(batch), "--reps", str(args.reps),
                          "--eval", "--torch.call:set_num_threads@", str(threads), "--model:random_weights@", "True",
                          "--model:attn_implementation", args.attention]
                ours, theirs = [], []
                for _ in range(args.rounds):
                    ours.append(run([os.path.join(args.build, "driver"), *common], env))
                    theirs.append(run([python, os.path.join(ROOT, "bench", "upstream_driver.py"), *common], env))
                ratios = [o / t for o, t in zip(ours, theirs)]
                print(f"| ({input_size},{batch}) | {threads} | {statistics.median(ours):.1f} | "
                      f"{statistics.median(theirs):.1f} | {' '.join(f'{r:.2f}' for r in ratios)} | "
                      f"**{statistics.median(ratios):.2f}x** |", flush=True)
                if (input_size, batch) == GFLOPS_POINT:
                    gflop = forward_gflop(config, input_size, batch)
                    mm = mm_gflops(python, threads, input_size * batch, config["hidden_size"])
                    print(f"|  | {threads} | {gflop / statistics.median(ours) * 1e3:.1f} GFLOP/s | "
                          f"{gflop / statistics.median(theirs) * 1e3:.1f} GFLOP/s | torch.mm {mm:.1f} GFLOP/s | "
                          f"ours {gflop / statistics.median(ours) * 1e3 / mm:.0%} of mm |", flush=True)


if __name__ == "__main__":
    main()
