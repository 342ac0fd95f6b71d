# shellcheck shell=bash
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

# smpi_prepare NAME BUILD WORK SOURCE PRESET: checks for smpicc/smpirun and a built
# twinfab, builds SOURCE with twinfab-mpicc into WORK/prog.twinfab and with smpicc into
# WORK/prog.smpi, and writes WORK/platform.xml and WORK/hosts: the SMPI cluster
# equivalent to twinfab's platform preset PRESET (scenarios/platforms/PRESET.toml),
# made by bench/lib/smpi_platform.py from the preset's link bandwidth and latency,
# switch latency, topology and PCIe bandwidth (see there for what SMPI cannot be
# given). Prints the platform's description. Sets `twinfab` to the twinfab tool. NAME
# prefixes error messages.
smpi_prepare() {
  local name=$1 build=$2 work=$3 source=$4 platform_preset=$5 tool
  local lib
  lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  for tool in smpicc smpirun; do
    command -v $tool >/dev/null || { echo "$name: $tool not found (libsimgrid-dev; run ci/install-deps.sh)" >&2; exit 1; }
  done
  twinfab=$build/tools/twinfab/twinfab
  local mpicc=$build/bin/twinfab-mpicc
  [[ -x $twinfab && -x $mpicc ]] || { echo "$name: build twinfab first (make build)" >&2; exit 1; }
  local toml=$lib/../../scenarios/platforms/$platform_preset.toml
  [[ -f $toml ]] || { echo "$name: no preset $platform_preset ($toml)" >&2; exit 1; }
  "$mpicc" -O2 -o "$work/prog.twinfab" "$source"
  smpicc -O2 -o "$work/prog.smpi" "$source" 2>/dev/null
  /usr/bin/python3 "$lib/smpi_platform.py" "$toml" "$work/platform.xml" "$work/hosts"
}
