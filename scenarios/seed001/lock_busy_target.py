#!/usr/bin/env python3
"""Seed 001 sec. 4.4.6, Figure 4.8 (CPU utilization, computing threads) as the simulator
can express it: ranks are single-threaded, so instead of computing threads competing
with an assisting thread, the target computes COMPUTE us between two MPI calls
(MPI_Test) while one origin does lock+unlock. Seed: the atomic designs stay flat, the
dedicated-thread design slows down as the target's CPU gets busier; no numbers."""
from seed001 import Experiment, QUICK

compute = "0,50" if QUICK else "0,5,10,20,50,100,200"
e = Experiment("lock_busy_target")
for lock in ("ts", "progress"):
    e.run("lock", ["busy", compute, 20 if QUICK else 100], lock=lock)
e.finish()
