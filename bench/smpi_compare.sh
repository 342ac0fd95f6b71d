#!/usr/bin/env bash
# Simulator speed against SimGrid's own MPI (SMPI): the same 8-byte MPI ping-pong
# (bench/mpi/pingpong_wall.c) built with twinfab-mpicc and run under `twinfab sim`,
# and built with smpicc and run under smpirun, on equivalent two-host platforms
# (twinfab's connectx-ddr preset; for SMPI a two-node cluster with the same link
# bandwidth and latency). Prints wall-clock time per message for both, measured as
# (run with N round trips - run with 1) / (2 (N - 1)), so start-up is not counted,
# and the ratio against the target (<= 0.5 x SMPI). SMPI measures the computation
# between MPI calls by default; twinfab does with --simulate-computation, also timed.
#
#   bench/smpi_compare.sh [BUILD_DIR=build] [ROUND_TRIPS=100000]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
n=${2:-100000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-smpi.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/lib/smpi.sh
source "$here/lib/smpi.sh"
# connectx-ddr: 16 Gb/s links (2 GB/s), 1.5 us link latency + HCA costs; SMPI gets
# the link figures (it has no HCA model, so its simulated latency is lower).
smpi_prepare smpi_compare "$build" "$work" "$here/mpi/pingpong_wall.c" 2

# SMPI as a user runs it (its defaults: the time between MPI calls is measured and
# injected as simulated computation), and the faster variant without that.
smpi() {
  wall smpirun -np 2 -platform "$work/platform.xml" -hostfile "$work/hosts" \
    --log=root.thres:critical "$work/prog.smpi" "$1"
}
smpi_nocompute() {
  wall smpirun -np 2 -platform "$work/platform.xml" -hostfile "$work/hosts" \
    --cfg=smpi/simulate-computation:no --log=root.thres:critical "$work/prog.smpi" "$1"
}
twin() { wall "$twinfab" sim -n 2 --platform connectx-ddr "$work/prog.twinfab" "$1"; }
# Like for like with SMPI's defaults: twinfab measuring the computation between calls.
twin_compute() { wall "$twinfab" sim -n 2 --platform connectx-ddr --simulate-computation "$work/prog.twinfab" "$1"; }

echo "8-byte MPI ping-pong, $n round trips, wall clock per message (best of 3)"
best() {  # best of 3 of (full - one) per message
  local f=$1 b=""
  for rep in 1 2 3; do
    local full one per
    full=$($f "$n"); cp "$work/out" "$work/out.full"; one=$($f 1)
    per=$(echo "($full - $one) / (2 * ($n - 1)) * 1000000" | bc -l)
    if [[ -z $b ]] || (( $(echo "$per < $b" | bc -l) )); then b=$per; fi
  done
  echo "$b"
}
# The simulated latency of the long run (the one-round-trip run's includes the cold
# start: connection set-up, ICM misses).
t=$(best twin); grep -h "latency" "$work/out.full" | sed 's/^/  twinfab: /'
s=$(best smpi); grep -h "latency" "$work/out.full" | sed 's/^/  SMPI:    /'
s2=$(best smpi_nocompute)
tc=$(best twin_compute); grep -h "latency" "$work/out.full" | sed 's/^/  twinfab --simulate-computation: /'
printf '  twinfab sim:                               %.2f us per message\n' "$t"
printf '  twinfab sim --simulate-computation:        %.2f us per message\n' "$tc"
printf '  SMPI (defaults):                           %.2f us per message\n' "$s"
printf '  SMPI (--cfg=smpi/simulate-computation:no): %.2f us per message\n' "$s2"
printf '  ratio twinfab / SMPI = %.2f (target <= 0.50); against SMPI without computation: %.2f\n' \
  "$(echo "$t / $s" | bc -l)" "$(echo "$t / $s2" | bc -l)"
printf '  both measuring computation: twinfab --simulate-computation / SMPI (defaults) = %.2f\n' \
  "$(echo "$tc / $s" | bc -l)"
