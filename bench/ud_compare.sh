#!/usr/bin/env bash
# The UD channel against the RC channel in the simulator (issue 31's figures), each
# pair of runs interleaved in one script run (this machine's load swings 2x):
#
#  1. simulator speed: the 8-byte MPI ping-pong (bench/mpi/pingpong_wall.c), wall
#     clock per message, (run with N round trips - run with 1) / (2 (N - 1)), best of
#     3 per transport, rc and ud alternating; target ud <= 1.2 x rc;
#  2. reliability overhead: 64 KiB bandwidth, osu_bw style (bench/mpi/bw_window.c),
#     simulated MB/s over UD without loss and with 1 % seeded loss (seeds 1..3,
#     mean), progress-engine method; target lossy >= 0.8 x lossless. RC with the same
#     loss is printed beside it (hardware go-back-N retransmission);
#  3. simulator memory: the ring (tests/mpi/c/ring, 5 iterations) at RANKS ranks on
#     fat-tree-4096, peak RSS / ranks for rc and ud (target issue 31: <= 40 KB per rank
#     at 16384 ranks; SMPI's figure for the same ring: bench/smpi_ring.sh).
#
#   bench/ud_compare.sh [BUILD_DIR=build] [ROUND_TRIPS=100000] [RANKS=2048]
# Exit status 1 when a run failed, 3 when the ping-pong or bandwidth target is missed
# (the memory figure is at RANKS ranks, the target at 16384: printed, not judged).
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
n=${2:-100000}
ranks=${3:-2048}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-ud.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/lib/smpi.sh
source "$here/lib/smpi.sh"  # wall()
twinfab=$build/tools/twinfab/twinfab
mpicc=$build/bin/twinfab-mpicc
[[ -x $twinfab && -x $mpicc ]] || { echo "ud_compare: build twinfab first (make build)" >&2; exit 1; }
"$mpicc" -O2 -o "$work/pingpong" "$here/mpi/pingpong_wall.c"
"$mpicc" -O2 -o "$work/bw" "$here/mpi/bw_window.c"
ring=$build/tests/mpi/c/ring
[[ -x $ring ]] || { echo "ud_compare: $ring not built (make build)" >&2; exit 1; }

echo "1. 8-byte MPI ping-pong, $n round trips, wall clock per message (best of 3, rc and ud interleaved)"
pp() { TWINFAB_TRANSPORT=$1 wall "$twinfab" sim -n 2 --platform connectx-ddr "$work/pingpong" "$2"; }
declare -A best
for rep in 1 2 3; do
  for t in rc ud; do
    full=$(pp $t "$n"); cp "$work/out" "$work/out.$t"; one=$(pp $t 1)
    per=$(echo "($full - $one) / (2 * ($n - 1)) * 1000000" | bc -l)
    if [[ -z ${best[$t]:-} ]] || (( $(echo "$per < ${best[$t]}" | bc -l) )); then best[$t]=$per; fi
  done
done
for t in rc ud; do
  printf '  %s: %.3f us per message (%s)\n' "$t" "${best[$t]}" "$(grep -h latency "$work/out.$t")"
done
missed=0
ratio=$(echo "${best[ud]} / ${best[rc]}" | bc -l)
printf '  ratio ud / rc = %.2f (target <= 1.20)\n' "$ratio"
(( $(echo "$ratio > 1.20" | bc -l) )) && missed=1

echo "2. 64 KiB bandwidth (window 64, 20 rounds), simulated MB/s; loss 1 %: mean of seeds 1..3"
bw() { TWINFAB_TRANSPORT=$1 "$twinfab" sim -n 2 --platform connectx-ddr --loss "$2" --seed "$3" "$work/bw" 65536 64 20 |
         sed -n 's/^bandwidth: \([0-9.]*\) MB.*/\1/p'; }
for t in ud rc; do
  clean=$(bw $t 0 1)
  sum=0
  for seed in 1 2 3; do sum=$(echo "$sum + $(bw $t 0.01 $seed)" | bc -l); done
  lossy=$(echo "$sum / 3" | bc -l)
  [[ $t == ud ]] && (( $(echo "$lossy / $clean < 0.80" | bc -l) )) && missed=1
  printf '  %s: lossless %.1f MB/s, 1 %% loss %.1f MB/s, ratio %.2f%s\n' "$t" "$clean" "$lossy" \
    "$(echo "$lossy / $clean" | bc -l)" "$([[ $t == ud ]] && echo ' (target >= 0.80)' || echo ' (hardware retransmission, for reference)')"
done

echo "3. ring of $ranks ranks (fat-tree-4096, 5 iterations): simulator peak memory per rank"
for t in rc ud; do
  /usr/bin/time -f '%M' -o "$work/rss" env TWINFAB_TRANSPORT=$t "$twinfab" sim -n "$ranks" --platform fat-tree-4096 \
    "$ring" 5 > "$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  printf '  %s: %.1f KB per rank (peak RSS %.0f MB; %s)\n' "$t" "$(echo "$(cat "$work/rss") / $ranks" | bc -l)" \
    "$(echo "$(cat "$work/rss") / 1024" | bc -l)" "$(grep -h '^ring:' "$work/out")"
done
echo "  (target at 16384 ranks: <= 40 KB per rank; SMPI's ring: bench/smpi_ring.sh)"
if ((missed)); then echo "ud_compare: a target was missed (above)"; exit 3; fi
