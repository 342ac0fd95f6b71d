"""Sweeps: a grid in parallel, rows in grid order, failures recorded, the cache
resuming a sweep, and an interrupted sweep leaving a consistent cache."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import twinfab
from twinfab import _paths
from twinfab.experiments import result_lines
from twinfab.sweeps import NONDETERMINISTIC_COLUMNS, grid_points


def test_grid_points_order():
    assert grid_points({"a": [1, 2], "b": ["x", "y"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    with pytest.raises(ValueError, match="axis 'a'"):
        grid_points({"a": 3})


def pingpong_sweep(prog, cache, **kw):
    return twinfab.sweep(lambda p: twinfab.Program(prog, 2, args=[20, p["bytes"]], loss=p["loss"], seed=1),
                         {"loss": [0.0, 0.05], "bytes": [8, 1024]}, cache_dir=str(cache), progress=False,
                         metrics=lambda p, r: result_lines(r.stdout), **kw)


def test_parallel_sweep_then_resume(pingpong_program, tmp_path):
    df = pingpong_sweep(pingpong_program, tmp_path, jobs=2)
    assert len(df) == 4 and df["ok"].all() and not df["cached"].any()
    assert list(zip(df["loss"], df["bytes"])) == [(0.0, 8), (0.0, 1024), (0.05, 8), (0.05, 1024)]
    for col in ("latency_us", "platform", "loss_probability", "loss_seed", "revision", "error", "point"):
        assert col in df.columns
    assert (df["revision"] == twinfab.revision).all() and (df["platform"] == "connectx-ddr").all()
    assert list(df["loss_probability"]) == [0.0, 0.0, 0.05, 0.05]
    assert df[df["loss"] == 0.05]["latency_us"].min() > df[df["loss"] == 0.0]["latency_us"].max()
    start = time.monotonic()
    again = pingpong_sweep(pingpong_program, tmp_path, jobs=2)
    assert again["cached"].all() and time.monotonic() - start < 5
    same = [c for c in df.columns if c not in NONDETERMINISTIC_COLUMNS]
    assert df[same].equals(again[same])


def test_failed_point_recorded_and_sweep_goes_on(exit_status_program, tmp_path):
    df = twinfab.sweep(lambda p: twinfab.Program(exit_status_program, 2, args=[p["mode"]], timeout=20),
                       {"mode": ["ok", "abort", "deadlock", "ok"]}, cache_dir=str(tmp_path), progress=False, jobs=2)
    assert list(df["ok"]) == [True, False, False, True]
    assert "status 7" in df["error"][1] and "deadlock" in df["error"][2]
    assert df["error"][0] == "" and list(df["status"])[:2] == [0, 7]


def test_bad_point_fails_before_any_point_runs(exit_status_program, tmp_path):
    with pytest.raises(ValueError, match="loss"):
        twinfab.sweep(lambda p: twinfab.Program(exit_status_program, 2, loss=p["loss"]), {"loss": [0.1, 2.0]},
                      cache_dir=str(tmp_path), progress=False)
    assert os.listdir(tmp_path) == []
    with pytest.raises(TypeError, match="twinfab.Program"):
        twinfab.sweep(lambda p: p, {"x": [1]}, cache_dir=str(tmp_path), progress=False)


def test_interrupted_sweep_keeps_a_consistent_cache_and_resumes(exit_status_program, pingpong_program, tmp_path):
    cache = tmp_path / "cache"
    # The hung workers carry a marker of this test in their arguments (exit_status
    # ignores it), so that the check below does not see test_run's own "hang" job when
    # ctest runs the two at once.
    marker = f"sweep-{os.getpid()}-{tmp_path.name}"
    script = textwrap.dedent(f"""
        import twinfab
        progs = {{"quick": {pingpong_program!r}, "hang": {exit_status_program!r}}}
        def point(p):
            if p["i"] == 0:
                return twinfab.Program(progs["quick"], 2, args=[10, 8])
            return twinfab.Program(progs["hang"], 2, args=["hang", {marker!r}])
        twinfab.sweep(point, {{"i": [0, 1, 2]}}, cache_dir={str(cache)!r}, jobs=3, progress=False)
    """)
    p = subprocess.Popen([_paths.PYTHON, "-c", script], env=dict(os.environ), stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (cache.is_dir() and any(f.endswith(".json") for f in os.listdir(cache))):
        time.sleep(0.2)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode != 0 and "KeyboardInterrupt" in err
    files = sorted(os.listdir(cache))
    assert [f for f in files if f.endswith(".json")] and all(f.endswith(".json") for f in files), files
    for f in files:
        json.load(open(cache / f))  # complete, parseable entries only
    # the hung points' workers were killed with the sweep
    out = subprocess.run(["pgrep", "-f", f"twinfab._point.*hang.*{marker}"], capture_output=True, text=True).stdout
    assert out.strip() == ""
    # resume: the finished point comes from the cache
    df = twinfab.sweep(lambda p: twinfab.Program(pingpong_program, 2, args=[10, 8]) if p["i"] == 0 else None,
                       {"i": [0, 1, 2]}, cache_dir=str(cache), progress=False)
    assert len(df) == 1 and df["cached"].all() and df["ok"].all()
