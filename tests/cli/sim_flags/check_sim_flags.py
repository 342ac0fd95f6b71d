#!/usr/bin/env python3
"""ctest cli.sim_flags.*: `twinfab sim`'s report flags on examples/pingpong.

usage: check_sim_flags.py TWINFAB PINGPONG WORK_DIR CASE
  counters_json  --counters=json prints one valid JSON object with the counters on stderr
  result_json    --result-json writes exactly the documented keys; per_hca sums to counters
  seed           with loss on, the same --seed reproduces the run bit for bit (counters and
                 output), another seed changes the retransmissions"""
import json
import os
import subprocess
import sys

twinfab, pingpong, work, case = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
# 64 KiB at most: multi-packet messages (so RC loss means retransmissions), ~1 s.
PROGRAM = ["--", pingpong, "65536", "2"]

KEYS = ["exit_status", "simulated_time", "wall_time", "peak_rss_bytes", "platform", "nranks",
        "ranks_per_host", "loss_probability", "loss_seed", "counters", "per_hca"]


def run(*options):
    p = subprocess.run([twinfab, "sim", "-n", "2", "--platform", "connectx-ddr", *options, *PROGRAM],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"twinfab sim {' '.join(options)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def result(tag, *options):
    path = os.path.join(work, f"{tag}.json")
    if os.path.exists(path):
        os.remove(path)
    p = run("--result-json", path, *options)
    with open(path) as f:
        return p, json.load(f)


if case == "counters_json":
    p = run("--counters=json")
    last = p.stderr.strip().splitlines()[-1]
    counters = json.loads(last)
    if not isinstance(counters, dict) or counters.get("packets", 0) <= 0 or "retransmissions" not in counters:
        sys.exit(f"--counters=json printed {last!r}: expected an object with packets > 0")
elif case == "result_json":
    _, r = result("result", "--set", "hca.icm_cache_entries=1", "--loss", "0.0001", "--seed", "5")
    if list(r) != KEYS:
        sys.exit(f"keys {list(r)}, expected {KEYS}")
    expect = {"exit_status": 0, "platform": "connectx-ddr", "nranks": 2, "ranks_per_host": 1,
              "loss_probability": 0.0001, "loss_seed": 5}
    for key, value in expect.items():
        if r[key] != value:
            sys.exit(f"{key} = {r[key]!r}, expected {value!r}")
    if not (r["simulated_time"] > 0 and r["wall_time"] > 0 and r["peak_rss_bytes"] > 1 << 20):
        sys.exit(f"times and memory must be positive: {r}")
    if len(r["per_hca"]) != 2:
        sys.exit(f"per_hca has {len(r['per_hca'])} entries, expected one per host used (2)")
    for name, total in r["counters"].items():
        if sum(h[name] for h in r["per_hca"]) != total:
            sys.exit(f"per_hca's {name} do not sum to the total {total}: {r['per_hca']}")
    if r["counters"]["packets"] <= 0 or r["counters"]["icm_misses"] <= 0:
        sys.exit(f"expected packets, and ICM misses with a one-entry cache: {r['counters']}")
elif case == "seed":
    loss = ["--loss", "0.001"]
    pa, a = result("seed-a", *loss, "--seed", "11")
    pb, b = result("seed-b", *loss, "--seed", "11")
    _, c = result("seed-c", *loss, "--seed", "12")
    if a["counters"]["retransmissions"] == 0:
        sys.exit(f"no retransmission at this loss rate: the test proves nothing: {a['counters']}")
    if (a["counters"], a["per_hca"], a["simulated_time"], pa.stdout) != \
       (b["counters"], b["per_hca"], b["simulated_time"], pb.stdout):
        sys.exit(f"the same seed gave different runs:\n{a}\n{b}")
    if a["counters"]["retransmissions"] == c["counters"]["retransmissions"]:
        sys.exit(f"seeds 11 and 12 gave the same retransmissions ({a['counters']['retransmissions']}): "
                 "--seed is not in effect")
else:
    sys.exit(f"unknown case {case}")
print(f"ok: {case}")
