#!/usr/bin/env bash
# Size-tuned collective selection, before and after (SIMULATED figures, not measured
# on hardware): bench/mpi/coll_time.c under `twinfab sim` on RANKS hosts of a platform
# (default connectx-ddr, one rank per host), each collective and size run twice: with
# the fixed algorithm every collective had before the selection (TWINFAB_ALLREDUCE=
# recursive_doubling, TWINFAB_ALLGATHER=ring, TWINFAB_BCAST=binomial,
# TWINFAB_ALLTOALL=pairwise; the barrier is the dissemination barrier in both), and
# with the defaults (auto: MPICH's table, docs/collectives.md). Prints the simulated
# microseconds per call of the slowest rank, the algorithm auto chose (from the debug
# log) and the speed-up. The simulator is deterministic: one run per point suffices.
#
#   bench/coll_select.sh [BUILD_DIR=build] [RANKS=64] [PLATFORM=connectx-ddr] [ITERATIONS=10]
set -euo pipefail
ranks=${2:-64}
platform=${3:-connectx-ddr}
iterations=${4:-10}
# shellcheck source=lib/sim_program.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/sim_program.sh"
sim_program "${1:-build}" coll_select coll_time.c

old=(TWINFAB_ALLREDUCE=recursive_doubling TWINFAB_ALLGATHER=ring TWINFAB_BCAST=binomial TWINFAB_ALLTOALL=pairwise)
# sim [VAR=VALUE...] ARGS...: one rank per host (as many hosts as ranks).
sim() {
  local -a vars=()
  while [[ $1 == *=* ]]; do vars+=("$1"); shift; done
  env "${vars[@]}" "$twinfab" sim -n "$ranks" --platform "$platform" --set "topology.hosts=$ranks" \
    --ranks-per-host 1 "$work/coll_time" "$@"
}
points=("barrier 0" "allreduce 8" "allreduce 65536" "allreduce 1048576" "allgather 4" "allgather 65536"
        "bcast 8" "bcast 1048576" "alltoall 8")

echo "SIMULATED on $platform, $ranks ranks (one per host), $iterations calls per point: us per call, slowest rank"
printf '%-10s %9s %12s %12s %8s  %s\n' collective bytes "fixed (old)" "auto (new)" speedup "auto's algorithm"
for point in "${points[@]}"; do
  read -r coll bytes <<<"$point"
  before=$(sim "${old[@]}" "$coll" "$bytes" "$iterations" | awk '{print $3}')
  after=$(sim TWINFAB_LOG_LEVEL=debug "$coll" "$bytes" "$iterations" 2>"$work/log" | awk '{print $3}')
  chosen=dissemination  # the barrier has one algorithm
  if [[ $coll != barrier ]]; then
    chosen=$(grep -o "MPI_[A-Za-z]* on $ranks ranks, [0-9]* bytes: [a-z_]* (auto)" "$work/log" |
             grep -i "MPI_$coll " | tail -1 | sed 's/.*: \([a-z_]*\) (auto)/\1/' || true)
  fi
  printf '%-10s %9s %12s %12s %7.2fx  %s\n' "$coll" "$bytes" "$before" "$after" \
    "$(echo "$before / $after" | bc -l)" "${chosen:-?}"
done
