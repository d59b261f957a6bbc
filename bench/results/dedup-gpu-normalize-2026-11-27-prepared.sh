#!/bin/bash
# dedup_gpu_normalize.sh - `winnow dedup --device gpu` with the normaliser's
# 64-byte AVX-512 path (issue 15's dedup point, host work per byte), the new
# build against an earlier one (winnow-base), alternating, on the GPU
# machine: 5.4 GB of unique long documents and 2 M unique short ones (made
# on the machine by dedup_unique_inputs.py), -j16, 3 runs each, --device cpu
# once each; outputs and stats of new gpu, new cpu and base cpu compared (the
# CPU path of the earlier build is the reference). Prints the CPU's vector
# flags first (the 64-byte path needs avx512bw and avx512_vbmi2). Files in
# the page cache; wall / user / sys seconds; WINNOW_DEDUP_TIMES lines.
#   bundle: scripts/gpu_issue15_bundle.sh DIR BASE, plus this script;
#   usage: bash DIR/dedup_gpu_normalize.sh   (RUNS=3)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
RUNS=${RUNS:-3}; COPIES=${COPIES:-52}; SHORT=${SHORT:-2000000}
W=/tmp/dd-norm; rm -rf $W; mkdir -p $W/bin $W/shared/tokref && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" $D/bin.tar.xz $W/bin
cp $D/en_code.txt.zst $D/en_code.idx.tsv $W/shared/tokref/
B=$W/bin; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E "^(avx2|avx512bw|avx512_vbmi2|bmi2)$" | tr '\n' ' '; echo
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

timed() { local tag=$1 t; shift; t=$( { time "$@" > /dev/null 2> $W/err; } 2>&1 | tail -1); echo "$tag: $t"; grep -h "times" $W/err | head -2; grep -v "times" $W/err | head -3; }
same() { if cmp -s "$1" "$2"; then echo "SAME $1 $2 ($(wc -l < "$1") lines)"; else echo "DIFFERENT $1 $2"; fi; }
dd() { $B/winnow dedup -q -j16 "$@"; }
base() { $B/winnow-base dedup -q -j16 "$@"; }

timed "make long inputs ($COPIES files)" env SHARED=$W/shared python3 $D/dedup_unique_inputs.py long long $COPIES
timed "make short inputs" env SHARED=$W/shared python3 $D/dedup_unique_inputs.py short short.jsonl $SHORT
L=$(ls long/*.jsonl)
echo "long bytes: $(cat $L | wc -c); short bytes: $(wc -c < short.jsonl)"
cat $L short.jsonl > /dev/null

export WINNOW_DEDUP_TIMES=1
echo "== dedup, 5.4 GB long unique documents, --device gpu -o /dev/null"
for r in $(seq $RUNS); do
    timed "long gpu new" dd --device gpu $L -o /dev/null
    timed "long gpu base" base --device gpu $L -o /dev/null
done
echo "== dedup, $SHORT short unique documents, --device gpu -o /dev/null"
for r in $(seq $RUNS); do
    timed "short gpu new" dd --device gpu short.jsonl -o /dev/null
    timed "short gpu base" base --device gpu short.jsonl -o /dev/null
done
timed "long cpu new" dd --device cpu $L -o /dev/null
timed "long cpu base" base --device cpu $L -o /dev/null
echo "== outputs and stats: new gpu, new cpu against base cpu"
for x in "short:short.jsonl" "long:$L"; do
    n=${x%%:*}; f=${x#*:}
    timed "$n gpu new -o file" dd --device gpu $f -o $n.gpu --stats $n.gpu.stats
    timed "$n cpu base -o file" base --device cpu $f -o $n.ref --stats $n.ref.stats
    same $n.gpu $n.ref
    grep -o '"[a-z_]*dup[a-z_]*": *[0-9]*' $n.gpu.stats | tr '\n' ' '; echo
    diff <(grep -v seconds $n.gpu.stats) <(grep -v seconds $n.ref.stats) > /dev/null && echo "stats SAME" || echo "stats DIFFERENT"
    rm -f $n.gpu
    if [ $n = long ]; then
        timed "$n cpu new -o file" dd --device cpu $f -o $n.cpu
        same $n.cpu $n.ref
    fi
    rm -f $n.cpu $n.ref
done
echo "== done $(date -u)"
