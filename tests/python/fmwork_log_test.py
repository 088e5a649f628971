#!/usr/bin/env python3
"""bench/fmwork_log.py, the Python reader of FMWORK lines, against what the driver writes and `process` reads.

Its names come from bench/log_schema.json (`process --schema`); this holds them to the golden logs (every FMWORK
line the driver wrote there, read by name: no key outside its line's table, every required key present, upstream's
lines with a name for each position) and to `process` itself: a log made here, with free text to the end of its
FAIL and NOTE lines, reads to the same values as `process --format csv` gives (process judges NOTE's verdict anew: its reason is
held to the text); and its writer, line(), to the tables. Run by ctest
(Python.LogReaderMatchesProcess) with process's path as its argument.
"""
import csv
import io
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import fmwork_log  # noqa: E402

failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def check_golden_logs():
    folder = os.path.join(ROOT, "tests", "integration", "golden")
    lines_read = 0
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            text = f.read()
        for word, fields in fmwork_log.lines(text):
            lines_read += 1
            where = f"{name}: FMWORK {word}"
            if word in fmwork_log.POSITIONAL:
                expect(len(fields) == len(fmwork_log.POSITIONAL[word]), f"{where} has positions without a name")
            line = fmwork_log.SCHEMA["keyed"].get(word)
            if line is None:
                continue
            suffix = tuple((line["by_suffix"] or {}).keys())
            for key in fields:
                expect(key in line["kinds"] or (suffix and key.endswith(suffix)), f"{where}: {key}= not in its table")
            for key in line["required"]:
                expect(key in fields, f"{where}: required {key}= missing")
    expect(lines_read > 100, f"the golden logs gave {lines_read} FMWORK lines")


LOG = """FMWORK ARG --model_name enc
FMWORK ARG --model_class BertModel
FMWORK META driver=0.1.0 dtype=float32
FMWORK SETUP 1.500000
FMWORK REP 1 2 10.000000000 10.002000000 0.002000000
FMWORK REP 2 2 10.002000000 10.003000000 0.001000000

FMWORK RES 10.000000000 10.003000000 enc BertModel 8 1 1.000 1000.0
FMWORK STAT input=8 batch=1 reps=2 dropped=1 mean_ms=1.000000 stddev_ms=0.000000 min_ms=1.000000 p50_ms=1.000000 p90_ms=1.000000 p99_ms=1.000000 max_ms=1.000000 tokens_per_s=8000.000 p95_ms=1.000000
FMWORK NOTE input=8 batch=1 verdict=too-few-reps kept=1 reason=1 kept rep < 5: raise --reps
FMWORK FAIL input=16 batch=2 error=out of memory: tried to allocate 2.00 GiB (key=value in the text)
"""


def check_against_process(process):
    setup = fmwork_log.first(LOG, "SETUP")
    expect(setup == {"seconds": "1.500000"}, f"SETUP read as {setup}")
    res = fmwork_log.first(LOG, "RES")
    expect(res["model_class"] == "BertModel" and res["throughput"] == "1000.0", f"RES read as {res}")
    stat = fmwork_log.first(LOG, "STAT")
    expect(stat["p95_ms"] == "1.000000", "a key outside the table is read as it is")
    note = fmwork_log.first(LOG, "NOTE")
    fail = fmwork_log.first(LOG, "FAIL")
    rows = list(csv.DictReader(io.StringIO(subprocess.run(
        [process, "--format", "csv", "-"], input=LOG, capture_output=True, text=True, check=True).stdout)))
    expect(len(rows) == 2, f"process gave {len(rows)} rows")
    ok, failed = rows
    expect(note["reason"] == "1 kept rep < 5: raise --reps", f"NOTE reason read as {note['reason']!r}")
    expect(failed["error"] == fail["error"], f"FAIL error {fail['error']!r} against {failed['error']!r}")
    for key in ("input", "batch", "reps", "p50_ms", "tokens_per_s"):
        expect(ok[key] == stat[key], f"STAT {key}={stat[key]} against process's {ok[key]}")
    expect(ok["latency_ms"] == res["latency_ms"], "RES latency_ms")


def check_writer():
    """fmwork_log.line, what the Python benches write the driver's lines with: in the order given but the free
    text last, read back as written; a required key missing, a value not of its kind, a space refused."""
    stat = {"input": 8, "batch": 1, "reps": 2, "dropped": 1, "p50_ms": "1.000000", "p95_ms": "2.0", "engine": "x"}
    text = fmwork_log.line("STAT", stat)
    expect(text == "FMWORK STAT input=8 batch=1 reps=2 dropped=1 p50_ms=1.000000 p95_ms=2.0 engine=x", text)
    expect(fmwork_log.first(text + "\n", "STAT") == {k: str(v) for k, v in stat.items()}, f"{text} read back")
    fail = fmwork_log.line("FAIL", {"error": "out of memory: a=b c", "input": 16, "batch": 2})
    expect(fail == "FMWORK FAIL input=16 batch=2 error=out of memory: a=b c", fail)
    for word, fields, why in (("STAT", {"input": 8}, "required batch not given"),
                              ("STAT", {"input": "8x", "batch": 1}, "input='8x' is no integer"),
                              ("STAT", {"input": 8, "batch": 1, "p99_ms": "fast"}, "p99_ms='fast' is no number"),
                              ("META", {"device": "two words"}, "device='two words' is empty or holds a space")):
        try:
            fmwork_log.line(word, fields)
            expect(False, f"{fields} written")
        except ValueError as e:
            expect(str(e) == f"FMWORK {word}: {why}", str(e))


def main():
    check_golden_logs()
    check_writer()
    check_against_process(sys.argv[1])
    for failure in failures:
        print("FAILED:", failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
