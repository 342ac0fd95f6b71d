"""seed000: seed 000's PingPong (fig. 6) in four modes, driven through the C++
experiment `twinfab experiment seed000-regcache` (tools/twinfab/experiment_regcache.cpp),
which runs all four modes in one simulation: (a) copy-only, (b) RDMA rendezvous with
registration per transfer, (c) with seed 000's Dynamic Memory Engine, (d) with seed
002's lazy memory engine. This module turns its CSV into figures and a table beside
the seed's figures.
"""
import subprocess

import pandas as pd

import twinfab
from twinfab import _paths, plots


def run(ctx):
    c = ctx.config
    csv = ctx.path("seed000-regcache-raw.csv")
    cmd = [_paths.TWINFAB, "experiment", "seed000-regcache", "--platform", c["platform"], "--csv", csv]
    for s in c["sizes"]:
        cmd += ["--sizes", str(s)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    print(p.stdout, end="")
    if p.returncode not in (0, 1):  # 1: a check failed; the table still says which
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    df = pd.read_csv(csv).rename(columns={"size_bytes": "bytes"})
    df["platform"] = c["platform"]
    df["revision"] = twinfab.revision
    df["error"] = ""
    ctx.save(df)
    ctx.figure(plots.latency_vs_size(df, ctx.path("seed000-latency"), y="latency_us", hue="mode",
                                     title=f"seed 000 PingPong latency on {c['platform']} (simulated)"))
    s = c["seed"]
    largest = df["bytes"].max()
    ref = pd.DataFrame({"bytes": [largest], "bandwidth_MBps": [s["copy_peak_MBps"]], "mode": ["copy"]})
    ctx.figure(plots.bandwidth_vs_size(df, ctx.path("seed000-bandwidth"), y="bandwidth_MBps", hue="mode",
                                       title=f"seed 000 PingPong bandwidth on {c['platform']} (simulated)",
                                       reference=ref))
    at = lambda mode, b, col: float(df[(df["mode"] == mode) & (df["bytes"] == b)][col].iloc[0])  # noqa: E731
    smallest = df["bytes"].min()
    rows = pd.DataFrame([
        {"figure": f"copy-only bandwidth at {largest} B (MB/s)", "twinfab": at("copy", largest, "bandwidth_MBps"),
         "seed": s["copy_peak_MBps"], "where": "seed 000 sec. III-G"},
        {"figure": f"copy-only latency at {smallest} B (µs)", "twinfab": at("copy", smallest, "latency_us"),
         "seed": s["copy_small_latency_us"], "where": "seed 000 sec. III-G"},
        {"figure": f"RDMA without cache / with DME, bandwidth at {largest} B",
         "twinfab": at("rdma", largest, "bandwidth_MBps") / at("dme", largest, "bandwidth_MBps"),
         "seed": s["rdma_no_cache_bandwidth_fraction"], "where": "seed 000 sec. III-H, fig. 6"},
    ])
    rows["ratio"] = rows["twinfab"] / rows["seed"]
    md = [f"# seed 000 PingPong on {c['platform']} (twinfab simulated; seed: published)\n",
          "The seed ran MPICH2 over VAPI on InfiniHost SDR; twinfab's figures are simulated on the "
          "`infinihost-sdr` preset (docs/platforms.md).\n",
          plots.markdown_table(rows, ["figure", "twinfab", "seed", "ratio", "where"]),
          "\n## All sizes\n", plots.markdown_table(df.sort_values(["mode", "bytes"]),
                                                   ["mode", "bytes", "latency_us", "bandwidth_MBps"])]
    ctx.write_markdown("\n".join(md))
