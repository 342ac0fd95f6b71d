"""Parameter sweeps: a grid of points, each one job (runner.Program or runner.Perf),
run in parallel worker processes on this machine's cores or as a Slurm job array,
collected into a pandas DataFrame.

    df = twinfab.sweep(lambda p: twinfab.Program(ring, n=p["n"], loss=p["loss"]),
                       {"n": [2, 4, 8], "loss": [0, 0.01]}, name="ring-loss")

Every row carries the point's parameters, its metrics (`metrics(params, result)`, by
default the run's status, times, memory and counters, or one row per message size for
a perf job), the platform, loss probability and seed the run used, the twinfab
revision, and `error` (empty when the point succeeded). A point that fails (crash,
deadlock, timeout, nonzero exit) is a row with its error; the sweep goes on.

Completed points are cached (one JSON file per point, written atomically, keyed by the
job, the program's and platform file's contents and the twinfab revision): a re-run,
or a run after Ctrl-C, only runs what is missing. Points killed by a timeout or an
interrupt are not cached.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import itertools
import json
import os
import shutil
import tempfile
import threading
import time
from typing import Any, Callable, Iterable, Optional, Union

from . import _core, _paths
from .runner import Perf, Program, RunResult, Worker, finish, worker_command

#: Columns that differ between two runs of the same point (this machine's speed and
#: load, where it ran); everything else is a function of the point.
NONDETERMINISTIC_COLUMNS = ("wall_time", "process_wall_time", "peak_memory", "cached")


def grid_points(grid: Union[dict, Iterable[dict]]) -> list:
    """{axis: values} -> the cartesian product as dicts, first axis slowest; a list
    of dicts is taken as the points themselves."""
    if isinstance(grid, dict):
        axes = list(grid)
        for a in axes:
            if isinstance(grid[a], (str, bytes)) or not hasattr(grid[a], "__iter__"):
                raise ValueError(f"grid axis {a!r} must be a list of values, got {grid[a]!r}")
        return [dict(zip(axes, combo)) for combo in itertools.product(*(list(grid[a]) for a in axes))]
    points = [dict(p) for p in grid]
    for p in points:
        if not isinstance(p, dict):
            raise ValueError(f"a grid given as a list must hold dicts, got {p!r}")
    return points


def point_key(job: Union[Program, Perf]) -> str:
    return hashlib.sha256(json.dumps(job.identity(), sort_keys=True).encode()).hexdigest()[:24]


def default_metrics(params: dict, result: RunResult) -> Union[dict, list]:
    """A program: status, times, memory and every counter. A perf test: one row per
    size with its latency or bandwidth figures."""
    if result.perf is not None:
        rows = result.perf.get("latency") or result.perf.get("bandwidth") or []
        return [dict(r, simulated_time=result.simulated_time) for r in rows] or [{}]
    row = {"status": result.status, "simulated_time": result.simulated_time, "wall_time": result.wall_time,
           "peak_memory": result.peak_memory}
    row.update(result.counters or {})
    return row


class Sweep:
    """A sweep (see the module's doc). `point(params)` returns the job for a point (or
    None to leave it out); `executor` is "local" (jobs = worker processes at once,
    default the number of cores) or "slurm" / a slurm.SlurmExecutor."""

    def __init__(self, point: Callable[[dict], Any], grid, *, name: str = "sweep",
                 metrics: Callable[[dict, RunResult], Any] = default_metrics, cache_dir: Optional[str] = None,
                 jobs: Optional[int] = None, executor="local", progress: bool = True,
                 timeout: Optional[float] = None):
        self.point = point
        self.params = grid_points(grid)
        self.name = name
        self.metrics = metrics
        self.cache_dir = cache_dir or _paths.work_dir("sweeps", name, "cache")
        os.makedirs(self.cache_dir, exist_ok=True)
        self.jobs = jobs or os.cpu_count() or 1
        if self.jobs < 1:
            raise ValueError(f"jobs={jobs!r} must be at least 1")
        self.executor = executor
        self.progress = progress
        self.timeout = timeout
        self._workers = set()
        self._cancelled = False
        self._lock = threading.Lock()

    # -- the cache ----------------------------------------------------------------
    def _cache_path(self, key: str) -> str:
        return os.path.join(self.cache_dir, f"{key}.json")

    def _load(self, key: str) -> Optional[RunResult]:
        try:
            with open(self._cache_path(key)) as f:
                return RunResult.from_json(json.load(f)["result"])
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent, or not ours: run the point again

    def _store(self, key: str, job, result: RunResult) -> None:
        if result.error and (result.error.startswith("timed out") or "died of SIG" in result.error):
            return  # the machine's doing, not the point's: try again next time
        path = self._cache_path(key)
        tmp = f"{path}.tmp{os.getpid()}.{threading.get_ident()}"
        with open(tmp, "w") as f:
            json.dump({"identity": job.identity(), "result": result.to_json()}, f)
        os.replace(tmp, path)

    # -- running ------------------------------------------------------------------
    def _jobs(self):
        out = []
        for i, p in enumerate(self.params):
            job = self.point(dict(p))
            if job is None:
                continue
            if not isinstance(job, (Program, Perf)):
                raise TypeError(f"point({p}) returned {type(job).__name__}; expected twinfab.Program or twinfab.Perf")
            if getattr(job, "backend", "sim") != "sim":
                raise ValueError("sweeps run simulated points; run hardware jobs with twinfab.run(backend='verbs')")
            job.validate()  # bad input fails here, before any point runs
            if self.timeout is not None and job.timeout is None:
                job.timeout = self.timeout
            out.append((i, p, job, point_key(job)))
        return out

    def _run_local(self, todo, results, bar):
        scratch = tempfile.mkdtemp(prefix="twinfab-sweep-")  # the workers' result files

        def one(item):
            _, _, job, key = item
            w = Worker(job.spec(), result_path=os.path.join(scratch, f"{key}.json"))
            with self._lock:
                if self._cancelled:
                    raise KeyboardInterrupt("the sweep was interrupted")
                self._workers.add(w)
            try:
                r = w.run(timeout=job.timeout, cli=job.cli())
            finally:
                with self._lock:
                    self._workers.discard(w)
                try:
                    os.unlink(w.result_path)
                except OSError:
                    pass
            return item, r

        pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs)
        futures = []
        try:
            futures = [pool.submit(one, item) for item in todo]
            for fut in concurrent.futures.as_completed(futures):
                (i, p, job, key), r = fut.result()
                self._store(key, job, r)
                results[i] = (r, False)
                bar.update(1)
        except BaseException:
            for f in futures:
                f.cancel()
            with self._lock:
                self._cancelled = True  # no point starts from now on
                for w in list(self._workers):
                    w.kill()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            shutil.rmtree(scratch, ignore_errors=True)

    def _run_slurm(self, todo, results, bar):
        from .slurm import SlurmExecutor

        ex = SlurmExecutor() if self.executor == "slurm" else self.executor
        ex.check()  # a clear error before any point is submitted
        workdir = _paths.work_dir("sweeps", self.name, "slurm", time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}")
        commands = [worker_command(job.spec(), os.path.join(workdir, f"result-{n}.json"))
                    for n, (_, _, job, _) in enumerate(todo)]

        def done(n, task):
            i, p, job, key = todo[n]
            r = finish(job.spec(), task["returncode"], task.get("stdout", ""), task.get("stderr", ""),
                       os.path.join(workdir, f"result-{n}.json"), wall=float("nan"), cli=job.cli())
            self._store(key, job, r)
            results[i] = (r, False)
            bar.update(1)

        from .runner import _worker_env
        pkg_env = {"PYTHONPATH": _worker_env()["PYTHONPATH"]}
        ex.run_array(commands, workdir, env=pkg_env, on_done=done)

    def run(self):
        """Runs what the cache does not have; returns the DataFrame (one or more rows
        per point, in grid order)."""
        import pandas as pd
        from tqdm.auto import tqdm

        items = self._jobs()
        results = {}
        todo = []
        for item in items:
            r = self._load(item[3])
            if r is not None:
                results[item[0]] = (r, True)
            else:
                todo.append(item)
        with tqdm(total=len(items), initial=len(items) - len(todo), desc=self.name, unit="point",
                  disable=not self.progress, dynamic_ncols=True) as bar:
            if todo:
                if self.executor == "local":
                    self._run_local(todo, results, bar)
                else:
                    self._run_slurm(todo, results, bar)
        rows = []
        for i, p, job, key in items:
            r, cached = results[i]
            rows.extend(self._rows(p, job, key, r, cached))
        return pd.DataFrame(rows)

    def _rows(self, params, job, key, result: RunResult, cached: bool):
        measured = self.metrics(params, result) if result.ok else {}
        if isinstance(measured, dict):
            measured = [measured]
        meta = {"platform": result.platform or job.platform, "loss_probability": result.loss_probability,
                "loss_seed": result.loss_seed, "ok": result.ok, "error": result.error or "",
                "revision": _core.revision, "point": key, "cached": cached,
                "process_wall_time": result.process_wall_time}
        out = []
        for m in measured or [{}]:
            row = dict(params)
            row.update({k: v for k, v in m.items() if k not in params})
            if not result.ok:
                row["status"] = result.status
            for k, v in meta.items():
                row.setdefault(k, v)
            out.append(row)
        return out


def sweep(point: Callable[[dict], Any], grid, **kwargs):
    """Sweep(point, grid, **kwargs).run(): see Sweep."""
    return Sweep(point, grid, **kwargs).run()


def save(df, path_prefix: str, formats: Iterable[str] = ("csv", "json")) -> list:
    """Writes the DataFrame as <path_prefix>.csv (and .json: records); returns the paths."""
    os.makedirs(os.path.dirname(os.path.abspath(path_prefix)), exist_ok=True)
    paths = []
    for fmt in formats:
        path = f"{path_prefix}.{fmt}"
        if fmt == "csv":
            df.to_csv(path, index=False)
        elif fmt == "json":
            df.to_json(path, orient="records", indent=1)
        else:
            raise ValueError(f"format {fmt!r}: csv or json")
        paths.append(path)
    return paths
