#!/usr/bin/env python3
"""Seed 001 sec. 3.4.5, Figure 3.10: overlap of computation with communication. The
bandwidth test (64 KB, W=16) with LOOPS computation loops after each MPI_Put; a loop
("increase a counter 1,000 times") is taken as 1 us of simulated computation (assumed
for the seed's 2.4 GHz Xeon). Time per epoch. The seed gives no numbers: rdma stays flat,
the send/receive design grows with the computation."""
from seed001 import Experiment, QUICK

loops = "0,20" if QUICK else "0,5,10,20,40,60,80,100"
e = Experiment("overlap")
for rma in ("rdma", "sendrecv"):
    e.run("bandwidth", ["overlap", 65536, loops, 1.0, 16, 5 if QUICK else 20], rma=rma)
e.finish()
