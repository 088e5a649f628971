#!/usr/bin/env python3
"""One (model, batch, input, dtype, threads) point measured by Hugging Face optimum-benchmark (pytorch backend,
CPU, inference scenario, forward latency), printed as one line:

    OPTIMUM latency_ms=<median> mean_ms=... p90_ms=... stdev_ms=... min_ms=... max_ms=... count=N warmup=N
            first_forward_ms=... load_s=... throughput=<batch/median> max_ram_mb=... model=... input=... batch=...
            dtype=... threads=... launcher=... weights=file|random optimum_benchmark=... transformers=... torch=...

(one line; latency_ms is the median of the tracked forwards, comparable with the latency of an FMWORK RES line;
optimum-benchmark's own headline is the mean). On any failure it prints `OPTIMUM error=<one line>` to stdout
and exits 1.

It needs optimum-benchmark, which the project's .venv does not have (and must not get: it pulls transformers
4.x). Run it with a separate environment, made once:

    python3 -m venv /tmp/ob-venv
    /tmp/ob-venv/bin/pip install "torch==2.13.0+cpu" optimum-benchmark "transformers<5" "datasets>=4,<5"

(torch pinned to the project's 2.13.0 CPU wheel; optimum-benchmark 0.6.0, the newest, imports
`SpecialTokensMixin` from transformers, which transformers 5 removed, so transformers must be 4.x (4.57.6
tested); datasets 5 needs huggingface-hub>=1.31, which transformers 4.x refuses, hence datasets 4.x.)

    HF_HUB_OFFLINE=1 /tmp/ob-venv/bin/python bench/optimum_bench.py \
        --model /path/to/folder --batch 1 --input 128 --dtype float32 --threads 1 [--reps 20] \
        [--attn_implementation eager|sdpa] [--random-weights] [--launcher inline|process] [--memory]

What optimum-benchmark measures here (read from its 0.6.0 source):
  * task inferred from the folder (feature-extraction for BertModel / RobertaModel configs): AutoModel.
  * inputs from its own generator: input_ids uniform over the whole vocabulary (special ids included),
    attention_mask ones, token_type_ids random in [0, type_vocab_size), and position_ids 0..L-1 (an extra input
    our drivers do not pass); made before timing.
  * each tracked call: time.perf_counter() around backend.forward(), a method decorated with
    @torch.inference_mode() calling model.forward(**inputs) (inference mode, not just autograd off).
  * call order: one untimed-for-us `first_forward` (reported as first_forward_ms), then `warmup_runs`
    untracked forwards, then `iterations` tracked forwards. We set warmup_runs = max(int(0.2*reps), 1) and
    iterations = reps - warmup_runs, duration = 0, so the tracked count matches the reps our drivers keep.
  * threads: PyTorchConfig 0.6.0 swaps the two thread options (inter_op_num_threads calls
    torch.set_num_threads, intra_op_num_threads calls torch.set_num_interop_threads); this script detects
    the swap in the installed source and passes N to whichever one calls torch.set_num_threads, and also
    exports OMP_NUM_THREADS=N / MKL_NUM_THREADS=N so the spawned process starts with N.
  * launcher: `inline` (default) runs the benchmark in this process (optimum-benchmark prints a warning that
    inline is "only recommended for debugging"; this script is already a fresh process per point, which is
    the isolation `process` gives) and reports threads_seen. `process` (optimum's recommended launcher) runs it
    in a spawned child while the parent BUSY-WAITS for the result (launchers/process/launcher.py:
    `while isolated_process.is_alive() and not parent_connection.poll(): pass`), burning one core for the
    whole run: on a 2-core machine that doubled the measured latency (granite-125m random, 16x1, 1 thread:
    ~63 ms inline vs ~125-145 ms process; the upstream-style driver: 61-70 ms). Use `process` only where a
    spare core exists, and say so.
  * --memory adds optimum's memory tracker (max RSS of the process during one forward, polled; slow).
  * weights: PyTorchConfig(no_weights=True) does NOT work on a local folder (it calls
    huggingface_hub.hf_hub_download(<folder path>, "config.json") -> HFValidationError "Repo id must be in the
    form 'repo_name' or 'namespace/repo_name'"). So for a folder with config.json only, --random-weights
    builds AutoModel.from_config(config) under torch.manual_seed(0), saves it (float32 safetensors, tokenizer
    files copied) to a temporary folder and benchmarks that folder with no_weights=False; load_s is then the
    load of that file, not a build time.
"""

import argparse
import glob
import inspect
import os
import shutil
import statistics
import sys
import tempfile


def fail(msg):
    print("OPTIMUM error=" + " ".join(str(msg).split()), flush=True)
    sys.exit(1)


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="local Hugging Face model folder")
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--input", type=int, required=True, help="sequence length")
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16", "auto"])
    p.add_argument("--threads", type=int, required=True, help="intra-op threads (torch.set_num_threads)")
    p.add_argument("--reps", type=int, default=20, help="forwards as in the FMWORK drivers (>= 2)")
    p.add_argument("--attn_implementation", default=None)
    p.add_argument("--random-weights", action="store_true", help="benchmark random weights (folder without them)")
    p.add_argument("--launcher", default="inline", choices=["inline", "process"])
    p.add_argument("--memory", action="store_true", help="also track max RAM during a forward")
    a = p.parse_args()
    if a.reps < 2 or a.batch < 1 or a.input < 1 or a.threads < 1:
        fail("--reps must be >= 2 and --batch, --input, --threads >= 1")
    if not os.path.isfile(os.path.join(a.model, "config.json")):
        fail(f"{a.model} is not a model folder (no config.json)")
    return a


def has_weights(folder):
    return any(glob.glob(os.path.join(folder, pat)) for pat in ("*.safetensors", "pytorch_model*.bin"))


def materialize_random(folder, tmp):
    """AutoModel.from_config under torch.manual_seed(0), saved to tmp with the folder's tokenizer files."""
    import torch
    import transformers

    config = transformers.AutoConfig.from_pretrained(folder, local_files_only=True)
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(config, torch_dtype=torch.float32)
    model.save_pretrained(tmp, safe_serialization=True)
    for name in os.listdir(folder):
        if name.startswith(("tokenizer", "special_tokens_map", "vocab", "merges", "sentencepiece")):
            shutil.copy(os.path.join(folder, name), tmp)
    del model


def main():
    a = parse()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("LOG_LEVEL", "WARNING")  # optimum-benchmark's own logging (both processes)
    os.environ.setdefault("LOG_TO_FILE", "0")  # it writes a log file into the cwd by default
    os.environ["OMP_NUM_THREADS"] = str(a.threads)
    os.environ["MKL_NUM_THREADS"] = str(a.threads)
    try:
        import numpy as np
        import torch
        import transformers
        import optimum_benchmark
        from optimum_benchmark import (Benchmark, BenchmarkConfig, InferenceConfig, InlineConfig, ProcessConfig,
                                       PyTorchConfig)
        from optimum_benchmark.backends.pytorch.backend import PyTorchBackend
    except Exception as e:  # e.g. transformers 5: cannot import name 'SpecialTokensMixin'
        fail(f"optimum-benchmark does not import here: {type(e).__name__}: {e}")
    version = getattr(optimum_benchmark, "__version__", None)
    if version is None:
        from optimum_benchmark.version import __version__ as version

    # Which PyTorchConfig field reaches torch.set_num_threads (0.6.0 swaps them).
    src = inspect.getsource(PyTorchBackend.__init__)
    thread_field = ("inter_op_num_threads" if "set_num_threads(self.config.inter_op_num_threads)" in src
                    else "intra_op_num_threads")

    model_dir, tmp, weights = a.model, None, "file"
    if a.random_weights:
        tmp = tempfile.mkdtemp(prefix="optimum_bench_")
        materialize_random(a.model, tmp)
        model_dir, weights = tmp, "random"
    elif not has_weights(a.model):
        fail(f"{a.model} has no weights (*.safetensors / pytorch_model*.bin): pass --random-weights "
             "(optimum-benchmark's own no_weights=True fails on a local folder: HFValidationError)")

    warmup = max(int(0.2 * a.reps), 1)
    try:
        backend_kw = {thread_field: a.threads}
        if a.dtype:
            backend_kw["torch_dtype"] = a.dtype
        if a.attn_implementation:
            backend_kw["attn_implementation"] = a.attn_implementation
        backend = PyTorchConfig(device="cpu", model=model_dir, no_weights=False, **backend_kw)
        scenario = InferenceConfig(latency=True, memory=a.memory, energy=False, duration=0,
                                   iterations=a.reps - warmup, warmup_runs=warmup,
                                   input_shapes={"batch_size": a.batch, "sequence_length": a.input})
        launcher = ProcessConfig() if a.launcher == "process" else InlineConfig()
        config = BenchmarkConfig(name="optimum_bench", launcher=launcher, backend=backend, scenario=scenario)
        report = Benchmark.launch(config).to_dict()
    except SystemExit:
        raise
    except BaseException as e:
        lines = [l for l in str(e).strip().splitlines() if l.strip()]
        fail(f"{type(e).__name__}: {lines[-1] if lines else e}")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)

    fwd = report["forward"]["latency"]
    values = [float(v) * 1000 for v in fwd["values"]]
    if not values:
        fail("optimum-benchmark reported no forward latencies")
    med = statistics.median(values)
    sorted_v = sorted(values)
    p90 = float(np.percentile(values, 90))
    fields = {
        "latency_ms": f"{med:.3f}",
        "mean_ms": f"{statistics.fmean(values):.3f}",
        "p90_ms": f"{p90:.3f}",
        "stdev_ms": f"{statistics.pstdev(values):.3f}",
        "min_ms": f"{sorted_v[0]:.3f}",
        "max_ms": f"{sorted_v[-1]:.3f}",
        "count": len(values),
        "warmup": warmup,
        "first_forward_ms": f"{float(report['first_forward']['latency']['values'][0]) * 1000:.3f}",
        "load_s": f"{float(report['load_model']['latency']['values'][0]):.6f}",
        "throughput": f"{a.batch / (med / 1000):.1f}",
    }
    mem = report["forward"].get("memory")
    if mem and mem.get("max_ram") is not None:
        fields["max_ram_mb"] = f"{float(mem['max_ram']):.1f}"
    fields.update({
        "model": a.model.replace(" ", "_"), "input": a.input, "batch": a.batch, "dtype": a.dtype,
        "threads": a.threads, "thread_field": thread_field, "launcher": a.launcher, "weights": weights,
        "attn": a.attn_implementation or "default",
        "optimum_benchmark": version, "transformers": transformers.__version__, "torch": torch.__version__,
    })
    if a.launcher == "inline":
        fields["threads_seen"] = torch.get_num_threads()
    print("OPTIMUM " + " ".join(f"{k}={v}" for k, v in fields.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
