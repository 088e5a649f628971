#!/usr/bin/env python3
"""Tests of tools/check_references.py on small trees made in a temporary folder: a clean tree passes, and each
kind of stale reference, broken on purpose, is reported with its file and line."""
# check_references: not checked (the paths below are those of the made-up trees the tests write)

import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "check_references.py"

CLEAN = {
    "README.md": "# P\n\nThe encoders: [src/encoders/](src/encoders/), `src/encoders/bert.cpp`, "
                 "[the options](docs/options.md), `tests/<folder>/<module>_test.cpp`,\n"
                 "`src/apps/{driver,process}.cpp`, "
                 "`configs/models/NAME/config.json`, a build output `build/driver`, `$OUT/report.md`, "
                 "https://example.com/x/README.md, pytorch issue 196975.\n",
    "docs/options.md": "# Options\n\nBack to [the README](../README.md#p); `encoders/bert` and `bert.cpp`.\n",
    "src/encoders/bert.cpp": "// The forward pass (bert.hpp, include/fmwork/encoders/bert.hpp); <torch/torch.h>.\n"
                             "#include \"fmwork/encoders/gone.hpp\"\n"
                             "const char* kTraversal = \"../x\";  // refused: \"../x\"\n",
    "include/fmwork/encoders/bert.hpp": "#pragma once\n",
    "src/apps/driver.cpp": "int prepare_bench() { return 0; }  // prepare_bench() and Platform::name\n"
                           "struct Platform { int name; };\nint main() {}\n",
    "src/apps/process.cpp": "int main() {}\n",
    "tests/encoders/bert_test.cpp": "// Tests of src/encoders/bert.cpp.\n",
    "configs/models/minilm/config.json": "{}\n",
    "tools/check.py": "# A tool.\n",
    "tests/CMakeLists.txt": "add_test(NAME T COMMAND x ${CMAKE_CURRENT_SOURCE_DIR}/encoders/bert_test.cpp)\n",
}


class CheckReferencesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.files = dict(CLEAN)

    def tearDown(self):
        self.tmp.cleanup()

    def check(self):
        for rel, text in self.files.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text)
        run = subprocess.run([sys.executable, str(TOOL), "--root", str(self.root)], capture_output=True, text=True)
        return run.returncode, run.stdout

    def assertProblem(self, rel, extra, expected):
        self.files[rel] = self.files.get(rel, "") + extra
        rc, out = self.check()
        self.assertEqual(rc, 1, out)
        self.assertIn(expected, out)
        self.assertIn("problem(s)", out.splitlines()[-1])

    def test_clean_tree_passes(self):
        rc, out = self.check()
        self.assertEqual(rc, 0, out)
        self.assertTrue(out.startswith("check_references: OK"), out)

    def test_a_rooted_path_that_moved(self):
        self.assertProblem("README.md", "See `src/platform.cpp`.\n",
                           "README.md:5: src/platform.cpp does not exist in the repository")

    def test_a_symbol_that_moved(self):
        self.assertProblem("src/encoders/bert.cpp", "// Set up by prepare_bench() and make_bench().\n",
                           "src/encoders/bert.cpp:4: make_bench is named as a symbol of the code")
        self.assertProblem("README.md", "The META from `bench_meta`, the name by `Platform::label`.\n",
                           "README.md:5: bench_meta is named as a symbol of the code")
        self.assertProblem("README.md", "",  "README.md:5: label is named as a symbol of the code")

    def test_a_member_named_of_a_type_that_lacks_it(self):
        # The last part alone passed: main exists, as a function, but Platform has no member main.
        self.assertProblem("README.md", "`Platform::main` says.\n",
                           "README.md:5: Platform::main is named as a member of Platform, which has none of that name")

    def test_a_symbol_named_only_in_comments_is_gone(self):
        self.files["src/apps/driver.cpp"] += "// old_helper() did this\n"
        self.files["src/encoders/bert.cpp"] += "// see old_helper()\n"
        rc, out = self.check()
        self.assertIn("src/encoders/bert.cpp:4: old_helper is named as a symbol of the code", out)

    def test_a_pattern_that_matches_nothing(self):
        self.assertProblem("README.md", "Tests: `tests/<module>_test.cpp`.\n",
                           "README.md:5: tests/<module>_test.cpp matches nothing in the repository")

    def test_a_broken_link(self):
        self.assertProblem("docs/options.md", "The [API](../include/fmwork/plugin_api.h).\n",
                           "docs/options.md:4: link ../include/fmwork/plugin_api.h does not exist in the repository")

    def test_a_link_outside_the_repository(self):
        self.assertProblem("docs/options.md", "The [design](../../shared/design.md).\n",
                           "docs/options.md:4: link ../../shared/design.md points outside the repository")

    def test_a_path_outside_the_repository(self):
        self.assertProblem("docs/options.md", "Where the code refines ../shared/design.md.\n",
                           "docs/options.md:4: ../shared/design.md points outside the repository")
        self.assertProblem("src/encoders/bert.cpp", "// From /work/shared/design.md.\n",
                           "src/encoders/bert.cpp:4: /work/shared/design.md points outside the repository")

    def test_a_bare_source_name_in_a_comment(self):
        self.assertProblem("src/encoders/bert.cpp", "// Counted as forward() holds them (encoder.cpp).\n",
                           "src/encoders/bert.cpp:4: encoder.cpp is no file of the repository")

    def test_a_partial_path_and_a_module(self):
        self.assertProblem("include/fmwork/encoders/bert.hpp", "// Loaded by hf/hf_model.hpp.\n",
                           "include/fmwork/encoders/bert.hpp:2: hf/hf_model.hpp is no file of the repository")
        self.assertProblem("tests/encoders/bert_test.cpp", "// The native encoder (encoders/encoder).\n",
                           "tests/encoders/bert_test.cpp:2: encoders/encoder is no module or folder")

    def test_a_cmake_path(self):
        self.assertProblem("tests/CMakeLists.txt", "add_test(NAME U COMMAND ${CMAKE_SOURCE_DIR}/tools/gone.py)\n",
                           "tests/CMakeLists.txt:2: tools/gone.py does not exist in the repository")

    def test_issues_a_reader_cannot_see(self):
        self.assertProblem("README.md", "Not yet verified on a GPU: see the open CUDA issue.\n",
                           "README.md:5: \"the open CUDA issue\" names an issue")
        self.assertProblem("README.md", "The issue's targets are not met.\n", "README.md:6: \"The issue's\" names")
        self.assertProblem("src/encoders/bert.cpp", "// As issue 3 asks.\n", "src/encoders/bert.cpp:4: \"issue 3\"")

    def test_a_file_that_opts_out(self):
        self.files["tests/fake_test.py"] = "# check_references: not checked (a fake tree)\nPATH = 'src/gone.cpp'\n"
        rc, out = self.check()
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
