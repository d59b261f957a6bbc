#!/bin/bash
# gpu-tokenize-pin-2026-11-27.sh - issue 15, i15t: `winnow tokenize --device gpu
# --format bin` on 8.5 GB (bench/gpu_issue15.sh's input: tokref en_code x72 +
# multi x144 in 16 parts of one file), this build ("new") against main
# 4244e3d ("base"), runs alternating, WINNOW_TOKENIZE_TIMES=1; output bytes of
# both compared with --device cpu (cmp); one document with --device gpu (the
# fixed costs). Bundle: sh scripts/gpu_issue15_bundle.sh DIR BASE_BINARY, then
# this script copied into DIR as run.sh. Log: $OUT/log.txt.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
RUNS=${RUNS:-3}; REPEAT=${REPEAT:-9}
W=/tmp/i15t; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled) defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
timed() { local tag=$1 t; shift; t=$( { time "$@" > /dev/null 2> $W/err; } 2>&1 | tail -1); echo "$tag: $t"; grep -h "times\|library\|cpu (s)" $W/err | head -4; grep -v "times\|library\|cpu (s)" $W/err | head -2; }
python3 $D/tokenize_tokref.py jsonl $D/en_code.txt.zst $D/en_code.idx.tsv 0 > en.jsonl; zstd -dcq $D/multi.jsonl.zst > multi.jsonl
mkdir -p parts
for i in $(seq 0 15); do
    if [ $i -lt 8 ]; then cat en.jsonl; else cat multi.jsonl multi.jsonl; fi > parts/q$i.jsonl
    for k in $(seq $REPEAT); do cat parts/q$i.jsonl; done > parts/p$i.jsonl
done
cat parts/p*.jsonl > in8g.jsonl; rm -rf parts
head -1 en.jsonl > one.jsonl
GB=$(stat -c %s in8g.jsonl); echo "input $GB bytes $(date -u)"
cat in8g.jsonl > /dev/null
tok() { local w=$1; shift; $B/$w tokenize -q --encoding cl100k_base --vocab $V "$@"; }
echo "== exactness: --device cpu to a file, each GPU build's stdout compared with it"
timed "cpu bin -o file" tok winnow --device cpu --format bin -o cpu.bin in8g.jsonl
ls -l cpu.bin | awk '{print $5}'
for w in winnow winnow-base; do
    if tok $w --device gpu --format bin -o - in8g.jsonl | cmp - cpu.bin; then echo "SAME $w gpu vs cpu"; else echo "DIFFERENT $w gpu vs cpu"; fi
done
rm -f cpu.bin
export WINNOW_TOKENIZE_TIMES=1
echo "== 8.5 GB to --format bin on stdout (> /dev/null), alternating"
for r in $(seq $RUNS); do
    timed "gpu bin stdout new" tok winnow --device gpu --format bin -o - in8g.jsonl
    timed "gpu bin stdout base" tok winnow-base --device gpu --format bin -o - in8g.jsonl
done
echo "== one document, --device gpu (fixed costs)"
for r in 1 2; do
    timed "one doc new" tok winnow --device gpu --format bin -o - one.jsonl
    timed "one doc base" tok winnow-base --device gpu --format bin -o - one.jsonl
done
echo "== done $(date -u)"
