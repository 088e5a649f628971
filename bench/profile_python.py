#!/usr/bin/env python3
"""transformers' forward profiled op by op, to set beside `build/hf_bench profile` (the native encoder).

torch.profiler (CPU) over N forwards after 3 untimed ones, under torch.no_grad() as the upstream-style driver
runs: self CPU time per operator in ms per forward, largest first.

Usage: .venv/bin/python bench/profile_python.py FOLDER [--class AutoModel] [--input 128] [--batch 1] [--reps 10]
           [--threads N] [--dtype float32|bfloat16] [--attn eager|sdpa]
"""
import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
import torch  # noqa: E402
import transformers  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("folder")
    p.add_argument("--class", dest="cls", default="AutoModel")
    p.add_argument("--input", type=int, default=128)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--dtype", default="float32")
    p.add_argument("--attn", default="sdpa")
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    model = getattr(transformers, a.cls).from_pretrained(a.folder, dtype=getattr(torch, a.dtype),
                                                         attn_implementation=a.attn).eval()
    ids = torch.randint(1000, 2000, (a.batch, a.input))
    inputs = dict(input_ids=ids, attention_mask=torch.ones_like(ids), token_type_ids=torch.zeros_like(ids))
    with torch.no_grad():
        for _ in range(3):
            model(**inputs)
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            t0 = time.perf_counter()
            for _ in range(a.reps):
                model(**inputs)
            wall = time.perf_counter() - t0
    rows = sorted(((e.self_cpu_time_total / 1e3 / a.reps, e.key, e.count // a.reps) for e in prof.key_averages()),
                  reverse=True)
    total = sum(r[0] for r in rows)
    print(f"PROFILE python input={a.input} batch={a.batch} threads={torch.get_num_threads()} dtype={a.dtype} "
          f"forward_ms={wall * 1e3 / a.reps:.3f} profiled_self_ms={total:.3f}")
    for ms, name, calls in rows:
        if ms >= 0.005:
            print(f"  {name:<40} {ms:9.3f} ms {100 * ms / total:6.1f}% {calls:5d} calls/forward")


if __name__ == "__main__":
    main()
