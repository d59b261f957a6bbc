#!/bin/bash
# run.sh - the lead's final dedup measurements of issue 15 (2026-11-27, second session):
# bench/gpu_issue15.sh PART=dedup (main against 4244e3d, the session's start), then main against
# 42b79bb (before i15d7's normaliser) on the same inputs, alternating, and the GPU dedup unit tests.
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}
grep -o -w 'avx512_vbmi2\|avx512bw' /proc/cpuinfo | sort | uniq -c
PART=dedup RUNS=2 bash $D/gpu_issue15.sh
W=/tmp/i15-dedup; B=$W/bin
cp $D/winnow-42b79bb $D/dedup_gpu $D/dedup_gpu_text $D/dedup_gpu_xxh3 $B/
exec >> "$O/log-dedup.txt" 2>&1
cd $W; TIMEFORMAT='%R %U %S'; export WINNOW_DEDUP_TIMES=1
L=$(ls long/*.jsonl)
echo "== main against 42b79bb (before i15d7), alternating"
for r in 1 2 3; do
    for b in winnow winnow-42b79bb; do
        t=$( { time $B/$b dedup -q -j16 --device gpu $L -o /dev/null 2> err; } 2>&1 | tail -1); echo "long $b: $t"; grep -h "times" err | head -2
        t=$( { time $B/$b dedup -q -j16 --device gpu short.jsonl -o /dev/null 2> err; } 2>&1 | tail -1); echo "short $b: $t"; grep -h "times" err | head -2
    done
done
unset WINNOW_DEDUP_TIMES
echo "== GPU dedup unit tests"
mkdir -p shared && tar xf $D/jsonl.tar -C shared
for t in dedup_gpu dedup_gpu_text dedup_gpu_xxh3; do SHARED=$W/shared $B/$t 2>&1 | grep -v "^ok" | tail -5; echo "$t: $(SHARED=$W/shared $B/$t 2>&1 | grep -c '^ok') ok, exit $?"; done
echo "== done $(date -u)"
