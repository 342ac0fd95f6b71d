"""The standard figures: files written, non-empty, with the labels asked for."""
import os

import pandas as pd
import pytest

from twinfab import plots


def frame():
    return pd.DataFrame({"bytes": [8, 64, 512, 8, 64, 512], "t_typical_us": [2.0, 2.2, 3.1, 4.0, 4.4, 6.0],
                         "series": ["a"] * 3 + ["b"] * 3, "loss": [0, 0.01, 0.1] * 2, "n": [2, 4, 8] * 2})


def check(paths):
    assert [os.path.splitext(p)[1] for p in paths] == [".png", ".svg"]
    for p in paths:
        assert os.path.getsize(p) > 1000
    with open(paths[0], "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    return open(paths[1]).read()


def test_latency_vs_size(tmp_path):
    ref = pd.DataFrame({"bytes": [8], "t_typical_us": [2.5]})
    svg = check(plots.latency_vs_size(frame(), str(tmp_path / "lat"), hue="series", reference=ref, title="T"))
    assert "message size (bytes)" in svg and "latency" in svg and "seed (published)" in svg


def test_metric_vs_loss_and_ranks(tmp_path):
    svg = check(plots.metric_vs_loss(frame(), "t_typical_us", str(tmp_path / "loss"), hue="series", ylabel="lat"))
    assert "packet loss (%)" in svg
    svg = check(plots.metric_vs_ranks(frame(), "t_typical_us", str(tmp_path / "ranks"), hue="series"))
    assert "ranks" in svg


def test_bad_columns_and_empty(tmp_path):
    with pytest.raises(ValueError, match="column 'nope'"):
        plots.latency_vs_size(frame(), str(tmp_path / "x"), y="nope")
    with pytest.raises(ValueError, match="empty"):
        plots.latency_vs_size(frame().iloc[0:0], str(tmp_path / "x"))


def test_markdown_table():
    md = plots.markdown_table(frame().head(2), ["bytes", "t_typical_us"])
    assert md.splitlines()[0] == "| bytes | t_typical_us |" and "| 8 | 2 |" in md
