"""The worker: runs one simulation point in this process and writes its result.

    python3 -m twinfab._point SPEC_JSON RESULT_PATH

SPEC_JSON is runner.Program/Perf.spec(). The result file is the launcher's JSON
(simulator/result keys of `twinfab sim --result-json`), or {"error": message} when the
run could not happen; it is written atomically (a killed worker leaves none). The
program's own output goes to this process's stdout/stderr. Exit status 0 whenever a
result file was written, whatever the program's status (that is in the file).
"""
import json
import os
import resource
import sys
import time


def _write(path, data):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def _run(spec):
    # Lazy binding: most of SimGrid's (and ns-3's) symbols are never called by a run,
    # and Python's default, RTLD_NOW, would resolve them all when the extension loads.
    sys.setdlopenflags(os.RTLD_LAZY)
    from . import _core  # after the environment is set: the MPI library reads it at MPI_Init

    if spec["kind"] == "program":
        result = json.loads(_core.run_program(spec["command"], spec["n"], spec["platform"], spec["overrides"],
                                              spec["ranks_per_host"], spec["loss"], spec["seed"]))
        return result
    if spec["kind"] == "perf":
        start = time.monotonic()
        r = _core.run_perf(spec["test"], spec["platform"], spec["overrides"], spec["sizes"], spec["iterations"],
                           spec["tx_depth"])
        return {"exit_status": 0, "simulated_time": r["simulated_time"], "wall_time": time.monotonic() - start,
                "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                "platform": r["platform"], "nranks": 2, "ranks_per_host": 1,
                "loss_probability": r["loss_probability"], "loss_seed": r["loss_seed"], "counters": r["counters"],
                "per_hca": r["per_hca"], "perf": {"test": r["test"], "latency": r["latency"],
                                                  "bandwidth": r["bandwidth"]}}
    raise ValueError(f"unknown job kind {spec['kind']!r}")


def main(argv):
    if len(argv) != 3:
        print("usage: python3 -m twinfab._point SPEC_JSON RESULT_PATH", file=sys.stderr)
        return 2
    spec, path = json.loads(argv[1]), argv[2]
    os.environ.update(spec.get("env", {}))
    try:
        result = _run(spec)
    except Exception as e:  # the launcher's and loader's errors: recorded, not a crash
        result = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.flush()
    sys.stderr.flush()
    _write(path, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
