#!/usr/bin/env python3
"""Seed 001 sec. 4.4.5, Figure 4.7: message complexity. 1..7 origins contend for one
exclusive lock; messages per lock+unlock between an origin and the target, counted with
the MPI_T variables twinfab_channel_packets_sent + twinfab_channel_rdma_posted (remote
atomics included) of the origins and of the target, with each origin holding the lock
0 or 10 us (the seed does not say how long). Seed: Test&Set needs 9 messages
without backoff and 3 with exponential backoff at 7 origins. twinfab's ts always backs
off (1 us doubling to 1 ms, constants in mpi/rma/locks.cpp): the no-backoff curve cannot
be run without a library change. The thread and event designs are not counted here:
their requests, grants and unlocks go on the lock service's own QPs, which the channel
counters do not see (by construction 3 per lock whatever the origins: docs/rma.md)."""
from seed001 import Experiment, QUICK

ranks = [2, 3] if QUICK else [2, 3, 4, 5, 6, 7, 8]
e = Experiment("lock_messages")
holds = [0] if QUICK else [0, 10]
for lock in ("ts", "mcs", "progress"):
    for hold in holds:
        for n in ranks:
            e.run("lock", ["messages", hold, 20 if QUICK else 100], n=n, lock=lock, plat="infinihost-sdr-8")
e.finish(refs=[
    ("lock", "rdma", "ts", f"messages_hold_{h}_origins_7", 3, "001 sec. 4.4.5 (T&S, backoff; hold unstated)")
    for h in holds
])
print("not run: Test&Set without backoff (seed: 9 messages at 7 origins); twinfab has no switch for it")
