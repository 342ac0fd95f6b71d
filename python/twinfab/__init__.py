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
from . import _core
from ._core import Platform, mpi_parameters, check_mpi_parameters, presets, perf_tests
from .runner import Perf, Program, RunError, RunResult, build_program, perf, run

__version__ = _core.version
#: `git describe` of the tree this package was built from ("-dirty": with changes).
revision = _core.revision
version = _core.version

__all__ = ["Platform", "presets", "perf_tests", "mpi_parameters", "check_mpi_parameters", "Program", "Perf",
           "RunResult", "RunError", "run", "perf", "build_program", "sweep", "Sweep", "save", "plots",
           "experiments", "version", "revision"]

# name -> (module, attribute or None for the module itself). The sweep engine is the
# module `sweeps`, so that `twinfab.sweep` stays the function once it is imported.
_LAZY = {"sweep": ("sweeps", "sweep"), "Sweep": ("sweeps", "Sweep"), "save": ("sweeps", "save"),
         "sweeps": ("sweeps", None), "plots": ("plots", None), "experiments": ("experiments", None),
         "slurm": ("slurm", None)}


def __getattr__(name):
    # pandas and matplotlib take ~0.5 s to import: a worker process, which only runs
    # one point, never pays for them.
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        m = importlib.import_module(f".{module}", __name__)
        return m if attr is None else getattr(m, attr)
    raise AttributeError(f"module 'twinfab' has no attribute {name!r}")
