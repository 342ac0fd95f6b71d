"""twinfab.run / twinfab.perf: results, failures recorded, bad input refused, and the
same point from the CLI and from Python giving the same bytes."""
import json
import os
import subprocess
import tempfile

import pytest

import twinfab
from twinfab import _paths
from twinfab.experiments import result_lines


def test_run_returns_structured_result(pingpong_program):
    r = twinfab.run(pingpong_program, 2, args=[20, 8, 4096], platform="connectx-ddr")
    assert r.ok and r.status == 0 and r.error is None
    rows = result_lines(r.stdout)
    assert [row["bytes"] for row in rows] == [8, 4096]
    assert 1.0 < rows[0]["latency_us"] < 10.0
    assert r.simulated_time > 0 and r.wall_time > 0 and r.process_wall_time >= r.wall_time
    assert r.peak_memory > 1 << 20
    assert r.counters["packets"] > 0 and len(r.per_hca) == 2
    assert sum(h["packets"] for h in r.per_hca) == r.counters["packets"]
    assert r.platform == "connectx-ddr" and r.nranks == 2
    assert r.cli.startswith(_paths.TWINFAB + " sim -n 2 --platform connectx-ddr")


def test_loss_and_seed(pingpong_program):
    a = twinfab.run(pingpong_program, 2, args=[200, 8], loss=0.02, seed=5)
    b = twinfab.run(pingpong_program, 2, args=[200, 8], loss=0.02, seed=5)
    c = twinfab.run(pingpong_program, 2, args=[200, 8], loss=0.02, seed=6)
    assert a.loss_probability == 0.02 and a.loss_seed == 5
    assert a.counters["retransmissions"] > 0
    assert (a.counters, a.simulated_time, a.stdout) == (b.counters, b.simulated_time, b.stdout)
    assert (a.counters, a.simulated_time) != (c.counters, c.simulated_time)


def test_same_point_from_cli_and_python_is_identical(pingpong_program):
    r = twinfab.run(pingpong_program, 2, args=[50, 8, 65536], platform="infinihost-sdr", loss=0.01, seed=2,
                    overrides={"hca.icm_cache_entries": 16}, env={"TWINFAB_EAGER_THRESHOLD": "8192"})
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "result.json")
        cmd = [_paths.TWINFAB, "sim", "-n", "2", "--platform", "infinihost-sdr", "--set", "hca.icm_cache_entries=16",
               "--loss", "0.01", "--seed", "2", "--result-json", out, "--", pingpong_program, "50", "8", "65536"]
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TWINFAB_EAGER_THRESHOLD="8192"))
        assert p.returncode == 0, p.stderr
        cli = json.load(open(out))
    assert p.stdout == r.stdout
    assert cli["simulated_time"] == r.simulated_time
    assert cli["counters"] == r.counters and cli["per_hca"] == r.per_hca


def test_perf(tmp_path):
    r = twinfab.perf("write-lat", platform="connectx-ddr", sizes=[8, 4096], iterations=50)
    assert r.ok, r.error
    lat = r.perf["latency"]
    assert [row["bytes"] for row in lat] == [8, 4096]
    assert 1.0 < lat[0]["t_typical_us"] < lat[1]["t_typical_us"]
    bw = twinfab.perf("write-bw", sizes=[65536], iterations=50).perf["bandwidth"]
    assert bw[0]["bw_average_MBps"] > 100


def test_perf_is_the_cli_table(tmp_path):
    r = twinfab.perf("send-lat", platform="infinihost-sdr", sizes=[64], iterations=30, loss=0.01, seed=4)
    csv = tmp_path / "t.csv"
    subprocess.run([_paths.TWINFAB, "perf", "send-lat", "--platform", "infinihost-sdr", "-s", "64", "-n", "30",
                    "--loss", "0.01", "--seed", "4", "--csv", str(csv)], check=True, capture_output=True)
    header, row = csv.read_text().strip().splitlines()[:2]
    fields = dict(zip(header.split(","), row.split(",")))
    assert float(fields["t_typical_us"]) == pytest.approx(r.perf["latency"][0]["t_typical_us"], rel=1e-6)


@pytest.mark.parametrize("mode,status,fragment", [
    ("fail", 3, "exit status 3"),
    ("abort", 7, "status 7"),
    ("deadlock", 1, "deadlock"),
])
def test_failures_are_results_not_exceptions(exit_status_program, mode, status, fragment):
    r = twinfab.run(exit_status_program, 3, args=[mode])
    assert not r.ok and r.status == status
    assert fragment in r.error


def test_timeout_kills_a_hung_point(exit_status_program):
    r = twinfab.run(exit_status_program, 2, args=["hang"], timeout=3)
    assert not r.ok and r.status is None and r.error.startswith("timed out")


@pytest.mark.parametrize("kwargs,exc,fragment", [
    ({"loss": 1.5}, ValueError, "loss"),
    ({"seed": -1}, ValueError, "seed"),
    ({"n": 0}, ValueError, "ranks"),
    ({"platform": "nope"}, FileNotFoundError, "unknown platform preset"),
    ({"overrides": {"hca.bogus": 1}}, ValueError, "hca.bogus"),
    ({"env": {"TWINFAB_CONNECT": "sometimes"}}, ValueError, "TWINFAB_CONNECT"),
    ({"backend": "quantum"}, ValueError, "backend"),
    ({"ranks_per_host": 0}, ValueError, "ranks_per_host"),
])
def test_bad_input_refused_before_running(exit_status_program, kwargs, exc, fragment):
    args = dict(n=2)
    args.update(kwargs)
    with pytest.raises(exc, match=fragment):
        twinfab.run(exit_status_program, **args)


def test_missing_program():
    with pytest.raises(twinfab.RunError, match="does not exist"):
        twinfab.run("/nonexistent/prog", 2)


def test_bad_perf_input():
    with pytest.raises(ValueError, match="valid tests"):
        twinfab.perf("warp-lat")
    with pytest.raises(ValueError, match="size"):
        twinfab.perf("write-lat", sizes=[0])
