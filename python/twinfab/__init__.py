"""twinfab: MPI over RDMA fabrics, simulated (SimGrid) and on hardware (rdma-core).

The researcher's front door (docs/python.md):

    import twinfab
    p = twinfab.Platform.load("connectx-ddr", {"hca.icm_cache_entries": 64})
    r = twinfab.run(twinfab.build_program("ring.c"), n=64, platform="connectx-ddr", loss=0.01, seed=3)
    r.simulated_time, r.counters["retransmissions"]
    t = twinfab.perf("write-lat", platform="infinihost-sdr", sizes=[8, 4096])
    df = twinfab.sweep(lambda p: twinfab.Program(prog, n=p["n"]), {"n": [2, 4, 8]})
    twinfab.plots.metric_vs_ranks(df, "simulated_time", "out/ring")

Experiments: python3 -m twinfab.experiments --list.

Each simulation runs in a worker process of its own (SimGrid keeps one engine per
process); `twinfab._core` is the C++ extension the workers call. The sweep, plot and
experiment modules (pandas, matplotlib, tqdm) load on first use.
"""
import importlib

# Everything loads on first use: a worker process (python3 -m twinfab._point), which
# runs one point, imports only the extension, and a user who never sweeps never
# imports pandas or matplotlib (~0.5 s).
# name -> (module, attribute or None for the module itself). The sweep engine is the
# module `sweeps`, so that `twinfab.sweep` stays the function once it is imported.
_LAZY = {
    "Platform": ("_core", "Platform"), "presets": ("_core", "presets"), "perf_tests": ("_core", "perf_tests"),
    "mpi_parameters": ("_core", "mpi_parameters"), "check_mpi_parameters": ("_core", "check_mpi_parameters"),
    "version": ("_core", "version"), "__version__": ("_core", "version"),
    # `git describe` of the tree this package was built from ("-dirty": with changes)
    "revision": ("_core", "revision"),
    "Program": ("runner", "Program"), "Perf": ("runner", "Perf"), "RunResult": ("runner", "RunResult"),
    "RunError": ("runner", "RunError"), "run": ("runner", "run"), "perf": ("runner", "perf"),
    "build_program": ("runner", "build_program"),
    "sweep": ("sweeps", "sweep"), "Sweep": ("sweeps", "Sweep"), "save": ("sweeps", "save"),
    "sweeps": ("sweeps", None), "plots": ("plots", None), "experiments": ("experiments", None),
    "slurm": ("slurm", None),
}

__all__ = sorted(k for k in _LAZY if not k.startswith("_"))


def __getattr__(name):
    if name in _LAZY:
        module, attr = _LAZY[name]
        m = importlib.import_module(f".{module}", __name__)
        value = m if attr is None else getattr(m, attr)
        globals()[name] = value  # once
        return value
    raise AttributeError(f"module 'twinfab' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
