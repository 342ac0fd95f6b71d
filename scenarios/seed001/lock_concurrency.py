#!/usr/bin/env python3
"""Seed 001 sec. 4.4.4, Figure 4.6: concurrency. N-1 windows at one target, origin i locks
and unlocks window i; time per iteration with 1..7 origins on infinihost-sdr with seed
001's 8 nodes (simulated). Seed: flat for Test&Set and MCS, growing for the thread
designs; no numbers."""
from seed001 import Experiment, QUICK

ranks = [2, 3] if QUICK else [2, 3, 4, 5, 6, 7, 8]
e = Experiment("lock_concurrency")
for lock in ("ts", "mcs", "thread", "event", "progress"):
    for n in ranks:
        e.run("lock", ["concurrency", 50 if QUICK else 200], n=n, lock=lock, plat="infinihost-sdr-8")
e.finish()
