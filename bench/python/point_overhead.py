"""One simulation point driven from Python (twinfab.run: a worker process that calls
the C++ launcher) against the same point from the CLI (twinfab sim), interleaved,
timed from outside both (wall clock of the whole call / process). Target (issue 34):
Python costs <= 5 % more. Exit status 3 when missed.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/point_overhead.py [REPEATS]
"""
import os
import shlex
import statistics
import subprocess
import sys
import time

import twinfab

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    prog = twinfab.build_program(os.path.join(REPO, "scenarios", "scaling", "src", "ring.c"))
    job = twinfab.Program(prog, 256, args=[100], platform="fat-tree-4096")
    cli = shlex.split(job.cli())
    py, sh = [], []
    ref = None
    for _ in range(repeats):
        start = time.monotonic()
        p = subprocess.run(cli, capture_output=True, text=True)
        sh.append(time.monotonic() - start)
        assert p.returncode == 0, p.stderr
        start = time.monotonic()
        r = job.run()
        py.append(time.monotonic() - start)
        assert r.ok, r.error
        assert r.stdout == p.stdout  # the same point
        ref = r
    c, q = statistics.median(sh), statistics.median(py)
    print(f"# one point: ring of 256 ranks, 100 iterations, fat-tree-4096 (simulated {ref.simulated_time * 1e3:.3f} ms)")
    print(f"CLI    (twinfab sim):  {', '.join(f'{t:.3f}' for t in sh)} s  median {c:.3f} s")
    print(f"Python (twinfab.run):  {', '.join(f'{t:.3f}' for t in py)} s  median {q:.3f} s")
    over = q / c - 1
    print(f"Python overhead = {100 * over:+.1f} %  (target <= +5 %: {'met' if over <= 0.05 else 'NOT met'})")
    return 0 if over <= 0.05 else 3


if __name__ == "__main__":
    sys.exit(main())
