#!/usr/bin/env python3
"""OpenVINO held against Hugging Face transformers, through the driver's --check_outputs (on the CPU).

The real all-MiniLM-L6-v2 and five native families' tiny configs (built as tests/python/transformers_check.py
builds them) through --compile --compile:backend openvino (the IR converted by tools/ov_export.py, run by
OpenVINO's C++ runtime), and MiniLM written as ONNX by torch.onnx.export, laid out as a sentence-transformers
repository keeps it (onnx/model.onnx, config.json one folder up), run as --model_name: float32 within 1e-5
of transformers; MiniLM in bfloat16 (OpenVINO's INFERENCE_PRECISION_HINT bf16) within bfloat16's bound.
Needs what transformers_check.py needs, plus openvino and onnx (scripts/install-deps.sh). A missing one is a
failure, never a skip. Ends with "N passed, M failed"; exit 1 on any failure.

Usage: openvino_check.py --driver build/driver [--work DIR]
"""

import argparse
import os
import shutil
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
import aoti_export  # noqa: E402  (make_wrapper: the exporters' tuple-returning wrapper)
from transformers_check import (AutoModel, built_case, minilm_case, minilm_folder, report, results,  # noqa: E402
                                run_driver, torch, write_references)


# OpenVINO (--compile:backend openvino, and ONNX / IR files as models): float32 within 1e-5 of transformers.
OPENVINO = ("--compile", "--compile:backend", "openvino")
OPENVINO_FAMILIES = ("bert", "roberta_sdpa", "distilbert", "modernbert", "qwen3")
OPENVINO_FP32_BOUND = 1e-5


def minilm_onnx_case(driver, work, sizes):
    """The real MiniLM written as ONNX by torch.onnx.export, laid out as a sentence-transformers repository
    keeps it (onnx/model.onnx, config.json one folder up), run as --model_name through OpenVINO."""
    folder = minilm_folder()
    if folder is None:
        return
    model = AutoModel.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()
    repo = os.path.join(work, "minilm-repo")
    os.makedirs(os.path.join(repo, "onnx"), exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith((".json", ".txt")):
            shutil.copy(os.path.join(folder, name), repo)
    wrapper, names, outputs = aoti_export.make_wrapper(model)  # the exporters' own wrapper: tuple outputs
    onnx_file = os.path.join(repo, "onnx", "model.onnx")
    example = tuple(torch.ones(2, 8, dtype=torch.long) for _ in names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(wrapper, example, onnx_file, input_names=names,
                          output_names=outputs, opset_version=17, dynamo=False,
                          dynamic_axes={n: {0: "batch", 1: "seq"} for n in names})
    ref_dir = os.path.join(work, "minilm-onnx-ref")
    write_references(model, model.config, ref_dir, sizes, padded=True, has_token_types=True)
    run_driver(driver, "all-MiniLM-L6-v2 as ONNX (torch.onnx.export) through OpenVINO", onnx_file, "BertModel",
               ref_dir, sizes, "float32", None, bound=OPENVINO_FP32_BOUND)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--driver", required=True)
    parser.add_argument("--work", help="scratch folder (default: a temporary one, removed after)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    try:
        import onnx  # noqa: F401
        import openvino  # noqa: F401
    except ImportError as e:
        report(False, f"openvino and onnx are importable ({e}; scripts/install-deps.sh installs them)")
    # oneDNN held below the CPU (scripts/test.sh's AVX2 pass) runs transformers' bfloat16 on reference kernels.
    half = not (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA"))
    with tempfile.TemporaryDirectory(prefix="fmwork-openvino-") as tmp:
        work = args.work or tmp
        os.environ["FMWORK_CACHE"] = os.path.join(tmp, "cache")  # never the user's cache
        sizes = [(i, b) for i in (16, 128) for b in (1, 2)]
        minilm_case(args.driver, work, "float32", "sdpa", sizes, extra=OPENVINO, bound=OPENVINO_FP32_BOUND)
        minilm_onnx_case(args.driver, work, sizes)
        if half:
            minilm_case(args.driver, work, "bfloat16", "sdpa", sizes, extra=OPENVINO)
        for name in OPENVINO_FAMILIES:
            built_case(args.driver, work, name, "float32", [(16, 1), (16, 2)], extra=OPENVINO,
                       bound=OPENVINO_FP32_BOUND)
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] or not results["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
