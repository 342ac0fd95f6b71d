#!/usr/bin/env bash
# Installs every Debian package that twinfab's build, tests and benchmarks need.
# Idempotent: when everything is present it only runs dpkg-query, says so and returns.
# Usage: ci/install-deps.sh [--core-only]
#   --core-only   build + simulator tests only (skips rdma-core, PMIx, QEMU, kernel bits)
# It always prints one line saying what it checked and what it installed.
set -euo pipefail

core=(
  build-essential cmake ninja-build ccache pkg-config git
  libsimgrid-dev libboost-dev
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  pybind11-dev python3-dev python3-pytest python3-numpy python3-pandas
  python3-matplotlib python3-tqdm
  time  # /usr/bin/time: peak memory in bench/smpi_ring.sh
  valgrind  # bench/footprint.sh: what one simulated rank touches per iteration
  libblas-dev  # bench/real_programs.sh: HPL needs a BLAS (its sources come through apt-get source)
  slurmctld slurmd slurm-client munge  # python/twinfab/slurm.py; tests/python start a private one-node cluster
  clang  # tests/fuzz: the libFuzzer targets (skipped without it)
)
hardware=(
  # verbs backend, its tools and the process start-up on hardware
  rdma-core libibverbs-dev librdmacm-dev ibverbs-utils ibverbs-providers
  rdmacm-utils perftest libpmix-dev openmpi-bin libopenmpi-dev
  # the micro-VM harness (ci/vm): QEMU (TCG), a static busybox for the initramfs,
  # kernel headers + source for the out-of-tree siw module, iproute2/kmod inside the VM
  qemu-system-x86 busybox-static cpio kmod iproute2 linux-headers-amd64
  linux-source-6.1 bc flex bison libelf-dev xz-utils
)

pkgs=("${core[@]}")
scope="build, simulator and Python"
if [[ "${1:-}" != "--core-only" ]]; then
  pkgs+=("${hardware[@]}")
  scope="$scope, hardware and micro-VM"
fi

missing=()
for p in "${pkgs[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: checked ${#pkgs[@]} Debian packages ($scope): all installed, nothing to do"
  exit 0
fi

echo "install-deps: checked ${#pkgs[@]} Debian packages ($scope); installing the ${#missing[@]} missing: ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (or install sudo)" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: installed ${#missing[@]} package(s); all ${#pkgs[@]} present now"
