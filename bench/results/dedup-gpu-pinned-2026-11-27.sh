#!/bin/bash
# run.sh - i15e, call 2: `winnow dedup --device gpu` new (page-locked chunk tables and signatures, signatures
# straight to their places) against main 5da6e2c (base), alternating, 6 runs of each variant, on the inputs of
# bench/gpu_issue15.sh PART=dedup (5.4 GB of unique long documents, 2 M short ones): new as built, 2 MiB batches
# (WINNOW_DEDUP_BATCH_KIB=2048), batches signed on the CPU while 4 or 8 workers wait for the GPU
# (WINNOW_DEDUP_GPU_SPILL), that with 4 batches per worker (WINNOW_STAGE_DEPTH=4), -j15; half the GPU's work
# (--bands 7) as a probe of whether the GPU bounds the run; outputs against --device cpu; the GPU dedup unit
# tests. Bundle: scripts/gpu_issue15_bundle.sh DIR /tmp/i15e-base, bin.tar.xz remade with the three tests.
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
echo "== GPU dedup unit tests"
mkdir -p shared && tar xf $D/jsonl.tar -C shared
for t in dedup_gpu dedup_gpu_text dedup_gpu_xxh3; do SHARED=$W/shared $B/$t > t.out 2>&1; rc=$?; grep -v "^ok" t.out | tail -4; echo "$t: $(grep -c '^ok' t.out) ok, exit $rc"; done
echo "== outputs of new, gpu variants against cpu (-j16)"
$B/winnow dedup -q -j16 --device cpu $L -o L.cpu; $B/winnow dedup -q -j16 --device cpu short.jsonl -o S.cpu
ls -l L.cpu S.cpu | awk '{print $5, $9}'
for v in "" WINNOW_DEDUP_GPU_SPILL=4 WINNOW_DEDUP_BATCH_KIB=2048; do
    cmp L.cpu <(env $v $B/winnow dedup -q -j16 --device gpu $L -o -) && echo "SAME long gpu ${v:-default} cpu"
    cmp S.cpu <(env $v $B/winnow dedup -q -j16 --device gpu short.jsonl -o -) && echo "SAME short gpu ${v:-default} cpu"
done
rm -f L.cpu S.cpu
cat $L short.jsonl > /dev/null
export WINNOW_DEDUP_TIMES=1
one() { # NAME PROGRAM ARGS...: one timed run, its wall/user/sys and its times lines
    local name=$1; shift
    t=$( { time "$@" 2> err; } 2>&1 | tail -1); echo "$name: $t"; grep -h "times" err
}
echo "== long, alternating: base, new, new 2 MiB, spill 4, spill 8, spill 4 depth 4, new -j15"
for r in 1 2 3 4 5 6; do
    one "long base" $B/winnow-base dedup -q -j16 --device gpu $L -o /dev/null
    one "long new" $B/winnow dedup -q -j16 --device gpu $L -o /dev/null
    one "long new 2MiB" env WINNOW_DEDUP_BATCH_KIB=2048 $B/winnow dedup -q -j16 --device gpu $L -o /dev/null
    one "long new spill4" env WINNOW_DEDUP_GPU_SPILL=4 $B/winnow dedup -q -j16 --device gpu $L -o /dev/null
    one "long new spill8" env WINNOW_DEDUP_GPU_SPILL=8 $B/winnow dedup -q -j16 --device gpu $L -o /dev/null
    one "long new spill4 depth4" env WINNOW_DEDUP_GPU_SPILL=4 WINNOW_STAGE_DEPTH=4 $B/winnow dedup -q -j16 --device gpu $L -o /dev/null
    one "long new -j15" $B/winnow dedup -q -j15 --device gpu $L -o /dev/null
done
echo "== short, alternating: base, new, new 2 MiB, spill 4, new -j15"
for r in 1 2 3 4 5 6; do
    one "short base" $B/winnow-base dedup -q -j16 --device gpu short.jsonl -o /dev/null
    one "short new" $B/winnow dedup -q -j16 --device gpu short.jsonl -o /dev/null
    one "short new 2MiB" env WINNOW_DEDUP_BATCH_KIB=2048 $B/winnow dedup -q -j16 --device gpu short.jsonl -o /dev/null
    one "short new spill4" env WINNOW_DEDUP_GPU_SPILL=4 $B/winnow dedup -q -j16 --device gpu short.jsonl -o /dev/null
    one "short new -j15" $B/winnow dedup -q -j15 --device gpu short.jsonl -o /dev/null
done
echo "== probe: half the GPU's work (--bands 7, K = 56), long, new"
for r in 1 2; do one "long new bands7" $B/winnow dedup -q -j16 --device gpu --bands 7 $L -o /dev/null; done
echo "== done $(date -u)"
