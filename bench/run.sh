#!/bin/sh
# run.sh - runs bench/NAME.sh for each named bench (when none is named, every
# dev-machine bench: the gpu_* and dedup_gpu_* scripts run on the GPU machine
# from a bundle, see docs/gpu_tokenize.md). Each prints a markdown table and
# writes bench/results/NAME-DATE.md, or NAME-DATE-HHMMSS.md when that file
# already holds the day's recorded results (they are never overwritten).
set -eu
cd "$(dirname "$0")/.."
export BENCH_DATE=$(date -u +%Y-%m-%d)
export BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/winnow-bench.XXXXXX)}
names=${*:-$(ls bench/*.sh | sed 's|bench/||; s|\.sh$||' | grep -v -E '^(run|lib|gpu_.*|dedup_gpu_.*)$')}
for n in $names; do
    echo "== bench $n"
    out="bench/results/$n-$BENCH_DATE.md"
    [ -e "$out" ] && out="bench/results/$n-$BENCH_DATE-$(date -u +%H%M%S).md"
    sh "bench/$n.sh" | tee "$out"
done
rm -rf "$BENCH_TMP"
