# shellcheck shell=bash
# Shell helpers of the benchmark scripts (sourced): statistics over the numbers of one
# figure, given on standard input separated by spaces or newlines (anything that is
# not a number is ignored). No number: no output, and status 0 (so that a caller
# under `set -e -o pipefail` reaches its own check and message).

# median: the middle value (the mean of the two middle ones for an even count).
median() {
  tr ' ' '\n' | { grep -E '^[0-9.]+$' || true; } | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) exit; print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# best lat|bw: the lowest value for a latency, the highest for a bandwidth.
best() { tr ' ' '\n' | { grep -E '^[0-9.]+$' || true; } | sort -g | if [[ $1 == lat ]]; then head -n 1; else tail -n 1; fi; }
