#!/usr/bin/env bash
# compare.sh runs BenchmarkVerifyState COUNT times (default 6), one process
# each so that go-ethereum's and trieroot's runs alternate, on one database
# of the path scheme that go-ethereum writes first (200k accounts and 2M
# slots unless ACCOUNTS and SLOTS say otherwise), and prints benchstat's
# table with go-ethereum as the base column.
#
# Usage: compare.sh [count]
# Environment: ACCOUNTS, SLOTS: the database's size;
#              STACKTRIE_GETHDB_CACHE: a folder that keeps the database for
#              later runs (default: a temporary one, removed at the end);
#              OUT: keep the raw results at that path.
set -euo pipefail

count="${1:-${COUNT:-6}}"
cd "$(dirname "$0")"
tmp="$(mktemp -d -t gethdb-compare.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
cache="${STACKTRIE_GETHDB_CACHE:-$tmp/db}"
out="${OUT:-$tmp/bench.out}"
: > "$out"

go test -c -o "$tmp/bench.test" .
for _ in $(seq "$count"); do
	"$tmp/bench.test" -test.run '^$' -test.bench VerifyState -test.benchtime 1x -test.timeout 60m \
		-dbcache "$cache" ${ACCOUNTS:+-accounts "$ACCOUNTS"} ${SLOTS:+-slots "$SLOTS"} | tee -a "$out"
done
echo
cd ../../.. # compat, whose go.mod has benchstat as a tool
go tool benchstat -col '/impl@(geth trieroot trieroot-1)' "$out"
