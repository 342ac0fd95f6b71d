#!/usr/bin/python3
"""Simulator memory per rank of an MPI C program under `twinfab sim`, against a limit.

    memory_per_rank.py TWINFAB PROGRAM PLATFORM SMALL LARGE LIMIT_KB [ARG ...]
    memory_per_rank.py --skip REASON      (exit 77: a build whose figure means nothing)

Runs PROGRAM with SMALL and then LARGE ranks on PLATFORM and prints the growth of
the peak resident set per added rank, (peak at LARGE - peak at SMALL) / (LARGE -
SMALL), which the issue's scale target (a 4096-rank ring at most 40 KB per rank;
bench/smpi_ring.sh measures it at 4096 ranks against SMPI) bounds. Fails (exit 1)
above LIMIT_KB. What moves this figure is mostly whole pages per rank: a rank's
stack reaching a second page, a page of heap, the program copy's pages
(docs/performance-notes.md), so a change that adds one shows here at once.
"""
import os
import subprocess
import sys


def peak_kb(command):
    """Runs `command` (its output discarded) and returns its peak resident set in KB."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        sys.exit(f"memory_per_rank: {' '.join(command)} failed ({process.returncode}):\n{error}")
    return usage.ru_maxrss  # KB on Linux


def main(argv):
    if len(argv) == 3 and argv[1] == "--skip":
        print(f"memory_per_rank: skipped: {argv[2]}")
        return 77
    if len(argv) < 7:
        sys.exit(__doc__)
    twinfab, program, platform = argv[1], argv[2], argv[3]
    small, large, limit = int(argv[4]), int(argv[5]), float(argv[6])
    if not 1 <= small < large:
        sys.exit(f"memory_per_rank: SMALL ({small}) must be at least 1 and below LARGE ({large})")
    args = argv[7:]
    peaks = {n: peak_kb([twinfab, "sim", "-n", str(n), "--platform", platform, program, *args]) for n in (small, large)}
    per_rank = (peaks[large] - peaks[small]) / (large - small)
    print(f"{os.path.basename(program)} on {platform}: peak resident set {peaks[small]} KB at {small} ranks, "
          f"{peaks[large]} KB at {large}: {per_rank:.1f} KB per rank (limit {limit:g} KB)")
    if per_rank > limit:
        print(f"memory_per_rank: {per_rank:.1f} KB per rank is above the limit of {limit:g} KB")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
