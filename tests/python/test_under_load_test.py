#!/usr/bin/env python3
"""Tests of scripts/test-under-load.sh: its busy loops and the run it watches end with it, however it ends.

The script is copied into a made-up checkout whose scripts/test.sh is a stand-in that records its process id
and waits; the script is then stopped (SIGTERM, SIGINT) or killed (SIGKILL) while the stand-in runs. Before
the fix a TERM waited for the whole run (bash runs a trap only after the command in the foreground), so the
loops kept a CPU each until then; a kill -9 left them running for good."""
# check_references: not checked (the paths below are those of the made-up checkout the tests write)

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "test-under-load.sh"
# A bound on work that ends, never a speed: the script answers a signal at once; the loops look at it every
# tenth of a second or so.
HANG = 120

STAND_IN = """#!/usr/bin/env bash
echo $$ > "$(dirname "$0")/../run.pid"
grep SigIgn /proc/$$/status > "$(dirname "$0")/../run.sigign"
exec sleep 600
"""


def alive(pid):
    """Whether `pid` is a process that has not ended (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_until(predicate, what):
    deadline = time.monotonic() + HANG
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not the case after {HANG} s: {what}")
        time.sleep(0.05)


class TestUnderLoad(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="fmwork-under-load-"))
        (self.dir / "scripts").mkdir()
        shutil.copy(SCRIPT, self.dir / "scripts" / "test-under-load.sh")
        stand_in = self.dir / "scripts" / "test.sh"
        stand_in.write_text(STAND_IN)
        stand_in.chmod(0o755)
        self.pids = []
        self.groups = []
        self.procs = []

    def tearDown(self):
        for kill, pid in [(os.killpg, g) for g in self.groups] + [(os.kill, p) for p in self.pids]:
            try:  # whatever a failed test left running
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for proc in self.procs:
            proc.stdout.close()
            proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self):
        """The script with one loop, once the stand-in runs: (the script, its loops' pids, the run's pid)."""
        for name in ("run.pid", "run.sigign"):
            (self.dir / name).unlink(missing_ok=True)
        proc = subprocess.Popen(["bash", str(self.dir / "scripts" / "test-under-load.sh"), "1"],
                                stdout=subprocess.PIPE, text=True)
        self.procs.append(proc)
        self.pids.append(proc.pid)
        first = proc.stdout.readline()
        loops = [int(p) for p in re.search(r"\(pids ([0-9 ]+)\)", first).group(1).split()]
        self.pids += loops
        pid_file = self.dir / "run.pid"
        wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(), "the stand-in run started")
        run = int(pid_file.read_text())
        self.pids.append(run)
        if os.getpgid(run) == run:
            self.groups.append(run)
        return proc, loops, run

    def test_a_signal_stops_the_run_and_the_loops_at_once(self):
        for sig, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)):
            with self.subTest(signal=sig.name):
                proc, loops, run = self.start()
                proc.send_signal(sig)
                try:
                    self.assertEqual(proc.wait(timeout=HANG), status)
                except subprocess.TimeoutExpired:
                    self.fail(f"the script waited for its run after {sig.name}")
                for pid in loops + [run]:
                    wait_until(lambda: not alive(pid), f"process {pid} ended with the script")

    def test_the_run_gets_sigint_back(self):
        proc, _, _ = self.start()
        sigign = int((self.dir / "run.sigign").read_text().split()[1], 16)
        self.assertEqual(sigign & (1 << (signal.SIGINT - 1)), 0, "the run ignores SIGINT")
        proc.terminate()
        proc.wait(timeout=HANG)

    def test_the_loops_end_when_the_script_is_killed(self):
        proc, loops, run = self.start()
        proc.kill()
        proc.wait(timeout=HANG)
        for pid in loops:
            wait_until(lambda: not alive(pid), f"loop {pid} ended after its script was killed")
        os.killpg(run, signal.SIGKILL)  # no trap runs on a kill -9: the run is the caller's to stop

    def test_the_loops_end_with_the_run(self):
        stand_in = self.dir / "scripts" / "test.sh"
        stand_in.write_text("#!/usr/bin/env bash\nexit 3\n")
        out = subprocess.run(["bash", str(self.dir / "scripts" / "test-under-load.sh"), "1"], capture_output=True,
                             text=True, timeout=HANG)
        self.assertEqual(out.returncode, 3)
        loops = [int(p) for p in re.search(r"\(pids ([0-9 ]+)\)", out.stdout).group(1).split()]
        self.pids += loops
        for pid in loops:
            wait_until(lambda: not alive(pid), f"loop {pid} ended with the run")


if __name__ == "__main__":
    unittest.main()
