#!/usr/bin/env python3
"""A row added to the family table (include/fmwork/hf/family_table.hpp) and wired nowhere stops the build: the
family's config reader (src/hf/config.cpp) and the encoders' dispatch (src/encoders/families.cpp) are switches
with no default, compiled with the libraries' own flags (-Werror=switch), so a new family cannot run as BERT.
Each file is compiled (-fsyntax-only) against a copy of the table with one more row; config.cpp is compiled
against the table as it is too, so that a failure is the row's and not the command's."""
# check_references: not checked (the paths below are those of a temporary copy of the table)

import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ARGS = None
TABLE = Path("include/fmwork/hf/family_table.hpp")
NEW_ROW = '  FAMILY(newcomer, "model.", false, true, true, false, {"newcomer", "Newcomer"})'


def table_with_new_row(text):
    """The table's text with NEW_ROW after its last row."""
    rows = [m for m in re.finditer(r"^  FAMILY\(.*\)$", text, re.M)]
    if not rows:
        raise AssertionError(f"{TABLE}: no FAMILY(...) row found")
    last = rows[-1]
    return text[:last.end()] + " \\\n" + NEW_ROW + text[last.end():]


def compile_file(source, overlay, options, torch):
    """Runs the compiler on `source` of the tree with `overlay` (a folder holding include/...) searched first."""
    root = Path(ARGS.source)
    cmd = [ARGS.cxx, "-std=c++17", "-fsyntax-only", "-D_GLIBCXX_USE_CXX11_ABI=1"] + [o for o in options.split(";") if o]
    if overlay:
        cmd += ["-I", str(Path(overlay) / "include")]
    cmd += ["-I", str(root / "include"), "-I", str(root / "src")]
    if torch:
        from torch.utils.cpp_extension import include_paths
        for path in include_paths():
            cmd += ["-isystem", path]
    cmd.append(str(root / source))
    return subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))


class UnwiredFamily(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        header = Path(cls.dir.name) / TABLE
        header.parent.mkdir(parents=True)
        header.write_text(table_with_new_row((Path(ARGS.source) / TABLE).read_text()))

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def refused(self, source, options, torch):
        result = compile_file(source, self.dir.name, options, torch)
        self.assertNotEqual(result.returncode, 0, f"{source} compiled with a row it does not handle")
        self.assertRegex(result.stderr, r"enumeration value .newcomer. not handled in switch", result.stderr[-2000:])

    def test_the_table_as_it_is_compiles(self):
        result = compile_file("src/hf/config.cpp", None, ARGS.core_options, False)
        self.assertEqual(result.returncode, 0, result.stderr[-2000:])

    def test_the_config_reader_refuses_an_unwired_row(self):
        self.refused("src/hf/config.cpp", ARGS.core_options, False)

    def test_the_encoder_dispatch_refuses_an_unwired_row(self):
        self.refused("src/encoders/families.cpp", ARGS.torch_options, True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cxx", required=True, help="the C++ compiler the build uses")
    parser.add_argument("--source", required=True, help="the repository root")
    parser.add_argument("--core-options", required=True, help="fmwork_core's compile options, ;-separated")
    parser.add_argument("--torch-options", required=True, help="fmwork's compile options, ;-separated")
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
