"""A private single-node Slurm cluster for tests: munged + slurmctld + slurmd.

Usage (also as a pytest fixture body)::

    with SingleNodeSlurm(tmp_path) as cluster:
        subprocess.run(["sinfo"], env=cluster.env)

Everything lives under ``workdir``: the munge key, munged's socket, pid, seed
and log files, slurm.conf, slurmctld's state, slurmd's spool, pid and log
files. The two Slurm ports are picked free at start-up, so several clusters
(ctest -j2) can run side by side on one machine; each has its own munged
(AuthInfo=socket=...), so they do not even share credentials.

No systemd is needed: the daemons run in the foreground (``-D``/``-F``) as
children of this process, each in its own session, and ``stop()`` (or leaving
the ``with`` block) cancels the jobs still queued, terminates slurmd,
slurmctld and munged, and kills whatever processes are left that belong to
this cluster (slurmstepd and the job's tasks, found by the SLURM_CONF or the
spool directory they carry), so no process outlives the fixture.

Requirements: root (SlurmUser=root; slurmd launches jobs as the submitting
user), and Debian's packages slurmctld, slurmd, slurm-client and munge
(ci/install-deps.sh). Where these are missing, ``SingleNodeSlurm`` calls
``pytest.skip`` with the reason (or raises ``SlurmUnavailable`` outside pytest).
A cluster that is installed but fails to come up is an error, not a skip: the
exception names the daemon and includes the tail of its log.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["SingleNodeSlurm", "SlurmUnavailable", "SlurmStartError"]

_BINARIES = ("munged", "slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scancel", "scontrol")


class SlurmUnavailable(Exception):
    """Slurm cannot run on this machine (missing packages, not root)."""


class SlurmStartError(RuntimeError):
    """The daemons were started but the cluster did not come up."""


def _skip(reason: str):
    try:
        import pytest
    except ImportError:  # pragma: no cover - used outside pytest
        raise SlurmUnavailable(reason) from None
    pytest.skip(reason)


def _free_ports(count: int) -> list[int]:
    """Ports free right now on 127.0.0.1, distinct from each other."""
    socks, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


_PR_SET_CHILD_SUBREAPER = 36
_subreaper_users = 0


def _set_subreaper(on: bool) -> None:
    """Make this process the reaper of the daemons' orphans (slurmstepd).

    slurmd double-forks slurmstepd, so a step's slurmstepd is an orphan; without
    a subreaper it is adopted by PID 1, which in some containers reaps late, and
    its zombie would outlive the cluster. With this process as subreaper,
    ``stop()`` reaps them itself. Best effort: Linux only.
    """
    global _subreaper_users
    _subreaper_users += 1 if on else -1
    if (on and _subreaper_users == 1) or (not on and _subreaper_users == 0):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _adopted_stepds(keep: set[int]) -> list[tuple[int, str]]:
    """(pid, state) of the slurmstepd/slurmscriptd processes adopted by this process."""
    me = os.getpid()
    found = []
    for pid_s in os.listdir("/proc"):
        if not pid_s.isdigit() or int(pid_s) in keep:
            continue
        try:
            with open(f"/proc/{pid_s}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        if comm in ("slurmstepd", "slurmscriptd") and int(fields[1]) == me:
            found.append((int(pid_s), fields[0]))
    return found


def _reap_adopted(keep: set[int], wait: float = 0.0) -> None:
    """waitpid() the slurmstepd children adopted as subreaper, waiting up to
    ``wait`` seconds for those still alive to end."""
    deadline = time.monotonic() + wait
    while True:
        alive = False
        for pid, state in _adopted_stepds(keep):
            if state in ("Z", "X"):
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            else:
                alive = True
        if not alive or time.monotonic() >= deadline:
            return
        time.sleep(0.05)


def _tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return f"  ({path}: not written)"
    if not text:
        return f"  ({path}: empty)"
    return "\n".join(f"  {line}" for line in text[-lines:])


class SingleNodeSlurm:
    """Context manager running a one-node Slurm cluster under ``workdir``.

    Attributes once started:
      conf      path of slurm.conf
      env       environment for subprocesses: os.environ (without inherited
                SLURM_* variables) plus SLURM_CONF=conf
      node      the node's name (this host's short name)
      partition the partition's name ("debug")
      cpus      CPUs given to the node (os.cpu_count())
    """

    partition = "debug"

    def __init__(self, workdir, start_timeout: float = 60.0, attempts: int = 3):
        self.workdir = Path(workdir).resolve() / "slurm"
        self.start_timeout = start_timeout
        self.attempts = attempts
        self.node = socket.gethostname().split(".")[0]
        self.cpus = os.cpu_count() or 1
        self.conf = self.workdir / "slurm.conf"
        self.munge_socket = self.workdir / "munge" / "munge.socket"
        self.env: dict[str, str] = {}
        self._procs: dict[str, subprocess.Popen] = {}
        self._subreaper = False
        self._logs: dict[str, list[Path]] = {}

    # -- context manager -------------------------------------------------
    def __enter__(self) -> "SingleNodeSlurm":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- start -------------------------------------------------------------
    def start(self) -> None:
        missing = [b for b in _BINARIES if shutil.which(b) is None]
        if missing:
            _skip(
                "Slurm is not installed: " + ", ".join(missing) + " not on PATH "
                "(Debian packages slurmctld slurmd slurm-client munge; ci/install-deps.sh)"
            )
        if os.geteuid() != 0:
            _skip("the private Slurm test cluster needs root (SlurmUser=root, slurmd runs jobs as their user)")

        for sub in ("munge", "state", "spool", "log", "run"):
            (self.workdir / sub).mkdir(parents=True, exist_ok=True)
        self.workdir.chmod(0o755)
        (self.workdir / "plugstack.conf").write_text("")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
        self.env["SLURM_CONF"] = str(self.conf)
        _set_subreaper(True)
        self._subreaper = True
        try:
            self._start_munged()
            last = None
            for _ in range(self.attempts):
                try:
                    self._start_slurm()
                    return
                except SlurmStartError as e:
                    # A port taken between picking and binding: try new ports.
                    last = e
                    self._stop_slurm()
                    if "Address already in use" not in str(e):
                        raise
            raise last
        except BaseException:
            self.stop()
            raise

    def _spawn(self, name: str, argv: list[str], extra_logs: list[Path]) -> None:
        out = self.workdir / "log" / f"{name}.stderr"
        with open(out, "ab") as f:
            self._procs[name] = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
                cwd=self.workdir,
                env=self.env,
                start_new_session=True,
            )
        self._logs[name] = [out, *extra_logs]

    def _start_munged(self) -> None:
        mdir = self.workdir / "munge"
        key = mdir / "munge.key"
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(1024))
        # --force: munged refuses socket directories without execute permission
        # for all (pytest's tmp dirs are 0700) unless forced; it then only warns.
        self._spawn(
            "munged",
            [
                "munged", "--foreground", "--force",
                f"--socket={self.munge_socket}",
                f"--key-file={key}",
                f"--pid-file={mdir / 'munged.pid'}",
                f"--log-file={mdir / 'munged.log'}",
                f"--seed-file={mdir / 'munged.seed'}",
            ],
            [],  # in the foreground munged logs to stderr, not to --log-file
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            self._check_alive()
            if self.munge_socket.exists():
                return
            time.sleep(0.05)
        raise SlurmStartError(self._report(f"munged did not create {self.munge_socket} within 15 s"))

    def _write_conf(self, ctld_port: int, slurmd_port: int) -> None:
        w = self.workdir
        mem = 1024  # MB; well below any real node, CR_Core does not track memory
        self.conf.write_text(
            f"""# written by tests/python/slurm_cluster.py: a private one-node cluster
ClusterName=twinfab{os.getpid()}
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
StateSaveLocation={w}/state
SlurmdSpoolDir={w}/spool
SlurmctldPidFile={w}/run/slurmctld.pid
SlurmdPidFile={w}/run/slurmd.pid
SlurmctldLogFile={w}/log/slurmctld.log
SlurmdLogFile={w}/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig={w}/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MinJobAge=300
KillWait=5
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName={self.node} NodeAddr=127.0.0.1 NodeHostname={self.node} CPUs={self.cpus} RealMemory={mem} State=UNKNOWN
PartitionName={self.partition} Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
"""
        )

    def _start_slurm(self) -> None:
        ctld_port, slurmd_port = _free_ports(2)
        self._write_conf(ctld_port, slurmd_port)
        log = self.workdir / "log"
        self._spawn("slurmctld", ["slurmctld", "-D", "-c", "-i", "-f", str(self.conf)], [log / "slurmctld.log"])
        self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.conf)], [log / "slurmd.log"])
        deadline = time.monotonic() + self.start_timeout
        state = ""
        while time.monotonic() < deadline:
            self._check_alive()
            r = subprocess.run(
                ["sinfo", "-h", "-N", "-o", "%N %t"],
                env=self.env, capture_output=True, text=True, timeout=30,
            )
            state = (r.stdout + r.stderr).strip()
            if r.returncode == 0 and state.split() == [self.node, "idle"]:
                return
            time.sleep(0.2)
        raise SlurmStartError(
            self._report(f"node {self.node} not idle within {self.start_timeout:.0f} s (last sinfo: {state!r})")
        )

    def _check_alive(self) -> None:
        for name, p in self._procs.items():
            if p.poll() is not None:
                raise SlurmStartError(self._report(f"{name} exited with status {p.returncode} during start-up"))

    def _report(self, what: str) -> str:
        parts = [f"private Slurm cluster under {self.workdir}: {what}"]
        for name, logs in self._logs.items():
            for path in logs:
                parts.append(f"--- {name}: {path}\n{_tail(path)}")
        return "\n".join(parts)

    # -- stop ---------------------------------------------------------------
    def _stop(self, name: str, timeout: float = 15.0) -> None:
        p = self._procs.pop(name, None)
        if p is None:
            return
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()

    def _stop_slurm(self) -> None:
        ctld_up = "slurmctld" in self._procs and self._procs["slurmctld"].poll() is None
        if ctld_up:
            # Cancel what is queued or running, and give slurmd a moment to
            # end the steps, so slurmd is not stopped with jobs still running.
            subprocess.run(["scancel", "--full", f"--partition={self.partition}"],
                           env=self.env, capture_output=True, timeout=30)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                r = subprocess.run(["squeue", "-h", "-o", "%i"], env=self.env,
                                   capture_output=True, text=True, timeout=30)
                if r.returncode != 0 or not r.stdout.strip():
                    break
                time.sleep(0.2)
        # Without a controller (failed start) slurmd may sit in a connect retry:
        # do not wait long for it.
        self._stop("slurmd", 15.0 if ctld_up else 2.0)
        self._stop("slurmctld")
        self._kill_leftovers()

    def _kill_leftovers(self) -> None:
        """SIGKILL slurmstepd and job processes of this cluster that are left.

        slurmstepd detaches from slurmd, so it is not in slurmd's session; it
        and the job's tasks are recognised by what they hold: an open file,
        cwd or environment naming this cluster's directory.
        """
        mine = str(self.workdir)
        keep = {os.getpid(), *(p.pid for p in self._procs.values())}
        for _ in range(3):
            found = []
            for pid_s in os.listdir("/proc"):
                if not pid_s.isdigit() or int(pid_s) in keep:
                    continue
                pid = int(pid_s)
                if self._belongs(pid, mine):
                    found.append(pid)
            if not found:
                return
            print(f"slurm_cluster: killing leftover pids {found}", file=sys.stderr)
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
            _reap_adopted(keep)

    @staticmethod
    def _belongs(pid: int, mine: str) -> bool:
        base = f"/proc/{pid}"
        try:
            with open(f"{base}/comm") as f:
                comm = f.read().strip()
            if comm == "slurmstepd":
                # Our slurmstepd has our spool directory open (its socket).
                for fd in os.listdir(f"{base}/fd"):
                    try:
                        if os.readlink(f"{base}/fd/{fd}").startswith(mine):
                            return True
                    except OSError:
                        pass
            with open(f"{base}/environ", "rb") as f:
                env = f.read()
            return f"SLURM_CONF={mine}/".encode() in env
        except OSError:
            return False

    def stop(self) -> None:
        """Stops the cluster (idempotent); no process of it is left afterwards."""
        try:
            self._stop_slurm()
        finally:
            self._stop("munged")
            if self._subreaper:
                self._subreaper = False
                _reap_adopted(set(), wait=5.0)
                _set_subreaper(False)
