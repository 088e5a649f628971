#!/usr/bin/env python3
"""The Python and shell readers of FMWORK lines (bench/, scripts/, tests/python/) read only keys the log schema
holds. They read through bench/fmwork_log.py, which gives a line's fields as a dict: a key the driver no longer
writes (renamed or removed in include/fmwork/log/log_schema.hpp) reads as absent, and a bench then prints nothing
or a KeyError long after the change. This test finds the reads without running the benches: each key named on a
dict that came from fmwork_log.first / records / lines (after `if word == "STAT"`), or from a helper that returns
first(); each key of `fmwork_log.py WORD KEY,...` in a shell script; and each key a bench writes with
fmwork_log.line(), for every line but META, which carries a writer's own keys (engine=, python=). Each must be a
key of bench/log_schema.json (what `process --schema` prints; Python.LogSchemaMatchesTheTables holds it to the
tables), or match its line's suffix rule (STAT's *_ms)."""
# check_references: not checked (the snippets below name files that do not exist)

import ast
import json
import re
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "bench" / "log_schema.json").read_text())
READERS = ("fmwork_log",)  # the module's name in the readers


def schema_holds(word, key):
    if word in SCHEMA["positional"]:
        return key in SCHEMA["positional"][word]
    line = SCHEMA["keyed"].get(word)
    return line is not None and (key in line["kinds"] or any(key.endswith(s) for s in line["by_suffix"] or {}))


def reader_call(node, names):
    """The function name if `node` is fmwork_log.<one of names>(...), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names and \
            isinstance(node.func.value, ast.Name) and node.func.value.id in READERS:
        return node.func.attr
    return None


def text_arg(call, index=-1):
    texts = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return texts[index] if texts else None


class Scan(ast.NodeVisitor):
    """The keys one file reads: self.found holds (line number, word, key, what)."""

    def __init__(self):
        self.found, self.helpers, self.env = [], {}, {}

    def find_helpers(self, tree):
        # A function that returns first(text, "WORD") (a word of its own) or first(text, word) (its caller's).
        for f in ast.walk(tree):
            if not isinstance(f, ast.FunctionDef):
                continue
            params = [a.arg for a in f.args.args]
            for node in ast.walk(f):
                call = node.value if isinstance(node, (ast.Return, ast.Assign)) else None
                if call is None or not reader_call(call, {"first"}) or len(call.args) < 2:
                    continue
                word = call.args[1]
                if isinstance(word, ast.Constant):
                    self.helpers[f.name] = word.value
                elif isinstance(word, ast.Name) and word.id in params:
                    self.helpers[f.name] = params.index(word.id)

    def word_of(self, node):
        """(word, is_list) of an expression that yields a line's fields or a list of them, else None."""
        if isinstance(node, ast.BoolOp):
            return self.word_of(node.values[0])
        if isinstance(node, ast.Name):
            return self.env.get(node.id)
        kind = reader_call(node, {"first", "records"})
        if kind and text_arg(node):
            return text_arg(node), kind == "records"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.helpers:
            how = self.helpers[node.func.id]
            if isinstance(how, str):
                return how, False
            if how < len(node.args) and isinstance(node.args[how], ast.Constant):
                return node.args[how].value, False
        return None

    def bind(self, target, value):
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            for t, v in zip(target.elts, value.elts):
                self.bind(t, v)
        elif isinstance(target, ast.Name):
            bound = self.word_of(value)
            if bound:
                self.env[target.id] = bound
            else:
                self.env.pop(target.id, None)

    def within(self, bindings, nodes):
        saved = dict(self.env)
        self.env.update(bindings)
        for n in nodes:
            self.visit(n)
        self.env = saved

    def element(self, target, iterable):
        """The binding of a loop's `target` over `iterable` (a list of one line's fields), else {}."""
        bound = self.word_of(iterable)
        return {target.id: (bound[0], False)} if bound and bound[1] and isinstance(target, ast.Name) else {}

    def visit_FunctionDef(self, node):
        self.within({}, node.body)

    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self.bind(target, node.value)

    def visit_For(self, node):
        self.visit(node.iter)
        if reader_call(node.iter, {"lines"}) and isinstance(node.target, ast.Tuple) and len(node.target.elts) == 2:
            word, fields = (e.id if isinstance(e, ast.Name) else None for e in node.target.elts)
            for stmt in node.body:
                self.word_branches(stmt, word, fields)
        else:
            self.within(self.element(node.target, node.iter), node.body)
        for stmt in node.orelse:
            self.visit(stmt)

    def word_branches(self, stmt, word, fields):
        """`if word == "X": ... elif word == "Y": ...`: `fields` is X's line in the first branch, Y's in the next."""
        while isinstance(stmt, ast.If):
            test = stmt.test
            said = None
            if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == word and \
                    isinstance(test.ops[0], ast.Eq) and isinstance(test.comparators[0], ast.Constant):
                said = test.comparators[0].value
            self.visit(test)
            self.within({fields: (said, False)} if said else {}, stmt.body)
            if len(stmt.orelse) != 1:
                for s in stmt.orelse:
                    self.visit(s)
                return
            stmt = stmt.orelse[0]
        self.visit(stmt)

    def visit_comprehension_node(self, node, parts):
        bindings = {}
        for gen in node.generators:
            self.visit(gen.iter)
            bindings.update(self.element(gen.target, gen.iter))
        self.within(bindings, parts + [c for gen in node.generators for c in gen.ifs])

    def visit_ListComp(self, node):
        self.visit_comprehension_node(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self.visit_comprehension_node(node, [node.key, node.value])

    def read(self, holder, key_node, lineno, what="reads"):
        bound = self.word_of(holder)
        if bound and not bound[1] and bound[0] and isinstance(key_node, ast.Constant) and isinstance(key_node.value, str):
            self.found.append((lineno, bound[0], key_node.value, what))

    def visit_Subscript(self, node):
        self.read(node.value, node.slice, node.lineno)
        self.generic_visit(node)

    def visit_Compare(self, node):
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            self.read(node.comparators[0], node.left, node.lineno)
        self.generic_visit(node)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            self.read(node.func.value, node.args[0], node.lineno)
        if reader_call(node, {"line"}) and len(node.args) == 2 and isinstance(node.args[1], ast.Dict):
            word = text_arg(node, 0)
            for key in node.args[1].keys:
                if word != "META" and isinstance(key, ast.Constant):
                    self.found.append((key.lineno, word, key.value, "writes"))
        self.generic_visit(node)


def python_keys(source):
    """(line number, word, key, what) of each key `source` (Python text) reads or writes through fmwork_log."""
    tree = ast.parse(source)
    scan = Scan()
    scan.find_helpers(tree)
    scan.visit(tree)
    return scan.found


# `fmwork_log.py WORD KEY[,KEY...]`, or serve_bench.sh's `field WORD KEY[,KEY...]` that calls it.
SHELL_READ = re.compile(r"(?:fmwork_log\.py\"?|\bfield)\s+([A-Z]+)\s+([a-z0-9_,]+)")


def shell_keys(source):
    return [(source[:m.start()].count("\n") + 1, m.group(1), key, "reads")
            for m in SHELL_READ.finditer(source) for key in m.group(2).split(",")]


def every_key():
    """(file, line number, word, key, what) of every key the repository's readers name."""
    out = []
    for pattern, scan in (("bench/*.py", python_keys), ("tests/python/*.py", python_keys),
                          ("scripts/*.py", python_keys), ("bench/*.sh", shell_keys), ("scripts/*.sh", shell_keys)):
        for path in sorted(ROOT.glob(pattern)):
            if path.name != Path(__file__).name:
                out += [(path.relative_to(ROOT),) + found for found in scan(path.read_text())]
    return out


class LogReaders(unittest.TestCase):
    def test_every_key_read_is_the_schemas(self):
        found = every_key()
        # What the scan must see, so that it cannot pass by finding nothing: the benches' reads of RES, STAT,
        # META, CHECK, SETUP, SERVE and the shell scripts' (counted 2026-11-29: 95 keys in 17 files).
        self.assertGreaterEqual(len(found), 80, found)
        words = {word for _, _, word, _, _ in found}
        self.assertTrue({"RES", "STAT", "META", "CHECK", "SETUP", "SERVE", "FAIL"} <= words, words)
        bad = [f"{path}:{line}: {what} {word} {key}" for path, line, word, key, what in found
               if not schema_holds(word, key)]
        self.assertEqual(bad, [], "keys the log schema does not hold (bench/log_schema.json)")

    def test_a_key_not_in_the_schema_is_found(self):
        # The scan sees each form a reader takes; a key the schema lacks is reported with its line.
        source = '''
def stat_of(text):
    return fmwork_log.first(text, "STAT")
def line_of(text, word):
    fields = fmwork_log.first(text, word)
    return fields
res = fmwork_log.first(text, "RES")
a = res["latency"]
b = stat_of(text)["p50"]
c = line_of(text, "META").get("dtypes")
d = [s["p50_ms"] for s in fmwork_log.records(text, "SERVE") if "p50" in s]
for word, f in fmwork_log.lines(text):
    if word == "REP":
        e = f["delta"]
    elif word == "NOTE":
        g = f["verdicts"]
fmwork_log.line("STAT", {"input": 1, "p50": 2})
'''
        bad = [(line, word, key) for line, word, key, _ in python_keys(source) if not schema_holds(word, key)]
        self.assertEqual(sorted(bad), [(8, "RES", "latency"), (9, "STAT", "p50"), (10, "META", "dtypes"),
                                       (11, "SERVE", "p50"), (14, "REP", "delta"), (16, "NOTE", "verdicts"),
                                       (17, "STAT", "p50")])
        self.assertIn((11, "SERVE", "p50_ms", "reads"), python_keys(source))
        shell = 'x=$(python3 bench/fmwork_log.py RES input,latency "$log")\nfield SERVE p50_ms,p51_ms "$log"\n'
        self.assertEqual([(line, word, key) for line, word, key, _ in shell_keys(shell) if not schema_holds(word, key)],
                         [(1, "RES", "latency"), (2, "SERVE", "p51_ms")])


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
