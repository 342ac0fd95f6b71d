#!/usr/bin/env python3
"""Seed 001 sec. 3.4.8, Figure 3.13: time of one MPI_Accumulate (MPI_SUM on ints) by
operand size, one per post/start/complete/wait epoch. twinfab applies accumulates in the
target's progress engine in both designs -- the seed's "event driven" accumulate, not
its RDMA read-modify-write under a CAS lock -- so the seed's crossover (event driven
wins above 512 ints, ~20 us to trigger the handler) has no twinfab counterpart yet."""
from seed001 import Experiment, QUICK

counts = "1,512" if QUICK else "1,16,64,256,512,1024,4096,16384"
e = Experiment("accumulate")
for rma in ("rdma", "sendrecv"):
    e.run("accumulate", [counts, 10 if QUICK else 50], rma=rma)
e.finish()
