"""A sweep through Slurm (a single-node cluster this test starts: slurm_cluster.py)
gives the same DataFrame as the same sweep on the local cores; Slurm not reachable is
an error before any point is submitted."""
import os

import pytest

import twinfab
from twinfab.experiments import result_lines
from twinfab.slurm import SlurmError, SlurmExecutor
from twinfab.sweeps import NONDETERMINISTIC_COLUMNS

from slurm_cluster import SingleNodeSlurm


def ring_sweep(prog, cache, **kw):
    return twinfab.sweep(lambda p: twinfab.Program(prog, p["n"], args=[20, p["bytes"]], loss=0.01, seed=p["n"]),
                         {"n": [2], "bytes": [8, 512, 4096]}, cache_dir=str(cache), progress=False,
                         metrics=lambda p, r: [dict(row, retransmissions=r.counters["retransmissions"])
                                               for row in result_lines(r.stdout)], **kw)


def test_sweep_through_slurm_equals_local(pingpong_program, tmp_path):
    local = ring_sweep(pingpong_program, tmp_path / "local", jobs=2)
    assert local["ok"].all()
    with SingleNodeSlurm(str(tmp_path / "cluster")) as cluster:
        remote = ring_sweep(pingpong_program, tmp_path / "slurm", executor=SlurmExecutor(env=cluster.env))
    same = [c for c in local.columns if c not in NONDETERMINISTIC_COLUMNS]
    assert list(remote.columns) == list(local.columns)
    assert remote[same].equals(local[same]), (local[same], remote[same])


def test_unreachable_slurm_is_an_error_before_submitting(pingpong_program, tmp_path):
    ex = SlurmExecutor(env={"SLURM_CONF": str(tmp_path / "no-such-slurm.conf")})
    with pytest.raises(SlurmError, match="(?i)slurm"):
        ring_sweep(pingpong_program, tmp_path / "cache", executor=ex)
    assert not os.listdir(tmp_path / "cache")
