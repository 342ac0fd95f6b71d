#!/bin/sh
# An MPI job on an iWARP device while other sockets hold a quarter of the ports rdma_cm
# may choose: `run_with_held_ports.sh NPROCS PROGRAM [ARGS...]` (as root, in the
# micro-VM with siw).
#
# rdma_cm picks a listener's port in its own port space, but an iWARP device listens
# on that port in the host's TCP stack; when a TCP socket already holds it, rdma_listen
# fails with EADDRINUSE (seen in CI: "MPI_Init: rdma_listen: Address already in use").
# The verbs backend then tries another port (verbs_cm_connection.cpp). Here the local
# port range is narrowed to 64 ports and 16 of them are held by listening TCP sockets,
# so each rank's listener lands on a held port with probability 1/4: without the retry
# a 4-process job fails ~2 times in 3. The range is restored on exit.
#
# A skip (77) on hosts without an iWARP device (rxe listens in no TCP port space) or
# without the rights to change the port range.
set -u
# The ranks share the VM's host: the device's connections are what this tests.
export TWINFAB_SHM=0
nprocs=$1; shift
here=$(dirname "$0")
iwarp=""
for d in /sys/class/infiniband/*; do
  [ -r "$d/node_type" ] || continue
  case "$(cat "$d/node_type")" in *RNIC*) iwarp=$(basename "$d") ;; esac
done
if [ -z "$iwarp" ]; then
  echo "no iWARP device here (/sys/class/infiniband/*/node_type has no RNIC): rdma_cm ports collide with TCP only on iWARP; run in the micro-VM with --device siw" >&2
  exit 77
fi
range=/proc/sys/net/ipv4/ip_local_port_range
if [ ! -w "$range" ]; then
  echo "cannot change $range (needs root, as in the micro-VM)" >&2
  exit 77
fi
low=61000
high=61063
held=16
saved=$(cat "$range")
ready=$(mktemp)
# One process holds the ports: every 4th of the range, listening, until killed.
/usr/bin/python3 -c '
import socket, sys, time
socks = []
for port in range(int(sys.argv[1]), int(sys.argv[2]) + 1, 4):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("0.0.0.0", port))
    s.listen(1)
    socks.append(s)
open(sys.argv[3], "w").write(str(len(socks)))
time.sleep(3600)
' "$low" "$high" "$ready" &
holder=$!
restore() {
  kill "$holder" 2>/dev/null
  echo "$saved" > "$range"
  rm -f "$ready"
}
trap restore EXIT
trap 'exit 1' INT TERM
for _ in $(seq 100); do
  [ -s "$ready" ] && break
  sleep 0.1
done
if [ "$(cat "$ready")" != "$held" ]; then
  echo "could not hold $held ports in $low-$high (another socket has some of them?)" >&2
  exit 1
fi
echo "$low $high" > "$range"
echo "$iwarp: ports $low-$high, $held of them held by TCP listeners"
sh "$here/run_on_hardware.sh" "$nprocs" "$@"
