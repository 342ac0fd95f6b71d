"""Shared machinery of the seed 001 scenarios (README.md in this folder).

Each experiment script builds its benchmark program with the build tree's
twinfab-mpicc, runs it under `twinfab sim` for each design, writes the CSV rows
(experiment,design,lock,param,value,unit) the program prints, and prints a table
with the seed's figure next to twinfab's simulated one. Standard library only.

Environment: TWINFAB_BUILD (the build directory, default <repo>/build),
SEED001_OUT (where CSVs go, default <build>/seed001/results), SEED001_QUICK=1 (fewer
iterations and sizes: what the ctest runs).
"""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.abspath(os.environ.get("TWINFAB_BUILD", os.path.join(REPO, "build")))
WORK = os.path.join(BUILD, "seed001")
OUT = os.path.abspath(os.environ.get("SEED001_OUT", os.path.join(WORK, "results")))
QUICK = os.environ.get("SEED001_QUICK", "") not in ("", "0")
TWINFAB = os.path.join(BUILD, "tools", "twinfab", "twinfab")
MPICC = os.path.join(BUILD, "bin", "twinfab-mpicc")
FIELDS = ["experiment", "design", "lock", "param", "value", "unit"]


def die(msg):
    print(f"seed001: {msg}", file=sys.stderr)
    sys.exit(1)


def build(program):
    """Compiles src/<program>.c (if it or common.h is newer than the binary)."""
    for tool in (TWINFAB, MPICC):
        if not os.access(tool, os.X_OK):
            die(f"{tool} is missing: build the targets twinfab and twinfab_mpi_c first "
                f"(cmake --build {BUILD} --target twinfab twinfab_mpi_c), or set TWINFAB_BUILD")
    src = os.path.join(HERE, "src", f"{program}.c")
    exe = os.path.join(WORK, "bin", program)
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    deps = [src, os.path.join(HERE, "src", "common.h"), MPICC]
    if not os.path.exists(exe) or any(os.path.getmtime(d) > os.path.getmtime(exe) for d in deps):
        subprocess.run([MPICC, "-O2", "-Wall", "-Werror", "-o", exe, src], check=True)
    return exe


def platform(name):
    """A preset name, or 'infinihost-sdr-8': infinihost-sdr with seed 001's 8 nodes
    (the preset has seed 000's 4), so that 7 origins and a target get a host each."""
    if name != "infinihost-sdr-8":
        return name
    src = os.path.join(REPO, "scenarios", "platforms", "infinihost-sdr.toml")
    dst = os.path.join(WORK, "infinihost-sdr-8.toml")
    lines = []
    for line in open(src):
        if line.startswith("name = "):
            line = 'name = "infinihost-sdr-8"\n'
        elif line.startswith("hosts = "):
            line = "hosts = 8  # seed 001 sec. 3.4.1: 8 nodes (derived by scenarios/seed001/seed001.py)\n"
        lines.append(line)
    os.makedirs(WORK, exist_ok=True)
    with open(dst, "w") as f:
        f.writelines(lines)
    return dst


class Experiment:
    def __init__(self, name):
        self.name = name
        self.rows = []

    def run(self, program, args, n=2, rma="rdma", lock="ts", plat="infinihost-sdr", env=None, label=None,
            sets=(), plat_label=None):
        """env: more TWINFAB_* parameters for this run; label: the rows' lock column
        instead of the design's name (a variant of a design, e.g. 'ts-plain'); sets:
        platform overrides (`twinfab sim --set KEY=VALUE`), with plat_label the rows'
        platform column for them."""
        exe = build(program)
        extra = env or {}
        env = dict(os.environ, TWINFAB_RMA=rma, TWINFAB_RMA_LOCK=lock, **extra)
        overrides = [arg for s in sets for arg in ("--set", s)]
        cmd = [TWINFAB, "sim", "-n", str(n), "--platform", platform(plat)] + overrides + ["--", exe] + \
            [str(a) for a in args]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            settings = " ".join(f"{k}={v}" for k, v in extra.items())
            die(f"TWINFAB_RMA={rma} TWINFAB_RMA_LOCK={lock} {settings} {' '.join(cmd)} exited {p.returncode}:\n"
                f"{p.stdout}{p.stderr}")
        got = 0
        for line in p.stdout.splitlines():
            fields = line.split(",")
            if len(fields) == 6 and fields[0] != "experiment":
                row = dict(zip(FIELDS, fields))
                row["value"] = float(row["value"])
                row["platform"] = plat_label or plat
                if label is not None:
                    row["lock"] = label
                self.rows.append(row)
                got += 1
        if got == 0:
            die(f"{' '.join(cmd)} printed no rows:\n{p.stdout}{p.stderr}")
        return self

    def add(self, experiment, design, lock, param, value, unit, plat="infinihost-sdr"):
        """A figure derived from measured rows (a peak, a drop)."""
        self.rows.append(dict(experiment=experiment, design=design, lock=lock, param=param, value=value,
                              unit=unit, platform=plat))

    def value(self, experiment, design, param, lock=None, plat=None):
        for r in self.rows:
            if (r["experiment"], r["design"], r["param"]) == (experiment, design, param) and \
               (lock is None or r["lock"] == lock) and (plat is None or r["platform"] == plat):
                return r["value"]
        return None

    def finish(self, refs=()):
        """Writes <OUT>/<name>.csv and prints the table. refs: (experiment, design, lock
        or None, param, seed value, where in the seed) -- the seed's figures, matched to
        the simulated rows."""
        os.makedirs(OUT, exist_ok=True)
        path = os.path.join(OUT, f"{self.name}.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(FIELDS + ["platform"])
            for r in self.rows:
                w.writerow([r[k] for k in FIELDS] + [r["platform"]])
        table = []
        for r in self.rows:
            seed, where = "", ""
            for (e, d, l, p, v, src) in refs:
                if (e, d, p) == (r["experiment"], r["design"], r["param"]) and (l is None or l == r["lock"]):
                    seed, where = v, src
            ratio = f"{r['value'] / seed:.2f}" if seed not in ("", 0) else ""
            table.append([r["experiment"], r["param"], r["design"], r["lock"], r["platform"],
                          f"{r['value']:.2f} {r['unit']}", f"{seed} {r['unit']}" if seed != "" else "-",
                          ratio, where])
        head = ["experiment", "param", "design", "lock", "platform", "twinfab (simulated)",
                "seed (target)", "sim/seed", "seed source"]
        widths = [max(len(str(x)) for x in col) for col in zip(head, *table)]
        print(f"== {self.name}: twinfab simulated figures vs the seed's published figures ==")
        for line in [head] + table:
            print("  ".join(str(x).ljust(wd) for x, wd in zip(line, widths)).rstrip())
        print(f"(csv: {path})")
        return path
