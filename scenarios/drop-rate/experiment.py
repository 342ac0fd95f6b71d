"""drop-rate: reliable connections (RC) under packet loss.

Per loss probability, loss seed and retry_count: perftest-style send latency and
RDMA-write bandwidth between two simulated hosts, and an MPI ping-pong (src/pingpong.c).
Lost packets cost an ACK timeout each (the HCA's retransmission); with retry_count
retries exhausted the work request fails (retry exceeded) and the point is recorded
as failed, which is the second regime this experiment shows.
"""
import twinfab
from twinfab import plots
from twinfab.experiments import result_lines


def run(ctx):
    c = ctx.config
    grid = {"loss": c["loss"], "retry_count": c["retry_count"], "seed": c["seeds"]}
    overrides = lambda p: {"hca.retry_count": p["retry_count"]}  # noqa: E731

    def perf_point(test, sizes):
        return lambda p: twinfab.Perf(test, platform=c["platform"], sizes=sizes, iterations=c["perf_iterations"],
                                      overrides=overrides(p), loss=p["loss"], seed=p["seed"])

    lat = ctx.sweep(perf_point("send-lat", c["latency_sizes"]), grid, name="drop-rate-send-lat")
    bw = ctx.sweep(perf_point("write-bw", c["bandwidth_sizes"]), grid, name="drop-rate-write-bw")
    pingpong = ctx.program("src/pingpong.c")
    mpi = ctx.sweep(lambda p: twinfab.Program(pingpong, 2, args=[c["mpi_iterations"], *c["mpi_sizes"]],
                                              platform=c["platform"], overrides=overrides(p), loss=p["loss"],
                                              seed=p["seed"]),
                    grid, name="drop-rate-mpi", metrics=lambda p, r: [dict(row, retransmissions=r.counters.get(
                        "retransmissions"), packets_dropped=r.counters.get("packets_dropped"))
                        for row in result_lines(r.stdout)])
    lat["kind"], bw["kind"], mpi["kind"] = "send-lat", "write-bw", "mpi-pingpong"
    import pandas as pd
    ctx.save(pd.concat([lat, bw, mpi], ignore_index=True))

    def mean_over_seeds(df, value):
        ok = df[df["ok"]]
        return ok.groupby(["loss", "retry_count", "bytes"], as_index=False)[value].mean()

    for df, value, stem, label in ((lat, "t_avg_us", "send-lat", "latency (µs)"),
                                   (mpi, "latency_us", "mpi-latency", "MPI latency (µs)"),
                                   (bw, "bw_average_MBps", "write-bw", "bandwidth (MB/s)")):
        m = mean_over_seeds(df, value)
        if m.empty:
            continue
        m["series"] = m["bytes"].astype(int).astype(str) + " B, retry_count " + m["retry_count"].astype(str)
        ctx.figure(plots.metric_vs_loss(m, value, ctx.path(f"drop-rate-{stem}"), hue="series", ylabel=label,
                                        logy=value != "bw_average_MBps",
                                        title=f"{stem} on {c['platform']} (mean over loss seeds; simulated)"))

    # Every (loss, retry_count, size), failed or not: failed = points whose transfers
    # hit the retry limit (retry exceeded), which is what a lower retry_count buys.
    keys = ["loss", "retry_count", "bytes"]
    sizes = sorted(set(c["latency_sizes"]) | set(c["mpi_sizes"]))
    summary = pd.DataFrame([{"loss": l, "retry_count": rc, "bytes": b} for rc in c["retry_count"]
                            for b in sizes for l in c["loss"]])
    failed = lambda df, col: (df.groupby(["loss", "retry_count"], as_index=False)["ok"]  # noqa: E731
                              .agg(lambda s: int((~s).sum())).rename(columns={"ok": col}))
    summary = (summary.merge(mean_over_seeds(lat, "t_avg_us"), on=keys, how="left")
               .merge(mean_over_seeds(mpi, "latency_us"), on=keys, how="left")
               .merge(mpi[mpi["ok"]].groupby(["loss", "retry_count"], as_index=False)["retransmissions"].mean(),
                      on=["loss", "retry_count"], how="left")
               .merge(failed(lat, "perf_failed"), on=["loss", "retry_count"], how="left")
               .merge(failed(mpi, "mpi_failed"), on=["loss", "retry_count"], how="left"))
    md = [f"# drop-rate on {c['platform']} (simulated)\n",
          f"Per-packet loss on every link; RC retransmits after the ACK timeout. Mean over loss seeds "
          f"{c['seeds']} (retransmissions: per MPI run); failed = runs whose transfers hit the retry limit (of "
          f"{len(c['seeds'])}; send-lat and MPI ping-pong). "
          f"Seed: {c['seed']['note']}.\n",
          plots.markdown_table(summary, ["loss", "retry_count", "bytes", "t_avg_us", "latency_us", "retransmissions",
                                         "perf_failed", "mpi_failed"])]
    ctx.write_markdown("\n".join(md))
