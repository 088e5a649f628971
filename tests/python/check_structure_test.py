#!/usr/bin/env python3
"""Tests of tools/check_structure.py on small trees made in a temporary folder: each kind of problem is
reported, and a clean tree passes."""

import importlib.util
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "check_structure.py"
spec = importlib.util.spec_from_file_location("check_structure", TOOL)
check_structure = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_structure)


def function(name, lines):
    """A C++ function whose body, from its `{` line to its `}` line, is `lines` lines long."""
    body = [f"  int v{k} = {k};" for k in range(lines - 2)]
    return "\n".join([f"int {name}() {{"] + body + ["}"]) + "\n"


def order_doc(layers):
    return "# Notes\n\n## Module dependency order\n\n```\n" + "\n".join(layers) + "\n```\n\n## Next\n"


class Tree:
    """A fake project: modules a (lowest), b, c by default, with no includes."""

    def __init__(self, root):
        self.root = root
        self.layers = ["a", "b", "c"]
        self.doc = None  # the text of docs/design-notes.md; None: the order of self.layers
        self.files = {}
        for m in self.layers:
            self.files[f"include/fmwork/{m}.hpp"] = "#pragma once\nint %s();\n" % m
            self.files[f"src/{m}.cpp"] = '#include "fmwork/%s.hpp"\n\nint %s() { return 0; }\n' % (m, m)

    def include(self, path, header):
        self.files[path] = f'#include "{header}"\n' + self.files[path]

    def write(self):
        for rel, text in self.files.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text)
        (self.root / "docs").mkdir(exist_ok=True)
        (self.root / "docs/design-notes.md").write_text(self.doc or order_doc(self.layers))

    def check(self, *options):
        self.write()
        run = subprocess.run([sys.executable, str(TOOL), "--root", str(self.root), *options],
                             capture_output=True, text=True)
        return run.returncode, run.stdout


class CheckStructureTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.tree = Tree(Path(self.tmp.name))

    def tearDown(self):
        self.tmp.cleanup()

    def assertProblem(self, text, *options):
        rc, out = self.tree.check(*options)
        self.assertEqual(rc, 1, out)
        self.assertIn(text, out)
        self.assertIn("problem(s)", out.splitlines()[-1])
        return out

    def test_clean_tree_passes(self):
        self.tree.include("src/c.cpp", "fmwork/a.hpp")
        self.tree.include("include/fmwork/c.hpp", "fmwork/b.hpp")
        self.tree.include("src/b.cpp", "fmwork/generated.hpp")  # not in the tree: a build output
        self.tree.files["tests/c_test.cpp"] = '#include "fmwork/c.hpp"\n' + function("t", 200)
        rc, out = self.tree.check()
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines(), ["check_structure: OK (3 modules, files <= 600 lines, "
                                            "functions <= 60 lines)"])

    def test_upward_include(self):
        self.tree.include("src/a.cpp", "fmwork/c.hpp")
        self.assertProblem("src/a.cpp:1 includes fmwork/c.hpp: a (layer 1) may not depend on c (layer 3)")

    def test_include_within_a_layer(self):
        self.tree.layers = ["a b", "c"]
        self.tree.include("include/fmwork/b.hpp", "fmwork/a.hpp")
        self.assertProblem("include/fmwork/b.hpp:1 includes fmwork/a.hpp: b (layer 1) may not depend on "
                           "a (layer 1)")

    def test_circle(self):
        self.tree.include("include/fmwork/c.hpp", "fmwork/b.hpp")
        self.tree.include("src/b.cpp", "fmwork/c.hpp")
        out = self.assertProblem("circle: b -> c -> b: src/b.cpp:1 (b -> c), include/fmwork/c.hpp:1 (c -> b)")
        self.assertIn("src/b.cpp:1 includes fmwork/c.hpp: b (layer 2) may not depend on c (layer 3)", out)

    def test_circle_through_a_private_header_and_subfolders(self):
        self.tree.layers = ["a", "b", "c", "hw/dev"]
        self.tree.files["src/hw/dev.hpp"] = '#include "fmwork/c.hpp"\n'
        self.tree.files["src/hw/dev.cpp"] = '#include "hw/dev.hpp"\n'
        self.tree.include("src/c.cpp", "hw/dev.hpp")
        self.assertProblem("circle: c -> hw/dev -> c")

    def test_undeclared_and_missing_modules(self):
        self.tree.files["src/apps/tool.cpp"] = '#include "fmwork/c.hpp"\nint main() { return 0; }\n'
        self.tree.layers = ["a", "b", "c", "gone"]
        out = self.assertProblem("src/apps/tool.cpp: module apps/tool is missing from the declared order")
        self.assertIn("docs/design-notes.md: declared module gone does not exist", out)

    def test_missing_section(self):
        self.tree.doc = "# Notes\n\n## Module order\n\n```\na b c\n```\n"
        self.assertProblem("docs/design-notes.md: no section '## Module dependency order'")

    def test_function_of_61_lines(self):
        self.tree.files["src/b.cpp"] += "\n" + function("fits", 60) + "\n" + function("too_long", 61)
        out = self.assertProblem("src/b.cpp:66: function too_long is 61 lines (lines 66-126, limit 60)")
        self.assertNotIn("fits", out)
        rc, out = self.tree.check("--max-function-lines", "61")
        self.assertEqual(rc, 0, out)

    def test_file_of_601_lines(self):
        self.tree.files["tests/fits_test.cpp"] = "//\n" * 600
        self.tree.files["tests/big_test.cpp"] = "//\n" * 601
        self.tree.files["include/fmwork/b.hpp"] += "//\n" * 600
        out = self.assertProblem("tests/big_test.cpp: 601 lines (limit 600)")
        self.assertIn("include/fmwork/b.hpp: 602 lines (limit 600)", out)
        self.assertNotIn("fits_test", out)
        rc, out = self.tree.check("--max-file-lines", "700")
        self.assertEqual(rc, 0, out)

    def test_list_prints_the_graph(self):
        self.tree.include("src/c.cpp", "fmwork/a.hpp")
        rc, out = self.tree.check("--list")
        self.assertEqual(rc, 0, out)
        self.assertIn("  c [layer 3]: a\n", out)
        self.assertIn("  a [layer 1]: -\n", out)
        self.assertIn("layers the current includes imply", out)


class FunctionFinderTest(unittest.TestCase):
    def lengths(self, text):
        return {name: last - first + 1 for name, _, first, last in check_structure.find_functions(text)}

    def test_braces_in_strings_chars_and_comments(self):
        text = textwrap.dedent('''\
            #define OPEN {
            int f() {
              const char* s = "}}}{";  // }}
              char c = '}';
              char q = '\\'';
              const char* e = "\\"}";
              /* }
                 } */
              auto r = R"x(})" })x";
              int n = 1'000'000;
              return 0;
            }
            int g() { return '{'; }
            ''')
        self.assertEqual(self.lengths(text), {"f": 11, "g": 1})

    def test_initialiser_tables_classes_and_namespaces(self):
        rows = "\n".join('    {"name%d", %d, f(%d)},' % (k, k, k) for k in range(70))
        text = ("namespace fm {\nnamespace {\nstruct Row { const char* n; int v; int w; };\n"
                "constexpr Row kRows[] = {\n" + rows + "\n};\n"
                "const std::vector<Row> kMore{\n" + rows + "\n};\n"
                "enum class E {\n" + "\n".join(f"  e{k}," for k in range(70)) + "\n};\n"
                "}  // namespace\n"
                "class C : public B {\n public:\n  C(int x) : x_{x}, y_(x) {\n    go();\n  }\n"
                "  int get() const override { return x_; }\n  int x_{0};\n};\n"
                'extern "C" {\nint h(int a, int b = {}) {\n  return a;\n}\n}\n'
                "}  // namespace fm\n")
        self.assertEqual(self.lengths(text), {"C": 3, "get": 1, "h": 3})

    def test_lambdas_count_toward_the_enclosing_function(self):
        text = "void f() {\n  auto g = [](int x) {\n" + "    x++;\n" * 70 + "  };\n}\n"
        self.assertEqual(self.lengths(text), {"f": 74})

    def test_namespace_scope_lambda_is_a_function(self):
        text = "const auto kF = [](int x) -> int {\n  return x;\n};\n"
        self.assertEqual(self.lengths(text), {"lambda": 3})


if __name__ == "__main__":
    unittest.main()
