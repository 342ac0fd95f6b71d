#!/usr/bin/env python3
"""Seed 003 secs. 4.2-4.3, Figures 5 and 6: MPI_Put and MPI_Get latency (8 bytes) and
peak bandwidth on the Chelsio T3 iWARP preset (no remote atomics, so
TWINFAB_RMA_LOCK=progress; these tests use post/start/complete/wait only). Seed 003's
MVAPICH2-1SC is the RDMA-based one-sided design (rdma), MVAPICH2-R the send/receive one
over the RDMA fast path (sendrecv).

Seed 003 sec. 4.1: MVAPICH2-R's fast path needs the adapter to place data in order,
which the T3 does and iWARP does not promise, behind a switch; sec. 4.2: MVAPICH2-1SC
sends small puts over that path. So the latencies run twice: on the preset (in-order
placement off, as the specification allows) and with features.in_order_placement =
true and the fast path on (TWINFAB_FASTPATH=on; platform column
'chelsio-t3-iwarp+in-order'), the seed's configuration.

Sec. 4.2 also says why MVAPICH2-1SC's put latency equals MVAPICH2-R's: "the small
messages are internally sent over the basic MPI Send/Recv calls", i.e. through MPICH2's
ch3, which flags an epoch's last operation as its end. The put latencies therefore also
run with TWINFAB_RMA_PIGGYBACK=64 (platform column '...+piggyback'): a small put travels
as a message and the last one carries the epoch's end, one message fewer per epoch."""
from seed001 import Experiment, QUICK

P = "chelsio-t3-iwarp"
sizes = [65536, 1048576] if QUICK else [4096, 16384, 65536, 262144, 1048576, 4194304]
e = Experiment("seed003_iwarp")
IN_ORDER = dict(sets=["features.in_order_placement=true"], env={"TWINFAB_FASTPATH": "on"},
                plat_label=P + "+in-order")
PIGGYBACK = dict(env={"TWINFAB_RMA_PIGGYBACK": "64"}, plat_label=P + "+piggyback")
IN_ORDER_PIGGYBACK = dict(sets=IN_ORDER["sets"], env={**IN_ORDER["env"], **PIGGYBACK["env"]},
                          plat_label=P + "+in-order+piggyback")
for rma in ("rdma", "sendrecv"):
    for variant in ({}, IN_ORDER):
        e.run("latency", ["put", 8, 20 if QUICK else 100], rma=rma, lock="progress", plat=P, **variant)
        e.run("latency", ["get", 8, 20 if QUICK else 100], rma=rma, lock="progress", plat=P, **variant)
    for variant in (PIGGYBACK, IN_ORDER_PIGGYBACK):  # gets have no put to carry an epoch's end
        e.run("latency", ["put", 8, 20 if QUICK else 100], rma=rma, lock="progress", plat=P, **variant)
    for op in ("put", "get"):
        e.run("bandwidth", ["bw", op, ",".join(map(str, sizes)), 16, 3 if QUICK else 10], rma=rma, lock="progress", plat=P)
        peak = max(e.value("bandwidth", rma, f"{op}_{s}", plat=P) for s in sizes)
        e.add("bandwidth", rma, "progress", f"{op}_peak", peak, "MB/s", plat=P)
e.finish(refs=[
    ("latency", "rdma", None, "put_8", 9.41, "003 sec. 4.2 (MVAPICH2-1SC)"),
    ("latency", "sendrecv", None, "put_8", 9.32, "003 sec. 4.2 (MVAPICH2-R)"),
    ("latency", "rdma", None, "get_8", 30.03, "003 sec. 4.3 (MVAPICH2-1SC)"),
    ("latency", "sendrecv", None, "get_8", 30.03, "003 sec. 4.3 (MVAPICH2-R)"),
    ("bandwidth", "rdma", None, "put_peak", 1231, "003 sec. 4.2 (R/SR; 1SC 'best')"),
    ("bandwidth", "sendrecv", None, "put_peak", 1231, "003 sec. 4.2 (MVAPICH2-R)"),
    ("bandwidth", "rdma", None, "get_peak", 1142, "003 sec. 4.3"),
    ("bandwidth", "sendrecv", None, "get_peak", 1142, "003 sec. 4.3"),
])
