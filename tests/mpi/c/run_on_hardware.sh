#!/bin/sh
# Runs an MPI C program as real processes under Open MPI's mpirun (PMIx start-up) on
# this host's RDMA device: `run_on_hardware.sh NPROCS PROGRAM [ARGS...]`. Without a
# device (every build host; the micro-VM has rxe or siw) it is a skip (exit 77), with
# the reason. ctest label `verbs`: `ci/vm/run --device rxe -- ctest -L verbs` runs it.
set -u
nprocs=$1; shift
if ! ls /sys/class/infiniband/* >/dev/null 2>&1; then
  echo "no RDMA device on this host (/sys/class/infiniband is empty): run inside the micro-VM (ci/vm/run --device rxe|siw -- ctest -L verbs)" >&2
  exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpirun (openmpi-bin) is missing: run ci/install-deps.sh" >&2
  exit 77
fi
# --allow-run-as-root: the VM runs tests as root; --oversubscribe: 4 ranks on 2 vCPUs.
# A rank that dies makes mpirun end the job with an error (never a hang).
exec mpirun --allow-run-as-root --oversubscribe -n "$nprocs" "$@"
