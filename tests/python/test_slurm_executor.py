"""twinfab.slurm.SlurmExecutor against a private single-node Slurm cluster.

Run: PYTHONPATH=python /usr/bin/python3 -m pytest tests/python/test_slurm_executor.py -v
The cluster (tests/python/slurm_cluster.py) needs root and Debian's slurmctld,
slurmd, slurm-client and munge (ci/install-deps.sh); without them the tests skip.
One cluster serves the whole module; each test uses its own workdir under it.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slurm_cluster import SingleNodeSlurm  # noqa: E402

from twinfab.slurm import SlurmError, SlurmExecutor  # noqa: E402

PY = "/usr/bin/python3"
SQUARE = [PY, "-c", "import sys; print(int(sys.argv[1]) ** 2)"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with SingleNodeSlurm(tmp_path_factory.mktemp("cluster")) as c:
        yield c


def executor(cluster, **kw):
    return SlurmExecutor(env={"SLURM_CONF": cluster.env["SLURM_CONF"]}, poll_interval=0.2, **kw)


def test_check_passes_on_running_cluster(cluster):
    executor(cluster).check()
    executor(cluster, partition=cluster.partition).check()


def test_check_unknown_partition(cluster):
    with pytest.raises(SlurmError, match="no-such-part"):
        executor(cluster, partition="no-such-part").check()


def test_array_results_and_on_done(cluster, tmp_path):
    commands = [
        SQUARE + ["3"],
        SQUARE + ["4"],
        # fails: recorded, not raised
        [PY, "-c", "import sys; print('partial'); sys.stderr.write('boom\\n'); sys.exit(3)"],
        # "python3" is the executor's interpreter, whatever PATH says; env and cwd arrive
        ["python3", "-c", "import os, sys; print(sys.executable, os.environ['TWINFAB_X'], os.getcwd())"],
    ]
    calls = []
    t0 = time.monotonic()
    results = executor(cluster).run_array(
        commands, str(tmp_path / "run"), cwd=str(tmp_path), env={"TWINFAB_X": "hello"},
        on_done=lambda i, r: calls.append((i, r["returncode"])),
    )
    print(f"4-task array: {time.monotonic() - t0:.1f} s")
    assert len(results) == 4
    assert [r["returncode"] for r in results] == [0, 0, 3, 0]
    assert results[0]["stdout"] == "9\n" and results[1]["stdout"] == "16\n"
    assert results[2]["stdout"] == "partial\n" and "boom" in results[2]["stderr"]
    assert results[3]["stdout"].split() == ["/usr/bin/python3", "hello", str(tmp_path)]
    assert [r["slurm_state"] for r in results] == ["COMPLETED", "COMPLETED", "FAILED", "COMPLETED"]
    job = results[0]["slurm_job_id"].split("_")[0]
    assert [r["slurm_job_id"] for r in results] == [f"{job}_{i}" for i in range(4)]
    assert all(r["message"] == "" for r in results)
    assert sorted(calls) == [(0, 0), (1, 0), (2, 3), (3, 0)]
    for i in range(4):
        assert (tmp_path / "run" / f"task-{i}.rc").is_file()


def test_missing_program_is_a_result(cluster, tmp_path):
    (r,) = executor(cluster).run_array([["/nonexistent/program"]], str(tmp_path / "run"))
    assert r["returncode"] == 127 and "cannot run" in r["stderr"]


def test_split_over_max_array_size(cluster, tmp_path):
    ex = executor(cluster)
    assert ex.max_array_size() == 1001  # Slurm's default, read from scontrol show config
    ex._max_array_size = 3  # pretend: two tasks per job
    results = ex.run_array([SQUARE + [str(i)] for i in range(5)], str(tmp_path / "run"))
    assert [r["stdout"] for r in results] == [f"{i * i}\n" for i in range(5)]
    assert len({r["slurm_job_id"].split("_")[0] for r in results}) == 3


def test_task_killed_by_slurm_is_failure(cluster, tmp_path):
    """A task that Slurm ends (here scancel) leaves no .rc file: failed, with its state."""
    run = tmp_path / "run"
    commands = [[PY, "-c", "import time; time.sleep(120)"], SQUARE + ["5"]]
    ex = executor(cluster, grace=1.0)

    def cancel_task0():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for name in os.listdir(run) if run.is_dir() else ():
                if name.startswith("slurm-") and name.endswith("_0.log"):  # task 0 started
                    job = name[len("slurm-"):].split("_")[0]
                    subprocess.run(["scancel", f"{job}_0"], env=cluster.env, check=True)
                    return
            time.sleep(0.2)

    th = threading.Thread(target=cancel_task0)
    th.start()
    results = ex.run_array(commands, str(run))
    th.join()
    assert results[1]["returncode"] == 0 and results[1]["stdout"] == "25\n"
    assert results[0]["returncode"] == -1
    assert results[0]["slurm_state"] == "CANCELLED"
    assert "without the command's return code" in results[0]["message"]


def test_keyboard_interrupt_cancels(cluster, tmp_path):
    job_ids = []

    def interrupt(i, r):
        raise KeyboardInterrupt

    ex = executor(cluster)
    commands = [SQUARE + ["1"], [PY, "-c", "import time; time.sleep(120)"],
                [PY, "-c", "import time; time.sleep(120)"]]
    with pytest.raises(KeyboardInterrupt):
        ex.run_array(commands, str(tmp_path / "run"), on_done=interrupt)
    # the job is cancelled: nothing of it is pending or running any more
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        out = subprocess.run(["squeue", "-h", "-o", "%i %T"], env=cluster.env,
                             capture_output=True, text=True).stdout
        job_ids = out.split()
        if not out.strip():
            break
        time.sleep(0.2)
    assert job_ids == []


@pytest.mark.skipif(shutil.which("scontrol") is None, reason="Slurm's client commands are not installed")
def test_check_fails_for_missing_conf(tmp_path):
    conf = tmp_path / "nowhere" / "slurm.conf"
    with pytest.raises(SlurmError, match="does not exist") as e:
        SlurmExecutor(env={"SLURM_CONF": str(conf)}).check()
    assert str(conf) in str(e.value)


def test_check_fails_for_stopped_cluster(tmp_path):
    """The conf of a cluster that has been stopped: scontrol ping says DOWN."""
    with SingleNodeSlurm(tmp_path) as c:
        conf = c.env["SLURM_CONF"]
        SlurmExecutor(env={"SLURM_CONF": conf}).check()
    t0 = time.monotonic()
    with pytest.raises(SlurmError) as e:
        SlurmExecutor(env={"SLURM_CONF": conf}).check()
    msg = str(e.value)
    assert "scontrol ping" in msg and "DOWN" in msg and f"SLURM_CONF={conf}" in msg
    assert time.monotonic() - t0 < 30


def test_check_fails_without_client_commands(tmp_path):
    with pytest.raises(SlurmError, match="not found on PATH: sbatch"):
        SlurmExecutor(env={"PATH": str(tmp_path)}).check()
