"""mpi-pt2pt: the seeds' MPI point-to-point figures between two nodes (8-byte latency,
peak bandwidth) beside twinfab's on each seed's preset, and the bidirectional
bandwidth, which shows whether the preset's bus is full duplex (src/osu_pt2pt.c, OSU's
methods). Every twinfab figure here is SIMULATED; every seed figure is the number the
seed prints.

Each seed row runs the twinfab path that does what the seed's MPI did (send/receive
over per-connection buffers, the RDMA fast path, the shared receive queue; on the iWARP
preset the fast path as if the device placed RDMA writes in order, which is what
MVAPICH2-R assumed of it). The latency curve and the bandwidth rows use the default
path. The presets' MPI host costs are fitted to the rows marked `fitted` (docs/model.md,
"Host software"): those must stay within 10 %.
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
        path = c["path"][p.get("path", "send-receive")]
        return twinfab.Program(prog, 2, args=[p["test"], p["bytes"], c["iterations"]], platform=p["preset"],
                               ranks_per_host=1, env=dict(path["env"]), overrides=dict(path["overrides"]))

    metrics = lambda p, r: result_lines(r.stdout)  # noqa: E731
    lat = ctx.sweep(job, {"preset": presets, "test": ["latency"], "bytes": c["latency_sizes"]},
                    name="mpi-pt2pt-latency", metrics=metrics)
    bw = ctx.sweep(job, {"preset": presets, "test": ["bw", "bibw"], "bytes": [c["bandwidth_bytes"]]},
                   name="mpi-pt2pt-bandwidth", metrics=metrics)
    # The seeds' figures on the path each seed measured (the default path's are above).
    size = lambda s: c["latency_bytes"] if s["test"] == "latency" else c["bandwidth_bytes"]  # noqa: E731
    others = [{"preset": s["preset"], "test": s["test"], "bytes": size(s), "path": s["twinfab"]}
              for s in c["seed"] if s["twinfab"] != "send-receive"]
    paths = ctx.sweep(job, others, name="mpi-pt2pt-paths", metrics=metrics)
    lat["path"] = "send-receive"
    bw["path"] = "send-receive"
    df = pd.concat([lat, bw, paths], ignore_index=True)
    df["platform"] = df["preset"]
    df["revision"] = twinfab.revision
    ctx.save(df)
    ok = df[df["ok"]]
    curve = ok[(ok["test"] == "latency") & (ok["path"] == "send-receive")]
    if not curve.empty:
        ctx.figure(plots.latency_vs_size(curve, ctx.path("mpi-pt2pt-latency"), y="value", hue="preset",
                                         title="MPI ping-pong latency on the seeds' presets (simulated)"))
    value = ok.set_index(["preset", "path", "test", "bytes"])["value"]

    rows = []
    for s in c["seed"]:
        got = value.get((s["preset"], s["twinfab"], s["test"], size(s)), float("nan"))
        rows.append({"preset": s["preset"], "figure": s["test"], "twinfab": got, "seed": s["value"],
                     "ratio": got / s["value"], "seed's path": s["path"], "twinfab's path": s["twinfab"],
                     "source": s["source"], "fitted": "yes" if s["fitted"] else ""})
    for preset in presets:
        rows.append({"preset": preset, "figure": "bibw",
                     "twinfab": value.get((preset, "send-receive", "bibw", c["bandwidth_bytes"]), float("nan")),
                     "seed": float("nan"), "ratio": float("nan"), "seed's path": "-", "twinfab's path": "send-receive",
                     "source": "-", "fitted": ""})
    table = pd.DataFrame(rows)
    md = ["# The seeds' MPI point-to-point figures beside twinfab's (SIMULATED)\n",
          f"latency in us for {c['latency_bytes']} bytes; bw and bibw in MB/s (10^6 B/s) at {c['bandwidth_bytes']} "
          "bytes (OSU's methods, src/osu_pt2pt.c). Each row runs the twinfab path that does what the seed's MPI "
          "did (experiment.toml's [path] tables; fast-path-if-allowed: the RDMA fast path on the iWARP preset as "
          "if its device placed RDMA writes in order, as MVAPICH2-R assumed). Rows marked `fitted` are what "
          "the preset's MPI host costs are fitted to (docs/model.md, \"Host software\"); bibw shows whether the preset's bus is full duplex (infinihost-sdr's PCI-X is not).\n",
          plots.markdown_table(table, ["preset", "figure", "twinfab", "seed", "ratio", "seed's path", "twinfab's path",
                                       "source", "fitted"], floatfmt=".4g")]
    missed = table[(table["fitted"] == "yes") & ((table["ratio"] - 1).abs() > 0.10)]
    if not missed.empty:
        md.append(f"\nOutside 10 % of a fitted figure: {missed[['preset', 'figure']].to_dict('records')}\n")
    failed = df[~df["ok"]]
    if not failed.empty:
        md.append(f"\n{len(failed)} run(s) failed: {failed[['preset', 'path', 'test', 'bytes']].to_dict('records')}\n")
    ctx.write_markdown("\n".join(md))
    if not missed.empty or not failed.empty:
        raise RuntimeError("mpi-pt2pt: a fitted figure is more than 10 % off, or a run failed (see the table)")
