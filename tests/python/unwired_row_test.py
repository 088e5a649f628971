#!/usr/bin/env python3
"""A row added to a table and wired nowhere stops the build. The family table (include/fmwork/hf/family_table.hpp):
the family's config reader (src/hf/config.cpp) and the encoders' dispatch (src/encoders/families.cpp) are
switches with no default, so a new family cannot run as BERT. The --torch.call:/--torch.set: table
(include/fmwork/cli/torch_setting_table.hpp): what each name does (src/runtime/torch_settings.cpp) is such a
switch, so a name cannot be accepted on the command line and do nothing. Both compiled with the libraries' own
flags (-Werror=switch). Each file is compiled (-fsyntax-only) against a copy of its table with one more row;
config.cpp against the table as it is too, and each failure must name the new row, so that it is the row's
and not the command's. The log schema (include/fmwork/log/log_schema.hpp) the other way round: a key renamed in
its line's list stops the build wherever code reads it back, since readers name keys by the constants the rows
make (stat_key::p50_ms), never by a string literal that would read nothing."""
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
FAMILIES = Path("include/fmwork/hf/family_table.hpp")
NEW_FAMILY = '  FAMILY(newcomer, "model.", false, true, true, false, {"newcomer", "Newcomer"})'
TORCH = Path("include/fmwork/cli/torch_setting_table.hpp")
NEW_TORCH = '  TORCH(newcomer, call, "newcomer", boolean, "@ True", none, "a name with no LibTorch side")'


def table_with_new_row(table, macro, new_row):
    """The text of `table` with `new_row` after its last `macro(` row (rows may continue on further lines)."""
    text = (Path(ARGS.source) / table).read_text()
    starts = [m.start() for m in re.finditer(r"^  " + macro + r"\(", text, re.M)]
    if not starts:
        raise AssertionError(f"{table}: no {macro}(...) row found")
    end = re.search(r"\)\s*(\\)?$", text[starts[-1]:], re.M)
    last = starts[-1] + end.start() + 1
    return text[:last] + " \\\n" + new_row + text[last:]


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


class UnwiredRow(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        for table, macro, row in ((FAMILIES, "FAMILY", NEW_FAMILY), (TORCH, "TORCH", NEW_TORCH)):
            header = Path(cls.dir.name) / table
            header.parent.mkdir(parents=True, exist_ok=True)
            header.write_text(table_with_new_row(table, macro, row))

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

    def test_the_torch_settings_refuse_an_unwired_row(self):
        self.refused("src/runtime/torch_settings.cpp", ARGS.torch_options, True)


LOG_SCHEMA = Path("include/fmwork/log/log_schema.hpp")
STAT_P50 = "X(double, p50_ms, csv_number(6).summary(0, 1, 3))"


class RenamedLogKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        text = (Path(ARGS.source) / LOG_SCHEMA).read_text()
        if text.count(STAT_P50) != 1:
            raise AssertionError(f"{LOG_SCHEMA}: STAT's row {STAT_P50} not found once")
        header = Path(cls.dir.name) / LOG_SCHEMA
        header.parent.mkdir(parents=True, exist_ok=True)
        header.write_text(text.replace(STAT_P50, STAT_P50.replace("p50_ms", "p50_renamed_ms")))

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def refused(self, source):
        result = compile_file(source, self.dir.name, ARGS.core_options, False)
        self.assertNotEqual(result.returncode, 0, f"{source} compiled with STAT's p50_ms renamed")
        self.assertRegex(result.stderr, r".p50_ms. is not a member of .fmwork::stat_key.|no member named .p50_ms. in namespace .fmwork::stat_key.", result.stderr[-2000:])

    def test_the_files_compile_with_the_schema_as_it_is(self):
        for source in ("src/log/line_checks.cpp", "src/report/formats.cpp"):
            result = compile_file(source, None, ARGS.core_options, False)
            self.assertEqual(result.returncode, 0, result.stderr[-2000:])

    def test_the_line_checks_refuse_a_renamed_key(self):
        self.refused("src/log/line_checks.cpp")

    def test_the_report_refuses_a_renamed_key(self):
        self.refused("src/report/formats.cpp")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cxx", required=True, help="the C++ compiler the build uses")
    parser.add_argument("--source", required=True, help="the repository root")
    parser.add_argument("--core-options", required=True, help="fmwork_core's compile options, ;-separated")
    parser.add_argument("--torch-options", required=True, help="fmwork's compile options, ;-separated")
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
