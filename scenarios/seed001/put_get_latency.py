#!/usr/bin/env python3
"""Seed 001 sec. 3.4.2, Figure 3.5: MPI_Put "ping-pong" latency (one put per
post/start/complete/wait epoch, alternating direction), and MPI_Get latency (one get per
epoch), by message size, TWINFAB_RMA=rdma vs sendrecv on infinihost-sdr (simulated). Also the
time rank 0 spends in each call of an 8-byte put iteration (put_8_in_*)."""
from seed001 import Experiment, QUICK

sizes = "8,1024" if QUICK else "8,64,512,4096,16384,65536,262144"
iters = 20 if QUICK else 100
e = Experiment("put_get_latency")
for rma in ("rdma", "sendrecv"):
    e.run("latency", ["put", sizes, iters], rma=rma)
    e.run("latency", ["get", sizes, iters], rma=rma)
    # where the time of an 8-byte put epoch goes (rank 0's calls, per two epochs)
    e.run("latency", ["put-calls", 8, iters], rma=rma)
e.finish(refs=[
    ("latency", "rdma", None, "put_8", 12.6, "001 sec. 3.4.2 (small messages)"),
    ("latency", "sendrecv", None, "put_8", 15.6, "001 sec. 3.4.2 (small messages)"),
])
