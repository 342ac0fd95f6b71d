#!/usr/bin/env bash
# bench/vm_latency_timeline.sh: where an 8-byte message's latency goes, twinfab's MPI
# against perftest, on rxe/siw in the micro-VM (a diagnostic beside
# bench/vm_mpi_perftest.sh, which measures the latency itself).
#
#   bench/vm_latency_timeline.sh [BUILD_DIR] [--device rxe|siw]... [--rounds N]
#
# One VM boot per device. Inside it both ping-pongs run with
# bench/timeline/timeline_preload.so preloaded into both processes (TSC time stamps of
# the doorbell write() and of the CQ poll that sees each message; nothing else
# changes):
#   perftest  ib_send_lat -s 8 -n ROUNDS (-x <GID index> on rxe, -R on siw)
#   twinfab   bench/mpi/pingpong_wall.c built with twinfab-mpicc, ROUNDS round trips
#             (MPI_Send/MPI_Recv), two processes under Open MPI's mpirun
# (default 20000 rounds each, perftest first, then twinfab, then both again).
# bench/timeline/timeline.py splits each one-way message into "write -> peer sees it"
# (the device's path; on rxe/siw the kernel's, inside the sender's write(), plus the
# receiver's polling) and "seen -> own write" (user space: the receiving side's way
# from the completion to the reply's doorbell), medians over the middle 80 % of the
# messages, and prints them side by side.
# Exit status 0 when every table was printed, 1 when a run failed, 2 on a usage error.
# Event files and raw output: BUILD_DIR/latency-timeline-<device>/.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$HERE/.." && pwd -P)

if [[ ${1:-} == --in-vm ]]; then
  # The two processes share the VM's host: the device, not shared memory, is measured.
  export TWINFAB_SHM=0
  build=$2 rounds=$3 out=$4
  dev=${TWINFAB_DEVICE:?not in the VM} addr=${TWINFAB_VM_ADDR:?} gid=${TWINFAB_GID_INDEX:-0}
  if [[ $dev == siw* ]]; then conn=(-R); else conn=(-x "$gid"); fi
  preload=$build/bench/timeline_preload.so
  export TWINFAB_TIMELINE_DIR=$out
  # shellcheck source=bench/lib/perftest.sh
  source "$HERE/lib/perftest.sh"  # perftest_pair
  status=0 port=18700
  for rep in 1 2; do
    perftest_env=("TWINFAB_TIMELINE_TAG=perftest$rep" LD_PRELOAD="$preload")
    perftest_pair ib_send_lat -s 8 -n "$rounds" || status=1
    TWINFAB_TIMELINE_TAG=twinfab$rep timeout -k 5 300 mpirun --allow-run-as-root -x TWINFAB_TIMELINE_DIR \
      -x TWINFAB_TIMELINE_TAG -x LD_PRELOAD="$preload" -n 2 "$build/bench/pingpong_wall" "$rounds" || status=1
  done
  exit "$status"
fi

build='' rounds=20000 devices=()
while (($#)); do
  case "$1" in
    --device) devices+=("${2:?--device needs rxe or siw}"); shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
    -h | --help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "vm_latency_timeline: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) build=$1; shift ;;
  esac
done
((${#devices[@]})) || devices=(rxe siw)
[[ $rounds =~ ^[1-9][0-9]{2,}$ ]] || { echo "vm_latency_timeline: --rounds '$rounds' must be an integer >= 100" >&2; exit 2; }
build=$(cd "${build:-$REPO/build}" 2>/dev/null && pwd -P) || { echo "vm_latency_timeline: build directory not found; make build" >&2; exit 2; }
[[ -x $build/bin/twinfab-mpicc ]] || { echo "vm_latency_timeline: $build/bin/twinfab-mpicc missing; make build" >&2; exit 2; }
mkdir -p "$build/bench"
cc -O2 -Wall -shared -fPIC -o "$build/bench/timeline_preload.so" "$HERE/timeline/timeline_preload.c" -ldl ||
  { echo "vm_latency_timeline: building the preload library failed (rdma-core headers: ci/install-deps.sh)" >&2; exit 1; }
"$build/bin/twinfab-mpicc" -O2 -o "$build/bench/pingpong_wall" "$HERE/mpi/pingpong_wall.c" ||
  { echo "vm_latency_timeline: building pingpong_wall failed" >&2; exit 1; }
failed=0
for d in "${devices[@]}"; do
  out=$build/latency-timeline-$d
  rm -rf "$out" && mkdir -p "$out"
  if ! "$REPO/ci/vm/run" --device "$d" --rw "$build" -- \
      bash "$HERE/vm_latency_timeline.sh" --in-vm "$build" "$rounds" "$out" >"$out/run.log" 2>&1; then
    echo "vm_latency_timeline: the $d run failed (see $out/run.log)" >&2
    failed=1
    continue
  fi
  echo "$d: 8-byte ping-pong, $rounds round trips per run ($out)"
  /usr/bin/python3 "$HERE/timeline/timeline.py" "$out" perftest1 twinfab1 perftest2 twinfab2 || failed=1
done
exit "$failed"
