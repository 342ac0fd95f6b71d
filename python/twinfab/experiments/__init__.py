"""The experiments shipped in scenarios/: each a folder with `experiment.toml` (what
it is, the seed it reproduces, its grid in full and --quick form, the seed's figures)
and `experiment.py` (a `run(ctx)` that sweeps, plots and tabulates with this package).

    python3 -m twinfab.experiments --list
    python3 -m twinfab.experiments NAME [--quick] [--out DIR] [--jobs N] [--slurm]
    twinfab experiment NAME [--quick] ...      (the CLI hands these to this module)

Every experiment writes into its output folder (default <work dir>/experiments/NAME):
NAME.csv (every row: parameters, metrics, platform, loss, seed, twinfab revision),
PNG and SVG figures, and NAME.md, a Markdown table with the seed's figures beside
twinfab's where the seed has them. Search path: TWINFAB_SCENARIO_PATH (colon-separated
folders), then this twinfab's scenarios/.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import os
import sys
import tomllib
from typing import Optional

from .. import _paths
from ..runner import build_program


class ExperimentError(RuntimeError):
    pass


def _number(text: str):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def result_lines(stdout: str) -> list:
    """The scenario programs' convention: each line `result key=value ...` is a row
    (numbers converted); other lines are ignored."""
    rows = []
    for line in stdout.splitlines():
        if line.startswith("result "):
            rows.append({k: _number(v) for k, _, v in (w.partition("=") for w in line.split()[1:])})
    return rows


def search_path() -> list:
    dirs = [d for d in os.environ.get("TWINFAB_SCENARIO_PATH", "").split(os.pathsep) if d]
    dirs.append(_paths.SCENARIOS)
    return dirs


def available() -> dict:
    """name -> folder, for every folder with an experiment.toml on the search path
    (the first one found wins)."""
    found = {}
    for base in search_path():
        if not os.path.isdir(base):
            continue
        for entry in sorted(os.listdir(base)):
            folder = os.path.join(base, entry)
            if os.path.isfile(os.path.join(folder, "experiment.toml")):
                found.setdefault(entry, folder)
    return found


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


@dataclasses.dataclass
class Context:
    """What an experiment's run(ctx) gets."""

    name: str
    folder: str          #: the scenario folder (experiment.toml, sources)
    out: str             #: where results go
    quick: bool
    config: dict         #: experiment.toml, with [quick] merged over it when quick
    jobs: Optional[int] = None
    executor: object = "local"
    progress: bool = True
    outputs: list = dataclasses.field(default_factory=list)

    def program(self, source: str, cflags=("-O2",)) -> str:
        """Builds one of the scenario's C sources (a path relative to its folder)."""
        src = source if os.path.isabs(source) else os.path.join(self.folder, source)
        if not os.path.isfile(src):
            raise ExperimentError(f"{self.name}: program source {src} not found")
        return build_program(src, os.path.join(_paths.work_dir("bin", self.name),
                                               os.path.splitext(os.path.basename(src))[0]), cflags)

    def sweep(self, point, grid, *, name: Optional[str] = None, **kwargs):
        """twinfab.sweep with this experiment's cache, jobs and executor."""
        from ..sweeps import sweep

        name = name or self.name
        kwargs.setdefault("cache_dir", os.path.join(self.out, "cache", name))
        kwargs.setdefault("jobs", self.jobs)
        kwargs.setdefault("executor", self.executor)
        kwargs.setdefault("progress", self.progress)
        return sweep(point, grid, name=name, **kwargs)

    def path(self, filename: str) -> str:
        return os.path.join(self.out, filename)

    def save(self, df, stem: Optional[str] = None) -> list:
        from ..sweeps import save

        paths = save(df, self.path(stem or self.name), formats=("csv",))
        self.outputs += paths
        return paths

    def figure(self, paths: list) -> list:
        self.outputs += paths
        return paths

    def write_markdown(self, text: str, stem: Optional[str] = None) -> str:
        path = self.path(f"{stem or self.name}.md")
        with open(path, "w") as f:
            f.write(text)
        self.outputs.append(path)
        return path


def load_config(folder: str, quick: bool) -> dict:
    path = os.path.join(folder, "experiment.toml")
    try:
        with open(path, "rb") as f:
            config = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{path}: malformed TOML: {e}") from None
    quick_part = config.pop("quick", {})
    return _merge(config, quick_part) if quick else config


def run(name: str, *, quick: bool = False, out: Optional[str] = None, jobs: Optional[int] = None,
        executor="local", progress: bool = True) -> Context:
    """Runs experiment `name`; returns its Context (ctx.outputs lists the files)."""
    experiments = available()
    if name not in experiments:
        raise ExperimentError(f"unknown experiment {name!r}; available: {', '.join(sorted(experiments)) or '(none)'}"
                              f" (searched: {', '.join(search_path())})")
    folder = experiments[name]
    config = load_config(folder, quick)
    out = os.path.abspath(out or _paths.work_dir("experiments", name + ("-quick" if quick else "")))
    os.makedirs(out, exist_ok=True)
    spec = importlib.util.spec_from_file_location(f"twinfab_scenario_{name.replace('-', '_')}",
                                                  os.path.join(folder, "experiment.py"))
    if spec is None or not os.path.isfile(os.path.join(folder, "experiment.py")):
        raise ExperimentError(f"{folder}: experiment.py is missing")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    ctx = Context(name=name, folder=folder, out=out, quick=quick, config=config, jobs=jobs, executor=executor,
                  progress=progress)
    module.run(ctx)
    return ctx
