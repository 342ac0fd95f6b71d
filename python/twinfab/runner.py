"""One run: an MPI program on the simulated fabric or on a real device, or a perf test.

A *job* is a plain description (`Program`, `Perf`) that can be hashed, cached, sent
to a Slurm task and run; `run()` and `perf()` are the one-call forms. Every simulated
job runs in a worker process of its own (`python3 -m twinfab._point`): SimGrid keeps
one engine per process, and a point that crashes or hangs must not take the caller
with it. The worker calls the same C++ launcher as `twinfab sim`, so a point is
bit-identical to the same point run from the CLI (`RunResult.cli` is that command).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any, Optional, Sequence

from . import _core, _paths

#: Platform keys that `loss=` and `seed=` set (the CLI's --loss / --seed).
LOSS_KEY = "loss.probability"
SEED_KEY = "loss.seed"


class RunError(RuntimeError):
    """A job could not be started (bad input, missing program); a job that ran and
    failed returns a result with `ok == False` instead."""


@dataclasses.dataclass
class RunResult:
    """What a run produced. Times in seconds, memory in bytes. On hardware
    (backend "verbs") there is no simulated time and no counters."""

    ok: bool                      #: the job ran and every rank exited 0
    status: Optional[int]         #: exit status (the first nonzero rank's), None if it never ran
    stdout: str
    stderr: str
    #: this machine's seconds for the run as the launcher measured it (loading the
    #: program included); when it left no result, the worker process's
    wall_time: float
    simulated_time: Optional[float] = None
    peak_memory: Optional[int] = None  #: the simulator process's peak resident set
    counters: dict = dataclasses.field(default_factory=dict)   #: summed over HCAs
    per_hca: list = dataclasses.field(default_factory=list)    #: one dict per host
    platform: Optional[str] = None
    nranks: Optional[int] = None
    ranks_per_host: Optional[int] = None
    loss_probability: Optional[float] = None
    loss_seed: Optional[int] = None
    perf: Optional[dict] = None   #: perf jobs: {"latency": [...], "bandwidth": [...]}
    error: Optional[str] = None   #: why the point failed, when it did
    cli: Optional[str] = None     #: the equivalent command line
    #: the worker process's seconds as the caller saw them (interpreter start-up
    #: included); None when it ran elsewhere (Slurm)
    process_wall_time: Optional[float] = None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, d: dict) -> "RunResult":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


def _check_env(env: Optional[dict]) -> dict:
    env = {str(k): str(v) for k, v in (env or {}).items()}
    mpi = {k: v for k, v in env.items() if k.startswith("TWINFAB_") and k not in NOT_MPI_PARAMETERS}
    if mpi:
        _core.check_mpi_parameters(mpi)  # ValueError naming the parameter and what it allows
    return env


#: TWINFAB_* variables that are not MPI parameters: logging, paths, device choice, the
#: simulator's and the runtime's own settings, this package's. Any other TWINFAB_* name
#: in `env` is checked as an MPI parameter, so a misspelt one is an error, not ignored
#: (tests/python/test_bindings.py checks this list against the sources).
NOT_MPI_PARAMETERS = frozenset({
    "TWINFAB_LOG_LEVEL", "TWINFAB_PLATFORM_PATH", "TWINFAB_DEVICE", "TWINFAB_GID_INDEX", "TWINFAB_IWARP_ADDR",
    "TWINFAB_BLOCKING_WAIT", "TWINFAB_YIELD_WHEN_IDLE", "TWINFAB_SIM_CONTEXTS", "TWINFAB_SIM_STACK_KIB",
    "TWINFAB_SIM_STACK_GUARDS", "TWINFAB_SIM_ALL_HOSTS", "TWINFAB_WORK", "TWINFAB_SCENARIO_PATH", "TWINFAB_BUILD",
    "TWINFAB_DELAY_US", "TWINFAB_DELAY_JITTER_US", "TWINFAB_DELAY_SEED"})


def _file_digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def _platform_digest(platform: str) -> str:
    """A platform given as a file is part of a point's identity by content."""
    return _file_digest(platform) if os.path.isfile(platform) else platform


def _platform_options(overrides: dict, loss: Optional[float], seed: Optional[int]) -> list:
    """The CLI's words for a point's platform settings (`twinfab sim` and `perf` alike)."""
    words = []
    for o in _core.override_strings(dict(overrides)):
        words += ["--set", o]
    if loss is not None:
        words += ["--loss", repr(float(loss))]
    if seed is not None:
        words += ["--seed", str(seed)]
    return words


@dataclasses.dataclass
class Program:
    """An MPI program (built with twinfab-mpicc) run as `n` ranks.

    backend "sim": on the simulated `platform` (a preset name or TOML path), with
    `overrides` ({"hca.icm_cache_entries": 64, ...}), `loss` (per-packet probability)
    and `seed` (the loss generator's). backend "verbs": under `launcher` ("mpirun" or
    "srun") on the RDMA device of this machine or cluster.
    `env`: the ranks' environment additions; TWINFAB_* MPI parameters are checked
    before the run."""

    program: str
    n: int = 2
    args: Sequence[Any] = ()
    platform: str = "connectx-ddr"
    overrides: dict = dataclasses.field(default_factory=dict)
    loss: Optional[float] = None
    seed: Optional[int] = None
    ranks_per_host: Optional[int] = None
    env: dict = dataclasses.field(default_factory=dict)
    backend: str = "sim"
    launcher: str = "mpirun"
    timeout: Optional[float] = None

    def validate(self) -> None:
        if self.backend not in ("sim", "verbs"):
            raise ValueError(f"backend {self.backend!r}: valid backends are 'sim' and 'verbs'")
        if not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n={self.n!r}: the number of ranks must be a positive integer")
        if not os.path.isfile(self.program) or not os.access(self.program, os.X_OK):
            raise RunError(f"program {self.program!r} does not exist or is not executable "
                           f"(build it with twinfab-mpicc: twinfab.build_program())")
        if self.loss is not None and not (0.0 <= float(self.loss) <= 1.0):
            raise ValueError(f"loss={self.loss!r} must be a probability in [0, 1]")
        if self.seed is not None and (not isinstance(self.seed, int) or self.seed < 0):
            raise ValueError(f"seed={self.seed!r} must be a non-negative integer")
        if self.ranks_per_host is not None and (not isinstance(self.ranks_per_host, int)
                                                or not 1 <= self.ranks_per_host <= 4096):
            raise ValueError(f"ranks_per_host={self.ranks_per_host!r} must be an integer in 1..4096")
        if self.backend == "sim":
            _core.Platform.load(self.platform, dict(self.overrides))  # the C++ loader's ValueError
        elif self.overrides or self.loss is not None or self.seed is not None:
            raise ValueError("overrides, loss and seed apply to backend 'sim' only")
        if self.launcher not in ("mpirun", "srun"):
            raise ValueError(f"launcher {self.launcher!r}: 'mpirun' or 'srun'")
        _check_env(self.env)

    def spec(self) -> dict:
        """The job as JSON-able data: what the worker runs and what the cache keys."""
        return {"kind": "program", "command": [os.path.abspath(self.program)] + [str(a) for a in self.args],
                "n": self.n, "platform": self.platform, "overrides": dict(self.overrides), "loss": self.loss,
                "seed": self.seed, "ranks_per_host": self.ranks_per_host or 0, "env": _check_env(self.env),
                "backend": self.backend, "launcher": self.launcher}

    def identity(self) -> dict:
        """spec() plus what else decides the result: the program's and platform
        file's contents and the twinfab revision."""
        return {"spec": self.spec(), "program_digest": _file_digest(self.program),
                "platform_digest": _platform_digest(self.platform), "revision": _core.revision}

    def cli(self) -> str:
        s = self.spec()
        env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(s["env"].items()))
        if self.backend == "verbs":
            return (env + " " if env else "") + " ".join(shlex.quote(w) for w in _verbs_command(s))
        words = [_paths.TWINFAB, "sim", "-n", str(self.n), "--platform", self.platform]
        if self.ranks_per_host:
            words += ["--ranks-per-host", str(self.ranks_per_host)]
        words += _platform_options(self.overrides, self.loss, self.seed)
        words += ["--"] + s["command"]
        return (env + " " if env else "") + " ".join(shlex.quote(w) for w in words)

    def run(self) -> RunResult:
        self.validate()
        if self.backend == "verbs":
            return _run_verbs(self)
        return run_spec(self.spec(), timeout=self.timeout, cli=self.cli())


@dataclasses.dataclass
class Perf:
    """A perftest-style test on two simulated hosts (`twinfab perf --backend sim`):
    test is one of _core.perf_tests; sizes in bytes (default 2 B ... 8 MiB)."""

    test: str = "write-lat"
    platform: str = "connectx-ddr"
    sizes: Sequence[int] = ()
    iterations: int = 1000
    tx_depth: int = 128
    overrides: dict = dataclasses.field(default_factory=dict)
    loss: Optional[float] = None
    seed: Optional[int] = None
    timeout: Optional[float] = None

    def all_overrides(self) -> dict:
        o = dict(self.overrides)
        if self.loss is not None:
            o[LOSS_KEY] = float(self.loss)
        if self.seed is not None:
            o[SEED_KEY] = int(self.seed)
        return o

    def validate(self) -> None:
        if self.test not in _core.perf_tests:
            raise ValueError(f"perf test {self.test!r}: valid tests are {', '.join(_core.perf_tests)}")
        if not isinstance(self.iterations, int) or self.iterations < 1:
            raise ValueError(f"iterations={self.iterations!r} must be a positive integer")
        for s in self.sizes:
            if not isinstance(s, int) or not 1 <= s <= 1 << 31:
                raise ValueError(f"size {s!r} must be an integer in 1..2^31")
        _core.Platform.load(self.platform, self.all_overrides())

    def spec(self) -> dict:
        return {"kind": "perf", "test": self.test, "platform": self.platform, "overrides": self.all_overrides(),
                "sizes": [int(s) for s in self.sizes], "iterations": self.iterations, "tx_depth": self.tx_depth,
                "env": {}}

    def identity(self) -> dict:
        return {"spec": self.spec(), "platform_digest": _platform_digest(self.platform), "revision": _core.revision}

    def cli(self) -> str:
        words = [_paths.TWINFAB, "perf", self.test, "--backend", "sim", "--platform", self.platform,
                 "-n", str(self.iterations), "-t", str(self.tx_depth)]
        for s in self.sizes:
            words += ["-s", str(s)]
        words += _platform_options(self.overrides, self.loss, self.seed)
        return " ".join(shlex.quote(w) for w in words)

    def run(self) -> RunResult:
        self.validate()
        return run_spec(self.spec(), timeout=self.timeout, cli=self.cli())


def run(program: str, n: int = 2, *, args: Sequence[Any] = (), platform: str = "connectx-ddr",
        overrides: Optional[dict] = None, loss: Optional[float] = None, seed: Optional[int] = None,
        ranks_per_host: Optional[int] = None, env: Optional[dict] = None, backend: str = "sim",
        launcher: str = "mpirun", timeout: Optional[float] = None) -> RunResult:
    """Runs an MPI program built with twinfab-mpicc as `n` ranks; see `Program`."""
    return Program(program, n, args, platform, dict(overrides or {}), loss, seed, ranks_per_host, dict(env or {}),
                   backend, launcher, timeout).run()


def perf(test: str = "write-lat", *, platform: str = "connectx-ddr", sizes: Sequence[int] = (),
         iterations: int = 1000, tx_depth: int = 128, overrides: Optional[dict] = None,
         loss: Optional[float] = None, seed: Optional[int] = None, timeout: Optional[float] = None) -> RunResult:
    """A perftest-style test on the simulated fabric; see `Perf`. The table is in
    `result.perf` (latency in microseconds, bandwidth in MB/s)."""
    return Perf(test, platform, tuple(sizes), iterations, tx_depth, dict(overrides or {}), loss, seed, timeout).run()


# ---------------------------------------------------------------------------------
# The worker process
# ---------------------------------------------------------------------------------

def worker_command(spec: dict, result_path: str) -> list:
    """The argv that runs `spec` in a fresh process and writes its result to
    `result_path` (the local pool and Slurm tasks run exactly this)."""
    # -S: no site module (~6 ms of start-up per point): the worker needs the standard
    # library and this package, whose folder _worker_env() puts on PYTHONPATH.
    return [_paths.PYTHON, "-S", "-m", "twinfab._point", json.dumps(spec, sort_keys=True), result_path]


def _worker_env() -> dict:
    env = dict(os.environ)
    # The worker must import this very package (build tree or installed).
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def finish(spec: dict, returncode: Optional[int], stdout: str, stderr: str, result_path: str, wall: float,
           cli: Optional[str] = None, timed_out: bool = False) -> RunResult:
    """The RunResult of a worker that ended with `returncode`, from its result file
    (or, when it left none, from how it died)."""
    data = None
    if os.path.exists(result_path):
        try:
            with open(result_path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = None
    if data is None:
        if timed_out:
            why = "timed out (the point was killed)"
        elif returncode is not None and returncode < 0:
            why = f"the simulator process died of {_signal_name(returncode)}"
        else:
            # MPI_Abort, MPI_ERRORS_ARE_FATAL, a deadlock the simulator detected: the
            # launcher ends the process at once with the job's status and says why
            # on stderr (its last lines).
            why = f"the simulation ended with status {returncode}"
        tail = "\n".join(stderr.strip().splitlines()[-5:])
        status = returncode if (returncode is not None and returncode > 0 and not timed_out) else None
        return RunResult(ok=False, status=status, stdout=stdout, stderr=stderr, wall_time=wall,
                         error=why + (f": {tail}" if tail else ""), cli=cli)
    if "error" in data:  # the launcher refused the job or the simulation failed (e.g. deadlock)
        return RunResult(ok=False, status=None, stdout=stdout, stderr=stderr, wall_time=wall, error=data["error"],
                         cli=cli)
    status = data.get("exit_status", 0)
    r = RunResult(ok=status == 0, status=status, stdout=stdout, stderr=stderr, wall_time=data.get("wall_time", wall),
                  simulated_time=data.get("simulated_time"), peak_memory=data.get("peak_rss_bytes"),
                  counters=data.get("counters", {}), per_hca=data.get("per_hca", []), platform=data.get("platform"),
                  nranks=data.get("nranks"), ranks_per_host=data.get("ranks_per_host"),
                  loss_probability=data.get("loss_probability"), loss_seed=data.get("loss_seed"),
                  perf=data.get("perf"), cli=cli, process_wall_time=None if math.isnan(wall) else wall)
    if not r.ok:
        tail = "\n".join(stderr.strip().splitlines()[-3:])
        r.error = f"exit status {status}" + (f": {tail}" if tail else "")
    return r


class Worker:
    """One worker process running one spec; `kill()` ends it (Ctrl-C in a sweep)."""

    def __init__(self, spec: dict, result_path: Optional[str] = None):
        self.spec = spec
        self._tmp = None
        if result_path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="twinfab-point-")
            result_path = os.path.join(self._tmp.name, "result.json")
        self.result_path = result_path
        self.proc = None
        # kill() may come from another thread (a sweep's Ctrl-C) before the process
        # exists: it is then never started.
        self._lock = threading.Lock()
        self._killed = False

    def run(self, timeout: Optional[float] = None, cli: Optional[str] = None) -> RunResult:
        start = time.monotonic()
        try:
            if os.path.exists(self.result_path):
                os.unlink(self.result_path)
            with self._lock:
                if self._killed:
                    raise KeyboardInterrupt("the point was cancelled before it started")
                self.proc = subprocess.Popen(worker_command(self.spec, self.result_path), env=_worker_env(),
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                             errors="replace", start_new_session=True)
            timed_out = False
            try:
                out, err = self.proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                self.kill()
                out, err = self.proc.communicate()
            return finish(self.spec, self.proc.returncode, out, err, self.result_path, time.monotonic() - start,
                          cli=cli, timed_out=timed_out)
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()

    def kill(self) -> None:
        with self._lock:
            self._killed = True
            if self.proc is not None and self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)  # the worker is its session's leader
                except ProcessLookupError:
                    pass


def run_spec(spec: dict, timeout: Optional[float] = None, cli: Optional[str] = None) -> RunResult:
    return Worker(spec).run(timeout=timeout, cli=cli)


# ---------------------------------------------------------------------------------
# Hardware
# ---------------------------------------------------------------------------------

def _verbs_command(spec: dict) -> list:
    n = str(spec["n"])
    if spec["launcher"] == "srun":
        return ["srun", "--mpi=pmix", "-n", n] + spec["command"]
    words = ["mpirun", "--oversubscribe", "-n", n]
    if os.geteuid() == 0:
        words.insert(1, "--allow-run-as-root")  # Open MPI refuses root otherwise (containers, VMs)
    for k in sorted(spec["env"]):
        words += ["-x", k]
    return words + spec["command"]


def _run_verbs(job: Program) -> RunResult:
    spec = job.spec()
    cmd = _verbs_command(spec)
    from shutil import which
    if which(cmd[0]) is None:
        raise RunError(f"backend 'verbs' needs {cmd[0]} on PATH (Open MPI's mpirun, or Slurm's srun with PMIx)")
    env = dict(os.environ, **spec["env"])
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace", timeout=job.timeout)
    except subprocess.TimeoutExpired as e:
        return RunResult(ok=False, status=None, stdout=e.stdout or "", stderr=e.stderr or "",
                         wall_time=time.monotonic() - start, error="timed out", cli=job.cli(), nranks=job.n)
    wall = time.monotonic() - start
    r = RunResult(ok=p.returncode == 0, status=p.returncode, stdout=p.stdout, stderr=p.stderr, wall_time=wall,
                  nranks=job.n, cli=job.cli())
    if not r.ok:
        r.error = f"exit status {p.returncode}: " + "\n".join(p.stderr.strip().splitlines()[-3:])
    return r


# ---------------------------------------------------------------------------------
# Building programs
# ---------------------------------------------------------------------------------

def build_program(source: str, output: Optional[str] = None, cflags: Sequence[str] = ("-O2",)) -> str:
    """Compiles an MPI C source with this twinfab's twinfab-mpicc (only when the
    source or the wrapper is newer than the binary); returns the binary's path
    (default: <work dir>/bin/<name>)."""
    if not os.access(_paths.MPICC, os.X_OK):
        raise RunError(f"{_paths.MPICC} is missing: build twinfab (cmake --build build) first")
    if output is None:
        output = os.path.join(_paths.work_dir("bin"), os.path.splitext(os.path.basename(source))[0])
    deps = [source, _paths.MPICC]
    if not os.path.exists(output) or any(os.path.getmtime(d) > os.path.getmtime(output) for d in deps):
        tmp = f"{output}.tmp{os.getpid()}"
        p = subprocess.run([_paths.MPICC, *cflags, "-o", tmp, source], capture_output=True, text=True)
        if p.returncode != 0:
            raise RunError(f"twinfab-mpicc failed on {source}:\n{p.stderr}")
        os.replace(tmp, output)  # atomic: parallel builders of one program do not clash
    return output
