#!/usr/bin/env python3
"""Export a Hugging Face encoder folder to an AOTInductor package (.pt2) for the C++ driver.

The driver's `--compile --compile:backend inductor` on a Hugging Face folder runs this script, then loads
the package with torch::inductor::AOTIModelPackageLoader. Only the standard library, torch and
transformers are used; nothing is downloaded (HF_HUB_OFFLINE=1).

    aoti_export.py --model DIR --out FILE.pt2 --device cpu|cuda[:N] --dtype float32|float16|bfloat16
                   [--model-class CLASS]  (a transformers base-model class, e.g. BertModel, MPNetModel; AutoModel)
                   [--attn-implementation eager|sdpa] [--no-pooling-layer]
                   (--batch B --input L | --dynamic --max-batch B --max-input L)
                   --threads N [--mode default|max-autotune|max-autotune-no-cudagraphs] [--options JSON-object]
                   [--libtorch-version X.Y.Z]

The package's forward takes (input_ids, attention_mask[, token_type_ids]), int64 [batch, input], and
returns (last_hidden_state[, pooler_output]). token_type_ids is an input when the config has
type_vocab_size > 0 and the class takes it; pooler_output an output when the model has a pooler.

--dynamic: batch sizes 1..max-batch and input lengths 1..max-input. torch.export.Dim("batch", min=1, ...)
and Dim("seq", min=1, ...), example inputs batch 2 and input min(8, max) (an example size 0/1 would be
specialised; equal example sizes are fine, separate Dims are not tied). Found with torch 2.13:
export keeps min=1 (ep.range_constraints VR[1, max]) and the package gives eager's outputs at batch 1 and
input 1. Not used: Dim.AUTO / Dim.DYNAMIC (ranges narrowed to [2, max], and the batch of each input a
separate symbol); backed_size_oblivious (export then fails, or the program asserts input > 1). The range
written in the metadata is read back from the exported program. A maximum of 1 makes that dimension
static. Static: exactly (batch, input).

The package checks nothing about its inputs unless the process runs with AOTI_RUNTIME_CHECK_INPUTS=1: a
shape beyond the range runs unchecked (wrong results or a crash), so the caller keeps to the range in the
metadata. With that variable set, Inductor's checks would refuse size 1 ("expected it to be >= 2"), so the
package is built with aot_inductor.check_lowerbound=False (an --options value may override it).

Facts stored in the package metadata (AOTIModelPackageLoader::get_metadata), all strings: fmwork.inputs,
fmwork.outputs (comma-separated names in order), fmwork.dtype, fmwork.device, fmwork.threads,
fmwork.batch_min/batch_max, fmwork.input_min/input_max, fmwork.vec_isa, fmwork.torch, fmwork.transformers.

fmwork.vec_isa is the vector ISA Inductor picked for its CPU kernels ("avx512 avx512_vnni amx_tile",
"avx512", "avx2", ...), or "scalar" when its probe (a dry compile and dlopen of a small AVX program) found
none: the kernels are then plain C++ loops, much slower. When the CPU has AVX2 or AVX-512 but the probe
found nothing, a warning goes to stderr. For a CUDA package it is "n/a".

The package is written to FILE.pt2.tmp-<pid>.pt2 and renamed over FILE.pt2 once complete. stdout carries
one JSON line at the end (everything else, Inductor's logs and compiler output, goes to stderr):
  {"package": OUT, "seconds": S, "export_seconds": E, "compile_seconds": C, "vec_isa": ISA,
   "inputs": [...], "outputs": [...], "batch": [min, max], "input": [min, max], "torch": VERSION,
   "transformers": VERSION, "dtype": ..., "device": ..., "threads": N}
Errors: one line `error: ...` on stderr; exit 2 for a bad option value (checked before anything is
loaded), 1 for a failure while loading, exporting or compiling, or when torch / transformers is missing.
"""

import argparse
import difflib
import json
import os
import re
import signal
import sys
import time

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

# Any transformers base-model class: what the class is is transformers' business (getattr at load time).
MODEL_CLASS = re.compile(r"[A-Z][A-Za-z0-9_]{0,99}")
DTYPES = ("float32", "float16", "bfloat16")
# RoBERTa-style position ids start after padding_idx: usable length = max_position_embeddings - pad - 1.
OFFSET_POSITIONS = ("roberta", "xlm-roberta", "camembert", "mpnet")
# Inductor options the exporter sets itself (the package, its path and its metadata).
OWN_OPTIONS = ("aot_inductor.package", "aot_inductor.output_path", "aot_inductor.metadata")


class UsageError(Exception):
    """A bad option value: exit 2."""


class Failure(Exception):
    """A failure while loading, exporting or compiling: exit 1."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def int_from(least, what):
    """An argparse type: a base-10 integer of at least `least`, else the error "expected <what>"."""
    def parse(text):
        try:
            value = int(text, 10)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value
    return parse


whole_int = int_from(0, "a whole number")
positive_int = int_from(1, "a positive integer")


def parse_args(argv):
    p = Parser(prog="aoti_export.py", add_help=True,
               description="Export a Hugging Face encoder folder to an AOTInductor package (.pt2).")
    p.add_argument("--model", required=True, help="Hugging Face folder (config.json + weights)")
    p.add_argument("--out", required=True, help="package to write, ending in .pt2")
    p.add_argument("--device", required=True, help="cpu, cuda or cuda:N")
    p.add_argument("--dtype", required=True, choices=DTYPES)
    p.add_argument("--model-class", default="AutoModel")
    p.add_argument("--attn-implementation", choices=("eager", "sdpa"))
    p.add_argument("--no-pooling-layer", action="store_true")
    p.add_argument("--batch", type=positive_int)
    p.add_argument("--input", type=positive_int)
    p.add_argument("--dynamic", action="store_true")
    p.add_argument("--max-batch", type=positive_int)
    p.add_argument("--max-input", type=positive_int)
    # 0 off the CPU: a GPU package bakes no thread count (the driver keys and records it as 0)
    p.add_argument("--threads", required=True, type=whole_int)
    p.add_argument("--mode", default="default", choices=("default", "max-autotune", "max-autotune-no-cudagraphs"))
    p.add_argument("--options", default="{}", help="JSON object of torch._inductor.config keys")
    p.add_argument("--libtorch-version", help="the driver's LibTorch version (X.Y.Z): torch must match it")
    args = p.parse_args(argv)
    check_args(args)
    return args


def check_args(args):
    if not MODEL_CLASS.fullmatch(args.model_class):
        raise UsageError(f"--model-class: expected a transformers class name such as BertModel, got {args.model_class!r}")
    if not re.fullmatch(r"cpu|cuda(:\d+)?", args.device):
        raise UsageError(f"--device: expected cpu, cuda or cuda:N, got {args.device!r}")
    if args.device == "cpu" and args.threads == 0:
        raise UsageError("--threads: a CPU package bakes its OpenMP thread count: give 1 or more (0 is for cuda)")
    if not args.out.endswith(".pt2"):
        raise UsageError(f"--out: the package name must end in .pt2, got {args.out!r}")
    out_dir = os.path.dirname(os.path.abspath(args.out))
    if not os.path.isdir(out_dir):
        raise UsageError(f"--out: folder {out_dir} does not exist")
    if args.dynamic:
        if args.batch is not None or args.input is not None:
            raise UsageError("--dynamic takes --max-batch and --max-input, not --batch / --input")
        if args.max_batch is None or args.max_input is None:
            raise UsageError("--dynamic needs --max-batch and --max-input")
        args.batch_range, args.input_range = (1, args.max_batch), (1, args.max_input)
    else:
        if args.max_batch is not None or args.max_input is not None:
            raise UsageError("--max-batch / --max-input go with --dynamic")
        if args.batch is None or args.input is None:
            raise UsageError("give --batch B --input L, or --dynamic --max-batch B --max-input L")
        args.batch_range, args.input_range = (args.batch, args.batch), (args.input, args.input)
    try:
        args.options = json.loads(args.options)
    except ValueError as e:
        raise UsageError(f"--options: not JSON ({e})")
    if not isinstance(args.options, dict):
        raise UsageError("--options: expected a JSON object of Inductor options")
    args.config = read_config(args.model)
    limit = usable_length(args.config)
    if limit is not None and args.input_range[1] > limit:
        raise UsageError(f"--{'max-input' if args.dynamic else 'input'}: {args.input_range[1]} is longer "
                         f"than the model's {limit} positions")


def read_config(folder):
    if not os.path.isdir(folder):
        raise UsageError(f"--model: no folder {folder}")
    path = os.path.join(folder, "config.json")
    if not os.path.isfile(path):
        raise UsageError(f"--model: {folder} has no config.json")
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as e:
        raise UsageError(f"--model: cannot read {path}: {e}")
    if not isinstance(config, dict):
        raise UsageError(f"--model: {path} is not a JSON object")
    return config


def usable_length(config):
    positions = config.get("max_position_embeddings")
    if not isinstance(positions, int):
        return None
    if config.get("model_type") in OFFSET_POSITIONS:
        return positions - int(config.get("pad_token_id") or 0) - 1
    return positions


def import_libraries(libtorch_version):
    wanted = libtorch_version or "<the driver's LibTorch version>"
    hint = (f"the inductor backend needs Python with torch and transformers: "
            f"pip install torch=={wanted} transformers")
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
        import torch._inductor  # noqa: F401
        import torch.export  # noqa: F401
    except Exception as e:  # ImportError, or a broken install raising something else
        raise Failure(f"{hint} ({type(e).__name__}: {e})".replace("\n", " "))
    if libtorch_version:
        ours = torch.__version__.split("+")[0].split(".")[:2]
        if ours != libtorch_version.split("+")[0].split(".")[:2]:
            raise Failure(f"this Python has torch {torch.__version__}, the driver runs LibTorch "
                          f"{libtorch_version}: a package only loads in the same version; {hint}")


def check_inductor_options(options):
    """Every key must be an attribute of torch._inductor.config (dotted keys for nested ones)."""
    from torch._inductor import config

    known = sorted(config.get_config_copy().keys())
    for key in options:
        if key in OWN_OPTIONS:
            raise UsageError(f"--compile:options:{key}: set by the exporter itself, not an option")
        if key not in known:
            close = difflib.get_close_matches(key, known, n=4, cutoff=0.6)
            hint = f"close: {', '.join(close)}" if close else "see torch._inductor.config"
            raise UsageError(f"--compile:options:{key}: not an Inductor option; {hint}")


def load_model(args):
    import torch
    import transformers

    cls = getattr(transformers, args.model_class, None)
    if cls is None or not hasattr(cls, "from_pretrained"):
        raise UsageError(f"--model-class: transformers {transformers.__version__} has no model class {args.model_class}")
    kwargs = {("dtype" if transformers_major() >= 5 else "torch_dtype"): getattr(torch, args.dtype)}
    if args.attn_implementation:
        kwargs["attn_implementation"] = args.attn_implementation
    if args.no_pooling_layer and takes_pooling_flag(cls, args.config):
        kwargs["add_pooling_layer"] = False
    try:
        model = cls.from_pretrained(args.model, **kwargs)
    except Exception as e:
        raise Failure(f"--model: {args.model_class} cannot load {args.model}: {type(e).__name__}: {e}")
    return model.eval().to(args.device)


def transformers_major():
    import transformers

    return int(transformers.__version__.split(".")[0])


def takes_pooling_flag(cls, config):
    """Whether the class (AutoModel: the one it picks for the config) takes add_pooling_layer."""
    import inspect

    import transformers

    if cls is transformers.AutoModel:
        model_type = config.get("model_type")
        mapping = transformers.models.auto.modeling_auto.MODEL_MAPPING_NAMES
        name = mapping.get(model_type)
        if not isinstance(name, str) or not hasattr(transformers, name):
            return False
        cls = getattr(transformers, name)
    return "add_pooling_layer" in inspect.signature(cls.__init__).parameters


def make_wrapper(model):
    """An nn.Module taking the tensors by name and returning a tuple; its input and output names."""
    import inspect

    import torch

    takes_types = ("token_type_ids" in inspect.signature(model.forward).parameters
                   and (getattr(model.config, "type_vocab_size", 0) or 0) > 0)
    has_pooler = getattr(model, "pooler", None) is not None
    inputs = ["input_ids", "attention_mask"] + (["token_type_ids"] if takes_types else [])
    outputs = ["last_hidden_state"] + (["pooler_output"] if has_pooler else [])

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            extra = {"token_type_ids": token_type_ids} if takes_types else {}
            out = self.model(input_ids=input_ids, attention_mask=attention_mask, return_dict=True, **extra)
            return tuple(getattr(out, name) for name in outputs)

    return Encoder().eval(), inputs, outputs


def example_inputs(model, names, batch, length, device):
    import torch

    vocab = int(model.config.vocab_size)
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(0, vocab, (batch, length), generator=gen, dtype=torch.long)
    tensors = {"input_ids": ids, "attention_mask": torch.ones(batch, length, dtype=torch.long),
               "token_type_ids": torch.zeros(batch, length, dtype=torch.long)}
    return {name: tensors[name].to(device) for name in names}


def example_sizes(batch_range, input_range):
    """Example (batch, input) for export: the size of a fixed dimension, else 2 for the batch and up to 8
    for the input (never 0 or 1: export would specialise the dimension to that value)."""
    batch = batch_range[1] if batch_range[0] == batch_range[1] else 2
    length = input_range[1] if input_range[0] == input_range[1] else min(input_range[1], 8)
    return batch, length


def dynamic_shapes(names, batch_range, input_range):
    from torch.export import Dim

    dims = {}
    if batch_range[0] != batch_range[1]:
        dims[0] = Dim("batch", min=batch_range[0], max=batch_range[1])
    if input_range[0] != input_range[1]:
        dims[1] = Dim("seq", min=input_range[0], max=input_range[1])
    return {name: dict(dims) for name in names} if dims else None


def picked_vec_isa(device, options):
    """Inductor's CPU vector ISA as a string, "scalar" when it picked none; warns on stderr when the CPU has
    AVX2 / AVX-512 but the probe failed (Inductor then silently writes scalar loops)."""
    if device != "cpu":
        return "n/a"
    from torch._inductor import config, cpu_vec_isa

    try:
        with config.patch(options):  # cpp.simdlen / cpp.vec_isa_ok in --options change the pick
            isa = cpu_vec_isa.pick_vec_isa()
    except Exception as e:  # no working C++ compiler: the compile would fail the same way
        raise Failure(f"Inductor cannot build CPU code: {type(e).__name__}: {e}")
    if isa:
        return str(isa)
    cpu = cpu_vec_isa.x86_isa_checker() if hasattr(cpu_vec_isa, "x86_isa_checker") else []
    if os.environ.get("ATEN_CPU_CAPABILITY") == "default" or "cpp.simdlen" in options:
        cause = "ATEN_CPU_CAPABILITY=default or --options cpp.simdlen asked for it"
    elif cpu:
        cause = (f"the CPU has {' '.join(cpu)} but Inductor's probe (a dry compile and dlopen of a small "
                 "vectorized program with the C++ compiler) failed; check the compiler (CXX), its AVX "
                 "flags and TORCHINDUCTOR_CACHE_DIR")
    else:
        cause = "Inductor knows no vector ISA of this CPU"
    print(f"warning: Inductor writes scalar CPU kernels (no vector ISA), much slower: {cause}",
          file=sys.stderr)
    return "scalar"


def exported_ranges(ep, batch_range, input_range):
    """The (batch, input) ranges the exported program declares: a fixed size gives (n, n), a symbolic
    one its range in ep.range_constraints (export may narrow what was asked, never widen it)."""
    user = set(ep.graph_signature.user_inputs)
    node = next(n for n in ep.graph.nodes if n.op == "placeholder" and n.name in user)
    ranges = []
    for size, asked in zip(node.meta["val"].shape, (batch_range, input_range)):
        if isinstance(size, int):
            ranges.append((size, size))
            continue
        vr = ep.range_constraints.get(size.node.expr)
        if vr is None:
            ranges.append(asked)
            continue
        upper = asked[1] if vr.upper.is_infinite else int(vr.upper)  # sympy oo when unbounded
        ranges.append((max(int(vr.lower), asked[0]), min(upper, asked[1])))
    return ranges[0], ranges[1]


def metadata(args, inputs, outputs, vec_isa):
    import torch
    import transformers

    facts = {"inputs": ",".join(inputs), "outputs": ",".join(outputs), "dtype": args.dtype,
             # the kind only: the package runs on any index of it (the C++ loader is given the index)
             "device": args.device.split(":")[0], "threads": args.threads,
             "batch_min": args.batch_range[0], "batch_max": args.batch_range[1],
             "input_min": args.input_range[0], "input_max": args.input_range[1],
             "vec_isa": vec_isa, "torch": torch.__version__, "transformers": transformers.__version__}
    return {f"fmwork.{key}": str(value) for key, value in facts.items()}


def check_device(device):
    import torch

    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise Failure(f"--device {device}: this torch ({torch.__version__}) has no usable CUDA device")
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise Failure(f"--device {device}: only {torch.cuda.device_count()} CUDA device(s)")


def export_and_compile(args):
    """Returns the result dict; writes the package to args.out."""
    import torch

    if args.threads:  # Inductor bakes the OpenMP thread count into its CPU kernels
        torch.set_num_threads(args.threads)
    check_device(args.device)
    vec_isa = picked_vec_isa(args.device, args.options)
    model = load_model(args)
    wrapper, inputs, outputs = make_wrapper(model)
    batch, length = example_sizes(args.batch_range, args.input_range)
    kwargs = example_inputs(model, inputs, batch, length, args.device)
    shapes = dynamic_shapes(inputs, args.batch_range, args.input_range)
    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            # Guards over the dynamic sizes that the Dim language cannot state (on CUDA, the memory-efficient
            # attention pads the mask to a multiple of 8: seq*(8+seq-seq%8) > 1, which export cannot prove
            # for every seq and refused, seen on an H100) become runtime asserts in the graph instead.
            ep = torch.export.export(wrapper, args=(), kwargs=kwargs, dynamic_shapes=shapes, strict=False,
                                     prefer_deferred_runtime_asserts_over_guards=True)
    except Exception as e:
        raise Failure(f"torch.export failed: {type(e).__name__}: {e}")
    t1 = time.perf_counter()
    args.batch_range, args.input_range = exported_ranges(ep, args.batch_range, args.input_range)
    # The input checks a package runs under AOTI_RUNTIME_CHECK_INPUTS=1 demand sizes >= 2 for dynamic
    # dimensions unless told not to; size 1 runs correctly (the exported range starts at 1).
    configs = {"aot_inductor.check_lowerbound": False}
    configs.update(args.options)
    if args.mode in ("max-autotune", "max-autotune-no-cudagraphs"):  # a package captures no CUDA graphs
        configs["max_autotune"] = True
    configs["aot_inductor.metadata"] = metadata(args, inputs, outputs, vec_isa)
    tmp = f"{args.out}.tmp-{os.getpid()}.pt2"
    try:
        torch._inductor.aoti_compile_and_package(ep, package_path=tmp, inductor_configs=configs)
        os.replace(tmp, args.out)
    except Exception as e:
        raise Failure(f"AOTInductor compile failed: {type(e).__name__}: {e}")
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    t2 = time.perf_counter()
    return {"package": args.out, "seconds": round(t2 - t0, 3), "export_seconds": round(t1 - t0, 3),
            "compile_seconds": round(t2 - t1, 3), "vec_isa": vec_isa, "inputs": inputs, "outputs": outputs,
            "batch": list(args.batch_range), "input": list(args.input_range), "torch": torch.__version__,
            "transformers": __import__("transformers").__version__, "dtype": args.dtype,
            "device": args.device, "threads": args.threads}


def stdout_to_stderr():
    """Points file descriptor 1 at stderr (Inductor's logs, compiler output); returns the saved stdout."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    return saved


def quiet_libraries():
    """No progress bars, no FutureWarnings from torch / transformers internals on stderr."""
    import warnings

    import transformers

    transformers.utils.logging.disable_progress_bar()
    warnings.filterwarnings("ignore", category=FutureWarning)


def end_group_with_driver():
    """The driver starts this script as the leader of a process group of its own, forwards SIGTERM and
    SIGINT to that group, and has the kernel send SIGTERM when the driver dies (even by SIGKILL). The
    compilers Inductor starts are in the group: ending the whole group here means no compiler keeps the
    cores busy for a driver that is gone. Run by hand (not a group leader), the default handling stays."""
    if os.getpgrp() != os.getpid():
        return

    def end(signum, frame):
        os.killpg(0, signal.SIGKILL)

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGINT, end)
    if os.getppid() == 1:  # the driver died before the handler was in place
        end(signal.SIGTERM, None)


def main(argv):
    end_group_with_driver()
    args = parse_args(argv)
    saved = stdout_to_stderr()
    try:
        import_libraries(args.libtorch_version)
        quiet_libraries()
        check_inductor_options(args.options)
        result = export_and_compile(args)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    print(json.dumps(result), flush=True)


def run(argv, entry=None):
    """Runs `entry` (this script's main; tools/ov_export.py passes its own) with the error conventions above."""
    try:
        (entry or main)(argv)
    except UsageError as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 2
    except Failure as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
        return 1
    except Exception as e:  # anything unforeseen: still one line, never a traceback
        print(f"error: {type(e).__name__}: {one_line(e)}", file=sys.stderr)
        return 1
    return 0


def one_line(e):
    return " ".join(str(e).split())


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
