"""The experiments of scenarios/: listed, run in --quick form from the module and
from the twinfab CLI, each writing CSV, figures and a Markdown table."""
import os
import subprocess

import pandas as pd
import pytest

from twinfab import _paths

ENV = dict(os.environ)


def run_module(*args):
    return subprocess.run([_paths.PYTHON, "-m", "twinfab.experiments", *args], capture_output=True, text=True,
                          env=ENV)


def test_list():
    p = run_module("--list")
    assert p.returncode == 0, p.stderr
    names = [line.split()[0] for line in p.stdout.splitlines()]
    for name in ("drop-rate", "scaling", "icm-cache", "seed000", "seed001", "seed003", "mpi-pt2pt"):
        assert name in names


def test_unknown_experiment():
    p = run_module("nope")
    assert p.returncode == 2 and "unknown experiment 'nope'; available:" in p.stderr


def outputs(out, name):
    files = os.listdir(out)
    assert f"{name}.csv" in files and f"{name}.md" in files, files
    assert any(f.endswith(".png") for f in files) and any(f.endswith(".svg") for f in files)
    for f in files:
        if f.endswith((".png", ".svg", ".md", ".csv")):
            assert os.path.getsize(os.path.join(out, f)) > 100, f
    df = pd.read_csv(os.path.join(out, f"{name}.csv"))
    assert {"revision", "platform", "error"} <= set(df.columns)
    return df, open(os.path.join(out, f"{name}.md")).read()


@pytest.mark.parametrize("name", ["icm-cache", "seed000", "seed003", "mpi-pt2pt"])
def test_quick_from_module(name, tmp_path):
    p = run_module(name, "--quick", "--out", str(tmp_path), "--no-progress")
    assert p.returncode == 0, p.stdout + p.stderr
    df, md = outputs(tmp_path, name)
    assert "seed" in md and df["error"].fillna("").eq("").all()


def test_quick_from_cli(tmp_path):
    p = subprocess.run([_paths.TWINFAB, "experiment", "drop-rate", "--quick", "--out", str(tmp_path),
                        "--no-progress"], capture_output=True, text=True, env=ENV)
    assert p.returncode == 0, p.stdout + p.stderr
    df, md = outputs(tmp_path, "drop-rate")
    # loss raises latency; retry_count 1 at 10 % loss gives up (retry exceeded): recorded, not fatal
    lat = df[(df["kind"] == "send-lat") & df["ok"] & (df["retry_count"] == 7)]
    assert lat[lat["loss"] == 0.1]["t_avg_us"].min() > lat[lat["loss"] == 0.0]["t_avg_us"].max()
    assert "retry_count" in md
