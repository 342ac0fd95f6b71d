#!/usr/bin/env bash
# Runs every seed 001 scenario (and seed 003's one-sided figures) in the simulator and
# prints each table: twinfab's simulated figures next to the seeds' published ones.
#
#   scenarios/seed001/run_all.sh [EXPERIMENT...]     (default: all; names as the .py files)
#
# Environment: TWINFAB_BUILD (build directory, default ./build), SEED001_OUT (CSV
# directory, default $TWINFAB_BUILD/seed001/results), SEED001_QUICK=1 (short runs).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
all=(put_get_latency bidir_latency bandwidth sync_overhead overlap skew multi_origin accumulate
     lock_overhead lock_delay lock_concurrency lock_messages lock_busy_target seed003_iwarp)
if [ $# -gt 0 ]; then all=("$@"); fi
failed=()
for name in "${all[@]}"; do
  if [ ! -f "$here/$name.py" ]; then
    echo "run_all.sh: no experiment '$name' (known: put_get_latency ... seed003_iwarp; see README.md)" >&2
    exit 2
  fi
  python3 "$here/$name.py" || failed+=("$name")
  echo
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "run_all.sh: failed: ${failed[*]}" >&2
  exit 1
fi
