#!/usr/bin/env bash
# MPICH's own test suite (test/mpi of MPICH 4.0.2, from Debian's archive) against
# twinfab: every C test of the chosen directories that builds against twinfab's
# mpi.h is built with twinfab-mpicc, unmodified, and run under `twinfab sim` with the
# rank count its testlist gives; a test passes as in MPICH's runtests: it exits with 0
# and prints " No Errors" and nothing else (resultTest=TestStatus: it exits with a
# non-zero status). Prints one line per run and a summary:
#   passed / FAILED (with the first lines of its output, or the known reason: see
#   `known` below) / not built (with the first
#   MPI function or constant twinfab lacks) / skipped (needs MPICH's datatype pools,
#   or is marked strict=false: uses MPICH extensions).
# MPICH's xfail= marks (MPICH's own known failures) are shown next to the result.
#
# MPICH's test utilities (util/mtest.c, mtest_common.c, dtypes.c) are built unmodified
# too; their communicator loops go through intercommunicators as well.
#
#   bench/mpich_tests.sh [BUILD_DIR=build] [DIR ...]   (default DIRs: pt2pt coll
#                                                       comm group datatype init errhan topo attr
#                                                       mpi_t)
# Environment: PLATFORM (default ideal), TIMEOUT per run in seconds (default 180),
# EXTENSIONS=1 (also run the tests marked strict=false: MPICH 4.0.2 marks MPI-4's
# persistent collectives so),
# ONLY=regex (test names to run), KEEP=1 (keep the work directory and print it).
# Needs the network (deb.debian.org); ~10-20 minutes for the default directories.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
shift || true
dirs=("$@")
((${#dirs[@]})) || dirs=(pt2pt coll comm group datatype init errhan topo attr mpi_t)
platform=${PLATFORM:-ideal}
timeout_s=${TIMEOUT:-180}
only=${ONLY:-.}
mpicc="$build/bin/twinfab-mpicc"
twinfab="$build/tools/twinfab/twinfab"
for f in "$mpicc" "$twinfab"; do
  [[ -x "$f" ]] || { echo "mpich_tests: $f not found: build first (make build)" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-mpich.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then echo "mpich_tests: work directory $work"; else trap 'rm -rf "$work"' EXIT; fi
cd "$work"

# The upstream tarball Debian ships for bookworm's mpich 4.0.2-3 (sha256 from the
# Sources index).
tarball=mpich_4.0.2.orig.tar.xz
sum=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
curl -fsS -m 300 -o "$tarball" "http://deb.debian.org/debian/pool/main/m/mpich/$tarball" ||
  { echo "mpich_tests: cannot download $tarball" >&2; exit 1; }
echo "$sum  $tarball" | sha256sum -c --quiet - || { echo "mpich_tests: $tarball does not match its checksum" >&2; exit 1; }
tar xJf "$tarball" --wildcards 'mpich-4.0.2/test/mpi/*'
cd mpich-4.0.2/test/mpi

# MPICH's configure makes mpitestconf.h and the configured testlists. It takes any MPI
# 2 or later to have one-sided communication; twinfab has none.
./configure CC="$mpicc" MPICC="$mpicc" --disable-fortran --disable-cxx --disable-romio --disable-spawn \
  --disable-ft-tests --disable-threads --enable-strictmpi > configure.log 2>&1 ||
  { tail -20 configure.log >&2; echo "mpich_tests: MPICH's test configure failed" >&2; exit 1; }
sed -i 's|^#define HAVE_MPI_WIN_CREATE 1|/* twinfab: no one-sided communication */|' include/mpitestconf.h

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

# Failures with a known cause that is not a twinfab bug (checked one by one; each line
# says why). They are still run and printed, and counted apart.
declare -A known=(
  [pt2pt/bsendpending]="busy-waits 2 s of simulated time on MPI_Wtime, whose every read costs the rank 10 ns as in SMPI (smpi/wtime): 2e8 reads per communicator"
  [pt2pt/cancelrecv]="cancels an unmatched send; twinfab, like Open MPI, does not cancel sends (MPI 4.0 deprecates it), so the send never completes (MPICH xfails it too)"
  [pt2pt/scancel_unmatch]="cancels an unmatched send (as cancelrecv; MPICH xfails it too)"
  [pt2pt/scancel]="cancels sends (as cancelrecv; MPICH xfails it too)"
  [pt2pt/pscancel]="cancels persistent sends (as cancelrecv; MPICH xfails it too)"
  [datatype/indexed_misc]="passes MPI_Type_create_struct a datatype handle it freed (types[0]), which MPICH happens to hand out again to the next type; twinfab never reuses a handle"
  [attr/keyval_double_free]="frees one keyval three times (a delete callback and two copies of the handle); MPI invalidates the handle at the first free, MPICH accepts the others while an attribute still uses the key, twinfab reports MPI_ERR_KEYVAL"
  [attr/keyval_double_free_comm]="as keyval_double_free, with the MPI-2 names"
  [attr/keyval_double_free_type]="as keyval_double_free, with the datatype functions"
  [init/session]="asks its session for MPI_THREAD_MULTIPLE and fails unless it gets it; twinfab provides at most MPI_THREAD_FUNNELED (one thread per rank makes MPI calls), for sessions as for MPI_Init_thread"
  [mpi_t/cvarwrite]="writes every control variable after MPI_Init and expects to read the value back (123 into each MPI_INT one, 133 into each MPI_UNSIGNED one); twinfab's take effect at MPI_Init, so a later write is MPI_T_ERR_CVAR_SET_NOT_NOW (MPI-3.1 14.3.6), and it refuses values MPI_Init would (123 is no TWINFAB_RENDEZVOUS word); the test ignores the codes"
  [topo/cartsuball]="expects MPI_Cart_sub with no remaining dimension to give MPI_COMM_NULL on all ranks but 0; MPI-3.1 7.5.7 gives every rank a zero-dimensional Cartesian communicator, and so does twinfab"
)

passed=0 failed=0 failed_known=0 unbuilt=0 skipped=0
failures=()
declare -A built=()
for dir in "${dirs[@]}"; do
  [[ -f $dir/testlist ]] || { echo "mpich_tests: no directory $dir with a testlist" >&2; exit 1; }
  echo "== $dir"
  while read -r name np rest; do
    [[ -z ${name:-} || $name == \#* ]] && continue
    [[ $name =~ $only ]] || continue
    args=() xfail="" strict=1 result=default
    for word in $rest; do
      case $word in
        arg=*) args+=("${word#arg=}") ;;
        xfail=*) xfail="${xfail:+$xfail,}${word#xfail=}" ;;
        strict=false) strict=0 ;;
        resultTest=TestStatus) result=status ;;
        resultTest=*) result=${word#resultTest=} ;;
      esac
    done
    label="$dir/$name $np${args:+ ${args[*]}}"
    src=$dir/$name.c
    if [[ ! -f $src ]]; then
      [[ -d $dir/$name ]] && continue  # a subdirectory's list
      echo "  skipped   $label (no $name.c: MPICH's Makefile builds it from another source)"; skipped=$((skipped + 1)); continue
    fi
    if ((!strict && !${EXTENSIONS:-0})); then
      echo "  skipped   $label (uses MPICH extensions: strict=false)"; skipped=$((skipped + 1)); continue
    fi
    if [[ $result != default && $result != status ]]; then
      echo "  skipped   $label (judged by $result: needs mpiexec's wall-clock limit or fault tolerance)"
      skipped=$((skipped + 1)); continue
    fi
    if grep -qE '"(dtpools|mtest_dtp)\.h"' "$src"; then
      echo "  skipped   $label (MPICH's datatype pools)"; skipped=$((skipped + 1)); continue
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
      echo "  not built $label: ${built[$exe]}"; unbuilt=$((unbuilt + 1)); continue
    fi
    out=$exe.$np.$RANDOM.log
    start=$(date +%s.%N)
    set +e
    (cd "$dir" && timeout "$timeout_s" "$twinfab" sim -n "$np" --platform "$platform" "./$name" "${args[@]}") > "$out" 2>&1
    rc=$?
    set -e
    secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
    # MPICH's verdicts (runtests): by default exit 0, a " No Errors" line and no other
    # output but "Test Passed"; TestStatus, a non-zero exit status (what the launcher
    # prints about it is expected).
    unexpected=$(grep -cvE '^\s*(No [Ee]rrors|Test Passed)?\s*$' "$out" || true)
    if [[ $result == status ]]; then
      ((rc != 0 && rc != 124)) && verdict=pass || verdict=fail
    else
      ((rc == 0 && unexpected == 0)) && grep -qE '^\s*No [Ee]rrors\s*$' "$out" && verdict=pass || verdict=fail
    fi
    if [[ $verdict == pass ]]; then
      echo "  passed    $label (${secs} s)${xfail:+ [MPICH xfail: $xfail]}"; passed=$((passed + 1))
    else
      why="exit $rc"; ((rc == 124)) && why="timed out after ${timeout_s} s"
      [[ $result == default ]] && ((unexpected > 0)) && why="$why, $unexpected unexpected output lines"
      if [[ -n ${known[$dir/$name]:-} ]]; then
        echo "  FAILED    $label ($why) known: ${known[$dir/$name]}"
        failed_known=$((failed_known + 1))
      else
        echo "  FAILED    $label ($why)${xfail:+ [MPICH xfail: $xfail]}"
        head -5 "$out" | sed 's/^/              | /'
        failed=$((failed + 1)); failures+=("$label")
      fi
    fi
  done < "$dir/testlist"
done
echo "== MPICH 4.0.2 test/mpi on twinfab sim ($platform): $passed passed, $failed failed," \
  "$failed_known failed for a known reason (above), $unbuilt not built (functions twinfab lacks), $skipped skipped"
for f in "${failures[@]}"; do echo "   failed: $f"; done
