#!/usr/bin/env python3
"""Reference outputs of the real Hugging Face `transformers` library for the native encoder's tests.

For each fixture below this script builds a small random model of a supported class, saves it with
save_pretrained (safetensors), runs it on fixed inputs (one row padded) and writes, under
tests/data/hf/<name>/:

    config.json, model.safetensors   the model, as save_pretrained wrote it
    io.safetensors                   input_ids, attention_mask, token_type_ids (int64), last_hidden_state,
                                     pooler_output (float32; absent when the model has no pooler)
    fixture.json                     model_class, add_pooling_layer, attn_implementation, versions, seed

tests/hf_encoder_test.cpp (HfEncoderFixtures.MatchTransformers) loads every folder and requires a max abs
difference <= 1e-4 in float32; without the folders it skips, naming them. Each fixture is ~60 KB.

Needs torch, transformers (>= 4.36 for attn_implementation) and safetensors; no network (models are built
from configs, not downloaded). Usage: python3 scripts/make_hf_fixtures.py [--out tests/data/hf] [--only NAME ...]
"""

import argparse
import json
import os
import sys

import torch

try:
    import transformers
    from safetensors.torch import save_file
    from transformers import (BertConfig, BertModel, DistilBertConfig, DistilBertModel, RobertaConfig, RobertaModel,
                              XLMRobertaConfig, XLMRobertaModel)
except ImportError as e:  # pragma: no cover
    sys.exit(f"make_hf_fixtures.py needs transformers and safetensors ({e}); pip install transformers safetensors")

TINY = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=37, vocab_size=99,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)

# name -> (model class, config, add_pooling_layer, attn_implementation)
FIXTURES = {
    "bert": (BertModel, lambda: BertConfig(**TINY, max_position_embeddings=40, type_vocab_size=2, pad_token_id=0,
                                           hidden_act="gelu", layer_norm_eps=1e-12), True, "eager"),
    "bert_gelu_new_nopool": (BertModel, lambda: BertConfig(**TINY, max_position_embeddings=40, type_vocab_size=2,
                                                           pad_token_id=0, hidden_act="gelu_new",
                                                           layer_norm_eps=1e-12), False, "eager"),
    "roberta": (RobertaModel, lambda: RobertaConfig(**TINY, max_position_embeddings=42, type_vocab_size=1,
                                                    pad_token_id=1, bos_token_id=0, eos_token_id=2,
                                                    hidden_act="gelu", layer_norm_eps=1e-5), True, "eager"),
    "roberta_sdpa": (RobertaModel, lambda: RobertaConfig(**TINY, max_position_embeddings=42, type_vocab_size=1,
                                                         pad_token_id=1, bos_token_id=0, eos_token_id=2,
                                                         hidden_act="relu", layer_norm_eps=1e-12), True, "sdpa"),
    "xlm_roberta": (XLMRobertaModel, lambda: XLMRobertaConfig(**TINY, max_position_embeddings=42, type_vocab_size=1,
                                                              pad_token_id=1, bos_token_id=0, eos_token_id=2,
                                                              hidden_act="gelu", layer_norm_eps=1e-5), True, "eager"),
    "distilbert": (DistilBertModel, lambda: DistilBertConfig(vocab_size=99, dim=32, n_layers=2, n_heads=4,
                                                             hidden_dim=37, max_position_embeddings=40, dropout=0.0,
                                                             attention_dropout=0.0, activation="gelu",
                                                             pad_token_id=0), None, "eager"),
    "distilbert_sinusoidal": (DistilBertModel, lambda: DistilBertConfig(vocab_size=99, dim=32, n_layers=2, n_heads=4,
                                                                        hidden_dim=37, max_position_embeddings=40,
                                                                        dropout=0.0, attention_dropout=0.0,
                                                                        activation="gelu", pad_token_id=0,
                                                                        sinusoidal_pos_embds=True), None, "eager"),
}

SEED = 1234


def build(cls, config, pooling, impl):
    kwargs = {} if pooling is None else {"add_pooling_layer": pooling}
    try:
        model = cls._from_config(config, attn_implementation=impl, **kwargs)
    except TypeError:  # older transformers: no attn_implementation argument
        config._attn_implementation = impl
        model = cls(config, **kwargs)
    return model


def perturb(model, keep_positions):
    """Non-trivial values everywhere: HF's init leaves biases 0 and LayerNorm 1/0, which would hide bugs."""
    gen = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if keep_positions and "position_embeddings" in name:
                continue  # the sinusoidal table, as DistilBERT made it
            noise = torch.randn(p.shape, generator=gen, dtype=torch.float32) * 0.3
            if "LayerNorm.weight" in name or "layer_norm.weight" in name:
                p.copy_(1.0 + 0.2 * noise / 0.3)
            else:
                p.copy_(noise)


def inputs(config, with_types):
    pad = config.pad_token_id
    gen = torch.Generator().manual_seed(SEED + 2)
    ids = torch.randint(3, config.vocab_size, (2, 9), generator=gen)
    mask = torch.ones(2, 9, dtype=torch.long)
    ids[1, 6:] = pad  # the second row is padded after 6 tokens
    mask[1, 6:] = 0
    types = torch.zeros(2, 9, dtype=torch.long)
    if with_types:
        types[0, 4:] = 1
    return ids, mask, types


def make(name, out_root):
    cls, make_config, pooling, impl = FIXTURES[name]
    torch.manual_seed(SEED)
    config = make_config()
    model = build(cls, config, pooling, impl).eval()
    perturb(model, keep_positions=getattr(config, "sinusoidal_pos_embds", False))
    out = os.path.join(out_root, name)
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    is_distil = cls is DistilBertModel
    ids, mask, types = inputs(config, with_types=getattr(config, "type_vocab_size", 1) > 1)
    with torch.no_grad():
        kwargs = dict(input_ids=ids, attention_mask=mask)
        if not is_distil:
            kwargs["token_type_ids"] = types
        result = model(**kwargs)
    tensors = {"input_ids": ids.contiguous(), "attention_mask": mask.contiguous(), "token_type_ids": types.contiguous(),
               "last_hidden_state": result.last_hidden_state.float().contiguous()}
    pooled = getattr(result, "pooler_output", None)
    if pooled is not None:
        tensors["pooler_output"] = pooled.float().contiguous()
    save_file(tensors, os.path.join(out, "io.safetensors"))
    meta = {"model_class": cls.__name__, "attn_implementation": impl, "seed": SEED,
            "transformers_version": transformers.__version__, "torch_version": torch.__version__}
    if pooling is not None:
        meta["add_pooling_layer"] = pooling
    with open(os.path.join(out, "fixture.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(out, n)) for n in os.listdir(out))
    print(f"{name}: {cls.__name__} ({impl}{', no pooler' if pooled is None else ''}) -> {out} ({size / 1e3:.0f} KB)")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "tests", "data", "hf"))
    parser.add_argument("--only", nargs="*", choices=sorted(FIXTURES), help="fixtures to make (default: all)")
    args = parser.parse_args()
    torch.set_grad_enabled(False)
    print(f"transformers {transformers.__version__}, torch {torch.__version__}")
    for name in args.only or FIXTURES:
        make(name, os.path.normpath(args.out))


if __name__ == "__main__":
    main()
