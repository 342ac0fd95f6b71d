"""scaling: how twinfab's MPI and the simulator scale with the number of ranks.

A ring (src/ring.c) and an all-to-all (src/alltoall.c), with RC connections made on
demand and all at start-up (TWINFAB_CONNECT). Per point: the simulated time per
iteration, this machine's wall time, the simulator's peak memory per rank, the memory
a real process would need by seed 004's categories (QP contexts, communication
buffers, data structures; the simulator's model, docs/model.md), and ICM cache misses.
The seed's reference: seed 004 Table 1's per-connection and per-peer costs for a fully
connected MVAPICH process.
"""
import pandas as pd

import twinfab
from twinfab import plots
from twinfab.experiments import result_lines

MODE_ENV = {"on-demand": "on-demand", "all-connected": "startup"}


def metrics(p, r):
    rows = result_lines(r.stdout)
    c = r.counters
    # The simulator's model of what real processes would hold (counters.hpp): every QP
    # created over the run, by seed 004's categories, summed over the HCAs.
    modelled = c["memory.qp_context"] + c["memory.communication_buffers"] + c["memory.data_structures"]
    return [dict(row, wall_time=r.wall_time, simulated_time=r.simulated_time, peak_memory=r.peak_memory,
                 sim_memory_per_rank_kb=r.peak_memory / p["n"] / 1024,
                 modelled_memory_per_process_kb=modelled / p["n"] / 1024,
                 qp_context_bytes=c["memory.qp_context"], icm_misses=c["icm_misses"], icm_hits=c["icm_hits"])
            for row in rows]


def marginal_memory(ok):
    """The simulator's memory per rank beyond a fixed base: (peak(n) - peak(smallest n))
    / (n - smallest n), per pattern and connection mode (the base, ~60 MB of program
    and libraries, would otherwise dominate small runs)."""
    out = []
    for (_, _), g in ok.groupby(["pattern", "connect"]):
        base = g.loc[g["n"].idxmin()]
        out += [(i, (r["peak_memory"] - base["peak_memory"]) / (r["n"] - base["n"]) / 1024 if r["n"] > base["n"]
                 else float("nan")) for i, r in g.iterrows()]
    return dict(out)


def run(ctx):
    c = ctx.config
    ring = ctx.program("src/ring.c")
    alltoall = ctx.program("src/alltoall.c")

    def points(ranks):
        return [{"n": n, "connect": m} for n in ranks for m in MODE_ENV
                if m == "on-demand" or n <= c["all_connected_max"]]

    def job(program, args):
        return lambda p: twinfab.Program(program, p["n"], args=args, platform=c["platform"],
                                         env={"TWINFAB_CONNECT": MODE_ENV[p["connect"]]})

    df_ring = ctx.sweep(job(ring, [c["ring_iterations"]]), points(c["ring_ranks"]), name="scaling-ring",
                        metrics=metrics)
    df_a2a = ctx.sweep(job(alltoall, [c["alltoall_iterations"], c["alltoall_bytes"]]), points(c["alltoall_ranks"]),
                       name="scaling-alltoall", metrics=metrics)
    df = pd.concat([df_ring, df_a2a], ignore_index=True)
    ctx.save(df)
    ok = df[df["ok"]].copy()
    if ok.empty:
        raise RuntimeError(f"scaling: every point failed; first error: {df['error'].iloc[0]}")
    ok["series"] = ok["pattern"] + ", " + ok["connect"]
    ok["sim_memory_marginal_kb"] = pd.Series(marginal_memory(ok))

    s = c["seed"]
    ns = sorted(set(ok["n"]))
    seed_ref = pd.DataFrame({"n": ns, "series": "MVAPICH fully connected, Table 1's costs x (n-1)",
                             "modelled_memory_per_process_kb": [(n - 1) * (s["rc_connection_kb"] + s["peer_kb"])
                                                                for n in ns]})
    figures = [("time_per_iteration_us", "simulated time per iteration (µs)", None),
               ("wall_time", "wall time of the run on this machine (s)", None),
               ("sim_memory_marginal_kb", "simulator memory per added rank (KiB)", None),
               ("modelled_memory_per_process_kb", "modelled memory per process (KiB)", seed_ref),
               ("icm_misses", "ICM cache misses (all HCAs)", None)]
    for y, label, ref in figures:
        d = ok[ok[y] > 0] if y in ("icm_misses", "sim_memory_marginal_kb") else ok
        if d.empty:
            continue
        ctx.figure(plots.metric_vs_ranks(d, y, ctx.path(f"scaling-{y}"), hue="series", ylabel=label,
                                         title=f"scaling on {c['platform']} (simulated)", reference=ref,
                                         reference_label="seed 004"))
    failed = df[~df["ok"]]
    table = ok.sort_values(["pattern", "connect", "n"])
    table["seed_fully_connected_kb"] = [(n - 1) * (s["rc_connection_kb"] + s["peer_kb"])
                                        if m == "all-connected" else float("nan")
                                        for n, m in zip(table["n"], table["connect"])]
    md = [f"# scaling on {c['platform']} (simulated; wall time and simulator memory measured on this machine)\n",
          "Modelled memory per process: QP contexts + communication buffers + data structures, seed 004's "
          "categories as the simulator models them. Seed 004: fully connected MVAPICH needs "
          f"{s['rc_connection_kb']} KB per connection + {s['peer_kb']} KB per peer (Table 1), "
          f"{s['fully_connected_16k_gb']} GB per process at 16K (Fig. 3).\n",
          plots.markdown_table(table, ["pattern", "connect", "n", "time_per_iteration_us", "wall_time",
                                       "sim_memory_marginal_kb", "modelled_memory_per_process_kb",
                                       "seed_fully_connected_kb", "icm_misses"])]
    if not failed.empty:
        md.append("\n## Failed points\n")
        md.append(plots.markdown_table(failed, ["n", "connect", "error"]))
    ctx.write_markdown("\n".join(md))
