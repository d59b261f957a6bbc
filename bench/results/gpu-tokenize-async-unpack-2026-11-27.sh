#!/bin/bash
# gpu-tokenize-async-unpack-2026-11-27.sh - issue 15, i15t2: `winnow tokenize
# --device gpu --format bin` on 8.5 GB (bench/gpu_issue15.sh's input: tokref
# en_code x72 + multi x144 in 16 parts of one file), two builds, runs
# alternating, WINNOW_TOKENIZE_TIMES=1:
#   new   i15t2: the unpack copy runs on the library's pool while the caller
#         launches (4 batch slots per device), timers for closing and the clock
#   base  main af2efa3
# Each run's process start and exit are split from the shell's clock and the
# run's own (the "tokenize clock" line). strace (carried, if ptrace works there)
# of one 8.5 GB run and one document: where the exit's time goes.
# Exactness: new's bin (8.5 GB) against --device cpu, JSONL and shards (946 MB).
# Bundle: sh scripts/gpu_issue15_bundle.sh DIR BASE_BINARY, strace and its
# libraries in DIR/strace, this script copied into DIR as run.sh. Log: $OUT/log.txt.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
RUNS=${RUNS:-3}; REPEAT=${REPEAT:-9}
W=/tmp/i15t2; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
# timed TAG CMD...: wall user sys, the run's times, and (new only) "before run / after run":
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
cat parts/q*.jsonl > in1g.jsonl; cat parts/p*.jsonl > in8g.jsonl; rm -rf parts
head -1 en.jsonl > one.jsonl
echo "input $(stat -c %s in8g.jsonl) and $(stat -c %s in1g.jsonl) bytes $(date -u)"
cat in8g.jsonl in1g.jsonl > /dev/null
tok() { local w=$1; shift; $B/$w tokenize -q --encoding cl100k_base --vocab $V "$@"; }
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
echo "== exactness of new against --device cpu $(date -u)"
timed "cpu bin -o file" tok winnow --device cpu --format bin -o cpu.bin in8g.jsonl
ls -l cpu.bin | awk '{print $5}'
if tok winnow --device gpu --format bin -o - in8g.jsonl | cmp - cpu.bin; then echo "SAME new gpu bin 8.5 GB"; else echo "DIFFERENT new gpu bin 8.5 GB"; fi
rm -f cpu.bin
if cmp <(tok winnow --device gpu in1g.jsonl) <(tok winnow --device cpu in1g.jsonl); then echo "SAME new gpu jsonl 946 MB"; else echo "DIFFERENT new gpu jsonl 946 MB"; fi
tok winnow --device gpu -o sh-gpu/ in1g.jsonl; tok winnow --device cpu -o sh-cpu/ in1g.jsonl
if diff -r sh-gpu sh-cpu > /dev/null; then echo "SAME new gpu shards 946 MB"; else echo "DIFFERENT new gpu shards 946 MB"; fi
rm -rf sh-gpu sh-cpu
echo "== strace of the exit $(date -u)"
export WINNOW_TOKENIZE_TIMES=1
ST="env LD_LIBRARY_PATH=$D/strace $D/strace/strace"
for f in one.jsonl in8g.jsonl; do
    if $ST -f -tt -T -o $W/st.txt -e trace=exit_group,exit,munmap,ioctl,close,madvise \
        $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - $f > /dev/null 2> $W/err; then
        grep -h "tokenize clock\|times" $W/err
        wc -l < $W/st.txt
        # the main thread's calls after the run ended, and every thread's last lines
        end=$(grep -h "tokenize clock" $W/err | awk '{print $NF}')
        awk -v end=$end '{split($2,t,":"); s=t[1]*3600+t[2]*60+t[3]; if (s + 0 >= (end % 86400) - 0.002) print}' $W/st.txt | tail -400 > $O/strace-$f.txt
        grep -c . $O/strace-$f.txt
        grep "exit_group\|exited\|+++" $W/st.txt | tail -5
    else
        echo "strace failed on $f"; head -5 $W/err
    fi
done
echo "== done $(date -u)"
