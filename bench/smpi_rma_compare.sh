#!/usr/bin/env bash
# Simulator speed of one-sided communication against SimGrid's own MPI (SMPI, which
# implements MPI one-sided too): the same 8-byte MPI_Put + MPI_Win_flush loop
# (bench/mpi/put_flush_wall.c) built with twinfab-mpicc and run under `twinfab sim`
# (connectx-ddr, each TWINFAB_RMA design), and built with smpicc and run under smpirun
# on the equivalent two-host platform of bench/lib/smpi.sh. Prints wall-clock time per
# operation, measured as (run with N operations - run with 1) / (N - 1) so that start-up
# is not counted, best of 3, the runs of the two simulators interleaved; and the ratio
# against the target (twinfab <= 0.5 x SMPI). Exit status 3 when the rdma design misses
# the target.
#
#   bench/smpi_rma_compare.sh [BUILD_DIR=build] [OPERATIONS=20000]
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
n=${2:-20000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-smpi-rma.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/lib/smpi.sh
source "$here/lib/smpi.sh"
smpi_prepare smpi_rma_compare "$build" "$work" "$here/mpi/put_flush_wall.c" connectx-ddr

smpi() {
  wall smpirun -np 2 -platform "$work/platform.xml" -hostfile "$work/hosts" \
    --cfg=smpi/simulate-computation:no --log=root.thres:critical "$work/prog.smpi" "$1"
}
twin_rdma() { TWINFAB_RMA=rdma wall "$twinfab" sim -n 2 --platform connectx-ddr "$work/prog.twinfab" "$1"; }
twin_sendrecv() { TWINFAB_RMA=sendrecv wall "$twinfab" sim -n 2 --platform connectx-ddr "$work/prog.twinfab" "$1"; }

echo "8-byte MPI_Put + MPI_Win_flush, $n operations, wall clock per operation (best of 3, interleaved)"
declare -A best
for _ in 1 2 3; do
  for f in twin_rdma smpi twin_sendrecv; do
    full=$($f "$n"); cp "$work/out" "$work/out.$f"; one=$($f 1)
    per=$(echo "($full - $one) / ($n - 1) * 1000000" | bc -l)
    if [[ -z ${best[$f]:-} ]] || (( $(echo "$per < ${best[$f]}" | bc -l) )); then best[$f]=$per; fi
  done
done
for f in twin_rdma twin_sendrecv smpi; do grep -h "put+flush" "$work/out.$f" | sed "s/^/  $f: /"; done
printf '  twinfab sim, TWINFAB_RMA=rdma:      %.2f us per operation\n' "${best[twin_rdma]}"
printf '  twinfab sim, TWINFAB_RMA=sendrecv:  %.2f us per operation\n' "${best[twin_sendrecv]}"
printf '  SMPI (smpi/simulate-computation:no): %.2f us per operation\n' "${best[smpi]}"
printf '  ratio twinfab (rdma) / SMPI = %.2f, (sendrecv) / SMPI = %.2f (target <= 0.50)\n' \
  "$(echo "${best[twin_rdma]} / ${best[smpi]}" | bc -l)" "$(echo "${best[twin_sendrecv]} / ${best[smpi]}" | bc -l)"
awk -v t="${best[twin_rdma]}" -v s="${best[smpi]}" 'BEGIN { exit !(t / s <= 0.5) }' ||
  { echo "  target NOT met"; exit 3; }
echo "  target met"
