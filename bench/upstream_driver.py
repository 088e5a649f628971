#!/usr/bin/env python3
"""Upstream-style Python driver: the reference the C++ driver is timed against.

Written for this project from the description of fmwork's embed/tf `driver` in its README (seed 000) and
of its log format (docs/log-lines.md); no upstream code is copied. It does what that README says the Python
driver does, with torch + transformers in eager mode, and prints the same FMWORK lines so that
`build/process --path LOG` reads its log:

    ARGS banner + FMWORK ARG lines + args JSON, RUNTIME banner, MODEL banner + FMWORK SETUP,
    then per batch size (outer) and input size (inner): RUN banner, FMWORK REP lines, FMWORK RES line.

Extensions (lines upstream ignores, read by our `process`): FMWORK META (engine, versions, dtype, threads),
FMWORK STAT per combination, FMWORK FAIL for a combination that raised, and at the end
FMWORK PYMEM peak_rss_bytes=N (resource.getrusage ru_maxrss of this process).

Usage (from the repository root, with the project's virtual environment):

    HF_HUB_OFFLINE=1 .venv/bin/python bench/upstream_driver.py --platform cpu \
        --model_class BertModel --model_name /path/to/model/folder \
        --input_sizes 128,512 --batch_sizes 1,8 --reps 20 --eval \
        --torch.call:set_num_threads@ 1 --torch.call:set_grad_enabled@ False \
        [--model:dtype@ torch.bfloat16] [--model:attn_implementation eager] [--seed 0] \
        [--model:random_weights@ True] [--input_lengths SPEC [--batching padded]]

Choices (where upstream is silent or its transformers version differed), each printed in the log:
  * model class: getattr(transformers, --model_class) (AutoModel, BertModel, RobertaModel, ...),
    loaded with <class>.from_pretrained(<folder>, **--model:* options), local files only.
  * dtype: float32 unless --model:dtype / --model:torch_dtype is given (transformers 5 defaults to "auto",
    i.e. config.json's torch_dtype; upstream ran under transformers 4, whose default was float32, and the C++
    driver's default is float32 too). --model:dtype auto restores transformers' own default.
  * autograd: off by default (torch.set_grad_enabled(False)), like the C++ driver; upstream leaves it on
    unless --torch.call:set_grad_enabled@ False is given (it is applied either way, so passing it is harmless,
    and --torch.call:set_grad_enabled@ True turns autograd back on).
  * eval: from_pretrained already returns a model in eval mode; model.eval() is called for every load
    (also --model:random_weights@ True, whose from_config model would otherwise run dropout). --eval is
    accepted and echoed.
  * --model:random_weights@ True (ours): the model is built with <class>.from_config(config) (AutoModel) or
    <class>._from_config(config) under torch.manual_seed(0), for folders with config.json only; FMWORK SETUP
    is then the build time, not a load time.
  * inputs: token ids drawn uniformly over the vocabulary minus the special ids (config.json pad/bos/eos/
    cls/sep/unk/mask ids, plus special tokens named in tokenizer.json / tokenizer_config.json /
    special_tokens_map.json when present, as the C++ driver does), from one torch.Generator seeded with
    --seed (default 0) and drawn in sweep order; attention_mask ones; token_type_ids zeros (only when the
    model's forward takes them); all int64; built before the first rep of each combination.
  * timing: time.time_ns() immediately around model(**inputs) (plus torch.cuda.synchronize() on cuda).
  * --input_lengths SPEC (ours, as the C++ driver's: N, uniform:MIN,MAX, lognormal:MEDIAN,MAX[,SIGMA],
    file:PATH; --batching accepts padded only): mixed lengths, padded with an attention mask, on the C++
    driver's own batches. bench/rep_lengths.py mirrors the driver's sampler draw for draw (its mt19937_64
    seeded with --seed, one per combination, rep r taking draws r*batch..r*batch+batch-1, warm-up
    included), so `--seed S --input_lengths SPEC` here runs exactly the batches that the driver's
    `--seed S --input_lengths SPEC --batching padded` runs, rep for rep. Each rep's batch is built before
    its timed region: [batch, longest length of the batch] ids, positions past a request's length set to
    config.pad_token_id (0 when unset) and masked out (attention_mask 0). Every --input_sizes value must
    be at least the distribution's longest length (the driver's rule). The warm-up reps are upstream's
    (20% of --reps, at least 1); STAT then adds the driver's token fields over the kept reps: real_tokens
    and padded_tokens (means per rep), padding, tokens_per_s (real tokens over the kept reps' summed
    durations) and padded_tokens_per_s, so that a bench reads both drivers' STAT lines alike.
"""

import argparse
import ast
import functools
import inspect
import json
import os
import platform as _platform
import resource
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fmwork_log  # noqa: E402  (beside this file: the FMWORK lines' tables)
import rep_lengths  # noqa: E402  (beside this file: the C++ driver's length rule)

transformers.utils.logging.disable_progress_bar()

SUB_SETS = ("compile", "model", "torch.call", "torch.set")
CONFIG_SPECIAL_KEYS = ("pad_token_id", "bos_token_id", "eos_token_id", "cls_token_id", "sep_token_id",
                       "unk_token_id", "mask_token_id")


def out(line=""):
    print(line, flush=True)


def banner(title):
    out()
    out("-" * 80)
    out(title)
    out("-" * 80)
    out()


def fmt_ts(ns):
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


def die(msg, code=2):
    print(f"error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


# ---- options ----------------------------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    add = parser.add_argument
    add("--platform", type=str, required=True)
    add("--model_class", type=str, required=True)
    add("--model_root", type=str)
    add("--model_name", type=str, required=True)
    add("--compile", action="store_true")
    add("--eval", action="store_true")
    add("--input_sizes", type=str, required=True)
    add("--batch_sizes", type=str, required=True)
    add("--reps", type=int, required=True)
    add("--seed", type=int, default=0)
    add("--input_lengths", type=str)
    add("--batching", type=str, choices=["padded"])
    args, rest = parser.parse_known_args(argv)
    args.input_sizes = [int(x) for x in args.input_sizes.split(",")]
    args.batch_sizes = [int(x) for x in args.batch_sizes.split(",")]
    if args.reps < 2:
        die("--reps must be at least 2")
    for what in ("model_name", "model_class"):
        if " " in getattr(args, what):
            die(f"--{what} must hold no spaces (it is a field of the FMWORK RES line)")
    if any(v < 1 for v in args.input_sizes + args.batch_sizes):
        die("sizes must be positive")
    if args.batching and not args.input_lengths:
        die("--batching needs --input_lengths (this driver runs mixed lengths padded only)")
    if args.input_lengths:
        try:
            longest = rep_lengths.parse_spec(args.input_lengths)["max"]
        except (ValueError, OSError) as e:
            die(f"--input_lengths: {e}")
        if min(args.input_sizes) < longest:
            die(f"--input_lengths can draw {longest} tokens, beyond --input_sizes {min(args.input_sizes)}")
    subs = {name: {} for name in SUB_SETS}
    raw = []  # (option word, raw value) as typed, for the ARG lines
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.startswith("--") or ":" not in word or i + 1 >= len(rest):
            die(f"unrecognised argument {word!r} (sub-options are --SET:key[@] VALUE)")
        value = rest[i + 1]
        i += 2
        raw.append((word, value))
        key = word[2:]
        evaluate = key.endswith("@")
        if evaluate:
            key = key[:-1]
        name, _, path = key.partition(":")
        if name not in subs:
            die(f"unknown sub-option set {name!r} in {word} (known: {', '.join(SUB_SETS)})")
        parsed = eval(value, {"torch": torch, "args": args}) if evaluate else value  # as upstream: '@' = eval
        node = subs[name]
        parts = path.split(":")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = parsed
    args.subs = subs
    args.raw_subs = raw
    args.model_path = os.path.join(args.model_root, args.model_name) if args.model_root else args.model_name
    return args


def arg_lines(argv):
    """FMWORK ARG lines: each option as typed with its raw value (flags alone), sorted as strings."""
    items, i = [], 0
    while i < len(argv):
        word = argv[i]
        if word in ("--compile", "--eval"):
            items.append(word)
            i += 1
        elif "=" in word and word.startswith("--") and ":" not in word.split("=")[0]:
            k, v = word.split("=", 1)
            items.append(f"{k} {v}")
            i += 1
        else:
            items.append(f"{word} {argv[i + 1]}" if i + 1 < len(argv) else word)
            i += 2
    return sorted(items)


def repr_tree(v):
    if isinstance(v, dict):
        return {k: repr_tree(x) for k, x in v.items()}
    return v if isinstance(v, str) else repr(v)


# ---- model ------------------------------------------------------------------------------------------------

def special_ids(folder, config):
    ids = set()
    for k in CONFIG_SPECIAL_KEYS:
        v = getattr(config, k, None)
        if isinstance(v, int):
            ids.add(v)
    lookup, names = {}, []

    def load(name):
        p = os.path.join(folder, name)
        if os.path.exists(p):
            with open(p) as f:
                return json.load(f)
        return None

    def token_string(v):
        if isinstance(v, str):
            return v
        if isinstance(v, dict) and isinstance(v.get("content"), str):
            return v["content"]
        return None

    def collect(j):
        if not isinstance(j, dict):
            return
        for k in ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"):
            s = token_string(j.get(k))
            if s:
                names.append(s)
        for v in j.get("additional_special_tokens") or []:
            s = token_string(v)
            if s:
                names.append(s)

    tok = load("tokenizer.json")
    if isinstance(tok, dict):
        for t in tok.get("added_tokens") or []:
            if isinstance(t.get("id"), int):
                if isinstance(t.get("content"), str):
                    lookup[t["content"]] = t["id"]
                if t.get("special"):
                    ids.add(t["id"])
        vocab = (tok.get("model") or {}).get("vocab")
        if isinstance(vocab, dict):
            for s, i in vocab.items():
                lookup.setdefault(s, i)
        elif isinstance(vocab, list):
            for i, e in enumerate(vocab):
                if isinstance(e, list) and e and isinstance(e[0], str):
                    lookup.setdefault(e[0], i)
    tc = load("tokenizer_config.json")
    if isinstance(tc, dict):
        for k, t in (tc.get("added_tokens_decoder") or {}).items():
            if k.isdigit() and isinstance(t, dict):
                if isinstance(t.get("content"), str):
                    lookup.setdefault(t["content"], int(k))
                if t.get("special"):
                    ids.add(int(k))
        collect(tc)
    collect(load("special_tokens_map.json"))
    for s in names:
        if s in lookup:
            ids.add(lookup[s])
    return sorted(i for i in ids if 0 <= i < config.vocab_size)


def load_model(args, cls, device):
    """Returns (model, notes). The caller times this call: it is FMWORK SETUP."""
    kw = dict(args.subs["model"])
    random_weights = bool(kw.pop("random_weights", False))
    notes = []
    if "torch_dtype" in kw:
        if "dtype" in kw:
            die("--model:dtype and --model:torch_dtype are both given; give one of them")
        kw["dtype"] = kw.pop("torch_dtype")
    if "dtype" not in kw:
        kw["dtype"] = torch.float32
        notes.append("dtype: float32 (--model:dtype not given; transformers 5 would default to 'auto')")
    elif isinstance(kw["dtype"], str) and kw["dtype"] != "auto":
        kw["dtype"] = getattr(torch, kw["dtype"])
    if random_weights:
        config = transformers.AutoConfig.from_pretrained(args.model_path, local_files_only=True)
        dtype = kw.pop("dtype")
        if dtype == "auto":
            dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None) or torch.float32
            if isinstance(dtype, str):
                dtype = getattr(torch, dtype)
        torch.manual_seed(0)
        if hasattr(cls, "from_config"):
            model = cls.from_config(config, dtype=dtype, **kw)
        else:
            model = cls._from_config(config, dtype=dtype, **kw)
        notes.append("weights: random (--model:random_weights@ True: "
                     f"{cls.__name__}.from_config under torch.manual_seed(0)); "
                     "FMWORK SETUP is the build time, not a load time")
    else:
        model = cls.from_pretrained(args.model_path, local_files_only=True, **kw)
        notes.append(f"weights: {cls.__name__}.from_pretrained({args.model_path!r}, local_files_only=True, "
                     + ", ".join(f"{k}={v!r}" for k, v in kw.items()) + ")")
    model.eval()
    model.to(device)
    if args.compile:
        model = torch.compile(model, **args.subs["compile"])
        notes.append(f"compile: torch.compile(**{args.subs['compile']!r}) (compiles lazily: inside rep 1)")
    return model, notes


# ---- mixed lengths (--input_lengths) ----------------------------------------------------------------------

def length_batch(lengths, allowed, gen, pad_id, takes_tt, device):
    """One rep's padded batch: ids to the batch's longest length, the padding masked (built before t0)."""
    rows, width = len(lengths), max(lengths)
    picks = torch.randint(allowed.numel(), (rows, width), generator=gen, dtype=torch.int64)
    mask = (torch.arange(width).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)).to(torch.int64)
    ids = torch.where(mask.bool(), allowed[picks], torch.full_like(picks, pad_id))
    inputs = {"input_ids": ids.to(device), "attention_mask": mask.to(device)}
    if takes_tt:
        inputs["token_type_ids"] = torch.zeros((rows, width), dtype=torch.int64, device=device)
    return inputs


def token_fields(batches, dts, warmup):
    """The C++ driver's STAT token fields over the kept reps (dts: every rep's seconds, warm-up included)."""
    kept = batches[warmup:]
    real = sum(sum(b) for b in kept)
    computed = sum(max(b) * len(b) for b in kept)
    seconds = float(sum(dts[warmup:]))
    n = len(kept)
    return {"tokens_per_s": f"{real / seconds:.3f}", "real_tokens": f"{real / n:.1f}",
            "padded_tokens": f"{computed / n:.1f}", "padding": f"{1 - real / computed:.4f}",
            "padded_tokens_per_s": f"{computed / seconds:.3f}"}


# ---- main -------------------------------------------------------------------------------------------------

def main(argv):
    args = parse_args(argv)

    banner("ARGS")
    for line in arg_lines(argv):
        out(f"FMWORK ARG {line}")
    out()
    fixed = {k: getattr(args, k) for k in ("platform", "model_class", "model_root", "model_name", "compile",
                                           "eval", "input_sizes", "batch_sizes", "reps")}
    fixed["model_path"] = args.model_path
    doc = {k: repr_tree(v) for k, v in sorted(fixed.items())}
    doc["subs"] = {k: repr_tree(args.subs[k]) for k in SUB_SETS}
    out(json.dumps(doc, indent=4, sort_keys=True))

    banner("RUNTIME")
    torch.set_grad_enabled(False)
    out("autograd: off by default (upstream leaves it on; --torch.call:set_grad_enabled@ True turns it on)")
    for name, value in args.subs["torch.call"].items():
        fn = functools.reduce(lambda o, part: getattr(o, part, None), name.split("."), torch)  # backends.cuda...
        if not callable(fn):
            die(f"--torch.call:{name}: torch has no function {name}")
        fn(value)
        out(f"torch.call {name}({value!r})")
    for path, value in args.subs["torch.set"].items():
        obj = torch
        parts = path.split(".")
        for p in parts[:-1]:
            obj = getattr(obj, p)
        setattr(obj, parts[-1], value)
        out(f"torch.set {path} = {value!r}")
    if args.platform == "cpu":
        device = torch.device("cpu")
    elif args.platform.startswith("cuda"):
        device = torch.device(args.platform)
    else:
        die(f"--platform {args.platform!r}: this reference driver runs cpu or cuda[:N]")
    sync = torch.cuda.synchronize if device.type == "cuda" else None
    grad = "on" if torch.is_grad_enabled() else "off"
    out(f"platform: {args.platform}; python {_platform.python_version()}, torch {torch.__version__}, "
        f"transformers {transformers.__version__}; threads: {torch.get_num_threads()} intra-op, "
        f"{torch.get_num_interop_threads()} inter-op; autograd {grad}")
    out(f"math: {torch.backends.cpu.get_cpu_capability()} capability, "
        f"mkldnn {torch.backends.mkldnn.is_available()}, openmp {torch.backends.openmp.is_available()}")

    banner("MODEL")
    cls = getattr(transformers, args.model_class, None)  # resolved (its module imported) before the clock starts
    if cls is None:
        die(f"transformers has no class {args.model_class!r}")
    t0 = time.time_ns()
    model, notes = load_model(args, cls, device)
    if sync:
        sync()
    setup_s = (time.time_ns() - t0) / 1e9
    base = getattr(model, "_orig_mod", model)
    config = base.config
    param = next(base.parameters())
    dtype = str(param.dtype).replace("torch.", "")
    nparams = sum(p.numel() for p in base.parameters())
    attn = getattr(config, "_attn_implementation", None)
    out(f"{type(base).__name__} (--model_class {args.model_class}) from {args.model_path}")
    out(f"  config: model_type={config.model_type} layers={config.num_hidden_layers} hidden={config.hidden_size} "
        f"heads={config.num_attention_heads} intermediate={config.intermediate_size} vocab={config.vocab_size} "
        f"max_positions={config.max_position_embeddings}")
    for n in notes:
        out(f"  {n}")
    out(f"  loaded: dtype {dtype}; device: {param.device}; attention: {attn}; training mode: {base.training}")
    out(f"  parameters: {nparams:,}")
    specials = special_ids(args.model_path, config)
    out(f"  input tokens: uniform over {config.vocab_size - len(specials)} ids (vocab {config.vocab_size} minus "
        f"special ids {specials}), seed {args.seed}")
    takes_tt = "token_type_ids" in inspect.signature(base.forward).parameters
    out()
    out(f"FMWORK SETUP {setup_s:.6f}")
    out(fmwork_log.line("META", {
        "driver": "bench/upstream_driver.py", "engine": "transformers", "transformers": transformers.__version__,
        "torch": torch.__version__, "python": _platform.python_version(), "platform": args.platform,
        "threads": torch.get_num_threads(), "interop_threads": torch.get_num_interop_threads(), "dtype": dtype,
        "attention": attn, "parameters": nparams,
        "weights": "random" if args.subs["model"].get("random_weights") else "file", "seed": args.seed,
        "grad": grad, "eval": "true", "compile": str(args.compile).lower(),
        **({"batching": "padded", "lengths": args.input_lengths} if args.input_lengths else {})}))

    allowed = torch.tensor([i for i in range(config.vocab_size) if i not in set(specials)], dtype=torch.int64)
    gen = torch.Generator().manual_seed(args.seed)
    pad_id = config.pad_token_id if isinstance(getattr(config, "pad_token_id", None), int) else 0
    warmup = max(int(0.2 * args.reps), 1)
    failed = False
    for batch in args.batch_sizes:
        for inp in args.input_sizes:
            banner(f"RUN {inp} / {batch}")
            try:
                batches = None
                if args.input_lengths:  # the C++ driver's batches of this combination, in its rep order
                    batches = rep_lengths.padded_batches(args.input_lengths, args.seed, batch, args.reps)
                else:
                    picks = torch.randint(allowed.numel(), (batch, inp), generator=gen, dtype=torch.int64)
                    inputs = {"input_ids": allowed[picks].to(device),
                              "attention_mask": torch.ones((batch, inp), dtype=torch.int64, device=device)}
                    if takes_tt:
                        inputs["token_type_ids"] = torch.zeros((batch, inp), dtype=torch.int64, device=device)
                t0s, t1s = [], []
                for rep in range(1, args.reps + 1):
                    if batches:
                        inputs = length_batch(batches[rep - 1], allowed, gen, pad_id, takes_tt, device)
                        if sync:
                            sync()
                    t0 = time.time_ns()
                    model(**inputs)
                    if sync:
                        sync()
                    t1 = time.time_ns()
                    t0s.append(t0)
                    t1s.append(t1)
                    out(f"FMWORK REP {rep} {args.reps} {fmt_ts(t0)} {fmt_ts(t1)} {fmt_ts(t1 - t0)}")
                dts = np.array([(b - a) / 1e9 for a, b in zip(t0s, t1s)])[warmup:]
                lat = float(np.median(dts))
                out()
                out(f"FMWORK RES {fmt_ts(t0s[0])} {fmt_ts(t1s[-1])} {args.model_name} {args.model_class} "
                    f"{inp} {batch} {lat * 1000:.3f} {batch / lat:.1f}")
                ms = dts * 1000
                out(fmwork_log.line("STAT", {
                    "input": inp, "batch": batch, "reps": args.reps, "dropped": warmup,
                    "mean_ms": f"{ms.mean():.6f}", "stddev_ms": f"{ms.std():.6f}", "min_ms": f"{ms.min():.6f}",
                    "p50_ms": f"{np.percentile(ms, 50):.6f}", "p90_ms": f"{np.percentile(ms, 90):.6f}",
                    "p99_ms": f"{np.percentile(ms, 99):.6f}", "max_ms": f"{ms.max():.6f}",
                    **(token_fields(batches, [(b - a) / 1e9 for a, b in zip(t0s, t1s)], warmup) if batches else {})}))
            except Exception as e:  # a failing combination is reported and the sweep goes on
                failed = True
                msg = " ".join(f"{type(e).__name__}: {e}".split())
                out()
                out(fmwork_log.line("FAIL", {"input": inp, "batch": batch, "error": msg}))
    out()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB
    out(f"FMWORK PYMEM peak_rss_bytes={peak}")
    out()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
