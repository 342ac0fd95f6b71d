#!/bin/sh
# Runs an MPI C program as real processes under Open MPI's mpirun (PMIx start-up) on
# this host's RDMA device:
# `run_on_hardware.sh [--ud] [--fastpath] [--expect-failure] [--expect-output ERE] NPROCS PROGRAM [ARGS...]`.
# --ud: over the UD channel (TWINFAB_TRANSPORT=ud, or hybrid when the environment says
# so); on an iWARP device (siw), which has
# no UD, the job must instead fail at MPI_Init saying so.
# --fastpath: with the RC channel's RDMA fast path (TWINFAB_FASTPATH=on); on iWARP,
# whose RDMA writes do not land in order, the job must fail at MPI_Init saying so.
# --expect-failure: the job must end with an error (exit 0 then), and within 120 s
# (a hang is a failure). --expect-output: its output (stdout and stderr) must also
# match the extended regular expression ERE. Without a
# device (every build host; the micro-VM has rxe or siw) it is a skip (exit 77), with
# the reason. ctest label `verbs`: `ci/vm/run --device rxe -- ctest -L verbs` runs it.
set -u
expect_failure=0
expect_output=
ud=0
fastpath=0
if [ "${1:-}" = --ud ]; then ud=1; shift; fi
if [ "${1:-}" = --fastpath ]; then fastpath=1; shift; fi
if [ "${1:-}" = --expect-failure ]; then expect_failure=1; shift; fi
if [ "${1:-}" = --expect-output ]; then expect_output=$2; shift 2; fi
nprocs=$1; shift
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
  echo "no RDMA device on this host (/sys/class/infiniband is empty): run inside the micro-VM (ci/vm/run --device rxe|siw -- ctest -L verbs)" >&2
  exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpirun (openmpi-bin) is missing: run ci/install-deps.sh" >&2
  exit 77
fi
if [ "$ud" = 1 ]; then
  # The hybrid channel (UD and RC on demand) needs UD too; any other value means ud.
  [ "${TWINFAB_TRANSPORT:-}" = hybrid ] || export TWINFAB_TRANSPORT=ud
  # node_type "4: RNIC" is iWARP (rdma-core's sysfs), which has no UD queue pairs.
  if grep -qs RNIC /sys/class/infiniband/*/node_type; then
    echo "iWARP device: TWINFAB_TRANSPORT=$TWINFAB_TRANSPORT must be refused at MPI_Init"
    expect_failure=1
    expect_output='has no UD queue pairs'
  fi
fi
if [ "$fastpath" = 1 ]; then
  export TWINFAB_FASTPATH=on
  if grep -qs RNIC /sys/class/infiniband/*/node_type; then
    echo "iWARP device: TWINFAB_FASTPATH=on must be refused at MPI_Init"
    expect_failure=1
    expect_output='needs RDMA writes that land in order'
  fi
fi
# Open MPI's mpirun opens every component of each of its frameworks (~60 plugins) as it
# starts; in the micro-VM's emulated CPU that was ~0.4 s of a 2-rank job's ~3 s
# (measured 2026-12-07: 2.99 -> 2.58 s on average). Only what a launch on this one
# node uses; a value already in the environment wins.
export OMPI_MCA_plm="${OMPI_MCA_plm-isolated}" OMPI_MCA_ras="${OMPI_MCA_ras-^slurm,gridengine}" \
  OMPI_MCA_routed="${OMPI_MCA_routed-direct}" OMPI_MCA_rmaps="${OMPI_MCA_rmaps-round_robin}" \
  OMPI_MCA_errmgr="${OMPI_MCA_errmgr-default_hnp}" OMPI_MCA_state="${OMPI_MCA_state-hnp}" \
  OMPI_MCA_shmem="${OMPI_MCA_shmem-mmap}" OMPI_MCA_schizo="${OMPI_MCA_schizo-ompi}" \
  OMPI_MCA_regx="${OMPI_MCA_regx-naive}" OMPI_MCA_odls="${OMPI_MCA_odls-default}" OMPI_MCA_iof="${OMPI_MCA_iof-hnp}" \
  OMPI_MCA_pmix="${OMPI_MCA_pmix-ext3x}" OMPI_MCA_reachable="${OMPI_MCA_reachable-weighted}" \
  OMPI_MCA_ess="${OMPI_MCA_ess-hnp,env,pmi,singleton}" OMPI_MCA_rtc="${OMPI_MCA_rtc-hwloc}"
# --allow-run-as-root: the VM runs tests as root; --oversubscribe: 4 ranks on 2 vCPUs.
# A rank that dies makes mpirun end the job with an error (never a hang).
if [ "$expect_failure" = 0 ] && [ -z "$expect_output" ]; then
  exec mpirun --allow-run-as-root --oversubscribe -n "$nprocs" "$@"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ "$expect_failure" = 0 ]; then
  mpirun --allow-run-as-root --oversubscribe -n "$nprocs" "$@" > "$out" 2>&1
  rc=$?
  cat "$out"
  if [ "$rc" = 0 ] && ! grep -Eq -- "$expect_output" "$out"; then
    echo "the output does not match '$expect_output'" >&2
    exit 1
  fi
  exit "$rc"
fi
timeout -k 10 120 mpirun --allow-run-as-root --oversubscribe -n "$nprocs" "$@" > "$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
  echo "the job did not end within 120 s: it hung instead of failing" >&2
  exit 1
fi
if [ "$rc" = 0 ]; then
  echo "the job succeeded, but it was expected to fail" >&2
  exit 1
fi
if [ -n "$expect_output" ] && ! grep -Eq -- "$expect_output" "$out"; then
  echo "the job failed, but its output does not match '$expect_output'" >&2
  exit 1
fi
echo "the job failed as expected (mpirun exit status $rc)"
exit 0
