#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds hello.c with the
# installed twinfab-mpicc, with pkg-config and with find_package(twinfab), and runs
# each under the installed `twinfab sim -n 3`; then runs one with the installed Python
# package.
#   install_check.sh <build-dir> <source-dir-of-this-script>
set -euo pipefail
build=$1
here=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/twinfab-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libtwinfab-mpi.so.0' | head -1)")

run() {
  local prog=$1
  local out
  out=$("$prefix/bin/twinfab" sim -n 3 "$prog")
  echo "$out"
  grep -q "hello from 3 ranks, sum 3" <<<"$out"
}

echo "== twinfab-mpicc -show"
"$prefix/bin/twinfab-mpicc" -show -o x x.c
"$prefix/bin/twinfab-mpicc" -show -o x x.c | grep -q -- "-I$prefix/include/twinfab-mpi"
echo "== twinfab-mpicc"
"$prefix/bin/twinfab-mpicc" -O2 -c -o "$tmp/hello.o" "$here/hello.c"
"$prefix/bin/twinfab-mpicc" -o "$tmp/hello_wrapper" "$tmp/hello.o"
run "$tmp/hello_wrapper"
echo "== twinfab-mpicxx (the same program as C++)"
cp "$here/hello.c" "$tmp/hello.cpp"
"$prefix/bin/twinfab-mpicxx" -o "$tmp/hello_cxx" "$tmp/hello.cpp"
run "$tmp/hello_cxx"
echo "== pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc $(pkg-config --cflags twinfab-mpi) -o "$tmp/hello_pc" "$here/hello.c" $(pkg-config --libs twinfab-mpi)
run "$tmp/hello_pc"
echo "== find_package(twinfab)"
cmake -S "$here/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/consumer" >/dev/null
run "$tmp/consumer/hello_cmake"
core=$(find "$prefix" -name '_core*.so' | head -1)
if [[ -n "$core" ]]; then
  echo "== the Python package (installed beside the library, found relative to itself)"
  site=$(dirname "$(dirname "$core")")
  (cd "$tmp" && PYTHONPATH=$site /usr/bin/python3 - "$tmp/hello_wrapper" "$prefix" <<'PY'
import os, sys
import twinfab
from twinfab import _paths
prog, prefix = sys.argv[1], sys.argv[2]
assert not _paths.IN_BUILD_TREE and _paths.TWINFAB == os.path.join(prefix, "bin", "twinfab"), _paths.TWINFAB
assert os.path.isdir(os.path.join(_paths.SCENARIOS, "drop-rate")), _paths.SCENARIOS
r = twinfab.run(prog, 3, platform="connectx-ddr")
assert r.ok and "hello from 3 ranks, sum 3" in r.stdout, (r.error, r.stdout)
print(f"twinfab {twinfab.version} ({twinfab.revision}) from {os.path.dirname(twinfab.__file__)}: {r.stdout.strip()}")
PY
  )
fi
echo "install check passed"
