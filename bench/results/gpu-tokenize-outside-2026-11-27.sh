#!/bin/bash
# gpu-tokenize-outside-2026-11-27.sh - issue 15, i15t4: the wall time of
# `winnow tokenize --device gpu --format bin` on 8.5 GB that lies outside the
# run (process start, CUDA's start-up, freeing the id arrays, the exit). Two
# builds, runs alternating, WINNOW_TOKENIZE_TIMES=1:
#   new   i15t4: the GPU checked on the block path's thread (no cudaGetDeviceCount
#         on the main thread before the run), id arrays on huge pages, never moved
#   base  main d79c555
# Input: bench/gpu_issue15.sh's 8.5 GB (tokref en_code x72 + multi x144, 16
# parts of one file). Each run's process start and exit are split from the
# shell's clock and the run's own ("tokenize clock"). Then: the pages bench
# (gpu-tokenize-outside-2026-11-27-pages.c), new's bin against --device cpu,
# the refusal with CUDA_VISIBLE_DEVICES=, and strace -f -tt -T of new's start
# and exit (strace carried in DIR/strace).
# Bundle: sh scripts/gpu_issue15_bundle.sh DIR BASE_BINARY; strace, its
# libraries and the pages bench (built) in DIR; this script as DIR/run.sh.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
RUNS=${RUNS:-4}; REPEAT=${REPEAT:-9}
W=/tmp/i15t4; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
grep -i "AnonHuge\|MemFree" /proc/meminfo
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
echo "== pages bench $(date -u)"
$D/pages
export WINNOW_TOKENIZE_TIMES=1
echo "== 8.5 GB to --format bin on stdout (> /dev/null), alternating $(date -u)"
for r in $(seq $RUNS); do
    for w in new base; do
        b=winnow; [ $w = new ] || b=winnow-$w
        timed "gpu bin stdout $w" tok $b --device gpu --format bin -o - in8g.jsonl
    done
done
echo "== one document, --device gpu (fixed costs)"
for r in 1 2; do
    for w in new base; do
        b=winnow; [ $w = new ] || b=winnow-$w
        timed "one doc $w" tok $b --device gpu --format bin -o - one.jsonl
    done
done
unset WINNOW_TOKENIZE_TIMES
echo "== no usable GPU (CUDA_VISIBLE_DEVICES=) $(date -u)"
for w in new base; do
    b=winnow; [ $w = new ] || b=winnow-$w
    CUDA_VISIBLE_DEVICES= $B/$b tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl > refused.out 2> refused.err
    echo "$w: exit $? stdout $(stat -c %s refused.out) bytes: $(head -2 refused.err)"
done
echo "== exactness of new against --device cpu $(date -u)"
timed "cpu bin -o file" tok winnow --device cpu --format bin -o cpu.bin in8g.jsonl
ls -l cpu.bin | awk '{print $5}'
if tok winnow --device gpu --format bin -o - in8g.jsonl | cmp - cpu.bin; then echo "SAME new gpu bin 8.5 GB"; else echo "DIFFERENT new gpu bin 8.5 GB"; fi
rm -f cpu.bin
echo "== strace of new $(date -u)"
export WINNOW_TOKENIZE_TIMES=1
ST="env LD_LIBRARY_PATH=$D/strace $D/strace/strace"
if $ST -f -tt -T -o $W/st1.txt $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - one.jsonl > /dev/null 2> $W/err; then
    grep -h "tokenize clock\|times" $W/err; wc -l < $W/st1.txt; xz -c $W/st1.txt > $O/strace-one-all.txt.xz
else
    echo "strace failed"; head -5 $W/err
fi
if $ST -f -tt -T -o $W/st.txt -e trace=execve,exit_group,exit,munmap,mmap,ioctl,close,madvise,openat \
    $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl > /dev/null 2> $W/err; then
    grep -h "tokenize clock\|times" $W/err
    wc -l < $W/st.txt
    end=$(grep -h "tokenize clock" $W/err | awk '{print $NF}')
    awk -v end=$end '{split($2,t,":"); s=t[1]*3600+t[2]*60+t[3]; if (s + 0 >= (end % 86400) - 0.002) print}' $W/st.txt | tail -400 > $O/strace-8g-exit.txt
    head -300 $W/st.txt > $O/strace-8g-start.txt
    grep "exit_group\|exited\|+++" $W/st.txt | tail -5
else
    echo "strace failed"; head -5 $W/err
fi
echo "== done $(date -u)"
