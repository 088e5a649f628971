#!/usr/bin/env python3
"""Tests of tools/check_structure.py on small trees made in a temporary folder: each kind of problem is
reported, and a clean tree passes."""
# check_references: not checked (the paths below are those of the made-up trees the tests write)

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
    return ("# Notes\n\n## Folders by layer\n\n```\n" + "\n".join(f"{f}    the purpose of {f}" for f in layers) +
            "\n```\n\n## Next\n")


class Tree:
    """A fake project: folders a (lowest), b, c by default, each with one module of its name and no includes;
    a and b are the core (CMakeLists.txt's FMWORK_CORE_FOLDERS)."""

    def __init__(self, root):
        self.root = root
        self.layers = ["a", "b", "c"]
        self.core = ["a", "b"]
        self.doc = None  # the text of docs/design-notes.md; None: the order of self.layers
        self.files = {}
        for m in self.layers:
            self.module(f"{m}/{m}")

    def module(self, name):
        leaf = name.rsplit("/", 1)[-1]
        self.files[f"include/fmwork/{name}.hpp"] = "#pragma once\nint %s();\n" % leaf
        self.files[f"src/{name}.cpp"] = '#include "fmwork/%s.hpp"\n\nint %s() { return 0; }\n' % (name, leaf)

    def include(self, path, header):
        self.files[path] = f'#include "{header}"\n' + self.files.get(path, "")

    def write(self):
        for rel, text in self.files.items():
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text)
        (self.root / "docs").mkdir(exist_ok=True)
        (self.root / "docs/design-notes.md").write_text(self.doc or order_doc(self.layers))
        (self.root / "CMakeLists.txt").write_text(f"set(FMWORK_CORE_FOLDERS {' '.join(self.core)})\n")

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
        self.tree.include("src/c/c.cpp", "fmwork/a/a.hpp")
        self.tree.include("include/fmwork/c/c.hpp", "fmwork/b/b.hpp")
        self.tree.include("src/b/b.cpp", "fmwork/generated.hpp")  # not in the tree: a build output
        self.tree.module("b/b2")
        self.tree.include("src/b/b2.cpp", "fmwork/b/b.hpp")  # within a folder
        self.tree.files["tests/c/c_test.cpp"] = '#include <torch/torch.h>\n#include "fmwork/c/c.hpp"\n' + \
            function("t", 200)
        self.tree.files["tests/support/helpers.hpp"] = "#pragma once\n"
        rc, out = self.tree.check()
        self.assertEqual(rc, 0, out)
        self.assertEqual(out.splitlines(), ["check_structure: OK (4 modules in 3 folders, files <= 500 lines, "
                                            "functions <= 60 lines)"])

    def test_upward_include(self):
        self.tree.include("src/a/a.cpp", "fmwork/c/c.hpp")
        self.assertProblem("src/a/a.cpp:1 includes fmwork/c/c.hpp: a/ (layer 1) may not depend on c/ (layer 3)")

    def test_circle_within_a_folder(self):
        self.tree.module("b/b2")
        self.tree.include("include/fmwork/b/b2.hpp", "fmwork/b/b.hpp")
        self.tree.include("src/b/b.cpp", "fmwork/b/b2.hpp")
        self.assertProblem("circle: b/b -> b/b2 -> b/b: src/b/b.cpp:1 (b/b -> b/b2), "
                           "include/fmwork/b/b2.hpp:1 (b/b2 -> b/b)")

    def test_circle_through_a_private_header_and_subfolders(self):
        self.tree.files["src/c/hw/dev.hpp"] = '#include "fmwork/c/c.hpp"\n'
        self.tree.files["src/c/hw/dev.cpp"] = '#include "c/hw/dev.hpp"\n'
        self.tree.include("src/c/c.cpp", "c/hw/dev.hpp")
        self.assertProblem("circle: c/c -> c/hw/dev -> c/c")

    def test_undeclared_missing_and_loose_modules(self):
        self.tree.files["src/apps/tool.cpp"] = '#include "fmwork/c/c.hpp"\nint main() { return 0; }\n'
        self.tree.files["src/loose.cpp"] = "int loose() { return 1; }\n"
        self.tree.layers = ["a", "b", "c", "gone"]
        out = self.assertProblem("src/apps/tool.cpp: folder apps is missing from the declared order")
        self.assertIn("docs/design-notes.md: declared folder gone does not exist", out)
        self.assertIn("src/loose.cpp: module loose is in no layer folder", out)

    def test_missing_section(self):
        self.tree.doc = "# Notes\n\n## Module order\n\n```\na b c\n```\n"
        self.assertProblem("docs/design-notes.md: no section '## Folders by layer'")

    def test_core_never_includes_libtorch(self):
        self.tree.include("src/a/a.cpp", "torch/script.h")
        self.tree.files["src/a/a.cpp"] = "#include <ATen/Parallel.h>\n" + self.tree.files["src/a/a.cpp"]
        self.tree.files["tests/b/b_test.cpp"] = "#include <torch/torch.h>\n"
        out = self.assertProblem("src/a/a.cpp:1 includes ATen/Parallel.h: the core folder a/ never includes LibTorch")
        self.assertIn("src/a/a.cpp:2 includes torch/script.h: the core folder a/", out)
        self.assertIn("tests/b/b_test.cpp:1 includes torch/torch.h: the core folder b/", out)

    def test_core_folders_are_the_lowest(self):
        self.tree.core = ["a", "c"]
        self.assertProblem("docs/design-notes.md: b (layer 2) lies among the core folders but is not one")
        self.tree.core = ["a", "x"]
        self.assertProblem("CMakeLists.txt: core folder x is not declared in docs/design-notes.md")

    def test_tests_mirror_the_layers(self):
        self.tree.files["tests/bogus/x_test.cpp"] = "int x;\n"
        self.tree.files["tests/loose_test.cpp"] = "int y;\n"
        out = self.assertProblem("tests/bogus: no such layer folder")
        self.assertIn("tests/loose_test.cpp: a test belongs in the folder of the layer it tests", out)

    def test_function_of_61_lines(self):
        self.tree.files["src/b/b.cpp"] += "\n" + function("fits", 60) + "\n" + function("too_long", 61)
        out = self.assertProblem("src/b/b.cpp:66: function too_long is 61 lines (lines 66-126, limit 60)")
        self.assertNotIn("fits", out)
        rc, out = self.tree.check("--max-function-lines", "61")
        self.assertEqual(rc, 0, out)

    def test_file_of_501_lines(self):
        self.tree.files["tests/a/fits_test.cpp"] = "//\n" * 500
        self.tree.files["tests/a/big_test.cpp"] = "//\n" * 501
        self.tree.files["tests/a/said_test.cpp"] = "// One table: over 500 lines: a row an option.\n" + "int x;\n" * 600
        self.tree.files["include/fmwork/b/b.hpp"] += "//\n" * 500
        out = self.assertProblem("tests/a/big_test.cpp: 501 lines (limit 500; or say why in its first comment")
        self.assertIn("include/fmwork/b/b.hpp: 502 lines (limit 500", out)
        self.assertNotIn("fits_test", out)
        self.assertNotIn("said_test", out)
        rc, out = self.tree.check("--max-file-lines", "700")
        self.assertEqual(rc, 0, out)

    def test_list_prints_the_graph(self):
        self.tree.include("src/c/c.cpp", "fmwork/a/a.hpp")
        rc, out = self.tree.check("--list")
        self.assertEqual(rc, 0, out)
        self.assertIn("  c/c [layer 3]: a/a\n", out)
        self.assertIn("  a/a [layer 1]: -\n", out)
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
