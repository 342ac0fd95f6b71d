# The command line the micro-VM benchmarks share (bench/vm_perftest.sh,
# vm_mpi_perftest.sh, vm_rma_perftest.sh), sourced by each:
#
#   vm_bench_args NAME DEFAULT_REPS HELP_LAST_LINE "$@"
#
# [--device rxe|siw]... [--reps N] [BUILD_DIR]: sets `devices` (default rxe and siw),
# `reps` and `build` (absolute, default $REPO/build); --help prints lines 2 ..
# HELP_LAST_LINE of the calling script; a bad option or value exits 2 naming it.
vm_bench_args() {
  local name=$1 default_reps=$2 help_last=$3 script=${BASH_SOURCE[1]} given
  shift 3
  build='' reps=$default_reps devices=()
  while (($#)); do
    case "$1" in
      --device) devices+=("${2:?--device needs rxe or siw}"); shift 2 ;;
      --reps) reps=${2:?--reps needs a number}; shift 2 ;;
      -h | --help) sed -n "2,${help_last}p" "$script" | sed 's/^# \{0,1\}//'; exit 0 ;;
      -*) echo "$name: unknown option '$1' (see --help)" >&2; exit 2 ;;
      *) [[ -z $build ]] || { echo "$name: one build directory only" >&2; exit 2; }; build=$1; shift ;;
    esac
  done
  ((${#devices[@]})) || devices=(rxe siw)
  [[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "$name: --reps '$reps' is not a positive integer" >&2; exit 2; }
  given=${build:-$REPO/build}
  build=$(cd "$given" 2>/dev/null && pwd -P) ||
    { echo "$name: build directory '$given' not found; build first (make build)" >&2; exit 2; }
}
