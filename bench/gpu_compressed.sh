#!/bin/bash
# gpu_compressed.sh - issue 15's compressed-input point on the GPU machine:
# `winnow tokenize --device gpu --format bin` (cl100k_base) on the 8.5 GB of
# JSONL of bench/gpu_issue15.sh (tokref en_code x72 + multi x144, 16 parts)
# as 16 .jsonl.zst and as 16 .jsonl.gz files made as that script makes them
# (each part's 1/9 compressed, then 9 copies concatenated: 9 frames or
# members a file), the new build against winnow-base (an earlier build)
# alternating, every output compared with the plain-JSONL run's. From a
# bundle made by scripts/gpu_issue15_bundle.sh with this script copied in as
# run.sh. Files in the page cache; wall / user / sys seconds. Two parts:
#   PART=frames   the 16 .zst and 16 .gz as above, RUNS runs each (default 3),
#                 and 16 single-frame .jsonl.zst (zstd -3 of each part)
#   PART=members  16 single-member .jsonl.gz (gzip -6 of each part), and one
#                 of them alone (the limit for one big single-member file);
#                 with winnow-alt in the bundle (a variant build), it runs
#                 beside new on those, on 16 single-frame .jsonl.zst and once
#                 on the 9-frame and 9-member files
#   usage: PART=frames|members bash DIR/run.sh
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
PART=${PART:-frames}; RUNS=${RUNS:-3}; REPEAT=9
W=/tmp/i15c-$PART; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-$PART.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
cat /sys/kernel/mm/transparent_hugepage/enabled

# timed TAG CMD...: one run to /dev/null, "TAG: wall user sys", and the run's WINNOW_TOKENIZE_TIMES lines
timed() { local tag=$1 t; shift; t=$( { time "$@" > /dev/null 2> $W/err; } 2>&1 | tail -1); echo "$tag: $t"; grep -h "times\|library\|cpu (s)" $W/err | head -4; grep -v "times\|library\|cpu (s)" $W/err | head -3; }
tok() { local w=$1; shift; $B/$w tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - "$@"; }
# ab TAG FILES...: RUNS runs of the new build and of the base, alternating
ab() { local tag=$1 r; shift; for r in $(seq $RUNS); do timed "$tag new" tok winnow "$@"; timed "$tag base" tok winnow-base "$@"; done; }
# alt TAG FILES...: RUNS runs of the new build and of winnow-alt, alternating
alt() { local tag=$1 r; shift; for r in $(seq $RUNS); do timed "$tag new" tok winnow "$@"; timed "$tag alt" tok winnow-alt "$@"; done; }
check() { local tag=$1; shift; if tok winnow "$@" 2> $W/err | cmp -s - ref.bin; then echo "SAME $tag"; else echo "DIFFERENT $tag"; head -3 $W/err; fi; }
export WINNOW_TOKENIZE_TIMES=1

. $D/gpu_tokenize_inputs.sh
tokenize_inputs $D $REPEAT
mkdir -p one one-zst
t0=$(date +%s.%N)
pids=
for i in $(seq 0 15); do
    if [ $PART = frames ]; then zstd -q -3 -c parts/p$i.jsonl > one/p$i.jsonl.zst & pids="$pids $!"
    else gzip -6 -c parts/p$i.jsonl > one/p$i.jsonl.gz & pids="$pids $!"; fi
    if [ $PART = members ]; then zstd -q -3 -c parts/p$i.jsonl > one-zst/p$i.jsonl.zst & pids="$pids $!"; fi
done
wait $pids
echo "single-stream files made in $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" $t0 $(date +%s.%N)) s"
du -sh parts zst gz one one-zst; date -u
cat parts/* zst/* gz/* one/* one-zst/* > /dev/null
$B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o ref.bin parts/p*.jsonl
echo "== plain JSONL, 16 files, $(cat parts/* | wc -c) bytes"
timed "plain bin new" tok winnow parts/p*.jsonl
[ $PART = frames ] && timed "plain bin base" tok winnow-base parts/p*.jsonl
if [ $PART = frames ]; then
    echo "== 16 .jsonl.zst (9 frames each), --format bin"; ab "zst" zst/*
    echo "== 16 .jsonl.gz (9 members each), --format bin"; ab "gz" gz/*
    echo "== 16 single-frame .jsonl.zst"; RUNS=2 ab "zst1" one/*
    check "zst" zst/*; check "gz" gz/*; check "zst1" one/*
else
    echo "== 16 single-member .jsonl.gz"; RUNS=1 ab "gz1" one/*
    if [ -x $B/winnow-alt ]; then
        RUNS=2 alt "gz1" one/*; echo "== 16 single-frame .jsonl.zst"; RUNS=2 alt "zst1" one-zst/*
        echo "== 16 .jsonl.zst (9 frames each) and 16 .jsonl.gz (9 members each)"; RUNS=1 alt "zst" zst/*; RUNS=1 alt "gz" gz/*
    fi
    check "gz1" one/*
    echo "== one single-member .jsonl.gz alone ($(stat -c %s parts/p0.jsonl) bytes of JSONL)"
    RUNS=2 ab "one gz1" one/p0.jsonl.gz
    timed "one plain" tok winnow parts/p0.jsonl
    timed "gzip -dc of it" gzip -dc one/p0.jsonl.gz
fi
date -u
