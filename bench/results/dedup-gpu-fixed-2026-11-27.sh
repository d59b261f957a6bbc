#!/bin/bash
# dedup_gpu_fixed.sh - the GPU's fixed costs in `winnow dedup --device gpu`
# (issue 15's dedup point), new build against an earlier one (winnow-base),
# alternating, on the GPU machine: the GPU check overlapped with the first
# batches and the process's end without the CUDA runtime's teardown (new also
# with WINNOW_GPU_EXIT=teardown, the runtime's own exit, to compare). Runs:
# one document (the fixed cost: gpu new/base/teardown, cpu), 2 M unique short
# documents and 5.4 GB of unique long ones (made on the machine by
# dedup_unique_inputs.py, as bench/gpu_issue15.sh PART=dedup does), -j16,
# --device gpu, 3 runs each; cpu once each; an unusable GPU
# (CUDA_VISIBLE_DEVICES=) on the 5.4 GB: exit 1, nothing on stdout, no -o
# file; outputs, rejects and stats of gpu and cpu compared on the long and
# short inputs and on a near-duplicate input; before that the GPU unit tests
# (dedup_gpu, dedup_gpu_text, dedup_gpu_xxh3) and tests/e2e/dedup_cli.sh.
# Files in the page cache; wall / user / sys seconds; WINNOW_DEDUP_TIMES
# lines from the new build (the report's "process started" age against the
# wall time is the process's exit).
#   bundle: scripts/gpu_issue15_bundle.sh DIR BASE, the test binaries added
#   to its bin.tar.xz (scripts/gpu_bundle_lib.sh bundle_programs), jsonl.tar
#   (../shared/data/jsonl), tests/lib.sh, tests/e2e/dedup_cli.sh and this
#   script;  usage: bash DIR/dedup_gpu_fixed.sh   (RUNS=3)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
RUNS=${RUNS:-3}; COPIES=${COPIES:-52}; SHORT=${SHORT:-2000000}
W=/tmp/dd-fixed; rm -rf $W; mkdir -p $W/bin $W/shared/tokref $W/tests/e2e && cd $W
exec > >(tee "$O/log.txt") 2>&1
untar() { python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$1" "$2"; }
untar $D/bin.tar.xz $W/bin; tar xf $D/jsonl.tar -C $W/shared
cp $D/en_code.txt.zst $D/en_code.idx.tsv $W/shared/tokref/
cp $D/lib.sh $W/tests/; cp $D/dedup_cli.sh $W/tests/e2e/
B=$W/bin; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

timed() { local tag=$1 t; shift; t=$( { time "$@" > /dev/null 2> $W/err; } 2>&1 | tail -1); echo "$tag: $t"; grep -h "times" $W/err | head -2; grep -v "times" $W/err | head -3; }
same() { if cmp -s "$1" "$2"; then echo "SAME $1 $2 ($(wc -l < "$1") lines)"; else echo "DIFFERENT $1 $2"; fi; }
dd() { $B/winnow dedup -q -j16 "$@"; }
base() { $B/winnow-base dedup -q -j16 "$@"; }
teardown() { WINNOW_GPU_EXIT=teardown $B/winnow dedup -q -j16 "$@"; }

echo "== GPU unit tests"
for t in dedup_gpu dedup_gpu_text dedup_gpu_xxh3; do
    SHARED=$W/shared timeout 90 $W/bin/$t > t.out 2>&1; echo "$t: exit $? ($(grep -c '^ok' t.out) ok, $(grep -c '^not ok' t.out) not ok)"; grep -E "^not ok|^# " t.out | head -8
done
echo "== tests/e2e/dedup_cli.sh with the new build"
WINNOW=$B/winnow SHARED=$W/shared timeout 60 sh tests/e2e/dedup_cli.sh > t.out 2>&1; echo "dedup_cli.sh: exit $? ($(grep -c '^ok' t.out) ok, $(grep -c '^not ok' t.out) not ok)"; grep -E "^not ok|SKIP" t.out | head -8

timed "make long inputs ($COPIES files)" env SHARED=$W/shared python3 $D/dedup_unique_inputs.py long long $COPIES
timed "make short inputs" env SHARED=$W/shared python3 $D/dedup_unique_inputs.py short short.jsonl $SHORT
L=$(ls long/*.jsonl)
sed 's/ qaa/ qzz/3' long/part-000.jsonl | sed 's/"id":"\([^"]*\)"/"id":"near-\1"/' > near-copy.jsonl
echo "long bytes: $(cat $L | wc -c); short bytes: $(wc -c < short.jsonl); near: $(cat long/part-000.jsonl near-copy.jsonl | wc -c)"
cat $L short.jsonl > /dev/null

export WINNOW_DEDUP_TIMES=1
echo "== fixed cost: one short document"
head -1 short.jsonl > one.jsonl
for r in 1 2 3; do
    timed "one document gpu new" dd --device gpu one.jsonl -o /dev/null
    timed "one document gpu base" base --device gpu one.jsonl -o /dev/null
    timed "one document gpu new, runtime teardown" teardown --device gpu one.jsonl -o /dev/null
    timed "one document cpu new" dd --device cpu one.jsonl -o /dev/null
done
echo "== no usable GPU (CUDA_VISIBLE_DEVICES=), 5.4 GB: exit 1 before any output"
t=$( { time CUDA_VISIBLE_DEVICES= $B/winnow dedup -q -j16 --device gpu $L > nogpu.out 2> nogpu.err; echo "rc $?" > nogpu.rc; } 2>&1 | tail -1)
echo "no GPU: $(cat nogpu.rc), $t s, stdout $(wc -c < nogpu.out) bytes, stderr: $(cat nogpu.err)"
CUDA_VISIBLE_DEVICES= $B/winnow dedup -q -j16 --device gpu $L -o nogpu.jsonl --stats nogpu.stats 2> /dev/null
echo "no GPU -o FILE: rc $?, files left: $(ls nogpu.jsonl* nogpu.stats* 2> /dev/null | wc -l)"
echo "== dedup, $SHORT short unique documents, --device gpu -o /dev/null"
for r in $(seq $RUNS); do
    timed "short gpu new" dd --device gpu short.jsonl -o /dev/null
    timed "short gpu base" base --device gpu short.jsonl -o /dev/null
done
echo "== dedup, 5.4 GB long unique documents, --device gpu -o /dev/null"
for r in $(seq $RUNS); do
    timed "long gpu new" dd --device gpu $L -o /dev/null
    timed "long gpu base" base --device gpu $L -o /dev/null
    timed "long gpu new, runtime teardown" teardown --device gpu $L -o /dev/null
done
timed "long cpu new" dd --device cpu $L -o /dev/null
timed "long cpu base" base --device cpu $L -o /dev/null
echo "== outputs, rejects and stats: gpu against cpu"
for x in "near:long/part-000.jsonl near-copy.jsonl" "short:short.jsonl" "long:$L"; do
    n=${x%%:*}; f=${x#*:}
    timed "$n gpu -o file" dd --device gpu $f -o $n.gpu --rejects $n.gpu.rej --stats $n.gpu.stats
    timed "$n cpu -o file" dd --device cpu $f -o $n.cpu --rejects $n.cpu.rej --stats $n.cpu.stats
    same $n.gpu $n.cpu; same $n.gpu.rej $n.cpu.rej
    grep -o '"[a-z_]*dup[a-z_]*": *[0-9]*' $n.gpu.stats | tr '\n' ' '; echo
    diff <(grep -v seconds $n.gpu.stats) <(grep -v seconds $n.cpu.stats) > /dev/null && echo "stats SAME" || echo "stats DIFFERENT"
    rm -f $n.gpu $n.cpu
done
echo "== done $(date -u)"
