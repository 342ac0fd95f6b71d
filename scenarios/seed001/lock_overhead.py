#!/usr/bin/env python3
"""Seed 001 sec. 4.4.2, Figure 4.4: passive synchronization overhead, MPI_Win_lock +
MPI_Win_unlock (exclusive) from one origin on an idle target, lock and unlock timed
apart, TWINFAB_RMA_LOCK=ts, mcs, thread, event (seed 001's four designs) and progress
(simulated). Seed: Test&Set lowest (12.83 us), then the dedicated thread, MCS, and the
event-driven design highest.

ts runs twice: as twinfab's default (a re-lock right after one's own release first
leaves the lock free for a round trip, so that no origin is starved: docs/rma.md) and
as the seed's plain test-and-set (TWINFAB_RMA_LOCK_FAIR=0, rows 'ts-plain'), which is
what the seed's figure measured: a single origin locking in a loop pays the fairness
rule's round trip every time."""
from seed001 import Experiment, QUICK

e = Experiment("lock_overhead")
iters = 50 if QUICK else 200
for rma in ("rdma", "sendrecv"):
    for lock in ("ts", "mcs", "thread", "event", "progress"):
        e.run("lock", ["overhead", iters], rma=rma, lock=lock)
    e.run("lock", ["overhead", iters], rma=rma, lock="ts", env={"TWINFAB_RMA_LOCK_FAIR": "0"}, label="ts-plain")
e.finish(refs=[
    ("lock", design, "ts-plain", "overhead_total", 12.83, "001 sec. 4.4.2 (Test&Set)")
    for design in ("rdma", "sendrecv")
])
