#!/usr/bin/env bash
# The main job on the simulated fabric, as `make demo` runs it: what the simulator
# offers, then perftest-style tables on two platforms of different eras, a loss
# experiment with its counters, the MPI ping-pong example on two presets and seed 000's
# registration-cache experiment, seed 001's put latency and a Python-driven drop-rate
# sweep with its figures. Everything here is simulated time.
#
# Usage: ci/demo.sh [BUILD_DIR [JOBS]]
# Builds only what each step runs, just before it (the first tables need only the
# twinfab executable; the MPI example and the Python package come later), so the first
# table shows after one target's build; `make test` builds the rest.
set -euo pipefail
build=${1:-build}
jobs=${2:-2}
twinfab=$build/tools/twinfab/twinfab
# The MPI ping-pong example, built by the same build with twinfab-mpicc.
pingpong=$build/examples/pingpong
sizes=(-s 2 -s 64 -s 1024 -s 4096 -s 65536 -s 1048576 -s 8388608)

step() { printf '\n=== %s\n' "$*"; }
# Builds CMake targets of $build, saying which, how long it took and the CPU time it
# used (wall time depends on what else runs; CPU time / cores is the idle machine's).
build_targets() {
  local start=$SECONDS times
  printf '\n--- building %s (cmake --build %s -j %s)\n' "$*" "$build" "$jobs"
  if [[ -x /usr/bin/time ]]; then
    times=$(mktemp)
    /usr/bin/time -o "$times" -f '%U %S' cmake --build "$build" -j "$jobs" --target "$@"
    read -r user system < <(tail -n 1 "$times")
    rm -f "$times"
    printf -- '--- built %s in %d s (CPU: %.0f s user + %.0f s system)\n' "$*" $((SECONDS - start)) "$user" "$system"
  else
    cmake --build "$build" -j "$jobs" --target "$@"
    printf -- '--- built %s in %d s\n' "$*" $((SECONDS - start))
  fi
}

build_targets twinfab
step "twinfab info"
"$twinfab" info

for platform in infinihost-sdr connectx6-hdr; do
  step "RDMA write latency on $platform (ib_write_lat-style)"
  "$twinfab" perf write-lat --platform "$platform" -n 200 "${sizes[@]}"
  step "RDMA write bandwidth on $platform (ib_write_bw-style)"
  "$twinfab" perf write-bw --platform "$platform" -n 500 "${sizes[@]}"
done

step "send/recv latency on connectx-ddr with 0.1 % packet loss (RC retransmits after ACK timeouts)"
"$twinfab" perf send-lat --platform connectx-ddr -n 2000 -s 4096 --loss 0.001 --counters

build_targets examples
for platform in connectx-ddr infinihost-sdr; do
  step "MPI ping-pong on $platform: examples/pingpong.c built with twinfab-mpicc, run by twinfab sim -n 2"
  "$twinfab" sim -n 2 --platform "$platform" "$pingpong"
done

step "seed 000 fig. 6: PingPong with copy-only, RDMA without a cache, DME and the lazy engine (infinihost-sdr)"
"$twinfab" experiment seed000-regcache --csv "${TMPDIR:-/tmp}/seed000-regcache.csv"

build_targets twinfab_python
step "seed 001 fig. 3.5: MPI_Put ping-pong latency, RDMA-mapped vs send/receive one-sided (infinihost-sdr; simulated, next to the seed's figures)"
TWINFAB_BUILD="$(cd "$(dirname "$twinfab")/../.." && pwd)" SEED001_OUT="${TMPDIR:-/tmp}/seed001" \
  "${TWINFAB_PYTHON:-/usr/bin/python3}" "$(dirname "$0")/../scenarios/seed001/put_get_latency.py"

step "A scripted experiment (Python, scenarios/drop-rate): RC under 0-10 % packet loss, swept on this machine's cores"
"$twinfab" experiment drop-rate --quick --no-progress --out "${TMPDIR:-/tmp}/twinfab-demo/drop-rate"
echo "figures: $(ls "${TMPDIR:-/tmp}"/twinfab-demo/drop-rate/*.png | head -1) (and the other PNG/SVG files beside it)"
