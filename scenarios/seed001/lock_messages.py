#!/usr/bin/env python3
"""Seed 001 sec. 4.4.5, Figure 4.7: message complexity. 1..7 origins contend for one
exclusive lock; messages per lock+unlock between an origin and the target, counted with
the MPI_T variables twinfab_channel_packets_sent + twinfab_channel_rdma_posted (remote
atomics included) of the origins and of the target, with each origin holding the lock
0 or 10 us (the seed does not say how long). Seed: Test&Set needs 9 messages
without backoff and 3 with exponential backoff at 7 origins. ts runs with its default
backoff (1 us doubling to 1 ms) and without (TWINFAB_RMA_LOCK_BACKOFF=0: the next
attempt at once, rows 'ts-nobackoff'), both as the seed's plain test-and-set
(TWINFAB_RMA_LOCK_FAIR=0; the default's fairness rule adds a wait, not messages). The
thread and event designs are not counted here: their requests, grants and unlocks go on
the lock service's own QPs, which the channel counters do not see (by construction 3
per lock whatever the origins: docs/rma.md)."""
from seed001 import Experiment, QUICK

ranks = [2, 3] if QUICK else [2, 3, 4, 5, 6, 7, 8]
e = Experiment("lock_messages")
holds = [0] if QUICK else [0, 10]
iters = 20 if QUICK else 100
plain = {"TWINFAB_RMA_LOCK_FAIR": "0"}
for hold in holds:
    for n in ranks:
        e.run("lock", ["messages", hold, iters], n=n, lock="ts", plat="infinihost-sdr-8", env=plain)
        e.run("lock", ["messages", hold, iters], n=n, lock="ts", plat="infinihost-sdr-8",
              env=dict(plain, TWINFAB_RMA_LOCK_BACKOFF="0"), label="ts-nobackoff")
for lock in ("mcs", "progress"):
    for hold in holds:
        for n in ranks:
            e.run("lock", ["messages", hold, iters], n=n, lock=lock, plat="infinihost-sdr-8")
e.finish(refs=[
    ("lock", "rdma", "ts", f"messages_hold_{h}_origins_7", 3, "001 sec. 4.4.5 (T&S, backoff; hold unstated)")
    for h in holds
] + [
    ("lock", "rdma", "ts-nobackoff", f"messages_hold_{h}_origins_7", 9, "001 sec. 4.4.5 (T&S, no backoff)")
    for h in holds
])
