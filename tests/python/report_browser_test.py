#!/usr/bin/env python3
"""The HTML report of `process` (docs/report.md) in a real browser.

Builds two campaign trees (plan.json and driver logs: three runs, two input sizes, three batch sizes, a FAIL
line, a `<script>` in a META value, a matrix label and an error text), runs `process --format html --out` on
one and `process --compare A B --format html --out` on both, then opens each page in headless Chromium:
- `--dump-dom`: the rendered DOM has the charts, their series, error bars and FAIL marks, the run labels,
  every META field, the failures and the comparison table, and no script or image element (the hostile
  values are text);
- `--screenshot` read with Pillow: each series' color and the red of the FAIL marks are drawn;
- behind a proxy of this test that records every request: the page asks for nothing (a control page that
  does ask is caught, so the check can fail). Chromium's own background requests (its component updater,
  sign-in and clock) are told apart by host.
Every browser run has a temporary profile and a time limit, and is killed with its process group past it.

Usage: report_browser_test.py --process build/process [--chromium PATH] [--keep DIR]
Exit 1 with what to install when Chromium or Pillow is missing (scripts/install-deps.sh installs both).
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import unittest
from html.parser import HTMLParser
from pathlib import Path

ARGS = None  # the command line, set in main()
BROWSER_SECONDS = 60
# Hosts Chromium itself calls on start (component updater, sign-in, network time), never a page's.
CHROMIUM_OWN_HOSTS = {"update.googleapis.com", "accounts.google.com", "clients2.google.com"}
EVIL_META = "<script>document.title='pwned'</script>"
EVIL_ERROR = "out of memory <img src=x onerror=alert(1)> <script>alert(2)</script>"
EVIL_LABEL = "<b>tagged</b>"
SERIES_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c"]  # svg_chart's first three styles
FAIL_RED = "#d62728"
INPUTS, BATCHES = (16, 128), (1, 4, 16)
# run id -> matrix values; A's latency factor; B's factor against A (faster, within noise, slower).
RUNS = {
    "r.1": ({"model:torch_dtype": "float32", "torch.call:set_num_threads": "1"}, 1.0, 0.5),
    "r.2": ({"model:torch_dtype": "bfloat16", "torch.call:set_num_threads": "1"}, 0.6, 1.01),
    "r.3": ({"model:torch_dtype": "bfloat16", "torch.call:set_num_threads": EVIL_LABEL}, 0.4, 2.0),
}


# ---------------------------------------------------------------------------------------------------
# Campaign trees, written as `driver run` writes them


def log_text(run_id, factor, git):
    """A driver log: ARG, META, and per combination RES and STAT; r.3 also fails at 128 x 64."""
    lines = [f"FMWORK ARG --batch_sizes {','.join(map(str, BATCHES))}", f"FMWORK ARG --input_sizes {','.join(map(str, INPUTS))}",
             "FMWORK ARG --model_class BertModel", "FMWORK ARG --model_name enc", "FMWORK ARG --platform cpu",
             f"FMWORK META driver=0.1.0 git={git} torch=2.13.0 platform=cpu threads=1 dtype=float32 note={EVIL_META}",
             "FMWORK SETUP 0.050000"]
    t = 1000
    for batch in BATCHES:
        for inp in INPUTS:
            lat = 0.05 * inp * batch ** 0.8 * factor
            sd = 0.03 * lat
            lines.append(f"FMWORK RES {t}.000000000 {t + 1}.000000000 enc BertModel {inp} {batch} {lat:.3f} "
                         f"{batch * 1000 / lat:.1f}")
            stats = " ".join(f"{k}={lat:.6f}" for k in ("p50_ms", "p90_ms", "p99_ms"))
            lines.append(f"FMWORK STAT input={inp} batch={batch} reps=10 dropped=2 mean_ms={lat:.6f} "
                         f"stddev_ms={sd:.6f} min_ms={lat - sd:.6f} {stats} max_ms={lat + sd:.6f}")
            t += 2
    if run_id == "r.3":
        lines.append(f"FMWORK FAIL input=128 batch=64 error={EVIL_ERROR}")
    return "\n".join(lines) + "\n"


def write_campaign(root, b_side):
    (root / "logs").mkdir(parents=True)
    plan = {"experiment": "exp.json", "runs": []}
    for run_id, (matrix, factor, b_factor) in RUNS.items():
        plan["runs"].append({"id": run_id, "run": "r", "matrix": matrix, "argv": ["--reps", "10"]})
        text = log_text(run_id, factor * (b_factor if b_side else 1), "bbbb222" if b_side else "aaaa111")
        (root / "logs" / f"{run_id}.log").write_text(text)
    (root / "plan.json").write_text(json.dumps(plan, indent=2))


# ---------------------------------------------------------------------------------------------------
# The browser


def chromium(url, *flags, proxy_port=9):
    """Runs headless Chromium on url with a fresh profile; its standard output. Killed past BROWSER_SECONDS."""
    with tempfile.TemporaryDirectory(prefix="report-chromium-") as profile:
        cmd = [ARGS.chromium, "--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={profile}",
               f"--proxy-server=127.0.0.1:{proxy_port}", "--proxy-bypass-list=<-loopback>", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-default-apps", "--disable-extensions", "--hide-scrollbars",
               "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate", *flags, url]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=BROWSER_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise AssertionError(f"chromium ran past {BROWSER_SECONDS} s on {url}")
        if proc.returncode != 0:
            raise AssertionError(f"chromium exited {proc.returncode} on {url}: {err.decode(errors='replace')[-2000:]}")
        return out.decode("utf-8", errors="replace")


class RequestRecorder:
    """A proxy that answers every request 502 and remembers its first line ("GET http://h/x", "CONNECT h:443")."""

    def __init__(self):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(32)
        self.port = self.server.getsockname()[1]
        self.requests = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    first = conn.recv(8192).split(b"\r\n", 1)[0].decode(errors="replace")
                    conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    first = "?"
                self.requests.append(first)

    def foreign(self):
        """The requests that are not Chromium's own."""
        def host(line):
            target = line.split(" ")[1] if " " in line else line
            return target.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
        return [r for r in self.requests if host(r) not in CHROMIUM_OWN_HOSTS]

    def close(self):
        self.server.close()


# ---------------------------------------------------------------------------------------------------
# The DOM Chromium dumps, as a tree


class Node:
    def __init__(self, tag, attrs):
        self.tag, self.attrs, self.children, self.texts = tag, dict(attrs), [], []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def all(self, tag=None, cls=None):
        """Every descendant with the tag and the class."""
        out = []
        for c in self.children:
            if (tag is None or c.tag == tag) and (cls is None or cls in c.classes()):
                out.append(c)
            out.extend(c.all(tag, cls))
        return out

    def text(self):
        return "".join(self.texts) + "".join(c.text() for c in self.children)

    def by_id(self, ident):
        return next(n for n in self.all() if n.attrs.get("id") == ident)


class DomBuilder(HTMLParser):
    VOID = {"meta", "link", "br", "img", "input", "hr", "area", "base", "col", "embed", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs)
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Node(tag, attrs))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        # Text goes to the open element, in order with its children: kept as the element's own text.
        self.stack[-1].texts.append(data)


def dom_of(html):
    builder = DomBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def color_count(image, hex_color, tolerance=10):
    """Pixels within `tolerance` of the color on each channel."""
    want = tuple(int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return sum(n for n, px in image.getcolors(maxcolors=1 << 24)
               if all(abs(px[k] - want[k]) <= tolerance for k in range(3)))


# ---------------------------------------------------------------------------------------------------
# The tests


class ReportInBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="report-browser-")
        cls.dir = Path(ARGS.keep) if ARGS.keep else Path(cls.tmp.name)
        cls.dir.mkdir(parents=True, exist_ok=True)
        for side in ("A", "B"):
            shutil.rmtree(cls.dir / side, ignore_errors=True)
            write_campaign(cls.dir / side, side == "B")
        cls.report = cls.dir / "report.html"
        cls.compare = cls.dir / "compare.html"
        for args in (["--path", str(cls.dir / "A"), "--format", "html", "--out", str(cls.report)],
                     ["--compare", str(cls.dir / "A"), str(cls.dir / "B"), "--format", "html", "--out", str(cls.compare)]):
            subprocess.run([ARGS.process, *args], check=True, timeout=60)
        cls.report_dom = dom_of(chromium(cls.report.as_uri(), "--dump-dom"))
        cls.compare_dom = dom_of(chromium(cls.compare.as_uri(), "--dump-dom"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def screenshot(self, page, name, height):
        from PIL import Image
        png = self.dir / name
        chromium(page.as_uri(), f"--screenshot={png}", f"--window-size=1400,{height}")
        return Image.open(png).convert("RGB")

    def test_the_page_names_nothing_outside_itself(self):
        for page in (self.report, self.compare):
            text = page.read_text()
            self.assertNotIn("http://", text)
            self.assertNotIn("https://", text)
            self.assertNotIn("url(", text)
            self.assertNotIn("@import", text)
            self.assertNotIn("<script", text)
            self.assertNotIn(" src=", text.replace("&lt;img src=x", ""))

    def test_no_request_leaves_the_page(self):
        control = self.dir / "control.html"
        control.write_text('<html><body><img src="http://example.invalid/x.png">'
                           '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=X"></body></html>')
        recorder = RequestRecorder()
        try:
            chromium(control.as_uri(), "--dump-dom", proxy_port=recorder.port)
            caught = recorder.foreign()
            self.assertTrue(any("example.invalid" in r for r in caught), recorder.requests)
            self.assertTrue(any("fonts.googleapis.com" in r for r in caught), recorder.requests)
            recorder.requests.clear()
            for page in (self.report, self.compare):
                chromium(page.as_uri(), "--dump-dom", proxy_port=recorder.port)
            self.assertEqual(recorder.foreign(), [])
        finally:
            recorder.close()

    def test_report_charts_series_error_bars_and_fail_marks(self):
        dom = self.report_dom
        self.assertTrue(dom.all("title")[0].text().startswith("fmwork report"))
        self.assertEqual(dom.all("script") + dom.all("img"), [])
        # One model: latency and tokens/s against the batch per input size, against the input per batch
        # size (64 too: r.3 failed there), each with the table of its numbers beside it.
        self.assertEqual(len(dom.all("div", "model")), 1)
        charts = dom.all("svg", "chart")
        self.assertEqual(len(charts), 2 * len(INPUTS) + 2 * (len(BATCHES) + 1))
        self.assertEqual(len(dom.all("table", "numbers")), len(charts) // 2)  # one beside each pair
        titles = [c.all("title")[0].text() for c in charts]
        self.assertIn("Latency vs batch, input 128", titles)
        self.assertIn("Tokens/s vs batch, input 16", titles)
        self.assertIn("Latency vs input size, batch 4", titles)
        for chart in charts[:2 * len(INPUTS)]:
            self.assertEqual(len(chart.all("g", "series")), len(RUNS))
            self.assertEqual(len(chart.all(cls="point")), len(RUNS) * len(BATCHES))
            self.assertEqual(len(chart.all("path", "error-bar")), len(RUNS) * len(BATCHES))
            self.assertIn("batch (log2 scale)", chart.text())
            self.assertEqual(chart.all("g", "legend"), [])  # one legend for the model, above its charts
        marks = dom.all("g", "fail-mark")
        self.assertEqual(len(marks), 4)  # 128 x 64 of r.3: both charts of input 128, both of batch 64
        for mark in marks:
            self.assertEqual(mark.all("title")[0].text(), f"r.3\ninput 128, batch 64: FAIL\n{EVIL_ERROR}")
        legend = [e.all("text")[0].text() for e in dom.all("svg", "legend-only")[0].all("g", "legend-entry")]
        self.assertEqual(legend[2], f"model:torch_dtype=bfloat16, torch.call:set_num_threads={EVIL_LABEL}")
        # And the failures' entry, and the rings' (the generated runs have too few reps to be ok).
        self.assertEqual(legend[len(RUNS):], ["failed (hover the cross for the error)",
                                              "ringed: verdict not ok (noisy, unstable, contended, too few reps; "
                                              "hover the point)"])
        self.assertEqual(len(charts[0].all("circle", "flagged")), len(RUNS) * len(BATCHES))

    def test_report_runs_labels_meta_and_failures(self):
        dom = self.report_dom
        runs = dom.by_id("runs").all("table", "runs")[0]
        rows = runs.all("tbody")[0].all("tr")
        self.assertEqual([r.all("a")[0].text() for r in rows], list(RUNS))
        self.assertIn(EVIL_LABEL, rows[2].text())
        for i, run_id in enumerate(RUNS, 1):
            section = dom.by_id(f"run-{i}")
            meta = {dt.text(): dd.text() for dt, dd in zip(section.all("dl", "meta")[0].all("dt"),
                                                           section.all("dl", "meta")[0].all("dd"))}
            self.assertEqual(meta, {"driver": "0.1.0", "git": "aaaa111", "torch": "2.13.0", "platform": "cpu",
                                    "threads": "1", "dtype": "float32", "note": EVIL_META})
            labels = [dt.text() for dt in section.all("dl", "labels")[0].all("dt")]
            self.assertEqual(labels, ["run_id", "run", "model:torch_dtype", "torch.call:set_num_threads"])
            self.assertIn(run_id, section.all("h3")[0].text())
        failures = dom.by_id("failures").all("tbody")[0].all("tr")
        self.assertEqual(len(failures), 1)
        self.assertEqual(failures[0].all("td", "error")[0].text(), EVIL_ERROR)

    def test_compare_table_and_chart(self):
        dom = self.compare_dom
        self.assertEqual(dom.all("script") + dom.all("img"), [])
        rows = dom.all("table", "pairs")[0].all("tbody")[0].all("tr")
        self.assertEqual(len(rows), len(RUNS) * len(INPUTS) * len(BATCHES))
        per_run = len(INPUTS) * len(BATCHES)
        verdicts = {v: sum(v in r.classes() for r in rows) for v in ("faster", "noise", "slower")}
        self.assertEqual(verdicts, {"faster": per_run, "noise": per_run, "slower": per_run})
        first = [td.text() for td in rows[0].all("td")]
        # The generated runs have too few reps to be ok: every ratio built on them carries the untrusted mark,
        # and the first column says which side's verdict is behind it, the CoVs beside it.
        self.assertEqual(first[:2], ["A noisy, B noisy", "3.0% / 3.0%"])
        # The run by what differs between the runs, its id beside it.
        self.assertEqual(first[2], "model:torch_dtype=float32, torch.call:set_num_threads=1 r.1")
        self.assertEqual(first[7:], ["0.500\u00d7 !", "2.000\u00d7 !", "beyond noise"])
        self.assertEqual(len(dom.all("svg", "chart")), len(INPUTS))
        self.assertEqual(len(dom.all("line", "reference")), len(INPUTS))
        meta = [[td.text() for td in tr.all("td")] for tr in dom.all("table", "meta-diff")[0].all("tbody")[0].all("tr")]
        self.assertEqual(meta, [["git", "aaaa111", "bbbb222"]])

    def test_report_pixels_series_colors_and_fail_red(self):
        image = self.screenshot(self.report, "report.png", 5000)
        # Lines of 2 px over the charts: thousands of pixels; the swatches of the tables (12 x 12 each) alone
        # would stay under 500.
        for color in SERIES_COLORS:
            self.assertGreater(color_count(image, color), 1000, color)
        self.assertGreater(color_count(image, FAIL_RED), 40)

    def test_compare_pixels(self):
        image = self.screenshot(self.compare, "compare.png", 2400)
        for color in SERIES_COLORS:
            self.assertGreater(color_count(image, color), 500, color)
        self.assertGreater(color_count(image, "#e3f4e6", 2), 1000)  # rows where B is faster
        self.assertGreater(color_count(image, "#fbe3e1", 2), 1000)  # rows where B is slower
        self.assertLess(color_count(image, FAIL_RED), 5)  # no FAIL in a comparison: the red is the marks'


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--process", required=True, help="the process executable")
    parser.add_argument("--chromium", default=None, help="the browser (default: chromium on PATH)")
    parser.add_argument("--keep", default=None, help="write the trees, pages and screenshots here and keep them")
    ARGS, rest = parser.parse_known_args()
    ARGS.chromium = ARGS.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if not ARGS.chromium:
        print("error: no chromium on PATH: run scripts/install-deps.sh (Debian: apt-get install chromium)")
        return 1
    try:
        import PIL  # noqa: F401
    except ImportError:
        print("error: no Pillow in this Python: run scripts/install-deps.sh (or pip install pillow)")
        return 1
    result = unittest.main(argv=[sys.argv[0], *rest], exit=False).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
