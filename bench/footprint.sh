#!/usr/bin/env bash
# What one simulated rank touches per iteration of the ring benchmark: the 64-byte
# lines of memory (its stack, heap objects of the simulator, SimGrid and the MPI
# library) one rank reads or writes between two of its MPI_Irecv calls, counted under
# valgrind's memory tracer (lackey). At thousands of ranks every one of these lines
# comes back from memory on every iteration (docs/mpi.md, "Performance";
# docs/performance-notes.md), so this is
# the figure that decides the cost per message at scale, counted exactly and
# identically on every machine, unlike the wall clock.
#
# Two runs of bench_mpi_ring, with RANKS and 2 x RANKS ranks on a 16-host copy of
# fat-tree-4096 (one rank per HCA, connections made on demand, as at 4096 ranks); each
# records the lines touched in one iteration of every rank (the window between the
# 10 x N-th and 11 x N-th MPI_Irecv). Lines shared by all ranks are in both runs, so
# (lines at 2R - lines at R) / R is one rank's footprint. Printed: that footprint, split
# by where the lines are and by the function that touched each first, and the
# instructions per rank and iteration. Takes ~2 minutes (lackey is ~100x slower than
# a native run; the two runs go in parallel).
#
#   bench/footprint.sh [BUILD_DIR=build] [RANKS=4]
#   FOOTPRINT_KEEP=1 keeps the traces' line lists and mappings (its temporary
#   directory, named on exit) for a closer look.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
ranks=${2:-4}
((ranks >= 2)) || { echo "footprint: RANKS must be at least 2 (each rank then has a left and a right neighbour)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
for tool in valgrind addr2line nm; do
  command -v "$tool" >/dev/null || { echo "footprint: $tool not found (packages valgrind, binutils; run ci/install-deps.sh)" >&2; exit 1; }
done
cmake --build "$build" --target bench_mpi_ring footprint_trace_lines footprint_maps >/dev/null
bench="$build/bench/bench_mpi_ring"
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-footprint.XXXXXX")
trap 'if [[ -n ${FOOTPRINT_KEEP:-} ]]; then echo "footprint: kept $work" >&2; else rm -rf "$work"; fi' EXIT

# fat-tree-4096 with 16 hosts: the same HCA, link and host model, and a platform that
# valgrind loads in seconds.
sed -e 's/^hosts = 4096$/hosts = 16/' \
    -e 's/^fat_tree = .*/fat_tree = { levels = 2, down = [4, 4], up = [1, 4], count = [1, 1] }/' \
    -e 's/^name = .*/name = "fat-tree-16"/' "$root/scenarios/platforms/fat-tree-4096.toml" >"$work/fat-tree-16.toml"
grep -q '^hosts = 16$' "$work/fat-tree-16.toml" ||
  { echo "footprint: could not derive a 16-host platform from fat-tree-4096.toml (its [topology] changed?)" >&2; exit 1; }

export TWINFAB_ON_DEMAND_THRESHOLD=2  # connections on demand, as above 64 ranks
stack_kib=${TWINFAB_SIM_STACK_KIB:-1024}
preload="$build/bench/footprint_maps.so"

# The marker: the first instruction of mpi::Context::irecv, once per rank and iteration.
# Its address under valgrind is the executable's load address (from a short run's
# mappings) plus its offset in the file.
offset=$(nm -C "$bench" | awk '$2 == "T" && !found && index($0, "twinfab::mpi::Context::irecv(") { print $1; found = 1 }')
[[ -n "$offset" ]] || { echo "footprint: mpi::Context::irecv not found in $bench" >&2; exit 1; }
FOOTPRINT_MAPS="$work/probe.maps" LD_PRELOAD="$preload" valgrind --tool=none -q "$bench" --once 2 2 "$work/fat-tree-16.toml" >/dev/null ||
  { echo "footprint: the probe run under valgrind failed" >&2; exit 1; }
base=$(awk -v exe="$(readlink -f "$bench")" '$6 == exe && $3 == "00000000" { split($1, r, "-"); print r[1]; exit }' "$work/probe.maps")
[[ -n "$base" ]] || { echo "footprint: no load address of $bench in the traced process's mappings" >&2; exit 1; }
marker=$(printf '%x' $((0x$base + 0x$offset)))

# trace N: the lines of one iteration of N ranks (the window after 10 iterations).
trace() {
  local n=$1
  FOOTPRINT_MAPS="$work/$n.maps" LD_PRELOAD="$preload" \
    valgrind --tool=lackey --trace-mem=yes --log-fd=9 "$bench" --once "$n" 14 "$work/fat-tree-16.toml" 9>&1 >/dev/null 2>"$work/$n.err" |
    "$build/bench/footprint_trace_lines" "$marker" $((10 * n)) $((11 * n)) >"$work/$n.lines" ||
    { echo "footprint: the traced run with $n ranks failed; its last output:" >&2; tail -n 5 "$work/$n.err" >&2; return 1; }
}
echo "footprint: tracing $ranks and $((2 * ranks)) ranks under valgrind (lackey), ~2 minutes"
trace "$ranks" &
first=$!
trace $((2 * ranks))
wait "$first"
/usr/bin/python3 "$here/footprint/report.py" "$stack_kib" "$ranks" \
  "$work/$ranks.lines" "$work/$ranks.maps" "$work/$((2 * ranks)).lines" "$work/$((2 * ranks)).maps"
