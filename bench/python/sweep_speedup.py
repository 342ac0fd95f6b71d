"""A 16-point sweep on this machine's cores against the same 16 points run one at a
time, interleaved (serial, parallel, serial, parallel, ...) so that both see the
same machine load; each repetition starts with an empty cache. Target (issue 34):
parallel <= 0.6 x serial on 2 cores. Exit status 3 when missed.

    PYTHONPATH=build/python /usr/bin/python3 bench/python/sweep_speedup.py [REPEATS]
"""
import os
import statistics
import sys
import tempfile
import time

import twinfab

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    prog = twinfab.build_program(os.path.join(REPO, "scenarios", "scaling", "src", "ring.c"))
    # 16 points of ~0.5-1 s each: rings of 2..64 ranks, on-demand, four loss seeds.
    grid = {"n": [8, 16, 32, 64], "seed": [1, 2, 3, 4]}

    def point(p):
        return twinfab.Program(prog, p["n"], args=[200], platform="fat-tree-4096", loss=0.001, seed=p["seed"])

    def timed(jobs):
        with tempfile.TemporaryDirectory() as cache:
            start = time.monotonic()
            df = twinfab.sweep(point, grid, cache_dir=cache, jobs=jobs, progress=False)
            elapsed = time.monotonic() - start
        assert df["ok"].all(), df[~df["ok"]]["error"].tolist()
        return elapsed

    cores = os.cpu_count()
    serial, parallel = [], []
    for _ in range(repeats):
        serial.append(timed(1))
        parallel.append(timed(cores))
    s, p = statistics.median(serial), statistics.median(parallel)
    print(f"# 16-point sweep (rings of 8-64 ranks, 0.1 % loss, 4 seeds), {repeats} interleaved repetitions")
    print(f"serial   (jobs=1): {', '.join(f'{t:.2f}' for t in serial)} s  median {s:.2f} s")
    print(f"parallel (jobs={cores}): {', '.join(f'{t:.2f}' for t in parallel)} s  median {p:.2f} s")
    ratio = p / s
    print(f"parallel / serial = {ratio:.2f}  (target <= 0.60: {'met' if ratio <= 0.6 else 'NOT met'})")
    return 0 if ratio <= 0.6 else 3


if __name__ == "__main__":
    sys.exit(main())
