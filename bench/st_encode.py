#!/usr/bin/env python3
"""sentence-transformers' sorted batching on the C++ driver's requests: SentenceTransformer.encode, timed.

The requests: the batch x reps lengths that the C++ driver draws for one combination under
`--seed S --input_lengths SPEC` (bench/rep_lengths.py mirrors its sampler draw for draw): the same requests
as the driver's padded reps, and its sorted window (whose default is those batch x reps draws). encode()
sorts them by length, longest first, cuts batches of --batch and pads each to its longest, as the driver's
--batching sorted does (the driver then runs its batches in a seeded random order and drops one as warm-up;
encode runs them longest first, and every batch is timed).

What runs, and what is timed: the real SentenceTransformer.encode() (its sort, batching, device transfer,
forward through the Transformer module and the pooling (and MiniLM's Normalize), the embeddings to the CPU
and back in request order, numpy at the end), under its own torch.inference_mode(). Only tokenization is
left out, as the driver leaves out building its inputs: each request is passed as a text of as many
characters as it has tokens ("x" * length, so that encode's sort by character count is a sort by token
count), and the model's preprocess() is replaced by a lookup of features built before the clock starts
(token ids uniform over the vocabulary minus the special ids, as both drivers draw them; attention_mask
1 on the request's tokens, 0 on the padding; token_type_ids 0 where the model takes them). The clock runs
around encode() itself; a batch's time is from its preprocess() call to the next one's (or encode's end).
A first encode() of the first --batch requests warms up, untimed.

Models: --model_name FOLDER, a sentence-transformers folder (all-MiniLM-L6-v2: modules.json with mean
pooling and Normalize), loaded with SentenceTransformer(FOLDER, model_kwargs={attn_implementation, dtype
float32}); or with --random_class CLASS (granite configs, no weights): transformers' CLASS._from_config
(config) under torch.manual_seed(0), saved to a temporary folder and wrapped as
models.Transformer(that folder) + Pooling(hidden, "cls") (granite embeddings pool the CLS token); its
tokenizer is --tokenizer's (never called: preprocess is replaced).

Prints FMWORK META and one FMWORK STAT line with the C++ driver's token fields (tokens_per_s: real tokens
over encode's time; real_tokens and padded_tokens: means per batch; p50_ms: the median batch), so that
bench/lengths_bench.py reads it as it reads the drivers'.

sentence-transformers is not in the project's virtual environment; the bench installs it beside it, into a
folder of its own, without letting pip resolve torch (--no-deps, every version pinned):
    .venv/bin/pip install --no-deps --target .venv-st sentence-transformers==6.2.0 scipy==1.17.1 \\
        scikit-learn==1.9.1 joblib==1.6.0 threadpoolctl==3.8.0 cloudpickle==3.1.3 narwhals==2.29.0
(scipy, scikit-learn and its own dependencies because sentence_transformers imports them at import time;
torch, transformers, tokenizers, huggingface_hub, numpy, tqdm and typing_extensions are the venv's own) and
runs with PYTHONPATH=.venv-st (bench/lengths_bench.py's --st_path, that folder by default).

Usage: PYTHONPATH=.venv-st .venv/bin/python bench/st_encode.py --model_name FOLDER --threads 1 \\
           --batch 32 --reps 5 --seed 7 --input_lengths lognormal:64,512 [--random_class RobertaModel \\
           --tokenizer MINILM_FOLDER]
"""

import argparse
import inspect
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fmwork_log  # noqa: E402
import rep_lengths  # noqa: E402
from upstream_driver import special_ids  # noqa: E402  (the same "no special ids" rule as both drivers)


def build_model(args, workdir):
    import sentence_transformers as st
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    kwargs = {"attn_implementation": "sdpa", "dtype": torch.float32}
    if not args.random_class:
        return st.SentenceTransformer(args.model_name, device="cpu", local_files_only=True, model_kwargs=kwargs)
    config = transformers.AutoConfig.from_pretrained(args.model_name, local_files_only=True)
    torch.manual_seed(0)
    getattr(transformers, args.random_class)._from_config(config, dtype=torch.float32).save_pretrained(workdir)
    body = Transformer(workdir, tokenizer_name_or_path=args.tokenizer, model_kwargs=kwargs)
    pool = Pooling(config.hidden_size, pooling_mode="cls")
    return st.SentenceTransformer(modules=[body, pool], device="cpu")


def features_by_lengths(lengths, batch, config, folder, takes_tt, seed):
    """encode()'s batches, built ahead: sorted longest first and cut by `batch`, keyed by their lengths."""
    specials = set(special_ids(folder, config))
    allowed = torch.tensor([i for i in range(config.vocab_size) if i not in specials], dtype=torch.int64)
    gen = torch.Generator().manual_seed(seed)
    ordered = sorted(lengths, reverse=True)
    table = {}
    for start in range(0, len(ordered), batch):
        chunk = ordered[start:start + batch]
        width = chunk[0]
        picks = torch.randint(allowed.numel(), (len(chunk), width), generator=gen, dtype=torch.int64)
        mask = (torch.arange(width).unsqueeze(0) < torch.tensor(chunk).unsqueeze(1)).to(torch.int64)
        pad = config.pad_token_id if isinstance(getattr(config, "pad_token_id", None), int) else 0
        feats = {"input_ids": torch.where(mask.bool(), allowed[picks], torch.full_like(picks, pad)),
                 "attention_mask": mask, "modality": "text"}  # the keys the real preprocess() returns
        if takes_tt:
            feats["token_type_ids"] = torch.zeros_like(picks)
        table[tuple(chunk)] = feats
    return table


def timed_encode(model, texts, table, batch):
    """encode() with preprocess() replaced by the table's lookup; returns (seconds, per-batch seconds)."""
    marks = []

    def preprocess(inputs, prompt=None, **kwargs):
        marks.append(time.perf_counter())
        return dict(table[tuple(len(t) for t in inputs)])  # a copy: forward writes its outputs into it

    model.preprocess = preprocess
    t0 = time.perf_counter()
    model.encode(texts, batch_size=batch, show_progress_bar=False)
    t1 = time.perf_counter()
    marks.append(t1)
    return t1 - t0, [b - a for a, b in zip(marks, marks[1:])]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model_name", required=True)
    p.add_argument("--random_class", help="transformers class built with random weights (folders without them)")
    p.add_argument("--tokenizer", help="with --random_class: a folder whose tokenizer the module carries")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--input_lengths", default="lognormal:64,512")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    import sentence_transformers as st
    lengths = [n for b in rep_lengths.padded_batches(args.input_lengths, args.seed, args.batch, args.reps) for n in b]
    with tempfile.TemporaryDirectory() as workdir:
        model = build_model(args, workdir)
    hf = model[0].auto_model
    takes_tt = "token_type_ids" in inspect.signature(hf.forward).parameters
    table = features_by_lengths(lengths, args.batch, hf.config, args.model_name, takes_tt, args.seed)
    texts = ["x" * n for n in lengths]
    warm = ["x" * n for n in lengths[:args.batch]]
    warm_table = features_by_lengths(lengths[:args.batch], args.batch, hf.config, args.model_name, takes_tt, args.seed)
    timed_encode(model, warm, warm_table, args.batch)
    seconds, per_batch = timed_encode(model, texts, table, args.batch)
    real = sum(lengths)
    ordered = sorted(lengths, reverse=True)  # encode's batches (a table key may stand for several)
    computed = sum(ordered[i] * len(ordered[i:i + args.batch]) for i in range(0, len(ordered), args.batch))
    n = len(per_batch)
    print(fmwork_log.line("META", {
        "driver": "bench/st_encode.py", "engine": "sentence-transformers", "st": st.__version__,
        "transformers": transformers.__version__, "torch": torch.__version__, "threads": torch.get_num_threads(),
        "attention": hf.config._attn_implementation, "class": type(hf).__name__,
        "weights": "random" if args.random_class else "file", "flatten": model._can_flatten_inputs(),
        "modules": "+".join(type(m).__name__ for m in model), "requests": len(lengths), "batches": n}))
    ms = np.array(per_batch) * 1000
    print(fmwork_log.line("STAT", {
        "input": max(lengths), "batch": args.batch, "reps": n, "dropped": 0, "mean_ms": f"{ms.mean():.6f}",
        "p50_ms": f"{statistics.median(ms):.6f}", "min_ms": f"{ms.min():.6f}", "max_ms": f"{ms.max():.6f}",
        "tokens_per_s": f"{real / seconds:.3f}", "real_tokens": f"{real / n:.1f}",
        "padded_tokens": f"{computed / n:.1f}", "padding": f"{1 - real / computed:.4f}",
        "padded_tokens_per_s": f"{computed / seconds:.3f}"}), flush=True)


if __name__ == "__main__":
    main()
