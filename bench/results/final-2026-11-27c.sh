#!/bin/bash
# run.sh - the lead's final measurements of issue 15 (2026-11-27, second session):
# bench/gpu_issue15.sh PART=tokenize (main against 4244e3d, the session's start), then the
# batches-in-flight check: main against d242c17 (before i15t3), 8.5 GB to bin, alternating.
D=$(cd "$(dirname "$0")" && pwd)
PART=${PART:-tokenize}
PART=$PART RUNS=${RUNS:-2} bash $D/gpu_issue15.sh
if [ "$PART" = tokenize ]; then
    W=/tmp/i15-tokenize; cp $D/winnow-d242c17 $W/bin/
    exec >> "${OUT:-/tmp/out}/log-$PART.txt" 2>&1
    echo "== in flight across blocks: main against d242c17, 8.5 GB to bin on stdout"
    cd $W; TIMEFORMAT='%R %U %S'; export WINNOW_TOKENIZE_TIMES=1
    for r in 1 2 3; do
        for b in winnow winnow-d242c17; do
            t=$( { time $W/bin/$b tokenize -q --encoding cl100k_base --vocab $D/cl100k_base.tiktoken --device gpu --format bin -o - in8g.jsonl > /dev/null 2> err; } 2>&1 | tail -1)
            echo "$b: $t"; grep -h "times\|library" err | head -3
        done
    done
    echo "== done $(date -u)"
fi
