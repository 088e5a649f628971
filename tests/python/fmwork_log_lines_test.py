#!/usr/bin/env python3
"""Tests of bench/fmwork_log.py, the Python reader of FMWORK lines: it ends lines where `process` does, and its
command reads any log the driver writes."""

import importlib.util
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "bench" / "fmwork_log.py"
spec = importlib.util.spec_from_file_location("fmwork_log", TOOL)
fmwork_log = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fmwork_log)

RES = "FMWORK RES 1.000000000 2.000000000 m BertModel 16 1 3.000 333.3\n"
FORGED = "FMWORK RES 1.000000000 2.000000000 EVIL BertModel 16 1 0.001 1e9"


class LineEnds(unittest.TestCase):
    # Hostile round seven: str.splitlines() ended a line at U+2028, U+0085, \v, \f, \x1c-\x1e, which an ARG
    # line's value may hold (--model:revision 'a<U+2028>FMWORK RES ...'): a RES line the run never wrote was read.
    def test_a_unicode_line_break_inside_a_value_ends_no_line(self):
        for brk in ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]:
            text = "FMWORK ARG --model:revision a" + brk + FORGED + "\n" + RES
            self.assertEqual([r["model_name"] for r in fmwork_log.records(text, "RES")], ["m"], repr(brk))

    def test_the_line_ends_process_reads_still_end_lines(self):
        for end in ["\n", "\r\n", "\r"]:
            text = RES.replace("\n", end) * 2
            self.assertEqual(len(fmwork_log.records(text, "RES")), 2, repr(end))

    # Hostile round seven: a log holding bytes that are not UTF-8 (an option's value as typed) ended the
    # command with UnicodeDecodeError; its records are read and the bytes written back as they were.
    def test_the_command_reads_a_log_with_bytes_that_are_not_utf8(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "run.log"
            log.write_bytes(b"FMWORK ARG --model:revision \xff\xfe\n" + RES.encode() +
                            RES.replace(" m ", " m\xe9 ").encode("latin-1"))
            for stdin, args in [(None, [str(log)]), (log.read_bytes(), [])]:
                out = subprocess.run([sys.executable, str(TOOL), "RES", "model_name,latency_ms"] + args,
                                     input=stdin, capture_output=True, check=False)
                self.assertEqual(out.returncode, 0, out.stderr)
                self.assertEqual(out.stdout, b"m 3.000\nm\xe9 3.000\n")


if __name__ == "__main__":
    unittest.main()
