#!/usr/bin/env bash
# compare.sh runs the comparative benchmarks of stacktrie and go-ethereum
# and prints benchstat's table with geth as the base column, so that the
# stacktrie column shows the change in time and allocations.
#
# Usage: compare.sh [count]    (default 6 rounds of each benchmark)
# Environment: BENCH selects benchmarks (a go test -bench pattern, default .),
#              OUT keeps the raw results at that path (default a temporary file).
set -euo pipefail

count="${1:-${COUNT:-6}}"
bench="${BENCH:-.}"
cd "$(dirname "$0")"

out="${OUT:-}"
if [[ -z "$out" ]]; then
	out="$(mktemp -t stacktrie-compare.XXXXXX)"
	trap 'rm -f "$out"' EXIT
fi

# Each comparison runs its sides round after round, count rounds, in one
# process (STACKTRIE_ROUNDS, see runImpls), rather than -count, which times
# each side count times in a row. go test names a sub-benchmark run again
# with a suffix, #01 and on, dropped here so that benchstat pools the rounds.
STACKTRIE_ROUNDS="$count" go test -run '^$' -bench "$bench" -count 1 -timeout 60m . |
	sed -E '/^Benchmark/s/#[0-9]+//' | tee "$out"
echo
go tool benchstat -col '/impl@(geth stacktrie parallel apart hashall)' "$out"
