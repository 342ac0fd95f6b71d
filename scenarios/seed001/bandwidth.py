#!/usr/bin/env python3
"""Seed 001 sec. 3.4.3, Figures 3.7 and 3.8: MPI_Put and MPI_Get bandwidth with a burst
of W=16 operations per post/start/complete/wait epoch, rdma vs sendrecv (simulated)."""
from seed001 import Experiment, QUICK

sizes = [8, 65536] if QUICK else [8, 64, 512, 1024, 4096, 16384, 65536, 262144]
e = Experiment("bandwidth")
for rma in ("rdma", "sendrecv"):
    for op in ("put", "get"):
        e.run("bandwidth", ["bw", op, ",".join(map(str, sizes)), 16, 5 if QUICK else 20], rma=rma)
best = max(e.value("bandwidth", "rdma", f"put_{s}") / e.value("bandwidth", "sendrecv", f"put_{s}") for s in sizes)
e.add("bandwidth", "rdma", "ts", "put_max_gain_over_sendrecv", 100 * (best - 1), "%")
e.finish(refs=[
    ("bandwidth", "rdma", None, "put_262144", 865, "001 sec. 3.4.3 (256 KB)"),
    ("bandwidth", "rdma", None, "put_max_gain_over_sendrecv", 77, "001 sec. 3.4.3 (up to 77%)"),
])
