#!/usr/bin/env bash
# Simulator speed against SimGrid's own MPI (SMPI): the same MPI ping-pong
# (bench/mpi/pingpong_wall.c) built with twinfab-mpicc and run under `twinfab sim`,
# and built with smpicc and run under smpirun, on equivalent two-host platforms:
# twinfab's connectx-ddr preset, and for SMPI the cluster bench/lib/smpi_platform.py
# makes from that preset (same cables: 16 Gb/s, 50 ns; same switch: 200 ns; same PCIe
# bandwidth; SMPI has no HCA model, so its simulated latency is lower). Two sizes:
# 8 B, which twinfab's simulator times outside SimGrid's max-min solver (a work
# request of <= 256 wire bytes, docs/model.md), and 1 KiB, which goes through the
# solver in twinfab as in SMPI.
#
# Wall-clock time per message, (run with N round trips - run with 1) / (2 (N - 1)),
# so start-up is not counted. Each repetition runs every variant once, the two
# simulators alternating (this machine's load swings 2x): twinfab, SMPI, twinfab
# --simulate-computation, SMPI without computation. Printed per variant: the best of
# REPS and the spread [lowest .. highest]; the ratio twinfab / SMPI on the best and on
# the medians. SMPI measures the computation between MPI calls by default; twinfab
# does with --simulate-computation, also timed.
#
# Target (issue 2): twinfab <= 0.5 x SMPI (defaults) at 8 B, judged on the best reps.
# The 1 KiB row is judged against the same 0.5 and printed, but only 8 B decides the
# exit status (the target was set for it). Exit status 3 when the target is missed,
# 1 when a run failed, 2 on a usage error.
#
#   bench/smpi_compare.sh [BUILD_DIR=build] [ROUND_TRIPS=100000] [REPS=3]
set -euo pipefail
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }
build=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "smpi_compare: build directory '${1:-build}' not found" >&2; exit 2; }
n=${2:-100000}
reps=${3:-3}
if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 2)); then echo "smpi_compare: ROUND_TRIPS '$n' must be an integer >= 2" >&2; exit 2; fi
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "smpi_compare: REPS '$reps' must be a positive integer" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-smpi.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck source=bench/lib/smpi.sh
source "$here/lib/smpi.sh"
# shellcheck source=bench/lib/stats.sh
source "$here/lib/stats.sh"  # median, best
readonly preset=connectx-ddr sizes="8 1024"
smpi_prepare smpi_compare "$build" "$work" "$here/mpi/pingpong_wall.c" "$preset" > "$work/platform.txt"

# VARIANT ROUND_TRIPS BYTES: one run, its wall clock in seconds on stdout.
twin() { wall "$twinfab" sim -n 2 --platform "$preset" "$work/prog.twinfab" "$1" "$2"; }
# Like for like with SMPI's defaults: twinfab measuring the computation between calls.
twin_compute() { wall "$twinfab" sim -n 2 --platform "$preset" --simulate-computation "$work/prog.twinfab" "$1" "$2"; }
# SMPI as a user runs it (its defaults: the time between MPI calls is measured and
# injected as simulated computation), and the faster variant without that.
smpi() {
  wall smpirun -np 2 -platform "$work/platform.xml" -hostfile "$work/hosts" \
    --log=root.thres:critical "$work/prog.smpi" "$1" "$2"
}
smpi_nocompute() {
  wall smpirun -np 2 -platform "$work/platform.xml" -hostfile "$work/hosts" \
    --cfg=smpi/simulate-computation:no --log=root.thres:critical "$work/prog.smpi" "$1" "$2"
}
readonly variants="twin smpi twin_compute smpi_nocompute"
declare -A label=([twin]="twinfab sim" [smpi]="SMPI (defaults)"
  [twin_compute]="twinfab sim --simulate-computation" [smpi_nocompute]="SMPI (smpi/simulate-computation:no)")

echo "MPI ping-pong, $n round trips, wall clock per message: best of $reps [spread], the simulators interleaved"
sed 's/^/  /' "$work/platform.txt"
declare -A per latency
for ((rep = 1; rep <= reps; rep++)); do
  for bytes in $sizes; do
    for f in $variants; do
      full=$($f "$n" "$bytes")
      latency[$f.$bytes]=$(sed -n 's/^simulated one-way latency.*: //p' "$work/out")  # of the long run (the short one's includes the cold start)
      one=$($f 1 "$bytes")
      per[$f.$bytes]+=" $(echo "($full - $one) / (2 * ($n - 1)) * 1000000" | bc -l)"
    done
  done
done

missed=0
for bytes in $sizes; do
  declare -A b=() m=()
  for f in $variants; do
    b[$f]=$(best lat <<<"${per[$f.$bytes]}") m[$f]=$(median <<<"${per[$f.$bytes]}")
    [[ -n ${b[$f]} ]] || { echo "smpi_compare: $f at $bytes B: no positive figure (${per[$f.$bytes]})" >&2; exit 1; }
    spread=$(tr ' ' '\n' <<<"${per[$f.$bytes]}" | grep -E '^-?[0-9.]+$' | sort -g | sed -n '1p;$p' | tr '\n' ' ')
    printf '  %4s B  %-37s %7.2f us per message [%s]  simulated one-way %s\n' "$bytes" "${label[$f]}:" "${b[$f]}" \
      "$(awk '{ printf "%.2f .. %.2f", $1, $2 }' <<<"$spread")" "${latency[$f.$bytes]}"
  done
  read -r ratio ratio_median ratio_nocompute ratio_both met < <(awk -v t="${b[twin]}" -v s="${b[smpi]}" \
    -v tm="${m[twin]}" -v sm="${m[smpi]}" -v s2="${b[smpi_nocompute]}" -v tc="${b[twin_compute]}" \
    'BEGIN { printf "%.2f %.2f %.2f %.2f %s\n", t / s, tm / sm, t / s2, tc / s, (t / s <= 0.5) ? "met" : "NOT" }')
  printf '  %4s B  twinfab / SMPI = %s on the best reps, %s on the medians (target <= 0.50: %s)\n' "$bytes" \
    "$ratio" "$ratio_median" "$([[ $met == met ]] && echo met || echo "NOT met")"
  printf '  %4s B  against SMPI without computation: %s; both measuring computation (twinfab --simulate-computation / SMPI defaults): %s\n' \
    "$bytes" "$ratio_nocompute" "$ratio_both"
  [[ $bytes == 8 && $met != met ]] && missed=1
  unset b m
done
if ((missed)); then echo "smpi_compare: the 8-byte target is missed (above)"; exit 3; fi
