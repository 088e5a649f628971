#!/usr/bin/env python3
"""Checks the structure of the tree: folders by layer, no circles, the torch-free core, sizes.

A module is `include/fmwork/<folder>/<name>.hpp` (or `.h`) together with `src/<folder>/<name>.cpp` and any
private `src/<folder>/<name>.hpp`; the executables `src/apps/<name>.cpp` are the modules `apps/<name>`.
A module's layer is its first folder. The declared order is the first fenced code block under
`## Folders by layer` in docs/design-notes.md: one folder a line, lowest first, its first word the folder
and the rest of the line its purpose. Checked:
- every module is in a declared folder and every declared folder exists;
- a module includes only modules of its own folder or of lower folders, and no circle of includes;
- the core folders (`FMWORK_CORE_FOLDERS` in CMakeLists.txt, which builds them without LibTorch) are the
  lowest folders, and no file of theirs under src/, include/fmwork/ or tests/ includes LibTorch;
- tests/ mirrors the layers: each folder of tests/ is a declared one or integration, python, slurm, support;
- no file in src/ include/ tests/ over --max-file-lines unless its first comment says why ("over N lines:
  <reason>"), no function in src/ and include/ over --max-function-lines (from the line of its opening `{`
  to that of its closing `}`).

The tree is read as it is when the check runs. Output: one line per problem, then a summary line; exit
status 0 when clean, 1 otherwise. `--list` prints the module graph and the layering the includes imply.
"""

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ORDER_DOC = Path("docs/design-notes.md")
ORDER_HEADING = "## Folders by layer"
CMAKE_LISTS = Path("CMakeLists.txt")
CORE_VARIABLE = "FMWORK_CORE_FOLDERS"
TEST_FOLDERS = ("integration", "python", "slurm", "support")  # tests/ folders beside the layers' own
TORCH_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]((?:torch|ATen|c10|caffe2)/[^>"]*|torch)[>"]')
LONG_FILE_RE = re.compile(r"over \d+ lines:", re.I)
SIZE_DIRS = ("src", "include", "tests")
FUNCTION_DIRS = ("src", "include")
HEADER_EXTS = (".hpp", ".h", ".hh")
SOURCE_EXTS = (".cpp", ".cc", ".cxx", ".c", ".cu")
CPP_EXTS = HEADER_EXTS + SOURCE_EXTS
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


# ---------------------------------------------------------------------------------------------------
# Modules and includes


@dataclass
class Module:
    name: str
    files: list = field(default_factory=list)  # paths relative to the root, as strings
    deps: dict = field(default_factory=dict)  # module name -> [(file, line, include text)]
    external: set = field(default_factory=set)  # quoted includes that are no file of the tree


def module_of(rel):
    """The module a path (relative to the root, '/'-separated) belongs to, or None."""
    stem, ext = os.path.splitext(rel)
    if rel.startswith("include/fmwork/") and ext in HEADER_EXTS:
        return stem[len("include/fmwork/"):]
    if rel.startswith("src/") and ext in CPP_EXTS:
        return stem[len("src/"):]
    return None


def walk(root, top):
    """Files under root/top, as sorted '/'-separated paths relative to root (hidden folders skipped)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root / top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in filenames:
            out.append((Path(dirpath) / name).relative_to(root).as_posix())
    return sorted(out)


def read_text(path):
    return path.read_text(encoding="utf-8", errors="replace")


def resolve_include(root, including, text):
    """The tree file a quoted include names, relative to root, or None (a generated or system file)."""
    candidates = [Path("include") / text, Path("src") / text, Path(including).parent / text]
    for c in candidates:
        if (root / c).is_file():
            return os.path.normpath(c.as_posix()).replace(os.sep, "/")
    return None


def find_modules(root):
    modules = {}
    for top in ("include", "src"):
        for rel in walk(root, top):
            name = module_of(rel)
            if name is not None:
                modules.setdefault(name, Module(name)).files.append(rel)
    for mod in modules.values():
        for rel in mod.files:
            for lineno, line in enumerate(read_text(root / rel).splitlines(), 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = resolve_include(root, rel, m.group(1))
                dep = module_of(target) if target else None
                if dep is None:
                    mod.external.add(m.group(1))
                elif dep != mod.name:
                    mod.deps.setdefault(dep, []).append((rel, lineno, m.group(1)))
    return modules


def strongly_connected(modules):
    """Tarjan's components of the module graph with more than one module, each sorted."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(modules[v].deps):
            if w not in modules:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(max(1000, 10 * len(modules)))
    for v in sorted(modules):
        if v not in index:
            visit(v)
    return sorted(comps)


def cycles_in(modules, comp):
    """The shortest circle through each module of a component, each once: lists that start with their
    least module and end with it again."""
    found = []
    for start in comp:
        circle = shortest_cycle(modules, set(comp), start)
        k = circle.index(min(circle[:-1]))
        circle = circle[k:-1] + circle[:k] + [circle[k]]
        if circle not in found:
            found.append(circle)
    return found


def shortest_cycle(modules, members, start):
    parent = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(modules[v].deps):
            if w == start:
                path = [v]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1] + [start]
            if w in members and w not in parent:
                parent[w] = v
                queue.append(w)
    return [start, start]


def implied_layers(modules):
    """The lowest-first layering the includes imply: a module one layer above its highest dependency.
    The modules of a circle share one layer (shown in brackets)."""
    comps = {m: tuple(c) for c in strongly_connected(modules) for m in c}
    layer = {}

    def height(v, seen):
        if v in layer:
            return layer[v]
        group = comps.get(v, (v,))
        seen = seen | set(group)
        h = 0
        for g in group:
            for w in modules[g].deps:
                if w in modules and w not in seen:
                    h = max(h, height(w, seen) + 1)
        for g in group:
            layer[g] = h
        return h

    for v in sorted(modules):
        height(v, frozenset())
    rows = {}
    for v, h in layer.items():
        rows.setdefault(h, set()).add(f"[{' '.join(comps[v])}]" if v in comps else v)
    return [sorted(rows[h]) for h in sorted(rows)]


# ---------------------------------------------------------------------------------------------------
# The declared order


def read_order(root, problems):
    """{folder: layer (1 = lowest)} from the docs, or None when the section is missing."""
    doc = root / ORDER_DOC
    if not doc.is_file():
        problems.append(f"{ORDER_DOC}: missing (it declares the folders by layer)")
        return None
    lines = read_text(doc).splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.strip() == ORDER_HEADING)
    except StopIteration:
        problems.append(f"{ORDER_DOC}: no section '{ORDER_HEADING}'")
        return None
    layers, inside = {}, False
    for i in range(start + 1, len(lines)):
        text = lines[i].strip()
        if not inside and text.startswith("## "):
            break
        if text.startswith("```"):
            if inside:
                break
            inside = True
            continue
        words = text.split()
        if inside and words:
            folder = words[0].rstrip("/")
            if folder in layers:
                problems.append(f"{ORDER_DOC}:{i + 1}: {folder} is declared twice")
            else:
                layers[folder] = len(layers) + 1
    if not layers:
        problems.append(f"{ORDER_DOC}: the section '{ORDER_HEADING}' has no fenced list of folders")
        return None
    return layers


def folder_of(module):
    return module.split("/", 1)[0] if "/" in module else None


def check_order(modules, layers, problems):
    present = set()
    for name in sorted(modules):
        folder = folder_of(name)
        if folder is None:
            problems.append(f"{modules[name].files[0]}: module {name} is in no layer folder")
        elif folder not in layers:
            problems.append(f"{modules[name].files[0]}: folder {folder} is missing from the declared order "
                            f"({ORDER_DOC})")
        present.add(folder)
    for folder in sorted(set(layers) - present):
        problems.append(f"{ORDER_DOC}: declared folder {folder} does not exist")
    for name in sorted(modules):
        folder = folder_of(name)
        if folder not in layers:
            continue
        for dep, sites in sorted(modules[name].deps.items()):
            to = folder_of(dep)
            if to not in layers or to == folder or layers[to] < layers[folder]:
                continue
            for rel, lineno, text in sites:
                problems.append(f"{rel}:{lineno} includes {text}: {folder}/ (layer {layers[folder]}) may not "
                                f"depend on {to}/ (layer {layers[to]})")


def read_core_folders(root, problems):
    """The folders CMakeLists.txt builds without LibTorch (set(FMWORK_CORE_FOLDERS ...)), or None."""
    path = root / CMAKE_LISTS
    if not path.is_file():
        return None
    m = re.search(r"set\(\s*" + CORE_VARIABLE + r"\s+([^)]*)\)", read_text(path))
    if not m:
        problems.append(f"{CMAKE_LISTS}: no set({CORE_VARIABLE} ...): which folders never link LibTorch?")
        return None
    return m.group(1).split()


def check_core(root, layers, core, problems):
    """The core folders are the lowest ones and never include LibTorch, in src/, include/ and tests/."""
    if layers is not None:
        for folder in core:
            if folder not in layers:
                problems.append(f"{CMAKE_LISTS}: core folder {folder} is not declared in {ORDER_DOC}")
        top_core = max((layers[f] for f in core if f in layers), default=0)
        for folder, layer in sorted(layers.items(), key=lambda kv: kv[1]):
            if layer < top_core and folder not in core:
                problems.append(f"{ORDER_DOC}: {folder} (layer {layer}) lies among the core folders but is not "
                                f"one ({CMAKE_LISTS} {CORE_VARIABLE})")
    for folder in core:
        for top in ("src/" + folder, "include/fmwork/" + folder, "tests/" + folder):
            if not (root / top).is_dir():
                continue
            for rel in walk(root, top):
                if not rel.endswith(CPP_EXTS):
                    continue
                for lineno, line in enumerate(read_text(root / rel).splitlines(), 1):
                    m = TORCH_INCLUDE_RE.match(line)
                    if m:
                        problems.append(f"{rel}:{lineno} includes {m.group(1)}: the core folder {folder}/ never "
                                        "includes LibTorch (move the file to a torch folder)")


def check_test_folders(root, layers, problems):
    tests = root / "tests"
    if layers is None or not tests.is_dir():
        return
    for entry in sorted(tests.iterdir()):
        if entry.is_dir() and not entry.name.startswith(".") and entry.name != "__pycache__" and \
                entry.name not in layers and entry.name not in TEST_FOLDERS:
            problems.append(f"tests/{entry.name}: no such layer folder: tests/ mirrors src/ (or "
                            f"{', '.join(TEST_FOLDERS)})")
        elif entry.is_file() and entry.name.endswith(CPP_EXTS):
            problems.append(f"tests/{entry.name}: a test belongs in the folder of the layer it tests")


def check_circles(modules, problems):
    for comp in strongly_connected(modules):
        for circle in cycles_in(modules, comp):
            steps = []
            for a, b in zip(circle, circle[1:]):
                rel, lineno, _ = modules[a].deps[b][0]
                steps.append(f"{rel}:{lineno} ({a} -> {b})")
            problems.append(f"circle: {' -> '.join(circle)}: " + ", ".join(steps))


# ---------------------------------------------------------------------------------------------------
# Sizes


def blank_code(text):
    """The text with comments, string and character literals and preprocessor lines replaced by spaces
    (newlines kept, so that offsets keep their line numbers); a literal keeps its quotes."""
    out = list(text)
    n, i = len(text), 0
    line_start = True

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and text[j] != "\n":
                if text.startswith("/*", j):
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                j += 1
            blank(i, j)
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == '"':
            raw = re.search(r'(?:u8|[uUL])?R$', text[max(0, i - 3):i])
            if raw and not re.match(r"\w", text[i - len(raw.group(0)) - 1: i - len(raw.group(0))] or " "):
                m = re.match(r'"([^()\\\s]{0,16})\(', text[i:])
                if m:
                    end = text.find(")" + m.group(1) + '"', i + len(m.group(0)))
                    j = n if end < 0 else end + len(m.group(1)) + 2
                    blank(i + 1, j - 1)
                    i = j
                    continue
            i = skip_quoted(text, i, '"', blank)
        elif c == "'":
            word = re.search(r"\w+$", text[max(0, i - 64):i])
            if word and word.group(0)[0].isdigit():  # a digit separator: 1'000
                i += 1
            else:
                i = skip_quoted(text, i, "'", blank)
        else:
            i += 1
    return "".join(out)


def skip_quoted(text, i, quote, blank):
    j, n = i + 1, len(text)
    while j < n and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    blank(i + 1, min(j, n))
    return min(j + 1, n)


def match_braces(code):
    """{offset of '{': offset of its '}'} (an unmatched one maps to the end)."""
    pairs, stack = {}, []
    for i, c in enumerate(code):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            pairs[stack.pop()] = i
    for i in stack:
        pairs[i] = len(code) - 1
    return pairs


LAMBDA_TAIL = re.compile(r"\[[^\[\]]*\]\s*(?:\((?:[^()]|\([^()]*\))*\))?\s*"
                         r"(?:(?:mutable|constexpr|noexcept|static)\s*)*(?:->[^{};=]*)?$")
CLASS_KEY = re.compile(r"\b(struct|class|union|enum)\b")
NAMESPACE_KEY = re.compile(r'\bnamespace\b|\bextern\s+"[^"]*"\s*$')


def strip_template(header):
    """The header without a leading `template <...>` (nested brackets allowed)."""
    while True:
        m = re.match(r"\s*template\s*<", header)
        if not m:
            return header
        depth, j = 1, m.end()
        while j < len(header) and depth:
            depth += {"<": 1, ">": -1}.get(header[j], 0)
            j += 1
        header = header[j:]


def depth0(header):
    """The header with everything inside parentheses removed."""
    out, depth = [], 0
    for c in header:
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c)
    return "".join(out)


def has_assignment(flat):
    """Whether a header (parentheses removed) assigns: `x = {` but not `operator==` or `a <= b`."""
    for m in re.finditer(r"(?<![=!<>+\-*/%&|^])=(?!=)", flat):
        if not re.search(r"\boperator\s*\S*$", flat[:m.start()]):
            return True
    return False


def classify(header):
    """What a `{` at namespace or class level opens: 'namespace', 'class', 'enum', 'function', 'init'."""
    if LAMBDA_TAIL.search(header):
        return "function"
    h = strip_template(header)
    flat = depth0(h)
    if NAMESPACE_KEY.search(flat):
        return "namespace"
    if has_assignment(flat):
        return "init"
    key = CLASS_KEY.search(flat)
    if key:
        return "enum" if key.group(1) == "enum" else "class"
    if "(" in h and ")" in h:
        return "function"
    return "init"


def function_name(header):
    if LAMBDA_TAIL.search(header):
        return "lambda"
    h = strip_template(header)
    paren = h.find("(")
    m = re.search(r"(operator\s*(?:\(\)|[^\s(]+)|~?[\w:~<>,]+)\s*$", h[:paren] if paren >= 0 else h)
    return " ".join(m.group(1).split()) if m else "?"


def next_significant(code, i):
    while i < len(code) and code[i].isspace():
        i += 1
    return code[i] if i < len(code) else ""


def find_functions(text):
    """[(name, header line, first line, last line)] of the functions in a C or C++ file's text."""
    code = blank_code(text)
    pairs = match_braces(code)
    line_of = [0] * (len(code) + 1)
    line = 1
    for k, c in enumerate(code):
        line_of[k] = line
        if c == "\n":
            line += 1
    line_of[len(code)] = line
    found = []

    def scan(a, b, context):
        """Scans code[a:b] as the body of a namespace/class ('scope') or initializer ('init')."""
        header_start = a
        i = a
        while i < b:
            c = code[i]
            if c in ";}" or (c == "," and context == "init"):
                header_start = i + 1
            elif c == "{":
                close = pairs[i]
                header = code[header_start:i]
                if not LAMBDA_TAIL.search(header) and header.count("(") > header.count(")"):
                    i = close + 1  # inside parentheses: an argument's braces, `f(int a = {}) {`
                    continue
                kind = classify(header) if context == "scope" else (
                    "function" if LAMBDA_TAIL.search(header) else "init")
                if kind == "function" and context == "scope" and next_significant(code, close + 1) in (",", "{"):
                    i = close + 1  # a member's brace initializer in a constructor's initializer list
                    continue
                if kind == "function":
                    first = header_start + len(header) - len(header.lstrip())
                    found.append((function_name(" ".join(header.split())), line_of[first],
                                  line_of[i], line_of[close]))
                elif kind in ("namespace", "class"):
                    scan(i + 1, close, "scope")
                elif kind == "init":
                    scan(i + 1, close, "init")
                i = close + 1
                header_start = i
                continue
            i += 1

    scan(0, len(code), "scope")
    return found


def count_lines(text):
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def leading_comment(text):
    """The comment lines a file opens with (// lines, or a /* */ block), as one text."""
    out = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("//", "/*", "*", "#!")) or (out and stripped.endswith("*/")):
            out.append(stripped)
        else:
            break
    return " ".join(out)


def check_sizes(root, max_file, max_function, problems):
    for top in SIZE_DIRS:
        for rel in walk(root, top):
            data = (root / rel).read_bytes()
            if b"\0" in data:
                continue
            text = data.decode("utf-8", errors="replace")
            lines = count_lines(text)
            if lines > max_file and not LONG_FILE_RE.search(leading_comment(text)):
                problems.append(f"{rel}: {lines} lines (limit {max_file}; or say why in its first comment: "
                                f"\"over {max_file} lines: <reason>\")")
            if top in FUNCTION_DIRS and rel.endswith(CPP_EXTS):
                for name, at, first, last in find_functions(text):
                    length = last - first + 1
                    if length > max_function:
                        problems.append(f"{rel}:{at}: function {name} is {length} lines "
                                        f"(lines {first}-{last}, limit {max_function})")


# ---------------------------------------------------------------------------------------------------


def print_graph(modules, layers):
    print("module graph (module [layer of its folder]: the modules it includes)")
    for name in sorted(modules):
        mod = modules[name]
        folder = folder_of(name)
        where = f" [layer {layers[folder]}]" if layers and folder in layers else " [undeclared]"
        deps = " ".join(sorted(mod.deps)) or "-"
        print(f"  {name}{where}: {deps}")
        print(f"      files: {' '.join(mod.files)}")
        if mod.external:
            print(f"      not in the tree: {' '.join(sorted(mod.external))}")
    print("layers the current includes imply, lowest first ([a b]: a circle):")
    for row in implied_layers(modules):
        print("  " + " ".join(row))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the project's root (default: the parent of tools/)")
    parser.add_argument("--max-file-lines", type=int, default=500)
    parser.add_argument("--max-function-lines", type=int, default=60)
    parser.add_argument("--list", action="store_true", help="print the module graph, then check")
    args = parser.parse_args(argv)
    root = args.root.resolve()

    problems = []
    modules = find_modules(root)
    layers = read_order(root, problems)
    if args.list:
        print_graph(modules, layers)
    if layers is not None:
        check_order(modules, layers, problems)
    check_circles(modules, problems)
    core = read_core_folders(root, problems)
    if core is not None:
        check_core(root, layers, core, problems)
    check_test_folders(root, layers, problems)
    check_sizes(root, args.max_file_lines, args.max_function_lines, problems)

    for p in problems:
        print(p)
    if problems:
        print(f"check_structure: {len(problems)} problem(s) in {len(modules)} modules")
        return 1
    print(f"check_structure: OK ({len(modules)} modules in {len(layers or {})} folders, files <= "
          f"{args.max_file_lines} lines, "
          f"functions <= {args.max_function_lines} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
