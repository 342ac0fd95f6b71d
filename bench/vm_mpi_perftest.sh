#!/usr/bin/env bash
# bench/vm_mpi_perftest.sh: twinfab's MPI on real RDMA (rxe/siw in the micro-VM)
# against perftest on the same device, in one VM boot per device.
#
#   bench/vm_mpi_perftest.sh [BUILD_DIR] [--device rxe|siw]... [--reps N]
#
# Inside the VM, against the device's own address:
#   perftest  ib_send_lat -s 8 (typical = median latency, and average, us) and
#             ib_write_bw -s 1048576
#             (average bandwidth, MB/s); -x <GID index> on rxe, -R (rdma_cm) on siw;
#   twinfab   examples/pingpong.c built with twinfab-mpicc, run as two processes by
#             Open MPI's mpirun (PMIx start-up): its 8 B latency (half a round trip:
#             the median over the rounds against perftest's typical, the average,
#             osu_latency's statistic, against perftest's t_avg) and its 1 MiB
#             bandwidth (osu_bw style, a window of 64).
# Each measured --reps times (default 5); the median and the best rep (lowest
# latency, highest bandwidth) of each tool are reported, and the ratio of every rep's
# twinfab figure to the perftest figure measured just before it. The targets are
# judged on the best reps (noise in the TCG VM only adds time): the VM falls into a
# slow state for whole runs at random (QEMU's vCPU threads then get 65-90 % of a
# host core instead of all of it; both tools run up to ~2x slower), and it can flip
# between the two runs of one rep, so the per-rep ratios scatter (e.g. 1.91 0.74
# 1.59 in one run) and are printed for information only. When every rep of one tool
# was slow, the best reps compare a fast run with a slow one: a latency ratio below
# 0.95 (MPI faster than the verbs it runs on) is reported as implausible, not as met.
# Every twinfab run but one sets TWINFAB_SHM=0 (the two processes share the VM's host,
# and the device is what is measured); the "shm" row runs the same 8 B pingpong with
# TWINFAB_SHM=1 in every rep and compares it with that rep's RC figure (issue 32:
# <= 0.5 x; judged on the medians, both runs being twinfab's under the same noise).
# Targets (issue 4): MPI 8 B latency <= 1.2 x ib_send_lat, MPI 1 MiB bandwidth >=
# 0.85 x ib_write_bw; (issue 31, not on siw) the UD channel's 8 B latency
# (TWINFAB_TRANSPORT=ud) <= 1.25 x ib_send_lat -c UD; (issue 33, not on siw, whose
# RDMA writes do not land in order) the RC channel's RDMA fast path (TWINFAB_FASTPATH=on)
# 8 B latency <= 1.1 x ib_write_lat (its packets are RDMA writes). QEMU TCG: the figures are for ratios only, and a busy host skews
# them.
# Exit status 0 even when a target is missed (noise must not fail CI); 1 when a tool
# failed or printed no figure; 2 on a usage error. Raw output: BUILD/vm_mpi_perftest-<dev>.log
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$HERE/.." && pwd -P)

if [[ ${1:-} == --in-vm ]]; then
  build=$2 reps=$3
  dev=${TWINFAB_DEVICE:?not in the VM} addr=${TWINFAB_VM_ADDR:?} gid=${TWINFAB_GID_INDEX:-0}
  # The processes share the VM's host: the device is measured, except in the shared-
  # memory row, which turns it back on.
  export TWINFAB_SHM=0
  if [[ $dev == siw* ]]; then conn=(-R); else conn=(-x "$gid"); fi
  port=18600
  # shellcheck source=bench/lib/perftest.sh
  source "$HERE/lib/perftest.sh"  # perftest_pair
  row() { awk -v b="$1" -v c="$2" '$1 == b && NF >= c && $2 ~ /^[0-9.]+$/ { v = $c } END { if (v != "") print v }'; }
  status=0
  for ((rep = 1; rep <= reps; rep++)); do
    out=$(perftest_pair ib_send_lat -s 8 -n 1000); printf '%s\n' "$out"
    v=$(row 8 5 <<<"$out"); echo "RESULT lat perftest ${v:-FAILED}"; [[ -n $v ]] || status=1
    v=$(row 8 6 <<<"$out"); echo "RESULT latavg perftest ${v:-FAILED}"
    out=$(perftest_pair ib_write_bw -s 1048576 -n 200 -t 128); printf '%s\n' "$out"
    v=$(row 1048576 4 <<<"$out"); echo "RESULT bw perftest ${v:-FAILED}"; [[ -n $v ]] || status=1
    out=$(timeout -k 5 300 mpirun --allow-run-as-root -n 2 "$build/examples/pingpong" 1048576 2 2>&1); printf '%s\n' "$out"
    v=$(row 8 3 <<<"$out"); echo "RESULT lat twinfab ${v:-FAILED}"; [[ -n $v ]] || status=1
    v=$(row 8 2 <<<"$out"); echo "RESULT latavg twinfab ${v:-FAILED}"; [[ -n $v ]] || status=1
    v=$(row 1048576 4 <<<"$out"); echo "RESULT bw twinfab ${v:-FAILED}"; [[ -n $v ]] || status=1
    # The shared-memory channel (issue 32) against the RC latency of this rep: the
    # same program and processes, TWINFAB_SHM=1.
    out=$(TWINFAB_SHM=1 timeout -k 5 300 mpirun --allow-run-as-root -n 2 "$build/examples/pingpong" 8 1 2>&1)
    printf '%s\n' "$out"
    v=$(row 8 3 <<<"$out"); echo "RESULT shmlat twinfab ${v:-FAILED}"; [[ -n $v ]] || status=1
    # The UD channel (issue 31) against ib_send_lat over UD, where the device has UD
    # (not iWARP: siw has none, and MPI_Init refuses TWINFAB_TRANSPORT=ud there).
    if [[ $dev != siw* ]]; then
      out=$(perftest_pair ib_send_lat -c UD -s 8 -n 1000); printf '%s\n' "$out"
      v=$(row 8 5 <<<"$out"); echo "RESULT udlat perftest ${v:-FAILED}"; [[ -n $v ]] || status=1
      out=$(TWINFAB_TRANSPORT=ud timeout -k 5 300 mpirun --allow-run-as-root -n 2 "$build/examples/pingpong" 8 1 2>&1)
      printf '%s\n' "$out"
      v=$(row 8 3 <<<"$out"); echo "RESULT udlat twinfab ${v:-FAILED}"; [[ -n $v ]] || status=1
      # The RDMA fast path (issue 33) against ib_write_lat: a packet is one RDMA write
      # into the peer's ring (iWARP refuses the fast path: writes land out of order).
      out=$(perftest_pair ib_write_lat -s 8 -n 1000); printf '%s\n' "$out"
      v=$(row 8 5 <<<"$out"); echo "RESULT fplat perftest ${v:-FAILED}"; [[ -n $v ]] || status=1
      out=$(TWINFAB_FASTPATH=on timeout -k 5 300 mpirun --allow-run-as-root -n 2 "$build/examples/pingpong" 8 1 2>&1)
      printf '%s\n' "$out"
      v=$(row 8 3 <<<"$out"); echo "RESULT fplat twinfab ${v:-FAILED}"; [[ -n $v ]] || status=1
    fi
  done
  exit "$status"
fi

# shellcheck source=bench/lib/vm_bench_args.sh
. "$REPO/bench/lib/vm_bench_args.sh"
vm_bench_args vm_mpi_perftest 5 30 "$@"
[[ -x $build/examples/pingpong ]] || { echo "vm_mpi_perftest: $build/examples/pingpong missing; make build" >&2; exit 2; }
# shellcheck source=bench/lib/stats.sh
source "$HERE/lib/stats.sh"  # median, best
failed=0
cd "$build" || exit 2
printf '%-6s %-22s %23s %8s %23s %8s  %-26s  %s\n' device figure "perftest/twinfab median" ratio \
  "perftest/twinfab best" ratio "per-rep ratios" target
for d in "${devices[@]}"; do
  log=$build/vm_mpi_perftest-$d.log
  "$REPO/ci/vm/run" --device "$d" --rw "$build" -- bash "$HERE/vm_mpi_perftest.sh" --in-vm "$build" "$reps" >"$log" 2>&1 || failed=1
  for fig in lat latavg bw udlat fplat; do
    [[ ($fig == udlat || $fig == fplat) && $d == siw* ]] && continue
    ps=$(awk -v f=$fig '$1 == "RESULT" && $2 == f && $3 == "perftest" { printf "%s ", $4 }' "$log")
    ts=$(awk -v f=$fig '$1 == "RESULT" && $2 == f && $3 == "twinfab" { printf "%s ", $4 }' "$log")
    kind=$fig; [[ $fig == latavg || $fig == udlat || $fig == fplat ]] && kind=lat
    p=$(median <<<"$ps") t=$(median <<<"$ts") pb=$(best $kind <<<"$ps") tb=$(best $kind <<<"$ts")
    # twinfab / perftest of each rep whose two figures both exist (the lists keep
    # a FAILED in a failed rep's place, so they stay aligned).
    reps_ratios=$(paste -d' ' <(tr -s ' ' '\n' <<<"$ps") <(tr -s ' ' '\n' <<<"$ts") |
      awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $1 > 0 { printf "%.2f ", $2 / $1 }')
    if [[ -z $p || -z $t ]]; then
      printf '%-6s %-22s %12s %12s %8s  %s\n' "$d" "$fig" "${p:-?}" "${t:-?}" "-" "no figure (see $log)"
      failed=1; continue
    fi
    r=$(awk -v a="$t" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
    rb=$(awk -v a="$tb" -v b="$pb" 'BEGIN { printf "%.2f", a / b }')
    if [[ $fig == fplat ]]; then
      ok=$(awk -v r="$rb" 'BEGIN { print (r < 0.95) ? "implausible (every perftest rep slow?): rerun" : (r <= 1.1) ? "target met (<= 1.10)" : "target NOT met (<= 1.10)" }')
      name="fast path 8 B lat [us]"
    elif [[ $fig == udlat ]]; then
      ok=$(awk -v r="$rb" 'BEGIN { print (r < 0.95) ? "implausible (every perftest rep slow?): rerun" : (r <= 1.25) ? "target met (<= 1.25)" : "target NOT met (<= 1.25)" }')
      name="UD 8 B latency [us]"
    elif [[ $fig == lat || $fig == latavg ]]; then
      ok=$(awk -v r="$rb" 'BEGIN { print (r < 0.95) ? "implausible (every perftest rep slow?): rerun" : (r <= 1.2) ? "target met (<= 1.20)" : "target NOT met (<= 1.20)" }')
      name="8 B latency [us]"
      [[ $fig == latavg ]] && name="8 B latency avg [us]"
    else
      ok=$(awk -v r="$rb" 'BEGIN { print (r >= 0.85) ? "target met (>= 0.85)" : "target NOT met (>= 0.85)" }')
      name="1 MiB bandwidth [MB/s]"
    fi
    printf '%-6s %-22s %11s/%-11s %8s %11s/%-11s %8s  %-26s  %s\n' "$d" "$name" "$p" "$t" "$r" "$pb" "$tb" "$rb" \
      "${reps_ratios% }" "$ok"
  done
  # Shared memory against the device, both twinfab's pingpong in the same rep (issue 32:
  # the shared-memory 8 B latency <= 0.5 x the RC one).
  rc=$(awk '$1 == "RESULT" && $2 == "lat" && $3 == "twinfab" { printf "%s ", $4 }' "$log")
  sh=$(awk '$1 == "RESULT" && $2 == "shmlat" && $3 == "twinfab" { printf "%s ", $4 }' "$log")
  p=$(median <<<"$rc") t=$(median <<<"$sh") pb=$(best lat <<<"$rc") tb=$(best lat <<<"$sh")
  if [[ -z $p || -z $t ]]; then
    printf '%-6s %-22s %12s %12s %8s  %s\n' "$d" "shm 8 B lat (vs RC)" "${p:-?}" "${t:-?}" "-" "no figure (see $log)"
    failed=1
  else
    reps_ratios=$(paste -d' ' <(tr -s ' ' '\n' <<<"$rc") <(tr -s ' ' '\n' <<<"$sh") |
      awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $1 > 0 { printf "%.2f ", $2 / $1 }')
    r=$(awk -v a="$t" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
    rb=$(awk -v a="$tb" -v b="$pb" 'BEGIN { printf "%.2f", a / b }')
    ok=$(awk -v r="$r" 'BEGIN { print (r <= 0.5) ? "target met (<= 0.50, medians)" : "target NOT met (<= 0.50, medians)" }')
    printf '%-6s %-22s %11s/%-11s %8s %11s/%-11s %8s  %-26s  %s\n' "$d" "shm 8 B lat (RC/shm)" "$p" "$t" "$r" "$pb" \
      "$tb" "$rb" "${reps_ratios% }" "$ok"
  fi
done
exit "$failed"
