"""python3 -m twinfab.experiments NAME [--quick] [--out DIR] [--jobs N] [--slurm] | --list"""
import argparse
import sys

from . import ExperimentError, available, load_config, run


def main(argv=None):
    ap = argparse.ArgumentParser(prog="twinfab experiment",
                                 description="Run one of twinfab's experiments (scenarios/NAME): a parameter sweep "
                                             "on the simulated fabric, written as CSV, PNG/SVG figures and a "
                                             "Markdown table beside the seed's figures.")
    ap.add_argument("name", nargs="?", help="the experiment (--list shows them)")
    ap.add_argument("--list", action="store_true", help="list the experiments and exit")
    ap.add_argument("--quick", action="store_true", help="a small grid: seconds to a minute, for a first look and CI")
    ap.add_argument("--out", help="output folder (default: <build>/python-work/experiments/NAME)")
    ap.add_argument("--jobs", "-j", type=int, help="points run at once (default: the number of cores)")
    ap.add_argument("--slurm", action="store_true", help="run the points as a Slurm job array (sbatch on PATH)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    a = ap.parse_args(argv)
    if a.list or not a.name:
        exps = available()
        if not exps:
            print("no experiments found", file=sys.stderr)
            return 1
        for name, folder in sorted(exps.items()):
            desc = load_config(folder, False).get("description", "")
            print(f"{name:<14} {desc}")
        return 0 if a.list else 2
    if a.jobs is not None and a.jobs < 1:
        ap.error("--jobs must be at least 1")
    if a.name not in available():
        # A usage error, exit status 2 as twinfab's own (tools/twinfab/cli_conventions.hpp).
        ap.error(f"unknown experiment {a.name!r}; available: {', '.join(sorted(available())) or '(none)'} "
                 "(twinfab experiment --list)")
    try:
        ctx = run(a.name, quick=a.quick, out=a.out, jobs=a.jobs, executor="slurm" if a.slurm else "local",
                  progress=not a.no_progress)
    except (ExperimentError, ValueError, FileNotFoundError) as e:
        print(f"twinfab experiment: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("twinfab experiment: interrupted; completed points are cached, run again to resume", file=sys.stderr)
        return 130
    for p in ctx.outputs:
        if p.endswith(".md"):
            print("\n" + open(p).read().rstrip())
    print(f"\n{a.name}: results in {ctx.out}")
    for p in ctx.outputs:
        print(f"  {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
