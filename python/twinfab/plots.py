"""The standard figures of an experiment, with matplotlib (Agg: no display needed).

One call per figure; each writes <path>.png and <path>.svg and returns both paths.
Series are the distinct values of `hue` (a column); `reference` adds the seed's
figures as unconnected markers, labelled as such, so a reader never takes them for
twinfab's.
"""
from __future__ import annotations

import os
from typing import Optional, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)


def _save(fig, path: str) -> list:
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        p = f"{path}.{ext}"
        fig.savefig(p, dpi=120, bbox_inches="tight")
        paths.append(p)
    plt.close(fig)
    return paths


def _label(hue, key):
    """A series' legend entry: the value itself for a column named "series" (already
    a label), else column=value."""
    if key is None:
        return None
    return str(key) if hue == "series" else f"{hue}={key}"


def line_plot(df, x: str, y: str, path: str, *, hue: Optional[str] = None, xlabel: str = "", ylabel: str = "",
              title: str = "", logx: bool = False, logy: bool = False, reference=None,
              reference_label: str = "seed (published)") -> list:
    """`y` against `x`, one line per value of `hue`. `reference`: a DataFrame with
    the same x and y columns (and hue, if given) for the seed's figures."""
    if df.empty:
        raise ValueError(f"nothing to plot for {path}: the DataFrame is empty (did every point fail?)")
    for col in (x, y) + ((hue,) if hue else ()):
        if col not in df.columns:
            raise ValueError(f"column {col!r} is not in the DataFrame (columns: {', '.join(map(str, df.columns))})")
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    groups = [(None, df)] if hue is None else list(df.groupby(hue, sort=False))
    for key, g in groups:
        g = g.sort_values(x)
        ax.plot(g[x], g[y], marker="o", markersize=3, label=_label(hue, key))
    if reference is not None and not reference.empty:
        rgroups = [(None, reference)] if hue is None or hue not in reference else list(reference.groupby(hue))
        for key, g in rgroups:
            ax.plot(g[x], g[y], linestyle="none", marker="x", markersize=7,
                    label=reference_label if key is None else f"{reference_label}: {_label(hue, key)}")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    if hue is not None or reference is not None:
        ax.legend(fontsize="small")
    return _save(fig, path)


def latency_vs_size(df, path: str, *, y: str = "t_typical_us", x: str = "bytes", hue: Optional[str] = None,
                    title: str = "", reference=None) -> list:
    """Latency (microseconds) against message size (bytes, log2 axis)."""
    return line_plot(df, x, y, path, hue=hue, xlabel="message size (bytes)", ylabel="latency (µs)", title=title,
                     logx=True, logy=True, reference=reference)


def bandwidth_vs_size(df, path: str, *, y: str = "bw_average_MBps", x: str = "bytes", hue: Optional[str] = None,
                      title: str = "", reference=None) -> list:
    """Bandwidth (MB/s, 2^20 bytes) against message size (bytes, log2 axis)."""
    return line_plot(df, x, y, path, hue=hue, xlabel="message size (bytes)", ylabel="bandwidth (MB/s)",
                     title=title, logx=True, reference=reference)


def metric_vs_loss(df, y: str, path: str, *, x: str = "loss", hue: Optional[str] = None, ylabel: str = "",
                   title: str = "", logy: bool = False, reference=None) -> list:
    """A metric against the per-packet loss probability (in percent on the axis)."""
    d = df.assign(**{"_loss_percent": df[x] * 100.0})
    ref = None if reference is None else reference.assign(**{"_loss_percent": reference[x] * 100.0})
    return line_plot(d, "_loss_percent", y, path, hue=hue, xlabel="packet loss (%)", ylabel=ylabel or y,
                     title=title, logy=logy, reference=ref)


def metric_vs_ranks(df, y: str, path: str, *, x: str = "n", hue: Optional[str] = None, ylabel: str = "",
                    title: str = "", logy: bool = True, reference=None,
                    reference_label: str = "seed (published)") -> list:
    """A metric against the number of ranks (log2 axis)."""
    return line_plot(df, x, y, path, hue=hue, xlabel="ranks", ylabel=ylabel or y, title=title, logx=True,
                     logy=logy, reference=reference, reference_label=reference_label)


def markdown_table(df, columns: Sequence[str], floatfmt: str = ".3g") -> str:
    """A Markdown table of `columns` (no extra dependency: pandas' to_markdown needs
    tabulate)."""
    def cell(v):
        if isinstance(v, float):
            if v != v:
                return "–"
            return str(int(v)) if v.is_integer() and abs(v) < 1e15 else format(v, floatfmt)
        return "–" if v is None else str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for _, r in df[list(columns)].iterrows():
        lines.append("| " + " | ".join(cell(r[c]) for c in columns) + " |")
    return "\n".join(lines) + "\n"
