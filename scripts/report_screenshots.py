#!/usr/bin/env python3
"""The README's report screenshots (docs/images/report-*.png) from a campaign tree, and the serving chart
(docs/images/serve-latency-chart.png) from a log of `driver serve`, in headless Chromium.

Writes the report (`process --format html`) and the speedup page (`process --baseline KEY=VALUE --format
html`) of the tree, screenshots each at 1400 px wide, crops the parts named below and stores them as
palette PNGs (a few tens of KB each): report-charts.png and report-speedups.png. Look at them before committing: they are what a reader sees first.

Usage: report_screenshots.py --process build-core/process --tree DIR [--baseline dtype=float32]
                             [--out docs/images] [--chromium PATH] [--keep DIR]
       report_screenshots.py --process build-core/process --serve LOG [--serve-cut TOP BOTTOM] [--out docs/images]
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WIDTH = 1400


def screenshot(chromium, page, png, height):
    with tempfile.TemporaryDirectory(prefix="report-shot-") as profile:
        subprocess.run([chromium, "--headless", "--disable-gpu", "--no-sandbox", f"--user-data-dir={profile}",
                        "--hide-scrollbars", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", f"--window-size={WIDTH},{height}", f"--screenshot={png}",
                        page.as_uri()], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)


def save(image, box, path):
    """The part `box` (left, top, right, bottom) of image, as a 256-color PNG."""
    part = image.crop(box).convert("RGB").quantize(colors=256, dither=0)
    part.save(path, optimize=True)
    print(f"{path}: {part.size[0]}x{part.size[1]}, {path.stat().st_size // 1024} KB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--process", required=True)
    parser.add_argument("--tree", help="the campaign folder (ROOT/<user>/<host>/<time>)")
    parser.add_argument("--serve", help="a log of driver serve: its report's serving section only")
    parser.add_argument("--serve-cut", type=int, nargs=2, default=(470, 1385), help="the serving section's top, bottom")
    parser.add_argument("--baseline", default="dtype=float32")
    parser.add_argument("--out", default="docs/images")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser"))
    parser.add_argument("--keep", default=None, help="keep the pages and full screenshots here")
    # Where to cut, in pixels of the 1400 px wide page: top, bottom of each part (found by looking).
    parser.add_argument("--charts", type=int, nargs=2, default=(1150, 1935), help="the first model's charts")
    parser.add_argument("--speedups", type=int, nargs=2, default=(0, 620), help="the speedup page's top")
    args = parser.parse_args()
    if not args.chromium:
        print("error: no chromium on PATH (Debian: apt-get install chromium)")
        return 1
    from PIL import Image

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="report-shots-"))
    work.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    if args.serve:
        page = work / "serve.html"
        subprocess.run([args.process, "--path", args.serve, "--format", "html", "--out", str(page)], check=True)
        screenshot(args.chromium, page, work / "serve-full.png", args.serve_cut[1])
        save(Image.open(work / "serve-full.png"), (0, args.serve_cut[0], WIDTH, args.serve_cut[1]),
             out / "serve-latency-chart.png")
        if not args.keep:
            shutil.rmtree(work)
        return 0
    if not args.tree:
        print("error: give --tree DIR (a campaign) or --serve LOG")
        return 2
    report, speedups = work / "report.html", work / "speedups.html"
    subprocess.run([args.process, "--path", args.tree, "--format", "html", "--out", str(report)], check=True)
    subprocess.run([args.process, "--path", args.tree, "--baseline", args.baseline, "--format", "html", "--out",
                    str(speedups)], check=True)
    screenshot(args.chromium, report, work / "report-full.png", args.charts[1])
    screenshot(args.chromium, speedups, work / "speedups-full.png", args.speedups[1])
    full = Image.open(work / "report-full.png")
    save(full, (0, args.charts[0], WIDTH, args.charts[1]), out / "report-charts.png")
    save(Image.open(work / "speedups-full.png"), (0, args.speedups[0], WIDTH, args.speedups[1]),
         out / "report-speedups.png")
    if not args.keep:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
