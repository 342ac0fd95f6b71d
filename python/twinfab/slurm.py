"""Run a sweep's points as a Slurm job array (standard library only).

The sweep engine hands :class:`SlurmExecutor` a list of commands (argv lists),
one per simulation point. ``run_array`` submits them as one ``sbatch
--array=0-(N-1)`` job: array task ``i`` runs ``commands[i]``. Nothing is sent
back through Slurm itself; results travel through files in ``workdir``, which
must therefore be on a filesystem that the submitting host and the compute
nodes share:

``commands.json``
    the argv lists, the tasks' working directory, the interpreter to use for
    ``python``/``python3``;
``run_task.py``
    the batch script (run by ``/usr/bin/python3`` unless told otherwise); it
    runs ``commands[offset + SLURM_ARRAY_TASK_ID]`` and exits with its status
    (Slurm runs a copy of it, so it is given ``workdir`` and ``offset`` as arguments);
``task-<i>.out`` / ``task-<i>.err``
    the command's stdout and stderr;
``task-<i>.rc``
    its return code, written last (atomically) once the command has ended:
    its presence is what tells the submitting side that task ``i`` is done;
``slurm-<jobid>_<taskid>.log``
    the batch script's own output (Slurm's ``--output``), read back when a
    task fails before it could write its ``.rc`` file;
``bin/python``, ``bin/python3``
    links to the interpreter, put first on the tasks' PATH, so a command that
    calls ``python3`` gets the same interpreter (``/usr/bin/python3``) as the
    batch script rather than whatever a user's PATH would find.

While the job runs, ``run_array`` polls the ``.rc`` files and ``squeue -r -t
all -j <ids>`` (no accounting database, so no ``sacct``). A task that leaves
the queue, or reaches a final Slurm state, without having written its ``.rc``
file (cancelled, timed out, node failure, killed for memory, the batch script
could not start) is reported as failed, with returncode -1, its Slurm state
and a message; a command that merely exits non-zero is an ordinary result.
An interrupt (Ctrl-C) or any other error while waiting cancels the job(s)
with ``scancel`` before it propagates.

Arrays larger than the cluster's ``MaxArraySize - 1`` (1000 with Slurm's
default) are split over several jobs; the task index in the file names stays
the command's index in the list.

Example::

    ex = SlurmExecutor(partition="batch", time_limit=30)
    ex.check()
    results = ex.run_array([["/usr/bin/python3", "-c", "print(42)"]], "/shared/sweep-1")
    results[0]  # {'returncode': 0, 'stdout': '42\\n', 'stderr': '', 'slurm_job_id': '1234_0',
                #  'slurm_state': 'COMPLETED', 'message': ''}
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time

__all__ = ["SlurmError", "SlurmExecutor"]

DEFAULT_PYTHON = "/usr/bin/python3"
DEFAULT_MAX_ARRAY_SIZE = 1001  # Slurm's default MaxArraySize: indices 0..1000

# Slurm job states after which a task will not run (any further).
FINAL_STATES = {
    "BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL",
    "OUT_OF_MEMORY", "PREEMPTED", "REVOKED", "SPECIAL_EXIT", "TIMEOUT",
}

_CLIENT_COMMANDS = ("sbatch", "squeue", "scancel", "scontrol", "sinfo")

# The batch script. Kept free of anything but the standard library; it runs on
# the compute node under the interpreter named in the #! line.
_TASK_SCRIPT = r'''
"""twinfab Slurm array task: runs commands[offset + SLURM_ARRAY_TASK_ID]."""
import json, os, subprocess, sys

here = sys.argv[1]  # workdir (Slurm runs a copy of this script from its spool)
offset = int(sys.argv[2])
i = offset + int(os.environ["SLURM_ARRAY_TASK_ID"])
with open(os.path.join(here, "commands.json")) as f:
    spec = json.load(f)
argv = list(spec["commands"][i])
if argv and argv[0] in ("python", "python3"):
    argv[0] = spec["python"]
base = os.path.join(here, "task-%d" % i)
with open(base + ".out", "wb") as out, open(base + ".err", "wb") as err:
    try:
        rc = subprocess.call(argv, cwd=spec["cwd"], stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    except OSError as e:  # not found, not executable, bad cwd
        err.write(("twinfab: cannot run %r: %s\n" % (argv, e)).encode())
        rc = 127
with open(base + ".rc.tmp", "w") as f:
    f.write("%d\n" % rc)
    f.flush()
    os.fsync(f.fileno())
os.replace(base + ".rc.tmp", base + ".rc")
sys.exit(rc if 0 <= rc <= 255 else (128 - rc if rc < 0 else 1))
'''


class SlurmError(RuntimeError):
    """Slurm is unreachable, or a submission or query failed."""


def _tail(path: str, limit: int = 2000) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return ""
    return data[-limit:].decode(errors="replace")


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


class SlurmExecutor:
    """Runs lists of commands as Slurm job arrays and collects their results.

    partition     sbatch --partition (None: the cluster's default partition)
    sbatch_args   further sbatch options, e.g. ("--mem=2G", "--cpus-per-task=1")
    env           variables added to os.environ for the Slurm commands this
                  class runs (e.g. SLURM_CONF) and so also for the tasks
    poll_interval seconds between two looks at the .rc files and squeue
    time_limit    per-task time limit: minutes (int/float) or a Slurm time
                  string ("1:30:00", "2-00:00:00"); None: the partition's
    python        interpreter of the batch script, and of commands whose argv[0]
                  is "python" or "python3"
    grace         seconds a task may stay without its .rc file after Slurm
                  reports it ended (shared filesystems show files late)
    """

    def __init__(self, partition=None, sbatch_args=(), env=None, poll_interval=0.5,
                 time_limit=None, *, python=DEFAULT_PYTHON, job_name="twinfab", grace=5.0):
        self.partition = partition
        self.sbatch_args = list(sbatch_args)
        self.env = dict(env or {})
        self.poll_interval = float(poll_interval)
        self.time_limit = time_limit
        self.python = python
        self.job_name = job_name
        self.grace = float(grace)
        self.squeue_failure_timeout = 300.0  # seconds of squeue failing before giving up
        self._max_array_size = None

    # -- helpers ------------------------------------------------------------
    def _environ(self, extra=None) -> dict:
        env = dict(os.environ)
        env.update(self.env)
        if extra:
            env.update(extra)
        return {k: str(v) for k, v in env.items()}

    def _conf_desc(self) -> str:
        conf = self._environ().get("SLURM_CONF")
        return f"SLURM_CONF={conf}" if conf else "SLURM_CONF unset (default /etc/slurm/slurm.conf or configless)"

    def _run(self, argv, timeout=60.0, env=None) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(argv, env=env or self._environ(), stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=timeout)
        except FileNotFoundError:
            raise SlurmError(f"{argv[0]} is not installed (not on PATH); {self._conf_desc()}") from None
        except subprocess.TimeoutExpired:
            raise SlurmError(f"`{' '.join(argv)}` did not answer within {timeout:.0f} s; {self._conf_desc()}") from None

    @staticmethod
    def _output(r: subprocess.CompletedProcess) -> str:
        return " ".join((r.stdout.strip() + "\n" + r.stderr.strip()).split()) or "(no output)"

    # -- check ----------------------------------------------------------------
    def check(self) -> None:
        """Raises SlurmError with a clear message if Slurm is not reachable.

        Checks that the client commands are on PATH, that the configuration
        named by SLURM_CONF exists, that ``scontrol ping`` finds the controller
        up and that ``sinfo`` lists the partition. Called before any point is
        submitted.
        """
        env = self._environ()
        missing = [c for c in _CLIENT_COMMANDS if shutil.which(c, path=env.get("PATH")) is None]
        if missing:
            raise SlurmError(
                "Slurm client commands not found on PATH: " + ", ".join(missing)
                + " (install Slurm's client tools, e.g. Debian's slurm-client, or run on a login node)")
        conf = env.get("SLURM_CONF")
        if conf and not os.path.isfile(conf):
            raise SlurmError(f"Slurm is not reachable: SLURM_CONF={conf} does not exist")
        # scontrol retries a missing configuration for 60 s; ping answers at once
        # when the controller is down (sinfo would wait for its connect timeout).
        r = self._run(["scontrol", "ping"], timeout=90, env=env)
        out = self._output(r)
        if r.returncode != 0 or " is UP" not in r.stdout:
            raise SlurmError(f"Slurm is not reachable: `scontrol ping` failed (exit {r.returncode}): {out}; "
                             f"{self._conf_desc()}")
        argv = ["sinfo", "-h", "-o", "%P %a"]
        if self.partition:
            argv += ["-p", self.partition]
        r = self._run(argv, timeout=90, env=env)
        if r.returncode != 0:
            raise SlurmError(f"Slurm is not reachable: `{' '.join(argv)}` failed (exit {r.returncode}): "
                             f"{self._output(r)}; {self._conf_desc()}")
        if not r.stdout.strip():
            what = f"partition {self.partition!r}" if self.partition else "any partition"
            raise SlurmError(f"Slurm has no {what} (`{' '.join(argv)}` printed nothing); {self._conf_desc()}")

    def max_array_size(self) -> int:
        """The cluster's MaxArraySize (``scontrol show config``), else 1001."""
        if self._max_array_size is None:
            size = DEFAULT_MAX_ARRAY_SIZE
            try:
                r = self._run(["scontrol", "show", "config"], timeout=60)
                m = re.search(r"^MaxArraySize\s*=\s*(\d+)", r.stdout, re.M)
                if r.returncode == 0 and m:
                    size = int(m.group(1))
            except SlurmError:
                pass
            self._max_array_size = max(size, 2)
        return self._max_array_size

    # -- run_array ----------------------------------------------------------
    def run_array(self, commands, workdir, cwd=None, env=None, on_done=None) -> list:
        """Runs each argv in ``commands`` as one task of a Slurm job array.

        Waits for all tasks and returns, in the order of ``commands``, one dict
        per command: ``returncode`` (int; -1 when Slurm ended the task before
        the command finished), ``stdout``, ``stderr`` (str), ``slurm_job_id``
        (``<arrayjob>_<task>``), ``slurm_state`` (COMPLETED, FAILED, CANCELLED,
        TIMEOUT, ...) and ``message`` ('' unless Slurm ended the task).
        ``workdir`` (created if needed; on a shared filesystem) receives the
        job's files; ``cwd`` is the commands' working directory (default: the
        current one); ``env`` is added to the tasks' environment (sbatch
        --export=ALL of os.environ + the executor's env + this).
        ``on_done(index, result)`` is called as each task finishes.
        A KeyboardInterrupt (or any error) while waiting cancels the job(s)
        and is re-raised.
        """
        commands = [[str(a) for a in c] for c in commands]
        n = len(commands)
        if n == 0:
            return []
        if any(not c for c in commands):
            raise ValueError("run_array: every command must be a non-empty argv list")
        workdir = os.path.abspath(workdir)
        cwd = os.path.abspath(cwd) if cwd else os.getcwd()
        os.makedirs(workdir, exist_ok=True)
        self._prepare(workdir, commands, cwd)

        chunk = self.max_array_size() - 1
        jobs = []  # (job id, offset, count)
        try:
            for offset in range(0, n, chunk):
                count = min(chunk, n - offset)
                jobs.append((self._submit(workdir, cwd, env, offset, count), offset, count))
            return self._wait(workdir, jobs, n, on_done)
        except BaseException:
            if jobs:
                self._cancel([j for j, _, _ in jobs])
            raise

    def _prepare(self, workdir, commands, cwd) -> None:
        for name in os.listdir(workdir):  # results of an earlier run in this workdir
            if re.fullmatch(r"task-\d+\.(rc|rc\.tmp|out|err)|slurm-\d+_\d+\.log", name):
                os.unlink(os.path.join(workdir, name))
        spec = {"commands": commands, "cwd": cwd, "python": self.python}
        tmp = os.path.join(workdir, "commands.json.tmp")
        with open(tmp, "w") as f:
            json.dump(spec, f)
        os.replace(tmp, os.path.join(workdir, "commands.json"))
        script = os.path.join(workdir, "run_task.py")
        with open(script, "w") as f:
            f.write(f"#!{self.python}\n" + _TASK_SCRIPT)
        os.chmod(script, 0o755)
        bindir = os.path.join(workdir, "bin")
        os.makedirs(bindir, exist_ok=True)
        for name in ("python", "python3"):
            link = os.path.join(bindir, name)
            if os.path.lexists(link):
                os.unlink(link)
            os.symlink(self.python, link)

    def _submit(self, workdir, cwd, env, offset, count) -> str:
        task_env = self._environ(env)
        task_env["PATH"] = os.path.join(workdir, "bin") + os.pathsep + task_env.get("PATH", os.defpath)
        argv = ["sbatch", "--parsable", f"--array=0-{count - 1}", f"--job-name={self.job_name}",
                f"--output={workdir}/slurm-%A_%a.log", f"--chdir={cwd}", "--export=ALL"]
        if self.partition:
            argv.append(f"--partition={self.partition}")
        if self.time_limit is not None:
            t = self.time_limit
            argv.append(f"--time={max(1, int(-(-t // 1))) if isinstance(t, (int, float)) else t}")
        argv += self.sbatch_args
        argv += [os.path.join(workdir, "run_task.py"), workdir, str(offset)]
        r = self._run(argv, timeout=120, env=task_env)
        job = r.stdout.strip().split(";")[0]
        if r.returncode != 0 or not job.isdigit():
            raise SlurmError(f"sbatch failed (exit {r.returncode}): {self._output(r)}; command: {' '.join(argv)}; "
                             f"{self._conf_desc()}")
        return job

    def _cancel(self, job_ids) -> None:
        try:
            self._run(["scancel", *job_ids], timeout=60)
        except SlurmError:
            pass

    def _squeue(self, job_ids):
        """{(job id, task id): (state, reason)} of the tasks Slurm still knows; None on failure."""
        r = self._run(["squeue", "-h", "-r", "-t", "all", "-j", ",".join(job_ids), "-o", "%F|%K|%T|%r"], timeout=60)
        if r.returncode != 0:
            if "Invalid job id" in r.stderr:  # all of them purged already
                return {}
            return None
        states = {}
        for line in r.stdout.splitlines():
            parts = line.strip().split("|")
            if len(parts) == 4 and parts[1].isdigit():
                states[(parts[0], int(parts[1]))] = (parts[2], parts[3])
        return states

    def _wait(self, workdir, jobs, n, on_done) -> list:
        index = {}  # command index -> (job id, task id)
        for job, offset, count in jobs:
            for t in range(count):
                index[offset + t] = (job, t)
        results = [None] * n
        pending = set(range(n))
        ended_at = {}  # command index -> when Slurm first showed it ended without .rc
        last_state = {}
        squeue_ok = time.monotonic()
        job_ids = [j for j, _, _ in jobs]

        def finish(i, result):
            results[i] = result
            pending.discard(i)
            if on_done is not None:
                on_done(i, result)

        while pending:
            # 1. tasks that wrote their .rc file
            for i in sorted(pending):
                rc = self._read_rc(workdir, i)
                if rc is not None:
                    job, t = index[i]
                    state = last_state.get(i, ("", ""))[0]
                    if state not in FINAL_STATES:
                        state = "COMPLETED" if rc == 0 else "FAILED"
                    finish(i, self._result(workdir, i, rc, f"{job}_{t}", state, ""))
            if not pending:
                break
            # 2. tasks that Slurm ended without an .rc file
            states = self._squeue(job_ids)
            now = time.monotonic()
            if states is None:
                if now - squeue_ok > self.squeue_failure_timeout:
                    raise SlurmError(f"squeue has failed for {self.squeue_failure_timeout:.0f} s while waiting "
                                     f"for job(s) {','.join(job_ids)}; {self._conf_desc()}")
            else:
                squeue_ok = now
                for i in sorted(pending):
                    job, t = index[i]
                    st = states.get((job, t))
                    if st is not None:
                        last_state[i] = st
                    if st is None or st[0] in FINAL_STATES:
                        ended_at.setdefault(i, now)
                    if i in ended_at and now - ended_at[i] >= self.grace and self._read_rc(workdir, i) is None:
                        state, reason = last_state.get(i, ("UNKNOWN", ""))
                        if state not in FINAL_STATES:
                            state = "FAILED" if st is None else state
                        msg = (f"Slurm task {job}_{t} ended ({state}"
                               + (f", reason {reason}" if reason and reason != "None" else "")
                               + ") without the command's return code")
                        log = _tail(os.path.join(workdir, f"slurm-{job}_{t}.log"))
                        if log:
                            msg += f"; batch log:\n{log}"
                        finish(i, self._result(workdir, i, -1, f"{job}_{t}", state, msg))
            if pending:
                time.sleep(self.poll_interval)
        return results

    @staticmethod
    def _read_rc(workdir, i):
        try:
            with open(os.path.join(workdir, f"task-{i}.rc")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    @staticmethod
    def _result(workdir, i, rc, job_id, state, message) -> dict:
        base = os.path.join(workdir, f"task-{i}")
        stderr = _read(base + ".err")
        if message:
            stderr += ("\n" if stderr and not stderr.endswith("\n") else "") + message + "\n"
        return {"returncode": rc, "stdout": _read(base + ".out"), "stderr": stderr,
                "slurm_job_id": job_id, "slurm_state": state, "message": message}


if __name__ == "__main__":  # pragma: no cover - a quick manual check: python3 -m twinfab.slurm
    try:
        SlurmExecutor().check()
    except SlurmError as e:
        sys.exit(f"twinfab.slurm: {e}")
    print("twinfab.slurm: Slurm is reachable")
