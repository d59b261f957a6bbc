#!/bin/bash
# run.sh - the lead's final dedup and `winnow run` measurements of issue 15 (2026-11-27, third
# session): bench/gpu_issue15.sh PART=dedup RUNS=3 (main 9f5ba36 against 5da6e2c, the session's
# start, alternating; GPU dedup rows at the default workers since i15e), then `winnow run` on the
# 20 long files, main against 5da6e2c alternating (i15p), and their shards compared.
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}
PART=dedup RUNS=3 bash $D/gpu_issue15.sh
W=/tmp/i15-dedup; B=$W/bin
exec >> "$O/log-dedup.txt" 2>&1
cd $W; TIMEFORMAT='%R %U %S'
echo "== winnow run, main against 5da6e2c, alternating (input bytes $(cat long20/*.jsonl | wc -c))"
for r in 1 2 3; do
    for b in winnow winnow-base; do
        rm -rf work shards-run; t=$( { time $B/$b run -q -j16 p.ini > /dev/null 2> err; } 2>&1 | tail -1); echo "run $b: $t"; head -2 err
        rm -rf shards-$b; mv shards-run shards-$b
    done
done
if diff -rq shards-winnow shards-winnow-base > /dev/null; then echo "SAME shards of run, new and base"; else echo "DIFFERENT shards of run"; fi
echo "== done $(date -u)"
