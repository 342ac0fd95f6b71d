# shellcheck shell=bash
# The preamble of the benchmarks that run one of bench/mpi's C programs under
# `twinfab sim` (sourced).
#
# sim_program BUILD_DIR NAME SOURCE: sets `build` (absolute), `twinfab`, `mpicc` and
# `work` (a temporary directory, removed at exit), and compiles bench/mpi/SOURCE into
# $work/<SOURCE without .c>. NAME prefixes the error when the build tree lacks them.
sim_program() {
  build=$(cd "$1" && pwd)
  twinfab=$build/tools/twinfab/twinfab
  mpicc=$build/bin/twinfab-mpicc
  [[ -x $twinfab && -x $mpicc ]] || { echo "$2: build twinfab first (make build)" >&2; exit 1; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-$2.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  "$mpicc" -O2 -o "$work/${3%.c}" "$(dirname "${BASH_SOURCE[0]}")/../mpi/$3"
}
