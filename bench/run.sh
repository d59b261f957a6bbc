#!/bin/sh
# run.sh - runs bench/NAME.sh for each named bench (all when none is named).
# Each prints a markdown table and writes bench/results/NAME-DATE.md.
set -eu
cd "$(dirname "$0")/.."
export BENCH_DATE=$(date -u +%Y-%m-%d)
export BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/winnow-bench.XXXXXX)}
names=${*:-$(ls bench/*.sh | sed 's|bench/||; s|\.sh$||' | grep -v '^run$' | grep -v '^lib$')}
for n in $names; do
    echo "== bench $n"
    sh "bench/$n.sh" | tee "bench/results/$n-$BENCH_DATE.md"
done
rm -rf "$BENCH_TMP"
