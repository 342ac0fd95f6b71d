#!/usr/bin/env python3
"""Seed 001 sec. 3.4.2, Figure 3.6: bi-directional latency, MPI_Put + MPI_Win_fence
(rdma, sendrecv) vs MPI_Isend/MPI_Irecv/MPI_Waitall (twosided). The seed gives no
numbers, only that two-sided wins for very small messages and rdma beats two-sided
above 4 KB."""
from seed001 import Experiment, QUICK

sizes = "8,4096" if QUICK else "8,64,512,4096,8192,16384,65536,262144"
e = Experiment("bidir_latency")
for rma in ("rdma", "sendrecv"):
    e.run("bidir", [sizes, 20 if QUICK else 100], rma=rma)
# the two-sided rows are the same program's, whatever TWINFAB_RMA: keep the first
seen, rows = set(), []
for r in e.rows:
    key = (r["design"], r["param"])
    if key not in seen:
        seen.add(key)
        rows.append(r)
e.rows = rows
e.finish()
