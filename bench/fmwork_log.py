#!/usr/bin/env python3
"""The one reader of FMWORK log lines for the benches and the Python tests: every field by its name.

The layouts are the log schema's (include/fmwork/log/log_schema.hpp, one list a line, from which the driver
writes and `process` reads), as `process --schema` gives it and bench/log_schema.json holds it (the build keeps
the copy current: `cmake --build build --target log_schema`; ctest's Python.LogSchemaMatchesTheTables fails
while it differs). From it come the names of upstream's positional lines (RES, REP, SETUP) and the one free-text
field a key=value line may end with (FAIL's error=, the reason= of NOTE, SERVE and CAPACITY), which runs to the
end of the line; the other key=value fields are read as they are. Values stay strings, as written; a caller
converts what it uses (KINDS says each known key's kind). Where a check must hold a line to its table, run
`process` on the log instead, which refuses a malformed line.

As a module: `records(text, "RES")` gives the fields of each RES line, `first(text, "SETUP")` the first's or
None, `lines(text)` every FMWORK line as (word, fields); `line("STAT", {...})` writes a key=value line held to its
table, for the benches that write the driver's lines. As a command, for the shell benches:
    fmwork_log.py WORD KEY[,KEY...] [LOG]
prints the KEYs of each WORD line of LOG (default: stdin), one line each, the values between single spaces,
e.g. `driver ... | python3 bench/fmwork_log.py RES input,batch,latency_ms`; a line that lacks one of the KEYs
prints nothing.
"""

import json
import os
import re
import sys

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "log_schema.json")) as _schema_file:
    SCHEMA = json.load(_schema_file)
# Upstream's lines, by position: {"RES": ("t_first", ...), "REP": ..., "SETUP": ("seconds",)}.
POSITIONAL = {word: tuple(names) for word, names in SCHEMA["positional"].items()}
RES_FIELDS, REP_FIELDS, SETUP_FIELDS = POSITIONAL["RES"], POSITIONAL["REP"], POSITIONAL["SETUP"]
# The free text that runs to the end of its line: {"FAIL": "error", ...}, one per word at most.
TO_END = {word: line["to_end"] for word, line in SCHEMA["keyed"].items() if line["to_end"]}
# Each key=value line's known keys, in order, with their kinds: {"STAT": {"input": "integer", ...}, ...}.
KINDS = {word: line["kinds"] for word, line in SCHEMA["keyed"].items()}


def parse(line):
    """(word, fields) of one FMWORK line, or None for another line. ARG gives {"text": the option as typed}."""
    line = line.rstrip("\r\n")
    if not line.startswith("FMWORK "):
        return None
    word, _, rest = line[len("FMWORK "):].partition(" ")
    if word == "ARG":
        return word, {"text": rest}
    if word in POSITIONAL:
        return word, dict(zip(POSITIONAL[word], rest.split(" ")))
    fields = {}
    tail = TO_END.get(word)
    while rest:
        item, _, after = rest.partition(" ")
        key, _, value = item.partition("=")
        if key == tail:
            fields[key] = rest[len(key) + 1:]
            break
        fields[key] = value
        rest = after
    return word, fields


def whole_lines(text):
    """`text` without a last line that has no line end: a log cut short (a killed run, a full disk) ends
    mid-value, and a RES throughput 4548.0 cut to 45 would read as a number the run never measured. The
    driver's `process` leaves such a line out the same way (docs/log-lines.md)."""
    if text.endswith(("\n", "\r")):
        return text
    return text[:max(text.rfind("\n"), text.rfind("\r")) + 1]


# The line ends `process` reads (and Python's open() in text mode): \r\n, \r, \n. Not str.splitlines(),
# which also ends a line at \v, \f, \x1c-\x1e, \x85, U+2028 and U+2029: a value may hold those (an ignored
# option's text in an ARG line), and "a\u2028FMWORK RES ..." would then read as a RES line the run never wrote.
LINE_END = re.compile(r"\r\n|\r|\n")


def lines(text):
    """Every whole FMWORK line of `text` (a log's contents) in order, as (word, fields)."""
    for line in LINE_END.split(whole_lines(text)):
        parsed = parse(line)
        if parsed:
            yield parsed


def records(text, word):
    """The fields of each `word` line of `text`, in order."""
    return [fields for w, fields in lines(text) if w == word]


def first(text, word):
    """The fields of the first `word` line of `text`; None when there is none."""
    return next((fields for w, fields in lines(text) if w == word), None)


def line(word, fields):
    """The text of the key=value line FMWORK `word` of `fields` ({key: value}, each written with str(), in the
    dict's order but the free text that ends the line last), held to its table as the driver's writer is: every
    required key given, each known key's value (and one ending with a suffix the table types, STAT's *_ms) of
    its kind, no value empty or with a space but that free text. Other keys are written as they are, as readers
    take them. A ValueError names the key."""
    spec = SCHEMA["keyed"][word]
    missing = [key for key in spec["required"] if key not in fields]
    if missing:
        raise ValueError(f"FMWORK {word}: required {', '.join(missing)} not given")
    tail = spec["to_end"]
    items = []
    for key, value in sorted(fields.items(), key=lambda item: item[0] == tail):
        text = str(value)
        kind = spec["kinds"].get(key) or next(
            (kind for suffix, kind in (spec["by_suffix"] or {}).items() if key.endswith(suffix)), "text")
        try:
            {"integer": int, "number": float}.get(kind, str)(text)
        except ValueError:
            raise ValueError(f"FMWORK {word}: {key}={text!r} is no {kind}") from None
        if key != tail and (not text or any(c.isspace() for c in text)):
            raise ValueError(f"FMWORK {word}: {key}={text!r} is empty or holds a space")
        items.append(f"{key}={text}")
    return f"FMWORK {word} " + " ".join(items)


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit("usage: fmwork_log.py WORD KEY[,KEY...] [LOG]")
    keys = argv[2].split(",")
    # A log's bytes as they are: a value may hold bytes that are not UTF-8 (an option's text as typed), which
    # read strictly ended the command with a traceback; they are written back unchanged.
    data = open(argv[3], "rb").read() if len(argv) == 4 else sys.stdin.buffer.read()
    for fields in records(data.decode("utf-8", "surrogateescape"), argv[1]):
        if all(key in fields for key in keys):
            sys.stdout.buffer.write((" ".join(fields[key] for key in keys) + "\n").encode("utf-8", "surrogateescape"))


if __name__ == "__main__":
    main(sys.argv)
