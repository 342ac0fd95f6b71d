#!/usr/bin/env bash
# Unmodified MPI programs from elsewhere, under `twinfab sim`: NetPIPE 3.7.2 (NPmpi, a
# ping-pong over message sizes, timed with gettimeofday) and the HPC Challenge suite
# 1.5.0 (HPL, DGEMM, STREAM, PTRANS, RandomAccess, FFT and the b_eff latency and
# bandwidth tests, with its own correctness checks). Their sources come from Debian's
# archive (the upstream tarballs Debian ships, checked against the sha256 sums of
# bookworm's Sources index); they are built with the build tree's twinfab-mpicc
# without a change and run as simulated ranks. Prints NetPIPE's last lines and HPCC's
# summary figures and check verdicts.
#
# By default computation takes no simulated time (docs/mpi.md, "Computation"), so only
# the communication figures mean something: HPL's and DGEMM's flop rates and STREAM's
# bandwidth are not the platform's. HPCC then runs again with --simulate-computation,
# where they are this machine's rates (its CPU time, spent as simulated time), printed
# next to the first run's.
#
#   bench/real_programs.sh [BUILD_DIR=build] [PLATFORM=connectx-ddr]
# Needs the network (the Debian archive this machine's apt uses) and libblas-dev (HPL);
# ~3 minutes.
set -euo pipefail
# shellcheck source=lib/debian_source.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/debian_source.sh"
build=$(cd "${1:-build}" && pwd)
platform=${2:-connectx-ddr}
mpicc="$build/bin/twinfab-mpicc"
twinfab="$build/tools/twinfab/twinfab"
for f in "$mpicc" "$twinfab"; do
  [[ -x "$f" ]] || { echo "real_programs: $f not found: build first (make build)" >&2; exit 1; }
done
[[ -e /usr/lib/x86_64-linux-gnu/libblas.so || -e /usr/lib/libblas.so ]] ||
  { echo "real_programs: HPL needs a BLAS: apt-get install libblas-dev (ci/install-deps.sh)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-real.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

fetch() {  # fetch PACKAGE FILE SHA256: the upstream tarball, checked, unpacked here
  debian_orig_tarball "$1" "$2" "$3" || { echo "real_programs: cannot get $2" >&2; exit 1; }
  tar xzf "$2"
}
fetch netpipe netpipe_3.7.2.orig.tar.gz 13dac884ff52951636f651c421f5ff4a853218a95aa28a4a852402ee385a2ab8
fetch hpcc hpcc_1.5.0.orig.tar.gz 0a6fef7ab9f3347e549fed65ebb98234feea9ee18aea0c8f59baefbe3cf7ffb8

echo "== NetPIPE 3.7.2 (NPmpi), 2 ranks on $platform, up to 4 MiB"
(cd NetPIPE-3.7.2 && "$mpicc" -O2 -DMPI -Isrc src/netpipe.c src/mpi.c -o NPmpi -lm)
"$twinfab" sim -n 2 --platform "$platform" NetPIPE-3.7.2/NPmpi -u 4194304 > netpipe.log 2>&1 ||
  { tail -20 netpipe.log >&2; echo "real_programs: NetPIPE failed" >&2; exit 1; }
grep -E "^ *(0|1|2|3|40|60|80|100|116): +[0-9]+ bytes" netpipe.log
echo "   (NetPIPE's Mbps are 2^20 bits per second)"

echo "== HPC Challenge 1.5.0, 4 ranks (2 x 2 grid, N = 1000) on $platform"
sed -e 's|^ARCH .*|ARCH = twinfab|' -e 's|^TOPdir .*|TOPdir = ../../..|' \
    -e 's|^MPdir .*|MPdir =|' -e 's|^MPinc .*|MPinc =|' -e 's|^MPlib .*|MPlib =|' \
    -e 's|^LAdir .*|LAdir =|' -e 's|^LAinc .*|LAinc =|' -e 's|^LAlib .*|LAlib = -lblas|' \
    -e "s|^CC .*|CC = $mpicc|" -e "s|^LINKER .*|LINKER = $mpicc|" \
    -e 's|^CCFLAGS .*|CCFLAGS = $(HPL_DEFS) -O2|' \
    hpcc-1.5.0/hpl/setup/Make.Linux_PII_FBLAS > hpcc-1.5.0/hpl/Make.twinfab
make -C hpcc-1.5.0 arch=twinfab -j2 > hpcc-build.log 2>&1 ||
  { grep -E "error|undefined" hpcc-build.log | head -20 >&2; echo "real_programs: HPCC did not build" >&2; exit 1; }
mkdir run && cp hpcc-1.5.0/_hpccinf.txt run/hpccinf.txt
(cd run && "$twinfab" sim -n 4 --platform "$platform" ../hpcc-1.5.0/hpcc > ../hpcc.log 2>&1) ||
  { tail -20 hpcc.log >&2; echo "real_programs: HPCC failed" >&2; exit 1; }
grep -qE "^End of HPC Challenge tests" run/hpccoutf.txt || { echo "real_programs: HPCC did not finish" >&2; exit 1; }
grep -E "^(MinPingPongLatency_usec|MaxPingPongLatency_usec|AvgPingPongBandwidth_GBytes|RandomlyOrderedRingLatency_usec|NaturallyOrderedRingBandwidth_GBytes|PTRANS_GBs|MPIRandomAccess_GUPs|MPIFFT_Gflops)=" run/hpccoutf.txt |
  sed 's/^/   /'
failed=$(grep -cE "FAILED" run/hpccoutf.txt || true)
passed=$(grep -cE "PASSED|\(passed\)" run/hpccoutf.txt || true)
echo "   checks: $passed passed, $failed failed (HPL residuals, PTRANS, RandomAccess)"
[[ "$failed" == 0 ]]

echo "== HPC Challenge again with --simulate-computation (this machine's CPU time as simulated time)"
mkdir run-computed && cp run/hpccinf.txt run-computed/
(cd run-computed && "$twinfab" sim -n 4 --platform "$platform" --simulate-computation ../hpcc-1.5.0/hpcc \
   > ../hpcc-computed.log 2>&1) ||
  { tail -20 hpcc-computed.log >&2; echo "real_programs: HPCC with --simulate-computation failed" >&2; exit 1; }
grep -qE "^End of HPC Challenge tests" run-computed/hpccoutf.txt ||
  { echo "real_programs: HPCC with --simulate-computation did not finish" >&2; exit 1; }
printf '   %-28s %16s %16s\n' "" "computation: 0" "measured"
for key in HPL_Tflops StarDGEMM_Gflops SingleDGEMM_Gflops StarSTREAM_Triad SingleSTREAM_Triad StarFFT_Gflops \
           MinPingPongLatency_usec; do
  plain=$(sed -n "s/^$key=//p" run/hpccoutf.txt)
  computed=$(sed -n "s/^$key=//p" run-computed/hpccoutf.txt)
  printf '   %-28s %16s %16s\n' "$key" "${plain:-?}" "${computed:-?}"
done
failed=$(grep -cE "FAILED" run-computed/hpccoutf.txt || true)
echo "   checks with --simulate-computation: $failed failed"
[[ "$failed" == 0 ]]
