#!/usr/bin/env bash
# MPICH's own test suite (test/mpi of MPICH 4.0.2, from Debian's archive) against
# twinfab: every C test of the chosen directories that builds against twinfab's
# mpi.h is built with twinfab-mpicc, unmodified, and run under `twinfab sim` with the
# rank count its testlist gives; a test passes as in MPICH's runtests: it exits with 0
# and prints " No Errors" and nothing else (resultTest=TestStatus: it exits with a
# non-zero status). With LAUNCH=rxe or siw the same tests run on that RDMA device
# instead, as processes under Open MPI's mpirun inside the micro-VM (ci/vm/run).
# Prints one line per run and a summary:
#   passed / FAILED (with the first lines of its output, or the known reason: see
#   bench/lib/mpich_known.sh) / not built (with the first
#   MPI function or constant twinfab lacks) / skipped (needs MPICH's datatype pools,
#   or is marked strict=false: uses MPICH extensions).
# MPICH's xfail= marks (MPICH's own known failures) are shown next to the result.
#
# MPICH's test utilities (util/mtest.c, mtest_common.c, dtypes.c) are built unmodified
# too; their communicator loops go through intercommunicators as well.
#
#   bench/mpich_tests.sh [BUILD_DIR=build] [DIR ...]   (default DIRs: pt2pt coll
#                                                       comm group datatype init errhan topo attr
#                                                       mpi_t rma)
# Environment: LAUNCH (sim, the default, or rxe or siw: the micro-VM), PLATFORM (for
# sim; default ideal), SIM_OPTIONS (for sim: more options of twinfab sim, e.g.
# "--loss 0.01 --seed 1", with TWINFAB_TRANSPORT=ud to run the suite over lossy UD), TIMEOUT per run in seconds for the tests whose testlist line
# sets no timeLimit= (default 180, as MPICH's MPITEST_TIMEOUT), TIMEOUT_MULTIPLIER
# (as MPICH's MPITEST_TIMEOUT_MULTIPLIER; default 1 under sim, 3 in the micro-VM,
# where TCG runs the processes ~10-50x slower than the host), VM_TIMEOUT (the whole VM run, default
# 14400 s),
# EXTENSIONS=1 (also run the tests marked strict=false: MPICH 4.0.2 marks MPI-4's
# persistent collectives so),
# ONLY=regex (test names to run), EXCLUDE=regex (test names not to run: listed as
# skipped, e.g. EXCLUDE='^(scancel|pscancel|scancel_unmatch|cancelrecv|sendflood)$' in
# the micro-VM, where those known failures hang until their limit, ~45 minutes in
# all), KEEP=1 (keep the work directory and print it).
# Needs the network (the Debian archive this machine's apt uses); ~10-20 minutes for the
# default directories.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
shift || true
dirs=("$@")
((${#dirs[@]})) || dirs=(pt2pt coll comm group datatype init errhan topo attr mpi_t rma)
platform=${PLATFORM:-ideal}
launch=${LAUNCH:-sim}
only=${ONLY:-.}
exclude=${EXCLUDE:-}
case $launch in
  sim | rxe | siw) ;;
  *) echo "mpich_tests: LAUNCH must be sim, rxe or siw, not '$launch'" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/debian_source.sh
. "$here/lib/debian_source.sh"
mpicc="$build/bin/twinfab-mpicc"
twinfab="$build/tools/twinfab/twinfab"
for f in "$mpicc" "$twinfab"; do
  [[ -x "$f" ]] || { echo "mpich_tests: $f not found: build first (make build)" >&2; exit 1; }
done
if [[ $launch != sim ]]; then
  [[ -f $build/tests/vm/in-vm/CTestTestfile.cmake ]] ||
    { echo "mpich_tests: $build has no verbs backend (rdma-core missing at configure time)" >&2; exit 1; }
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-mpich.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then echo "mpich_tests: work directory $work"; else trap 'rm -rf "$work"' EXIT; fi
cd "$work"

# The upstream tarball Debian ships for bookworm's mpich 4.0.2-3 (sha256 from the
# Sources index), through this machine's apt configuration (bench/lib/debian_source.sh).
tarball=mpich_4.0.2.orig.tar.xz
debian_orig_tarball mpich "$tarball" b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860 ||
  { echo "mpich_tests: cannot get $tarball" >&2; exit 1; }
tar xJf "$tarball" --wildcards 'mpich-4.0.2/test/mpi/*'
cd mpich-4.0.2/test/mpi

# MPICH's configure makes mpitestconf.h and the configured testlists (one-sided
# communication included: MTestGetWin's windows in the other directories too).
./configure CC="$mpicc" MPICC="$mpicc" --disable-fortran --disable-cxx --disable-romio --disable-spawn \
  --disable-ft-tests --disable-threads --enable-strictmpi > configure.log 2>&1 ||
  { tail -20 configure.log >&2; echo "mpich_tests: MPICH's test configure failed" >&2; exit 1; }

mkdir -p util/obj
"$mpicc" -O1 -Iinclude -I. -c util/mtest.c -o util/obj/mtest.o
"$mpicc" -O1 -Iinclude -I. -c util/mtest_common.c -o util/obj/mtest_common.o
"$mpicc" -O1 -Iinclude -I. -c util/dtypes.c -o util/obj/dtypes.o
"$mpicc" -O1 -Iinclude -I. -c util/mtest_single.c -o util/obj/mtest_single.o  # the thread package's stand-in
utils=(util/obj/mtest.o util/obj/mtest_common.o util/obj/dtypes.o util/obj/mtest_single.o)

# What a test that did not build lacks: the first MPI name the compiler or the linker
# did not find.
missing_name() {
  local name
  name=$(sed "s/[‘’]/'/g" "$1" | grep -m1 -oE "(implicit declaration of function|unknown type name|undefined reference to) .[A-Za-z_0-9]+.|'[A-Za-z_0-9]+' undeclared" |
    grep -oE "[A-Za-z_][A-Za-z_0-9]*.?( undeclared)?$" | tr -d "'\`" | sed 's/ undeclared//')
  if [[ -n $name ]]; then echo "needs $name"; else echo "build failed: $(grep -m1 'error' "$1")"; fi
}

# The plan (bench/lib/mpich_run.sh reads it): every testlist entry in order, either
# decided here (skipped, not built) or to run.
plan=$PWD/plan.tsv
: > "$plan"
declare -A built=()
for dir in "${dirs[@]}"; do
  [[ -f $dir/testlist ]] || { echo "mpich_tests: no directory $dir with a testlist" >&2; exit 1; }
  printf 'heading\t%s\n' "$dir" >> "$plan"
  while read -r name np rest; do
    [[ -z ${name:-} || $name == \#* ]] && continue
    [[ $name =~ $only ]] || continue
    args=() xfail="" strict=1 result=default limit=-
    for word in $rest; do
      case $word in
        arg=*) args+=("${word#arg=}") ;;
        xfail=*) xfail="${xfail:+$xfail,}${word#xfail=}" ;;
        strict=false) strict=0 ;;
        timeLimit=*) limit=${word#timeLimit=} ;;
        resultTest=TestStatus) result=status ;;
        resultTest=*) result=${word#resultTest=} ;;
      esac
    done
    label="$dir/$name $np${args:+ ${args[*]}}"
    if [[ -n $exclude && $name =~ $exclude ]]; then
      printf 'skipped\t%s\n' "$label (EXCLUDE)" >> "$plan"; continue
    fi
    src=$dir/$name.c
    if [[ ! -f $src ]]; then
      [[ -d $dir/$name ]] && continue  # a subdirectory's list
      printf 'skipped\t%s\n' "$label (no $name.c: MPICH's Makefile builds it from another source)" >> "$plan"; continue
    fi
    if ((!strict && !${EXTENSIONS:-0})); then
      printf 'skipped\t%s\n' "$label (uses MPICH extensions: strict=false)" >> "$plan"; continue
    fi
    if [[ $result != default && $result != status ]]; then
      printf 'skipped\t%s\n' "$label (judged by $result: needs mpiexec's wall-clock limit or fault tolerance)" >> "$plan"
      continue
    fi
    if grep -qE '"(dtpools|mtest_dtp)\.h"' "$src"; then
      printf 'skipped\t%s\n' "$label (MPICH's datatype pools)" >> "$plan"; continue
    fi
    exe=$dir/$name
    if [[ -z ${built[$exe]:-} ]]; then
      if "$mpicc" -O1 -Iinclude -I. -Werror=implicit-function-declaration "$src" "${utils[@]}" -o "$exe" -lm \
          > "$exe.build.log" 2>&1; then
        built[$exe]=ok
      else
        built[$exe]=$(missing_name "$exe.build.log")
      fi
    fi
    if [[ ${built[$exe]} != ok ]]; then
      printf 'unbuilt\t%s\n' "$label: ${built[$exe]}" >> "$plan"; continue
    fi
    (IFS=$'\t'; printf 'run\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dir" "$name" "$np" "$result" "${xfail:--}" "$limit" "$label" "${args[*]}") >> "$plan"
  done < "$dir/testlist"
done

if [[ $launch == sim ]]; then
  "$here/lib/mpich_run.sh" "$plan" sim "$twinfab" "$platform"
  exit
fi
# On hardware: the whole plan in one VM (booting one per test would cost ~20 s each).
# The work directory is shared writable with the VM; the run phase writes its logs there.
echo "mpich_tests: running the plan on $launch in the micro-VM (tests built; this takes a while)"
"$here/../ci/vm/run" --device "$launch" --timeout "${VM_TIMEOUT:-14400}" --rw "$work" \
  --env "TIMEOUT=${TIMEOUT:-180}" --env "TIMEOUT_MULTIPLIER=${TIMEOUT_MULTIPLIER:-3}" -- "$here/lib/mpich_run.sh" "$plan" hardware
