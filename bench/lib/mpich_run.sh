#!/usr/bin/env bash
# The run phase of bench/mpich_tests.sh: runs the plan that script wrote, one MPICH
# test after another, judges each run as MPICH's runtests does and prints one line per
# entry and the summary. Run on the host for the simulator, or inside the micro-VM
# (ci/vm/run) for rxe/siw, where the tests start as processes under Open MPI's mpirun
# (PMIx), as tests/mpi/c/run_on_hardware.sh starts twinfab's own.
#
#   mpich_run.sh PLAN sim TWINFAB PLATFORM   twinfab sim -n NP --platform PLATFORM
#   mpich_run.sh PLAN hardware               mpirun -n NP (this host's RDMA device)
#
# PLAN (tab-separated, one entry per line, in testlist order):
#   heading DIR                                      a directory's first entry
#   skipped|unbuilt TEXT                             decided while planning: printed
#   run DIR NAME NP RESULT XFAIL LIMIT LABEL [ARGS...]  a test to run (RESULT: default
#                                    or status; XFAIL may be -; LIMIT: its testlist's
#                                    timeLimit= in seconds, or - for TIMEOUT)
# Environment: TIMEOUT, the time limit of a run whose testlist line sets none (default
# 180 s, MPICH's), and TIMEOUT_MULTIPLIER (default 1) that scales every limit, as
# MPICH's runtests does with MPITEST_TIMEOUT and MPITEST_TIMEOUT_MULTIPLIER.
set -uo pipefail
plan=$1 mode=$2
default_limit=${TIMEOUT:-180}
multiplier=${TIMEOUT_MULTIPLIER:-1}
[[ $default_limit =~ ^[0-9]+$ && $multiplier =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  { echo "mpich_run: TIMEOUT must be whole seconds and TIMEOUT_MULTIPLIER a positive number" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib/mpich_known.sh
source "$here/mpich_known.sh"

case $mode in
  sim)
    twinfab=$3 platform=$4
    # SIM_OPTIONS: more options of twinfab sim, e.g. "--loss 0.01 --seed 1" (word-split).
    read -r -a sim_options <<< "${SIM_OPTIONS:-}"
    where="twinfab sim ($platform${SIM_OPTIONS:+ $SIM_OPTIONS})"
    launcher() { cmd=("$twinfab" sim -n "$1" --platform "$platform" "${sim_options[@]}"); }
    ;;
  hardware)
    ls /sys/class/infiniband/* > /dev/null 2>&1 || { echo "mpich_run: no RDMA device here (run inside ci/vm/run)" >&2; exit 1; }
    command -v mpirun > /dev/null || { echo "mpich_run: mpirun (openmpi-bin) is missing: run ci/install-deps.sh" >&2; exit 1; }
    device=$(basename "$(ls -d /sys/class/infiniband/* | head -1)")
    where="$device (processes under mpirun)"
    # All processes share the VM's host: the device carries the traffic unless the
    # caller asks for shared memory (TWINFAB_SHM=1).
    export TWINFAB_SHM=${TWINFAB_SHM:-0}
    # --oversubscribe: the testlists ask for up to 10 ranks on the VM's 2 vCPUs.
    launcher() { cmd=(mpirun --allow-run-as-root --oversubscribe -n "$1"); }
    ;;
  *) echo "mpich_run: mode must be sim or hardware, not '$mode'" >&2; exit 2 ;;
esac
known_reason() {  # DIR/NAME: the known cause of its failure on this launcher, if any
  if [[ $mode == sim && -n ${known_sim[$1]:-} ]]; then echo "${known_sim[$1]}"
  elif [[ $mode == hardware && ${TWINFAB_IN_VM:-0} == 1 && -n ${known_vm[$1]:-} ]]; then echo "${known_vm[$1]}"
  else echo "${known[$1]:-}"; fi
}

cd "$(dirname "$plan")"
passed=0 failed=0 failed_known=0 unbuilt=0 skipped=0
failures=()
while IFS=$'\t' read -r kind f1 f2 f3 f4 f5 f6 f7 rest; do
  case $kind in
    heading) echo "== $f1"; continue ;;
    skipped) echo "  skipped   $f1"; skipped=$((skipped + 1)); continue ;;
    unbuilt) echo "  not built $f1"; unbuilt=$((unbuilt + 1)); continue ;;
    run) ;;
    *) echo "mpich_run: bad plan line: $kind" >&2; exit 2 ;;
  esac
  dir=$f1 name=$f2 np=$f3 result=$f4 xfail=$f5 limit=$f6 label=$f7
  [[ $xfail == - ]] && xfail=""
  [[ $limit == - ]] && limit=$default_limit
  timeout_s=$(awk -v l="$limit" -v m="$multiplier" 'BEGIN { t = int(l * m + 0.5); print (t < 1 ? 1 : t) }')
  args=()
  [[ -n $rest ]] && IFS=$'\t' read -r -a args <<< "$rest"
  out=$dir/$name.$np.$RANDOM.log
  start=$(date +%s.%N)
  launcher "$np"
  (cd "$dir" && timeout -k 10 "$timeout_s" "${cmd[@]}" "./$name" "${args[@]}") > "$out" 2>&1 < /dev/null
  rc=$?
  secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
  # MPICH's verdicts (runtests): by default exit 0, a " No Errors" line and no other
  # output but "Test Passed"; TestStatus, a non-zero exit status (what the launcher
  # prints about it is expected).
  # twinfab's own info-level log lines (the one saying which lock design a device
  # without remote atomics gets, on siw) are the library's, not the test's output.
  unexpected=$(grep -vE '\[twinfab\] \[info\]' "$out" | grep -cvE '^\s*(No [Ee]rrors|Test Passed)?\s*$' || true)
  if [[ $result == status ]]; then
    ((rc != 0 && rc != 124 && rc != 137)) && verdict=pass || verdict=fail
  else
    ((rc == 0 && unexpected == 0)) && grep -qE '^\s*No [Ee]rrors\s*$' "$out" && verdict=pass || verdict=fail
  fi
  if [[ $verdict == pass ]]; then
    echo "  passed    $label (${secs} s)${xfail:+ [MPICH xfail: $xfail]}"; passed=$((passed + 1))
  else
    why="exit $rc"; ((rc == 124 || rc == 137)) && why="timed out after ${timeout_s} s"
    [[ $result == default ]] && ((unexpected > 0)) && why="$why, $unexpected unexpected output lines"
    reason=$(known_reason "$dir/$name")
    if [[ -n $reason ]]; then
      echo "  FAILED    $label ($why) known: $reason"
      failed_known=$((failed_known + 1))
    else
      echo "  FAILED    $label ($why)${xfail:+ [MPICH xfail: $xfail]}"
      head -5 "$out" | sed 's/^/              | /'
      failed=$((failed + 1)); failures+=("$label")
    fi
  fi
done < "$plan"
echo "== MPICH 4.0.2 test/mpi on $where: $passed passed, $failed failed," \
  "$failed_known failed for a known reason (above), $unbuilt not built (functions twinfab lacks), $skipped skipped"
for f in "${failures[@]}"; do echo "   failed: $f"; done
