"""mpi-pt2pt: the seeds' MPI point-to-point figures between two nodes (8-byte latency,
peak bandwidth) beside twinfab's on each seed's preset, and the bidirectional
bandwidth, which shows whether the preset's bus is full duplex (src/osu_pt2pt.c, OSU's
methods). Every twinfab figure here is SIMULATED; every seed figure is the number the
seed prints.

twinfab runs one MPI path, send/receive over per-connection buffers; the seeds also
measured paths twinfab does not have yet (the RDMA fast path, the shared receive
queue: issue 33), listed for reference. The presets' MPI host costs are fitted to the
rows marked `fitted` (docs/model.md, "Host software"): those must stay within 10 %.
"""
import pandas as pd

import twinfab
from twinfab.experiments import result_lines
from twinfab import plots


def run(ctx):
    c = ctx.config
    prog = ctx.program("src/osu_pt2pt.c")
    presets = list(dict.fromkeys(s["preset"] for s in c["seed"]))

    def job(p):
        return twinfab.Program(prog, 2, args=[p["test"], p["bytes"], c["iterations"]], platform=p["preset"],
                               ranks_per_host=1)

    metrics = lambda p, r: result_lines(r.stdout)  # noqa: E731
    lat = ctx.sweep(job, {"preset": presets, "test": ["latency"], "bytes": c["latency_sizes"]},
                    name="mpi-pt2pt-latency", metrics=metrics)
    bw = ctx.sweep(job, {"preset": presets, "test": ["bw", "bibw"], "bytes": [c["bandwidth_bytes"]]},
                   name="mpi-pt2pt-bandwidth", metrics=metrics)
    df = pd.concat([lat, bw], ignore_index=True)
    df["platform"] = df["preset"]
    df["revision"] = twinfab.revision
    ctx.save(df)
    ok = df[df["ok"]]
    curve = ok[ok["test"] == "latency"]
    if not curve.empty:
        ctx.figure(plots.latency_vs_size(curve, ctx.path("mpi-pt2pt-latency"), y="value", hue="preset",
                                         title="MPI ping-pong latency on the seeds' presets (simulated)"))
    value = ok.set_index(["preset", "test", "bytes"])["value"]

    rows = []
    for s in c["seed"]:
        size = c["latency_bytes"] if s["test"] == "latency" else c["bandwidth_bytes"]
        got = value.get((s["preset"], s["test"], size), float("nan"))
        rows.append({"preset": s["preset"], "figure": s["test"], "twinfab": got, "seed": s["value"],
                     "ratio": got / s["value"], "seed's path": s["path"], "source": s["source"],
                     "fitted": "yes" if s["fitted"] else ""})
    for preset in presets:
        rows.append({"preset": preset, "figure": "bibw",
                     "twinfab": value.get((preset, "bibw", c["bandwidth_bytes"]), float("nan")),
                     "seed": float("nan"), "ratio": float("nan"), "seed's path": "-", "source": "-", "fitted": ""})
    table = pd.DataFrame(rows)
    md = ["# The seeds' MPI point-to-point figures beside twinfab's (SIMULATED)\n",
          f"latency in us for {c['latency_bytes']} bytes; bw and bibw in MB/s (10^6 B/s) at {c['bandwidth_bytes']} "
          "bytes (OSU's methods, src/osu_pt2pt.c). twinfab runs its send/receive path on every row; the seed's "
          "path says what the seed measured (twinfab has no RDMA fast path or shared receive queue yet). Rows "
          "marked `fitted` are what the preset's MPI host costs are fitted to (docs/model.md, \"Host "
          "software\"); bibw shows whether the preset's bus is full duplex (infinihost-sdr's PCI-X is not).\n",
          plots.markdown_table(table, ["preset", "figure", "twinfab", "seed", "ratio", "seed's path", "source",
                                       "fitted"], floatfmt=".4g")]
    missed = table[(table["fitted"] == "yes") & ((table["ratio"] - 1).abs() > 0.10)]
    if not missed.empty:
        md.append(f"\nOutside 10 % of a fitted figure: {missed[['preset', 'figure']].to_dict('records')}\n")
    failed = df[~df["ok"]]
    if not failed.empty:
        md.append(f"\n{len(failed)} run(s) failed: {failed[['preset', 'test', 'bytes']].to_dict('records')}\n")
    ctx.write_markdown("\n".join(md))
    if not missed.empty or not failed.empty:
        raise RuntimeError("mpi-pt2pt: a fitted figure is more than 10 % off, or a run failed (see the table)")
