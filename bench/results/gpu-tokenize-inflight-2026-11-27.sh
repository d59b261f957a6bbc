#!/bin/bash
# gpu-tokenize-inflight-2026-11-27.sh - issue 15, i15t3: `winnow tokenize
# --device gpu --format bin` on 8.5 GB (bench/gpu_issue15.sh's input: tokref
# en_code x72 + multi x144 in 16 parts of one file), three builds, runs
# alternating, WINNOW_TOKENIZE_TIMES=1:
#   new   i15t3 dcb331a: ac + batches kept in flight across block calls
#   ac    i15t3 e5bf3fd: the blocks' id arrays in transparent huge pages, CUDA
#         started at process start beside the vocabulary load
#   base  main d242c17
# Each run's process start and exit are split from the shell's clock and the
# run's own (the "tokenize clock" line; all three builds print it).
# Exactness: new's bin (8.5 GB) against --device cpu (cmp). The warm-up's
# error path: --device gpu with a vocabulary that cannot be read.
# Bundle: sh scripts/gpu_issue15_bundle.sh DIR BASE_BINARY, then bin.tar.xz
# remade with winnow-ac added; this script copied into DIR as run.sh. Log: $OUT/log.txt.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
RUNS=${RUNS:-3}; REPEAT=${REPEAT:-9}
W=/tmp/i15t3; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
grep -i "AnonHugePages\|MemFree" /proc/meminfo
# timed TAG CMD...: wall user sys, the run's times, and "before run / after run":
# seconds from the shell's start of the command to the run's start, and from the run's end to the shell's.
timed() {
    local tag=$1 t s e; shift
    s=$(date +%s.%N)
    t=$( { time "$@" > /dev/null 2> $W/err; } 2>&1 | tail -1)
    e=$(date +%s.%N)
    echo "$tag: $t"
    grep -h "times\|library\|cpu (s)" $W/err | head -4; grep -v "times\|library\|cpu (s)\|clock" $W/err | head -2
    grep -h "tokenize clock" $W/err | awk -v s=$s -v e=$e '{printf "  before run %.3f after run %.3f\n", $(NF-2) - s, e - $NF}'
}
python3 $D/tokenize_tokref.py jsonl $D/en_code.txt.zst $D/en_code.idx.tsv 0 > en.jsonl; zstd -dcq $D/multi.jsonl.zst > multi.jsonl
mkdir -p parts
for i in $(seq 0 15); do
    if [ $i -lt 8 ]; then cat en.jsonl; else cat multi.jsonl multi.jsonl; fi > parts/q$i.jsonl
    for k in $(seq $REPEAT); do cat parts/q$i.jsonl; done > parts/p$i.jsonl
done
cat parts/p*.jsonl > in8g.jsonl; rm -rf parts
head -1 en.jsonl > one.jsonl
echo "input $(stat -c %s in8g.jsonl) bytes $(date -u)"
cat in8g.jsonl > /dev/null
tok() { local w=$1; shift; $B/$w tokenize -q --encoding cl100k_base --vocab $V "$@"; }
export WINNOW_TOKENIZE_TIMES=1
echo "== 8.5 GB to --format bin on stdout (> /dev/null), alternating $(date -u)"
for r in $(seq $RUNS); do
    for w in new ac base; do
        b=winnow; [ $w = new ] || b=winnow-$w
        timed "gpu bin stdout $w" tok $b --device gpu --format bin -o - in8g.jsonl
    done
done
echo "== one document, --device gpu (fixed costs)"
for r in 1 2; do
    for w in new ac base; do
        b=winnow; [ $w = new ] || b=winnow-$w
        timed "one doc $w" tok $b --device gpu --format bin -o - one.jsonl
    done
done
unset WINNOW_TOKENIZE_TIMES
echo "== the warm-up's error path: --device gpu, a vocabulary that cannot be read"
timed "bad vocab new" $B/winnow tokenize -q --vocab /nonexistent.tiktoken --device gpu one.jsonl; echo "  exit $?"
echo "== exactness of new against --device cpu $(date -u)"
timed "cpu bin -o file" tok winnow --device cpu --format bin -o cpu.bin in8g.jsonl
ls -l cpu.bin | awk '{print $5}'
if tok winnow --device gpu --format bin -o - in8g.jsonl | cmp - cpu.bin; then echo "SAME new gpu bin 8.5 GB"; else echo "DIFFERENT new gpu bin 8.5 GB"; fi
rm -f cpu.bin
echo "== done $(date -u)"
