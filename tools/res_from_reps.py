#!/usr/bin/env python3
"""Recomputes each RES line's latency and throughput from its REP lines, as upstream's Python does, and
prints one line per RES: `RES <input> <batch> same` or `RES <input> <batch> differs: <ours> <python>`.
An independent check that the driver's RES numbers are upstream's formula applied to its own REP lines."""
import sys


def nanos(text):
    sec, _, frac = text.partition(".")
    return int(sec or "0") * 10**9 + int(frac)


def main(path):
    durations = []
    for line in open(path, encoding="utf-8", errors="surrogateescape"):
        if not line.endswith("\n"):
            break  # a last line cut short (no line end) may end mid-value: no record, as process reads it
        f = line.rstrip("\n").split(" ")
        if f[:2] == ["FMWORK", "REP"]:
            durations.append((nanos(f[5]) - nanos(f[4])) / 1e9)
        elif f[:2] == ["FMWORK", "RES"]:
            batch = int(f[7])
            kept = durations[int(max(0.2 * len(durations), 1)):]
            kept.sort()
            n = len(kept)
            med = kept[n // 2] if n % 2 else (kept[n // 2 - 1] + kept[n // 2]) / 2.0
            python = "%.3f %.1f" % (med * 1000.0, batch / med)
            ours = " ".join(f[8:10])
            verdict = "same" if ours == python else "differs: %s %s" % (ours, python)
            print("RES %s %s %s" % (f[6], f[7], verdict))
            durations = []
        elif f[:2] == ["FMWORK", "FAIL"]:
            durations = []


if __name__ == "__main__":
    main(sys.argv[1])
