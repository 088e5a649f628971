#!/usr/bin/env python3
"""Checks that the repository's text names only what the repository holds.

A reader of the repository has the repository and nothing else: a path that moved, a page outside the tree
or an issue in a tracker they cannot see is a dead end. Read: every Markdown file (README.md, docs/,
bench/README.md, CONTRIBUTING.md, the folders' READMEs) and every source file under src/, include/, tests/,
scripts/, tools/, bench/, fuzz/, plugins/ and cmake/ with the CMakeLists.txt files (whole text: comments, and
string literals, which hold the help). Checked:
- a path rooted at a top-level entry of the repository (`src/encoders/bert.cpp`, `docs/`, `tests/<folder>/`)
  exists; `<placeholder>` and `*` match any name, `{a,b}` each alternative, and a pattern must match something;
- in Markdown and comments, also: a module named by its folder (`log/log_format`, `encoders/`) exists under
  src/ or include/fmwork/; a partial path or a bare name of a C or C++ file (`hf/config.hpp`, `bert.cpp`),
  or a partial path of a Python, shell or Markdown file (`python/configs_test.py`), is the end of some file's
  path in the repository, unless it is a known outside name (`EXTERNAL_NAMES`: headers of the CUDA toolkit,
  other projects' files that the text cites on purpose). A bare Python, shell or Markdown name is not
  checked (comments cite transformers' modules and model cards' READMEs too often), nor anything but rooted
  paths in code, whose strings hold test data (`"../x"`, a zip's `ts/code/m.py`);
- a Markdown link's target exists, resolved from the page's folder, and stays inside the repository;
- in Markdown and C and C++ comments, a symbol of the code named as one (`prepare_bench()`, `Platform::name`,
  and in Markdown a backquoted snake_case name, `bench_meta`) still stands in the code: in a line of a source
  file that is not a comment, or as a file's name (a module, a fuzz target); `EXTERNAL_SYMBOLS` holds the
  names of other projects that the text cites on purpose. A renamed or deleted function leaves no comment
  behind that names it. A qualified `Type::member` whose Type is a struct, class or enum of the code must
  also find the member in that type's body (or the two written together in code): `Model::forward_flops`
  passed while only ModelFacts had it;
- no text points outside the repository (`../` out of it, an absolute path into a workspace) or to an issue
  of a tracker a reader cannot see ("the <word> issue", "issue <number>"); another project's public tracker
  named with the project (pytorch's, an owner/name repository's) is fine.
Not repository paths, so not checked: build outputs (`build/...`, `.venv/`), shell and CMake variables
(`$OUT/...`; `${CMAKE_SOURCE_DIR}/x` is checked as `x`), `#include` lines (the compiler checks those), URLs.
A file that names made-up paths on purpose (a test's fake tree) says so with a line holding
`check_references: not checked`.

Output: one line per problem (`file:line: ...`), then a summary line; exit status 0 when clean, 1 otherwise.
"""

# check_references: not checked (this file quotes the phrases and paths it looks for)

import argparse
import fnmatch
import itertools
import os
import re
import sys
from pathlib import Path

SOURCE_DIRS = ("src", "include", "tests", "scripts", "tools", "bench", "fuzz", "plugins", "cmake")
SOURCE_EXTS = (".cpp", ".hpp", ".h", ".cc", ".c", ".py", ".sh", ".cmake")
# What a bare or partial name must end in to be taken as a file of the repository. Names ending otherwise
# (config.json, model.pt, run.log) are mostly files the programs read or write at run time.
NAMED_EXTS = (".cpp", ".hpp", ".h", ".cc")
# A partial path (a folder and a name) of these kinds is taken as ours too; a bare name is not.
PARTIAL_EXTS = (".py", ".sh", ".md", ".cmake")
# Folders that are never the repository's own: build outputs, environments, carried copies.
SKIPPED_DIR_RE = re.compile(r"^(build.*|\..*|__pycache__|node_modules)$")
# Names from outside the repository that the text cites on purpose, with where they come from.
EXTERNAL_NAMES = {
    "cuda_runtime_api.h": "the CUDA toolkit's runtime header",
    "cuda_cmake_macros.h": "c10's generated CUDA header, which the CPU wheel lacks",
    "nvml.h": "NVIDIA's NVML header (nvidia-nvml-dev), which the CUDA toolkit here lacks",
    "system_under_test.h": "MLPerf LoadGen's SUT interface",
    "sampleReporting.cpp": "TensorRT's trtexec reporting, whose thresholds the noise verdicts follow",
    "mydev.cpp": "a plugin author's own source, in docs/plugins.md's example",
    "launchers/process/launcher.py": "optimum-benchmark's process launcher (bench/optimum_bench.py)",
    "backend/embeddings/models/Qwen3-Embedding-0.6B/README.md": "a public repository's copy of a model card",
    "src/AiRaccoon/Models/granite-embedding-small-english-r2/ai-raccoon.manifest.json":
        "a public repository's file that pins a model's files (configs/models/README.md's sources)",
}
# Symbols of other projects that the text names the way it names ours (`name()`, `name`), with where they come from.
EXTERNAL_SYMBOLS = {
    "use_cache": "a transformers config key (configs/models READMEs: what the shipped configs leave out)",
    "gradient_checkpointing": "a transformers config key",
    "output_past": "a transformers config key",
    "sendnn_decoder": "a torch_sendnn compile backend (docs/plugins.md)",
    "sendnn_compile_only": "a torch_sendnn compile backend (docs/plugins.md)",
    "torch_spyre": "IBM's Spyre PyTorch package (docs/plugins.md)",
}
# First segments of C and C++ include paths that belong to other projects.
# Executables a build folder holds under names that read like repository paths (scripts name them relative
# to build/ or build-cuda/).
BUILT_PATHS = {"tests/torch_tests", "tests/core_tests"}

EXTERNAL_ROOTS = {"torch", "ATen", "c10", "caffe2", "fmt", "nlohmann", "CLI", "gtest", "gmock", "sys", "linux",
                  "cuda", "google", "benchmark", "mkl", "dnnl", "oneapi"}

TOKEN_RE = re.compile(r"(?:[\w.*<>+-]|\{[\w.,+-]*\}|/)+")
LINK_RE = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
URL_RE = re.compile(r"[a-z][a-z0-9+.-]*://\S+|\bwww\.\S+|\b[\w-]+(?:\.[\w-]+)+\.(?:com|org|io|net|ai|dev)/\S*")
ABSOLUTE_WORKSPACE_RE = re.compile(r"(?<![\w.])/work/[\w./-]+")
ISSUE_THE_RE = re.compile(r"\b(?:the|this|that|an|our|its)\s+(?:[\w-]+\s+){0,3}?issue(?:'s)?\b", re.I)
ISSUE_OWNED_RE = re.compile(r"\S+ issue's", re.I)  # "the CUDA-graphs issue's" across a line break
ISSUE_NUMBER_RE = re.compile(r"\b(?:issue|PR)\s*#?\d+", re.I)
# An issue of another project, named with it: "pytorch issue 1", "QwenLM/Qwen3-Embedding issue #122".
OUTSIDE_TRACKER_RE = re.compile(r"(?:\b(?:pytorch|transformers|huggingface|llvm|gcc|cmake)|[\w.-]+/[\w.-]+)\s+$",
                                re.I)
# The opt-out, on a comment line of its own (a mention of it elsewhere, as in this file, opts nothing out).
SKIP_RE = re.compile(r"^\s*(?:#|//)\s*check_references: not checked", re.M)
COMMENT_LINE_RE = re.compile(r"\s*(?://|#|\*|/\*)")
COMMENT_LEAD_RE = re.compile(r"^\s*(?:#|//|\*)?\s*")
CMAKE_DIR_RE = re.compile(r"\$\{CMAKE_(CURRENT_)?SOURCE_DIR\}/")
# A placeholder of several words, `<core folder>`: one token, so that the path around it is one too.
SPACED_PLACEHOLDER_RE = re.compile(r"<([\w-]+(?: [\w-]+)+)>")
ALL_CAPS_RE = re.compile(r"^[A-Z][A-Z0-9_]+$")
IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A symbol named as one: a call with empty parentheses (`make_serve_line()`), a qualified member
# (`Platform::name`), and in Markdown a backquoted snake_case name.
SYMBOL_CALL_RE = re.compile(r"(?<![\w.:>$-])((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)\(\)")
SYMBOL_QUALIFIED_RE = re.compile(r"\b([A-Z]\w*::[a-z_]\w*)\b")
SYMBOL_TICKED_RE = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?:\(\))?`")
C_EXTS = (".cpp", ".hpp", ".h", ".cc", ".c")


def walk(root, top="."):
    """Files under root/top as sorted '/'-separated paths relative to root, skipping SKIPPED_DIR_RE folders."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root / top):
        dirnames[:] = sorted(d for d in dirnames if not SKIPPED_DIR_RE.match(d))
        out.extend((Path(dirpath) / name).relative_to(root).as_posix() for name in filenames)
    return sorted(out)


class Tree:
    """The repository's files and folders, for existence, pattern and suffix look-ups."""

    def __init__(self, root):
        self.root = root
        self.files = walk(root)
        self.paths = set(self.files)
        self.dirs = {"."}
        for f in self.files:
            parts = f.split("/")
            for k in range(1, len(parts)):
                self.dirs.add("/".join(parts[:k]))
        self.top = {p.split("/")[0] for p in self.files} - {"LICENSE"}
        # The layer folders: a module is named `folder/name` (`log/log_format`).
        self.layers = {p.split("/")[1] for p in self.files if p.startswith("src/") and p.count("/") >= 2}

    def exists(self, rel):
        rel = rel.rstrip("/")
        return rel in self.paths or rel in self.dirs

    def matches(self, pattern):
        """Whether a glob (`*` within one segment) names a file or folder."""
        pattern = pattern.rstrip("/")
        depth = pattern.count("/")
        return any(p.count("/") == depth and fnmatch.fnmatchcase(p, pattern) for p in self.paths | self.dirs)

    def ends_with(self, name):
        return any(p == name or p.endswith("/" + name) for p in self.paths | self.dirs)


def expand(token):
    """The alternatives of `{a,b}` groups, placeholders `<x>` turned into `*`."""
    token = re.sub(r"<[^<>/]*>", "*", token)
    parts = re.split(r"(\{[^{}]*\})", token)
    choices = [p[1:-1].split(",") if p.startswith("{") and p.endswith("}") else [p] for p in parts]
    return ["".join(c) for c in itertools.product(*choices)]


def clean(token):
    """The token without the punctuation a sentence puts around a path."""
    token = token.strip(",;:'\"`()[]")
    while token.endswith((".", ",")):
        token = token[:-1]
    return token


def rooted_problem(tree, token, where):
    """A path from the repository's root (or the file's folder): it, or each alternative, must name something.
    An all-caps segment that names nothing is a placeholder (`configs/models/NAME/config.json`)."""
    for alternative in expand(token):
        candidates = [os.path.normpath(alternative),
                      os.path.normpath(os.path.join(os.path.dirname(where), alternative))]
        if any("*" not in c and tree.exists(c) for c in candidates):
            continue
        pattern = "/".join("*" if ALL_CAPS_RE.match(seg) else seg for seg in alternative.split("/"))
        if "*" in pattern and tree.matches(pattern):
            continue
        return f"{token} {'matches nothing in' if '*' in pattern else 'does not exist in'} the repository"
    return None


def module_problem(tree, token):
    """A module or folder named from its layer: `log/log_format`, `platform/cuda/`."""
    rest = token.rstrip("/")
    candidates = (f"include/fmwork/{rest}.hpp", f"include/fmwork/{rest}.h", f"src/{rest}.cpp", f"src/{rest}.hpp",
                  f"src/{rest}", f"include/fmwork/{rest}")
    if any(tree.exists(c) for c in candidates):
        return None
    return f"{token} is no module or folder of src/ or include/fmwork/"


def named_problem(tree, token, where):
    """A bare or partial file name: the end of some path of the repository (or one beside `where`)."""
    for alternative in expand(token):
        if not tree.ends_with(alternative) and not tree.exists(os.path.join(os.path.dirname(where), alternative)):
            return f"{token} is no file of the repository"
    return None


def outside_problem(tree, token, where):
    """A `../` path: from the file's folder; where that names nothing, as from the root (docs name paths so)."""
    target = os.path.normpath(os.path.join(os.path.dirname(where), token))
    if not target.startswith("..") and tree.exists(target):
        return None
    if target.startswith("..") or os.path.normpath(token).startswith(".."):
        return f"{token} points outside the repository"
    return f"{token} does not exist in the repository"


def path_problem(tree, token, where, prose):
    """What is wrong with a path-like token of the file `where`, or None (fine, or not a repository path).
    `prose`: the token is in a page or a comment, not in code, whose strings hold test data."""
    if not token or "..." in token or token.startswith(("$", "~", "-", "/", "build", "*", ".venv", ".carry")):
        return None
    if re.search(r"\{[^,{}]*\}", token):  # a variable in a format string: f"{name}.cpp"
        return None
    if token in EXTERNAL_NAMES or token.rsplit("/", 1)[-1] in EXTERNAL_NAMES or token in BUILT_PATHS:
        return None
    if token.startswith("../"):
        return outside_problem(tree, token, where) if prose else None
    first = token.split("/")[0]
    if first in tree.top and ("/" in token or "." in token):
        return rooted_problem(tree, token, where)
    if not prose or "*" in token or "<" in token or first in EXTERNAL_ROOTS:
        return None
    if first in tree.layers and "/" in token and "." not in token:
        return module_problem(tree, token)
    named = NAMED_EXTS + (PARTIAL_EXTS if "/" in token else ())
    if token.endswith(named) and not token.rsplit("/", 1)[-1].startswith("."):  # not a bare extension: `.cpp`
        return named_problem(tree, token, where)
    return None


def link_problem(tree, target, where):
    """A Markdown link's target, resolved from the page's folder."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
        return None
    path = target.split("#")[0]
    resolved = os.path.normpath(os.path.join(os.path.dirname(where), path))
    if resolved.startswith("..") or os.path.isabs(path):
        return f"link {target} points outside the repository"
    return None if tree.exists(resolved) else f"link {target} does not exist in the repository"


def code_symbols(root, tree, files):
    """Every identifier of the code (source lines that are not comments, strings included: the help names keys),
    and the names files give modules and fuzz targets."""
    known = set(EXTERNAL_SYMBOLS)
    for rel in tree.files:
        stem = rel.rsplit("/", 1)[-1].split(".")[0]
        known.update({stem, re.sub(r"_(fuzz|test)$", "", stem)})
    for rel, is_markdown in files:
        if is_markdown:
            continue
        for line in (root / rel).read_text(encoding="utf-8", errors="replace").splitlines():
            if COMMENT_LINE_RE.match(line):
                continue
            if rel.endswith(C_EXTS) and "//" in line:
                line = line[:line.index("//")]
            known.update(IDENT_RE.findall(line))
            known.update(m.group(1) for m in SYMBOL_QUALIFIED_RE.finditer(line))
    return known


TYPE_BODY_RE = re.compile(r"\b(?:struct|class|enum class|enum)\s+([A-Z]\w*)\b[^;{(]*\{")


def type_members(root, files):
    """The identifiers in the body of each struct, class and enum of the code, by type name (the body found by
    counting braces from the declaration; one type declared in several places unites its bodies): what
    `Type::member` may name. Comments are left out, so that a member that is only mentioned does not count."""
    members = {}
    for rel, is_markdown in files:
        if is_markdown or not rel.endswith(C_EXTS):
            continue
        lines = (root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
        code = "\n".join(line[:line.index("//")] if "//" in line else line for line in lines)
        for match in TYPE_BODY_RE.finditer(code):
            depth, at = 0, match.end() - 1
            for at in range(match.end() - 1, len(code)):
                depth += {"{": 1, "}": -1}.get(code[at], 0)
                if depth == 0:
                    break
            members.setdefault(match.group(1), set()).update(IDENT_RE.findall(code[match.end():at]))
    return members


def qualified_problems(line, members, known):
    """`Type::member` where the code has Type but no member of that name in it, nor the two written together
    anywhere (a static defined out of line, a nested name): the member moved or was renamed."""
    problems = []
    for m in SYMBOL_QUALIFIED_RE.finditer(line):
        owner, member = m.group(1).split("::")
        if owner in members and member not in members[owner] and m.group(1) not in known:
            problems.append(f"{m.group(1)} is named as a member of {owner}, which has none of that name (moved or renamed?)")
    return problems


def symbol_problems(line, rel, is_markdown, known, members):
    """Symbols a page or a comment names that the code no longer has."""
    if not is_markdown:
        if not rel.endswith(C_EXTS):
            return []
        at = line.find("//")
        if at < 0 and not COMMENT_LINE_RE.match(line):
            return []
        line = line[at:] if at >= 0 else line
    named = [m.group(1).split("::")[-1] for m in SYMBOL_CALL_RE.finditer(line)]
    named += [part for m in SYMBOL_QUALIFIED_RE.finditer(line) for part in m.group(1).split("::")]
    if is_markdown:
        named += [m.group(1) for m in SYMBOL_TICKED_RE.finditer(line)]
    missing = sorted({name for name in named if len(name) >= 4 and name not in known})
    return [f"{name} is named as a symbol of the code, which has none of that name (renamed or gone?)"
            for name in missing] + qualified_problems(line, members, known)


def uncommented(text):
    return COMMENT_LEAD_RE.sub("", text)


def issue_problems(line, before):
    """Issues of a tracker the reader cannot see. `before` is the previous line, for a project's name there."""
    matches = list(ISSUE_THE_RE.finditer(line))
    found = [m.group(0) for m in matches]
    found += [m.group(0) for m in ISSUE_OWNED_RE.finditer(line)
              if not any(t.start() <= m.start() < t.end() for t in matches)]
    for m in ISSUE_NUMBER_RE.finditer(line):
        if not OUTSIDE_TRACKER_RE.search(uncommented(before) + " " + uncommented(line[:m.start()])):
            found.append(m.group(0))
    return [f"\"{text}\" names an issue a reader of the repository cannot see: say what it asked instead"
            for text in found]


def check_line(tree, rel, number, line, before, is_markdown, problems, known, members):
    def report(message):
        problems.append(f"{rel}:{number}: {message}")

    for message in symbol_problems(line, rel, is_markdown, known, members):
        report(message)
    if re.match(r"\s*#\s*include\b", line):
        return
    for m in ABSOLUTE_WORKSPACE_RE.finditer(line):
        report(f"{m.group(0).rstrip('.')} points outside the repository")
    for message in issue_problems(line, before):
        report(message)
    text = URL_RE.sub(" ", line)
    if rel.endswith(("CMakeLists.txt", ".cmake")):
        here = os.path.dirname(rel)
        text = CMAKE_DIR_RE.sub(lambda m: (here + "/" if m.group(1) and here else ""), text)
    text = SPACED_PLACEHOLDER_RE.sub(lambda m: "<" + m.group(1).replace(" ", "_") + ">", text)
    if is_markdown:
        for m in LINK_RE.finditer(text):
            message = link_problem(tree, m.group(1), rel)
            if message:
                report(message)
        text = LINK_RE.sub("]", text)
    prose = is_markdown or bool(COMMENT_LINE_RE.match(line))
    seen = set()
    for m in TOKEN_RE.finditer(text):
        if m.start() > 0 and text[m.start() - 1] in "$%@":  # a variable: $OUT/x, ${DIR}/x, @VAR@
            continue
        token = clean(m.group(0))
        if token.startswith("../") and m.start() > 0 and text[m.start() - 1] in "\"'":
            continue  # a quoted value, as a message or a test gives it ("../x" is refused), not a reference
        if token in seen:
            continue
        seen.add(token)
        message = path_problem(tree, token, rel, prose)
        if message:
            report(message)


def scanned_files(tree):
    out = []
    for rel in tree.files:
        top = rel.split("/")[0]
        name = rel.rsplit("/", 1)[-1]
        if rel.endswith(".md"):
            out.append((rel, True))
        elif name == "CMakeLists.txt" or (top in SOURCE_DIRS and rel.endswith(SOURCE_EXTS)):
            if "/corpus/" not in rel and "/regressions/" not in rel:
                out.append((rel, False))
    return out


def check(root):
    tree = Tree(root)
    problems = []
    files = scanned_files(tree)
    known = code_symbols(root, tree, files)
    members = type_members(root, files)
    for rel, is_markdown in files:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        if SKIP_RE.search(text):
            continue
        before = ""
        for number, line in enumerate(text.splitlines(), 1):
            check_line(tree, rel, number, line, before, is_markdown, problems, known, members)
            before = line
    return files, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the project's root (default: the parent of tools/)")
    args = parser.parse_args(argv)
    files, problems = check(args.root.resolve())
    for p in problems:
        print(p)
    if problems:
        print(f"check_references: {len(problems)} problem(s) in {len(files)} files")
        return 1
    print(f"check_references: OK ({len(files)} files, every path and symbol named exists, nothing points outside)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
