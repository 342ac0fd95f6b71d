#!/usr/bin/env bash
# Node-aware collectives against flat ones (SIMULATED figures, not measured on
# hardware): bench/mpi/coll_time.c under `twinfab sim`, RANKS ranks placed
# PER_HOST per host of PLATFORM, each point run with TWINFAB_COLL_NODE_AWARE=0 (MPICH's
# flat table) and =1 (the default: node-aware when ranks share hosts), and once more
# with one rank per host (as many hosts as ranks) for reference. Prints the simulated
# microseconds per call of the slowest rank and the algorithm auto chose (from the
# debug log). Ranks that share a host talk through shared memory (TWINFAB_SHM=1, the
# default; docs/shm.md); the last column turns it off (through the simulated HCA).
#
#   bench/node_aware.sh [BUILD_DIR=build] [PLATFORM=connectx-ddr] [RANKS=64] [PER_HOST=8] [ITERATIONS=10]
set -euo pipefail
platform=${2:-connectx-ddr}
ranks=${3:-64}
per_host=${4:-8}
iterations=${5:-10}
# shellcheck source=lib/sim_program.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/sim_program.sh"
sim_program "${1:-build}" node_aware coll_time.c

# sim PER_HOST NODE_AWARE COLL BYTES [SHM=1]: "us algorithm"
sim() {
  local hosts=$(( ($ranks + $1 - 1) / $1 ))
  local us
  us=$(TWINFAB_SHM=${5:-1} TWINFAB_LOG_LEVEL=debug TWINFAB_COLL_NODE_AWARE=$2 "$twinfab" sim -n "$ranks" --platform "$platform" \
         --set "topology.hosts=$hosts" --ranks-per-host "$1" "$work/coll_time" "$3" "$4" "$iterations" \
         2>"$work/log" | awk '{print $3}')
  local chosen
  chosen=$(grep -o "MPI_[A-Za-z]* on $ranks ranks, [0-9]* bytes: [a-z_-]* (auto)" "$work/log" |
           grep -i "MPI_$3 " | tail -1 | sed 's/.*: \([a-z_-]*\) (auto)/\1/' || true)
  echo "$us ${chosen:-?}"
}
points=("barrier 0" "allreduce 8" "allgather 8" "bcast 8")

echo "SIMULATED on $platform, $ranks ranks: us per call (mean of $iterations, slowest rank)"
printf '%-10s %6s | %-28s | %-28s | %-28s | %-28s\n' collective bytes "1 per host" "$per_host per host, flat" \
  "$per_host per host, node-aware" "$per_host per host, node-aware, no shm"
for point in "${points[@]}"; do
  read -r coll bytes <<<"$point"
  read -r one one_alg <<<"$(sim 1 1 "$coll" "$bytes")"
  read -r flat flat_alg <<<"$(sim "$per_host" 0 "$coll" "$bytes")"
  read -r aware aware_alg <<<"$(sim "$per_host" 1 "$coll" "$bytes")"
  read -r noshm noshm_alg <<<"$(sim "$per_host" 1 "$coll" "$bytes" 0)"
  printf '%-10s %6s | %9s %-18s | %9s %-18s | %9s %-18s | %9s %-18s\n' "$coll" "$bytes" "$one" "$one_alg" "$flat" \
    "$flat_alg" "$aware" "$aware_alg" "$noshm" "$noshm_alg"
done
