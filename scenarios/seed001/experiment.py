"""seed001: seed 001's one-sided latency (fig. 3.5) and bandwidth (figs. 3.7, 3.8)
through the package's sweep runner: the programs of src/ (latency.c, bandwidth.c),
each design (TWINFAB_RMA) a point; figures and a table beside the seed's. The other
seed 001 experiments are the scripts in this folder (README.md)."""
import pandas as pd

import twinfab
from twinfab import plots

FIELDS = ["experiment", "design", "lock", "param", "value", "unit"]


def rows(stdout):
    """The programs' CSV rows; param 'put_8' -> op 'put', bytes 8."""
    out = []
    for line in stdout.splitlines():
        f = line.split(",")
        if len(f) == 6 and f[0] != "experiment":
            r = dict(zip(FIELDS, f))
            op, _, size = r["param"].rpartition("_")
            if size.isdigit():
                out.append({"op": op, "bytes": int(size), "value": float(r["value"]), "unit": r["unit"]})
    return out


def run(ctx):
    c = ctx.config
    lat_prog = ctx.program("src/latency.c")
    bw_prog = ctx.program("src/bandwidth.c")
    grid = {"design": c["designs"], "op": ["put", "get"]}

    def env(p):
        return {"TWINFAB_RMA": p["design"], "TWINFAB_RMA_LOCK": "ts"}

    lat = ctx.sweep(lambda p: twinfab.Program(lat_prog, 2, args=[p["op"], ",".join(map(str, c["latency_sizes"])),
                                                                 c["latency_iterations"]],
                                              platform=c["platform"], env=env(p)),
                    grid, name="seed001-latency", metrics=lambda p, r: rows(r.stdout))
    bw = ctx.sweep(lambda p: twinfab.Program(bw_prog, 2, args=["bw", p["op"], ",".join(map(str, c["bandwidth_sizes"])),
                                                               c["bandwidth_burst"], c["bandwidth_iterations"]],
                                             platform=c["platform"], env=env(p)),
                   grid, name="seed001-bandwidth", metrics=lambda p, r: rows(r.stdout))
    lat = lat.rename(columns={"value": "latency_us"})
    bw = bw.rename(columns={"value": "bandwidth_MBps"})
    ctx.save(pd.concat([lat.assign(kind="latency"), bw.assign(kind="bandwidth")], ignore_index=True))
    for df in (lat, bw):
        df["series"] = df["op"] + ", " + df["design"]
    s = c["seed"]
    lat_ref = pd.DataFrame([{"bytes": 8, "latency_us": v, "series": f"put, {d}"}
                            for d, v in s["put_latency_8"].items()])
    bw_ref = pd.DataFrame([{"bytes": 262144, "bandwidth_MBps": v, "series": f"put, {d}"}
                           for d, v in s["put_bandwidth_262144"].items()])
    ctx.figure(plots.latency_vs_size(lat[lat["ok"]], ctx.path("seed001-latency"), y="latency_us", hue="series",
                                     title=f"one-sided latency on {c['platform']} (simulated)", reference=lat_ref))
    ctx.figure(plots.bandwidth_vs_size(bw[bw["ok"]], ctx.path("seed001-bandwidth"), y="bandwidth_MBps",
                                       hue="series", title=f"one-sided bandwidth on {c['platform']} (simulated)",
                                       reference=bw_ref))
    table = []
    for d, v in s["put_latency_8"].items():
        got = lat[(lat["design"] == d) & (lat["op"] == "put") & (lat["bytes"] == 8)]["latency_us"]
        if not got.empty:
            table.append({"figure": "MPI_Put latency, 8 B (µs)", "design": d, "twinfab": float(got.iloc[0]),
                          "seed": v, "where": "seed 001 sec. 3.4.2"})
    for d, v in s["put_bandwidth_262144"].items():
        got = bw[(bw["design"] == d) & (bw["op"] == "put") & (bw["bytes"] == 262144)]["bandwidth_MBps"]
        if not got.empty:
            table.append({"figure": "MPI_Put bandwidth, 256 KiB (MB/s)", "design": d, "twinfab": float(got.iloc[0]),
                          "seed": v, "where": "seed 001 sec. 3.4.3"})
    t = pd.DataFrame(table, columns=["figure", "design", "twinfab", "seed", "where"])
    t["ratio"] = t["twinfab"] / t["seed"]
    md = [f"# seed 001 one-sided latency and bandwidth on {c['platform']} (twinfab simulated; seed: published)\n",
          plots.markdown_table(t, ["figure", "design", "twinfab", "seed", "ratio", "where"]) if table else
          "(the quick grid has none of the seed's sizes)\n",
          "\n## All points\n",
          plots.markdown_table(pd.concat([lat, bw], ignore_index=True).sort_values(["op", "design", "bytes"]),
                               ["op", "design", "bytes", "latency_us", "bandwidth_MBps"])]
    ctx.write_markdown("\n".join(md))
