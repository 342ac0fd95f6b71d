#!/usr/bin/env python3
"""Seed 001 sec. 3.4.4, Figure 3.9: synchronization overhead, post/start/complete/wait
with 1..7 origins and one target (and MPI_Win_fence on 2..8 ranks), per iteration, on
infinihost-sdr with seed 001's 8 nodes (simulated)."""
from seed001 import Experiment, QUICK

ranks = [2, 3] if QUICK else [2, 3, 4, 5, 6, 7, 8]
e = Experiment("sync_overhead")
for rma in ("rdma", "sendrecv"):
    for n in ranks:
        e.run("sync", ["pscw", 50 if QUICK else 200], n=n, rma=rma, plat="infinihost-sdr-8")
    for n in ranks:
        e.run("sync", ["fence", 50 if QUICK else 200], n=n, rma=rma, plat="infinihost-sdr-8")
e.finish(refs=[
    ("sync", "rdma", None, "pscw_origins_1", 14.78, "001 sec. 3.4.4 (one origin)"),
    ("sync", "sendrecv", None, "pscw_origins_1", 16.52, "001 sec. 3.4.4 (one origin)"),
])
