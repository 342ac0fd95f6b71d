# Shell helpers of the scripts that run one C program under both twinfab sim and
# SimGrid's SMPI (sourced by bench/smpi_compare.sh and bench/smpi_ring.sh).

# wall COMMAND...: the seconds of wall clock COMMAND took, its output to $work/out
# (the caller's `work`); the caller exits, printing that output, if it fails.
wall() {
  local t0 t1
  t0=$(date +%s.%N)
  "$@" > "$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}

# smpi_prepare NAME BUILD WORK SOURCE HOSTS: checks for smpicc/smpirun and a built
# twinfab, builds SOURCE with twinfab-mpicc into WORK/prog.twinfab and with smpicc into
# WORK/prog.smpi, and writes WORK/platform.xml (a flat SMPI cluster of HOSTS nodes with
# 2 GB/s, 1.5 us links: the link figures of twinfab's presets) and WORK/hosts. Sets
# `twinfab` to the twinfab tool. NAME prefixes error messages.
smpi_prepare() {
  local name=$1 build=$2 work=$3 source=$4 hosts=$5 tool
  for tool in smpicc smpirun; do
    command -v $tool >/dev/null || { echo "$name: $tool not found (libsimgrid-dev; run ci/install-deps.sh)" >&2; exit 1; }
  done
  twinfab=$build/tools/twinfab/twinfab
  local mpicc=$build/bin/twinfab-mpicc
  [[ -x $twinfab && -x $mpicc ]] || { echo "$name: build twinfab first (make build)" >&2; exit 1; }
  "$mpicc" -O2 -o "$work/prog.twinfab" "$source"
  smpicc -O2 -o "$work/prog.smpi" "$source" 2>/dev/null
  cat > "$work/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-$((hosts - 1))" speed="1Gf" bw="2GBps" lat="1.5us"/>
</platform>
XML
  seq 0 $((hosts - 1)) | sed 's/^/node-/' > "$work/hosts"
}
