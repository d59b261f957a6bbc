#!/bin/bash
# run.sh - i15e, call 1: `winnow dedup --device gpu` with the GPU waits blocked (new; WINNOW_DEDUP_GPU_WAIT=spin:
# CUDA's spinning default) and with more workers than cores, against main 5da6e2c (base), alternating, on the
# inputs of bench/gpu_issue15.sh PART=dedup (5.4 GB of unique long documents, 2 M short ones); outputs against
# --device cpu; the GPU dedup unit tests. Bundle: scripts/gpu_issue15_bundle.sh DIR /tmp/i15e-base, then
# bin.tar.xz remade with the three tests (see dedup-gpu-pinned-2026-11-27.md).
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
exec > >(tee "$O/log.txt") 2>&1
W=/tmp/i15e; rm -rf $W; mkdir -p $W/bin $W/shared/tokref && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; uname -r
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
for input in long short; do
    [ $input = long ] && F=$L || F=short.jsonl
    echo "== $input: base -j16, new spin -j16, new -j16, -j20, -j24, -j32, alternating"
    for r in 1 2 3; do
        one "$input base -j16" $B/winnow-base dedup -q -j16 --device gpu $F -o /dev/null
        one "$input new spin -j16" env WINNOW_DEDUP_GPU_WAIT=spin $B/winnow dedup -q -j16 --device gpu $F -o /dev/null
        for j in 16 20 24 32; do one "$input new -j$j" $B/winnow dedup -q -j$j --device gpu $F -o /dev/null; done
    done
done
unset WINNOW_DEDUP_TIMES
echo "== outputs, gpu (-j24) against cpu (-j16), new"
cmp <($B/winnow dedup -q -j24 --device gpu $L -o -) <($B/winnow dedup -q -j16 --device cpu $L -o -) && echo "SAME long gpu cpu"
cmp <($B/winnow dedup -q -j24 --device gpu short.jsonl -o -) <($B/winnow dedup -q -j16 --device cpu short.jsonl -o -) && echo "SAME short gpu cpu"
echo "== GPU dedup unit tests"
mkdir -p shared && tar xf $D/jsonl.tar -C shared
for t in dedup_gpu dedup_gpu_text dedup_gpu_xxh3; do SHARED=$W/shared $B/$t > t.out 2>&1; rc=$?; grep -v "^ok" t.out | tail -4; echo "$t: $(grep -c '^ok' t.out) ok, exit $rc"; done
echo "== done $(date -u)"
