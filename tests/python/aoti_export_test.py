#!/usr/bin/env python3
"""Tests of tools/aoti_export.py: the AOTInductor packages it writes match transformers' eager outputs.

Run: .venv/bin/python tests/python/aoti_export_test.py

A tiny random BERT folder (hidden 32, 2 layers, 4 heads, vocab 100, 64 positions) is written with
save_pretrained into a temporary folder and exported twice, in parallel (the only two compiles): --dynamic
(batch 1..4, input 1..32) and static (2, 8), with --threads 1. The packages are loaded with
torch._inductor.aoti_load_package and compared with the eager model; the error paths are checked for a
one-line `error: ...` and their exit codes. Nothing is downloaded (HF_HUB_OFFLINE=1).
"""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import torch
import transformers

transformers.utils.logging.disable_progress_bar()

EXPORTER = Path(__file__).resolve().parents[2] / "tools" / "aoti_export.py"
ATOL = 1e-4
METADATA_KEYS = ["fmwork.inputs", "fmwork.outputs", "fmwork.dtype", "fmwork.device", "fmwork.threads",
                 "fmwork.batch_min", "fmwork.batch_max", "fmwork.input_min", "fmwork.input_max",
                 "fmwork.vec_isa", "fmwork.torch", "fmwork.transformers"]
RESULT_KEYS = ["package", "seconds", "export_seconds", "compile_seconds", "vec_isa", "inputs", "outputs",
               "batch", "input", "torch"]


def exporter_command(*args):
    return [sys.executable, str(EXPORTER), *args]


def run_exporter(*args, env=None):
    return subprocess.run(exporter_command(*args), capture_output=True, text=True, env=env, timeout=600)


def tiny_bert(folder):
    config = transformers.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, vocab_size=100, max_position_embeddings=64)
    torch.manual_seed(0)
    transformers.AutoModel.from_config(config).save_pretrained(folder)


def feed(batch, length, seed):
    gen = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 100, (batch, length), generator=gen)
    mask = torch.ones(batch, length, dtype=torch.long)
    if length > 2:
        mask[0, length // 2:] = 0  # one padded row: the mask must really be applied
    types = torch.zeros(batch, length, dtype=torch.long)
    types[:, length // 2:] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


class AotiExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="aoti_export_test_"))
        cls.folder = cls.tmp / "tiny-bert"
        tiny_bert(cls.folder)
        cls.eager = transformers.AutoModel.from_pretrained(cls.folder).eval()
        common = ["--model", str(cls.folder), "--device", "cpu", "--dtype", "float32", "--threads", "1"]
        cls.dynamic_pt2, cls.static_pt2 = cls.tmp / "dynamic.pt2", cls.tmp / "static.pt2"
        procs = [
            subprocess.Popen(exporter_command(*common, "--out", str(cls.dynamic_pt2), "--dynamic",
                                              "--max-batch", "4", "--max-input", "32"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            subprocess.Popen(exporter_command(*common, "--out", str(cls.static_pt2), "--batch", "2",
                                              "--input", "8"),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
        ]
        cls.dynamic_run, cls.static_run = [(p.wait(timeout=800), *p.communicate()) for p in procs]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def result(self, run):
        rc, out, err = run
        self.assertEqual(rc, 0, err[-3000:])
        lines = out.splitlines()
        self.assertEqual(len(lines), 1, f"stdout must be one JSON line, got: {out!r}")
        return json.loads(lines[0])

    def assert_matches_eager(self, package, shapes):
        model = torch._inductor.aoti_load_package(str(package))
        for i, (batch, length) in enumerate(shapes):
            inputs = feed(batch, length, seed=i)
            got = model(**inputs)
            with torch.no_grad():
                want = self.eager(**inputs)
            self.assertEqual(len(got), 2)
            for name, tensor in zip(["last_hidden_state", "pooler_output"], got):
                diff = (tensor - getattr(want, name)).abs().max().item()
                self.assertLess(diff, ATOL, f"{name} at batch {batch}, input {length}: max abs diff {diff}")
        return model

    def test_dynamic_result_line(self):
        result = self.result(self.dynamic_run)
        for key in RESULT_KEYS:
            self.assertIn(key, result)
        self.assertEqual(result["package"], str(self.dynamic_pt2))
        self.assertEqual(result["inputs"], ["input_ids", "attention_mask", "token_type_ids"])
        self.assertEqual(result["outputs"], ["last_hidden_state", "pooler_output"])
        self.assertEqual(result["batch"], [1, 4])
        self.assertEqual(result["input"], [1, 32])
        self.assertEqual(result["torch"], torch.__version__)
        self.assertTrue(result["vec_isa"])
        self.assertAlmostEqual(result["seconds"], result["export_seconds"] + result["compile_seconds"], 2)
        leftovers = [p.name for p in self.tmp.iterdir() if ".tmp-" in p.name]
        self.assertEqual(leftovers, [])

    def test_dynamic_matches_eager_inside_the_range(self):
        self.result(self.dynamic_run)
        model = self.assert_matches_eager(self.dynamic_pt2, [(1, 1), (3, 17), (4, 32)])
        meta = model.get_metadata()
        for key in METADATA_KEYS:
            self.assertIn(key, meta)
        self.assertEqual(meta["fmwork.inputs"], "input_ids,attention_mask,token_type_ids")
        self.assertEqual(meta["fmwork.outputs"], "last_hidden_state,pooler_output")
        self.assertEqual([meta[f"fmwork.{k}"] for k in ("batch_min", "batch_max", "input_min", "input_max")],
                         ["1", "4", "1", "32"])
        self.assertEqual((meta["fmwork.dtype"], meta["fmwork.device"], meta["fmwork.threads"]),
                         ("float32", "cpu", "1"))
        self.assertEqual(meta["fmwork.vec_isa"], self.result(self.dynamic_run)["vec_isa"])

    def test_static_matches_eager(self):
        result = self.result(self.static_run)
        self.assertEqual((result["batch"], result["input"]), ([2, 2], [8, 8]))
        meta = self.assert_matches_eager(self.static_pt2, [(2, 8)]).get_metadata()
        self.assertEqual([meta[f"fmwork.{k}"] for k in ("batch_min", "batch_max", "input_min", "input_max")],
                         ["2", "2", "8", "8"])

    def assert_error(self, proc, code, *fragments):
        self.assertEqual(proc.returncode, code, proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("error: "), lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    def args(self, **changes):
        values = {"--model": str(self.folder), "--out": str(self.tmp / "never.pt2"), "--device": "cpu",
                  "--dtype": "float32", "--threads": "1", "--batch": "2", "--input": "8"}
        values.update(changes)
        return [x for key, value in values.items() for x in (key, value)]

    def test_bad_dtype_is_a_usage_error(self):
        self.assert_error(run_exporter(*self.args(**{"--dtype": "float64"})), 2, "--dtype", "float64")

    def test_bad_device_and_ranges_are_usage_errors(self):
        self.assert_error(run_exporter(*self.args(**{"--device": "gpu"})), 2, "--device")
        self.assert_error(run_exporter(*self.args(**{"--input": "65"})), 2, "65", "64 positions")
        self.assert_error(run_exporter(*self.args(**{"--batch": "0"})), 2, "--batch")
        self.assert_error(run_exporter(*self.args(), "--dynamic"), 2, "--dynamic")
        # 0 threads is a GPU package's (nothing baked); a CPU package bakes its count
        self.assert_error(run_exporter(*self.args(**{"--threads": "0"})), 2, "--threads", "1 or more")
        self.assert_error(run_exporter(*self.args(**{"--threads": "-1"})), 2, "--threads", "whole number")

    def test_unknown_inductor_option_names_close_ones(self):
        proc = run_exporter(*self.args(**{"--options": '{"max_autotun": true}'}))
        self.assert_error(proc, 2, "--compile:options:max_autotun: not an Inductor option", "max_autotune")
        self.assert_error(run_exporter(*self.args(**{"--options": "[1]"})), 2, "--options")
        proc = run_exporter(*self.args(**{"--options": '{"aot_inductor.metadata": {}}'}))
        self.assert_error(proc, 2, "aot_inductor.metadata: set by the exporter itself")

    def test_scalar_kernels_are_reported(self):
        # ATEN_CPU_CAPABILITY=default makes Inductor pick no vector ISA, as a failed probe does.
        sys.path.insert(0, str(EXPORTER.parent))
        import aoti_export

        saved = os.environ.get("ATEN_CPU_CAPABILITY")
        os.environ["ATEN_CPU_CAPABILITY"] = "default"
        try:
            self.assertEqual(aoti_export.picked_vec_isa("cpu", {}), "scalar")
        finally:
            if saved is None:
                del os.environ["ATEN_CPU_CAPABILITY"]
            else:
                os.environ["ATEN_CPU_CAPABILITY"] = saved
        self.assertNotEqual(aoti_export.picked_vec_isa("cpu", {}), "scalar")
        self.assertEqual(aoti_export.picked_vec_isa("cuda", {}), "n/a")

    def test_missing_folder_is_a_usage_error(self):
        missing = str(self.tmp / "no-such-model")
        self.assert_error(run_exporter(*self.args(**{"--model": missing})), 2, missing)

    def test_broken_weights_fail_with_exit_1(self):
        broken = self.tmp / "broken"
        broken.mkdir(exist_ok=True)
        shutil.copy(self.folder / "config.json", broken / "config.json")
        (broken / "model.safetensors").write_bytes(b"not a safetensors file")
        self.assert_error(run_exporter(*self.args(**{"--model": str(broken)})), 1, "cannot load")

    def test_missing_torch_fails_with_exit_1(self):
        fake = self.tmp / "fake-site"
        (fake / "torch").mkdir(parents=True, exist_ok=True)
        (fake / "torch" / "__init__.py").write_text("raise ImportError('no torch in this Python')\n")
        env = dict(os.environ, PYTHONPATH=str(fake))
        proc = run_exporter(*self.args(), "--libtorch-version", "2.13.0", env=env)
        self.assert_error(proc, 1, "the inductor backend needs Python with torch and transformers: "
                                   "pip install torch==2.13.0 transformers")


if __name__ == "__main__":
    unittest.main(verbosity=2)
