#!/bin/bash
# run.sh - i15d8: where dedup --device gpu's workers spend the time outside map (the engine's
# stage_times, second WINNOW_DEDUP_TIMES line), new against main a123b0e (base) alternating, the
# engine's pool depth (WINNOW_STAGE_DEPTH) and -j15, and the GPU output against --device cpu.
# Bundle: sh scripts/gpu_issue15_bundle.sh /work/main/dist-gpu-i15d8 /tmp/winnow-main-a123b0e
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
exec > >(tee "$O/log.txt") 2>&1
W=/tmp/i15d8; rm -rf $W; mkdir -p $W/bin $W/shared/tokref && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
cp $D/en_code.txt.zst $D/en_code.idx.tsv shared/tokref/
time env SHARED=$W/shared python3 $D/dedup_unique_inputs.py long long 52
time env SHARED=$W/shared python3 $D/dedup_unique_inputs.py short short.jsonl 2000000
L=$(ls long/*.jsonl)
echo "long bytes: $(cat $L | wc -c); short bytes: $(wc -c < short.jsonl)"
cat $L short.jsonl > /dev/null
export WINNOW_DEDUP_TIMES=1
one() { # NAME PROGRAM ARGS...: one timed run, its wall/user/sys and its times lines
    local name=$1; shift
    t=$( { time "$@" 2> err; } 2>&1 | tail -1); echo "$name: $t"; grep -h "times" err
}
echo "== new against base (a123b0e), alternating"
for r in 1 2 3 4; do
    one "long new" $B/winnow dedup -q -j16 --device gpu $L -o /dev/null
    one "long base" $B/winnow-base dedup -q -j16 --device gpu $L -o /dev/null
    one "short new" $B/winnow dedup -q -j16 --device gpu short.jsonl -o /dev/null
    one "short base" $B/winnow-base dedup -q -j16 --device gpu short.jsonl -o /dev/null
done
echo "== the engine's depth (batches per worker, default 2) and -j15, long, new"
for r in 1 2; do
    for d in 4 8; do one "long new depth $d" env WINNOW_STAGE_DEPTH=$d $B/winnow dedup -q -j16 --device gpu $L -o /dev/null; done
    one "long new -j15" $B/winnow dedup -q -j15 --device gpu $L -o /dev/null
done
unset WINNOW_DEDUP_TIMES
echo "== outputs, gpu against cpu (new)"
cmp <($B/winnow dedup -q -j16 --device gpu $L -o -) <($B/winnow dedup -q -j16 --device cpu $L -o -) && echo "SAME long gpu cpu"
cmp <($B/winnow dedup -q -j16 --device gpu short.jsonl -o -) <($B/winnow dedup -q -j16 --device cpu short.jsonl -o -) && echo "SAME short gpu cpu"
echo "== done $(date -u)"
