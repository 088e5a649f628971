#!/usr/bin/env python3
"""Convert a model to OpenVINO IR (model.xml + model.bin) for the C++ driver's `--compile:backend openvino`.

The driver runs this script once per model (the IR is kept in its artifact cache), then reads the IR with
OpenVINO's C++ runtime: no Python in the timed loop. OpenVINO's own converter (openvino.convert_model) does
the work, from the model the driver loaded:
- a Hugging Face folder: transformers' own class (the same loader as tools/aoti_export.py), in float32; the
  driver sets the precision it runs in (INFERENCE_PRECISION_HINT) from --model:dtype when it compiles the IR;
- a TorchScript file: the module as saved.

    ov_export.py --model DIR|FILE --out FILE.xml --max-batch B --max-input L
                 (folders:) [--model-class CLASS] [--attn-implementation eager|sdpa] [--no-pooling-layer]
                 (TorchScript files:) --inputs input_ids,attention_mask[,token_type_ids] --vocab-size N

The IR takes the inputs the class takes (a folder: input_ids, attention_mask and token_type_ids where the
config has token types; a TorchScript file: those in --inputs, in its forward's order), int64 [batch, input] with batch 1..B and input 1..L, and gives
last_hidden_state (and pooler_output where the model has a pooler; a TorchScript module's outputs are
output_0, output_1, ...). Weights are kept in float32 (no compression to float16).

The IR is written as FILE.tmp-<pid>.xml/.bin and renamed into place once complete. stdout carries one JSON
line at the end (everything else goes to stderr):
  {"xml": OUT, "seconds": S, "inputs": [...], "outputs": [...], "openvino": VERSION, "torch": VERSION}
Errors: one line `error: ...` on stderr; exit 2 for a bad option value (checked before anything is loaded),
1 for a failure while loading or converting, or when openvino / torch / transformers is missing.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aoti_export as common  # noqa: E402  (the folder loader, the wrapper, the error conventions)

UsageError, Failure = common.UsageError, common.Failure
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def parse_args(argv):
    p = common.Parser(prog="ov_export.py", description="Convert a model to OpenVINO IR for the C++ driver.")
    p.add_argument("--model", required=True, help="Hugging Face folder or TorchScript file")
    p.add_argument("--out", required=True, help="IR to write, ending in .xml (the .bin goes beside it)")
    p.add_argument("--inputs", help="TorchScript files: comma-separated input names the driver feeds, in order")
    p.add_argument("--max-batch", required=True, type=common.positive_int)
    p.add_argument("--max-input", required=True, type=common.positive_int)
    p.add_argument("--model-class", default="AutoModel")
    p.add_argument("--attn-implementation", choices=("eager", "sdpa"))
    p.add_argument("--no-pooling-layer", action="store_true")
    p.add_argument("--vocab-size", type=common.positive_int, help="TorchScript files: the ids' range")
    args = p.parse_args(argv)
    if not args.out.endswith(".xml"):
        raise UsageError(f"--out: the IR's name must end in .xml, got {args.out!r}")
    if not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        raise UsageError(f"--out: folder {os.path.dirname(os.path.abspath(args.out))} does not exist")
    args.folder = os.path.isdir(args.model)
    if args.folder:
        if not common.MODEL_CLASS.fullmatch(args.model_class):
            raise UsageError(f"--model-class: expected a transformers class name such as BertModel, got {args.model_class!r}")
        args.config = common.read_config(args.model)
        limit = common.usable_length(args.config)
        if limit is not None:
            args.max_input = min(args.max_input, limit)
    elif not os.path.isfile(args.model):
        raise UsageError(f"--model: no folder or file {args.model}")
    elif args.vocab_size is None or args.inputs is None:
        raise UsageError("a TorchScript file needs --inputs and --vocab-size (its example inputs)")
    else:
        args.inputs = args.inputs.split(",")
        if any(name not in INPUTS for name in args.inputs) or "input_ids" not in args.inputs:
            raise UsageError(f"--inputs: expected input_ids and any of {', '.join(INPUTS[1:])}, "
                             f"got {','.join(args.inputs)!r}")
    return args


def import_libraries():
    try:
        import openvino  # noqa: F401
        import torch  # noqa: F401
    except Exception as e:
        raise Failure(f"the openvino backend needs Python with openvino and torch: pip install openvino "
                      f"({type(e).__name__}: {e})".replace("\n", " "))


def traced_module(args):
    """The module to convert, its input names in the order it takes them, and its output names."""
    import torch

    if not args.folder:
        try:
            module = torch.jit.load(args.model, map_location="cpu").eval()
        except Exception as e:
            raise Failure(f"--model: cannot load {args.model} as TorchScript: {type(e).__name__}: {e}")
        return module, args.inputs, None, args.vocab_size
    args.device, args.dtype = "cpu", "float32"
    model = common.load_model(args)
    # A decoder family (Qwen3) builds a KV cache by default, whose concatenations OpenVINO's converter cannot
    # trace from an empty start; an encoder run keeps none.
    if getattr(model.config, "use_cache", False):
        model.config.use_cache = False
    wrapper, inputs, outputs = common.make_wrapper(model)
    return wrapper, inputs, outputs, int(model.config.vocab_size)


def convert(args):
    import openvino as ov
    import torch

    module, inputs, outputs, vocab = traced_module(args)
    gen = torch.Generator().manual_seed(0)
    example = {"input_ids": torch.randint(0, vocab, (2, 8), generator=gen, dtype=torch.long),
               "attention_mask": torch.ones(2, 8, dtype=torch.long),
               "token_type_ids": torch.zeros(2, 8, dtype=torch.long)}
    shape = ov.PartialShape([ov.Dimension(1, args.max_batch), ov.Dimension(1, args.max_input)])
    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            model = ov.convert_model(module, example_input=tuple(example[n] for n in inputs),
                                     input=[(n, shape, ov.Type.i64) for n in inputs])
    except Exception as e:
        raise Failure(f"openvino.convert_model failed: {type(e).__name__}: {e}")
    names = outputs or [f"output_{i}" for i in range(len(model.outputs))]
    if len(names) != len(model.outputs):
        raise Failure(f"the converted model has {len(model.outputs)} outputs, expected {len(names)} ({', '.join(names)})")
    for port, name in zip(model.outputs, names):
        port.get_tensor().set_names({name})
    for port, name in zip(model.inputs, inputs):
        port.get_tensor().set_names({name})
    tmp = f"{args.out[:-4]}.tmp-{os.getpid()}.xml"
    try:
        ov.save_model(model, tmp, compress_to_fp16=False)
        os.replace(tmp[:-4] + ".bin", args.out[:-4] + ".bin")
        os.replace(tmp, args.out)
    except Exception as e:
        raise Failure(f"cannot write the IR {args.out}: {type(e).__name__}: {e}")
    finally:
        for leftover in (tmp, tmp[:-4] + ".bin"):
            if os.path.exists(leftover):
                os.remove(leftover)
    return {"xml": args.out, "seconds": round(time.perf_counter() - t0, 3), "inputs": inputs, "outputs": names,
            "openvino": ov.get_version(), "torch": torch.__version__}


def main(argv):
    common.end_group_with_driver()
    args = parse_args(argv)
    saved = common.stdout_to_stderr()
    try:
        import_libraries()
        if args.folder:
            common.quiet_libraries()
        result = convert(args)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    sys.exit(common.run(sys.argv[1:], main))
