#!/usr/bin/env python3
"""Seed 001 sec. 4.4.2, Figure 4.4: passive synchronization overhead, MPI_Win_lock +
MPI_Win_unlock (exclusive) from one origin on an idle target, lock and unlock timed
apart, TWINFAB_RMA_LOCK=ts, mcs, thread, event (seed 001's four designs) and progress
(simulated). Seed: Test&Set lowest (12.83 us), then the dedicated thread, MCS, and the
event-driven design highest."""
from seed001 import Experiment, QUICK

e = Experiment("lock_overhead")
for rma in ("rdma", "sendrecv"):
    for lock in ("ts", "mcs", "thread", "event", "progress"):
        e.run("lock", ["overhead", 50 if QUICK else 200], rma=rma, lock=lock)
e.finish(refs=[
    ("lock", "rdma", "ts", "overhead_total", 12.83, "001 sec. 4.4.2 (Test&Set)"),
    ("lock", "sendrecv", "ts", "overhead_total", 12.83, "001 sec. 4.4.2 (Test&Set)"),
])
