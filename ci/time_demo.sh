#!/usr/bin/env bash
# Times a fresh `make demo` as a new user meets it: a clean build directory, ccache off
# (CCACHE_DISABLE=1; --ccache keeps it), dependencies already installed. Prints the
# demo's output as it comes, then the seconds to its first table (the first
# `# twinfab perf` header) and to its end, with the machine's cores and load.
# Usage: ci/time_demo.sh [--ccache] [BUILD_DIR]   (default build-demo; it is removed first)
set -euo pipefail
cd "$(dirname "$0")/.."
ccache_off=1
if [[ "${1:-}" == "--ccache" ]]; then ccache_off=0; shift; fi
build=${1:-build-demo}
case "$build" in ""|/|.|..) echo "time_demo: refusing to remove '$build'" >&2; exit 2 ;; esac
rm -rf -- "$build"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
first=""
status=0
if ((ccache_off)); then export CCACHE_DISABLE=1; fi
# The demo's output, line by line, with the moment the first table begins.
while IFS= read -r line; do
  if [[ "$line" == "time_demo-exit "* ]]; then status=${line#time_demo-exit }; continue; fi
  printf '%s\n' "$line"
  if [[ -z "$first" && "$line" == "# twinfab perf "* ]]; then first=$(date +%s.%N); fi
done < <(make demo BUILD="$build" 2>&1; echo "time_demo-exit $?")
end=$(date +%s.%N)
printf '\n# time_demo: fresh `make demo BUILD=%s` on %s core(s), ccache %s, load average before %s, after %s\n' \
  "$build" "$(nproc)" "$( ((ccache_off)) && echo off || echo on)" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -n "$first" ]]; then
  printf '# time_demo: first table after %.0f s\n' "$(awk "BEGIN{print $first - $start}")"
else
  printf '# time_demo: no table was printed\n'
  ((status != 0)) || status=1
fi
printf '# time_demo: demo %s after %.0f s\n' "$( ((status == 0)) && echo finished || echo "FAILED (status $status)")" \
  "$(awk "BEGIN{print $end - $start}")"
exit $status
