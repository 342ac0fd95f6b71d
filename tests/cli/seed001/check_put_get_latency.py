#!/usr/bin/env python3
"""ctest cli.seed001_put_get_latency: runs scenarios/seed001/put_get_latency.py end to end
in its quick form (build with twinfab-mpicc, twinfab sim on infinihost-sdr with
TWINFAB_RMA=rdma and sendrecv), twice, and checks the CSV: the expected rows, positive
simulated latencies, the same bytes both times (simulated time is deterministic, so
nothing here depends on this machine's speed), and the seed's target in the table.

usage: check_put_get_latency.py SOURCE_DIR BUILD_DIR WORK_DIR"""
import csv
import os
import subprocess
import sys

src, build, work = sys.argv[1:4]
script = os.path.join(src, "scenarios", "seed001", "put_get_latency.py")


def run(tag):
    out = os.path.join(work, tag)
    env = dict(os.environ, TWINFAB_BUILD=build, SEED001_QUICK="1", SEED001_OUT=out)
    p = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{script} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    with open(os.path.join(out, "put_get_latency.csv"), "rb") as f:
        return p.stdout, f.read()


table, first = run("a")
_, second = run("b")
if first != second:
    sys.exit("the two runs' CSVs differ: simulated results must be bit-for-bit reproducible")
rows = list(csv.DictReader(first.decode().splitlines()))
want = {(d, f"{op}_{s}") for d in ("rdma", "sendrecv") for op in ("put", "get") for s in (8, 1024)}
want |= {(d, f"put_8_in_{c}") for d in ("rdma", "sendrecv") for c in ("start", "put", "complete", "post", "wait")}
got = {(r["design"], r["param"]) for r in rows}
if got != want:
    sys.exit(f"rows {sorted(got)}, expected {sorted(want)}")
for r in rows:
    if r["experiment"] != "latency" or r["lock"] != "ts" or r["unit"] != "us" or r["platform"] != "infinihost-sdr":
        sys.exit(f"unexpected row {r}")
    if not 0 < float(r["value"]) < 1e4:
        sys.exit(f"implausible simulated latency {r}")
for needle in ("12.6 us", "15.6 us", "twinfab (simulated)", "seed (target)"):
    if needle not in table:
        sys.exit(f"the table lacks '{needle}':\n{table}")
print(table)
print(f"ok: {len(rows)} rows, identical in two runs")
