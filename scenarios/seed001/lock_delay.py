#!/usr/bin/env python3
"""Seed 001 sec. 4.4.3, Figure 4.5: synchronization delay, from one origin's
MPI_Win_unlock call to the other origin's MPI_Win_lock return, two origins taking turns
to ask first, each holding the lock E us (E = 25, 50, 100, 200; simulated). The seed gives no numbers:
atomic designs beat the thread designs, MCS is best (one message to hand over)."""
from seed001 import Experiment, QUICK

e = Experiment("lock_delay")
for rma in ("rdma", "sendrecv"):
    for lock in ("ts", "mcs", "thread", "event", "progress"):
        for hold in ([100] if QUICK else [25, 50, 100, 200]):
            e.run("lock", ["delay", hold, 10 if QUICK else 50], n=3, rma=rma, lock=lock)
e.finish()
