#!/bin/bash
# gpu_tokenize_raw.sh - runs on the GPU machine from a bundle made by
# scripts/gpu_tokenize_path_bundle.sh DIR BASE plus this script copied into
# DIR: `winnow tokenize` on ~8.5 GB of JSONL (tokref en_code x72 + multi
# x144, as bench/gpu_tokenize_path.sh builds it), files in the page cache,
# wall seconds (best of RUNS): --device gpu / auto / cpu to --format bin on
# stdout (> /dev/null), to -o shards/, and from the same JSONL as 16
# .jsonl.zst files; main's binary (winnow-base) beside it on the same
# machine; the GPU's bin output compared byte for byte with the CPU's (cmp
# on the two streams), the shard directories with diff -r. Fits in one
# 300 s device call. Writes log.txt under $OUT.
#   usage: bash DIR/gpu_tokenize_raw.sh   (RUNS=3; ZST=0 skips the .zst runs; SCALE=9 copies
#   of en_code x8 + multi x16 make the input)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/tr; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; RUNS=${RUNS:-3}
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

$B/zstd -dcq $D/en_code.jsonl.zst > en.jsonl; $B/zstd -dcq $D/multi.jsonl.zst > multi.jsonl
mkdir -p parts zst
S=${SCALE:-9}
for i in $(seq 0 15); do # part i: en_code x9 (i < 8) or multi x18, so the 16 parts are the 8.5 GB
    if [ $i -lt 8 ]; then for k in $(seq $S); do cat en.jsonl; done; else for k in $(seq $((2 * S))); do cat multi.jsonl; done; fi > parts/p$i.jsonl
done
cat parts/p*.jsonl > in8g.jsonl
pids=
if [ "${ZST:-1}" = 1 ]; then
    for i in $(seq 0 15); do $B/zstd -q -3 -T1 -c parts/p$i.jsonl > zst/p$i.jsonl.zst & pids="$pids $!"; done
fi
wait $pids # (a bare wait would wait for the tee of the log too)
ls -l in8g.jsonl; du -sh zst; date -u
cat in8g.jsonl > /dev/null
t=$( { time cat in8g.jsonl > /dev/null; } 2>&1 ); echo "ceiling: page-cache read, cat, 1 thread, 8.5 GB: $t"
GB=$(stat -c %s in8g.jsonl)

tk() { # tag bin device format runs input...: best wall of runs (to stdout > /dev/null, or -o DIR/ for shards)
    local tag=$1 bin=$2 dev=$3 fmt=$4 runs=$5; shift 5
    local best= all= t o=(--format "$fmt" -o -)
    [ "$fmt" = shards ] && o=(-o "$W/out.$tag/")
    for r in $(seq $runs); do
        rm -rf "$W/out.$tag"
        t=$( { time timeout 100 $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device $dev "${o[@]}" "$@" > /dev/null 2> err.$tag; } 2>&1 | tail -1)
        all="$all | $t"
        w=${t%% *}
        [ -z "$best" ] || awk -v a=$w -v b=$best 'BEGIN{exit !(a<b)}' && best=$w
    done
    echo "RUN $tag $bin --device $dev $fmt: best $best s = $(awk -v b=$GB -v t=$best 'BEGIN{printf "%.2f GB/s", b/t/1e9}') (wall user sys$all)"
    grep -h "times\|library" err.$tag
    grep -v "times\|library" err.$tag | head -3
}
export WINNOW_TOKENIZE_TIMES=1
echo "== exactness: 8.5 GB --format bin, gpu against cpu (streams compared)"
if cmp <($B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl 2>/dev/null) \
       <($B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin -o - in8g.jsonl 2>/dev/null); then
    echo "SAME bin gpu cpu 8.5 GB"; else echo "DIFFERENT bin gpu cpu 8.5 GB"; fi
echo "== 8.5 GB to --format bin (stdout > /dev/null)"
tk gpu-bin winnow gpu bin $RUNS in8g.jsonl
tk auto-bin winnow auto bin $RUNS in8g.jsonl
tk base-gpu-bin winnow-base gpu bin 2 in8g.jsonl
tk cpu-bin winnow cpu bin 2 in8g.jsonl
echo "== 8.5 GB to -o shards/"
tk gpu-shards winnow gpu shards 2 in8g.jsonl
tk cpu-shards winnow cpu shards 1 in8g.jsonl
if diff -rq out.gpu-shards out.cpu-shards > /dev/null; then echo "SAME shards gpu cpu"; else echo "DIFFERENT shards gpu cpu"; fi
rm -rf out.*
if [ "${ZST:-1}" = 1 ]; then
    echo "== 16 .jsonl.zst (the 8.5 GB) to --format bin"
    tk gpu-zst winnow gpu bin $RUNS zst/*
    if cmp <($B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - zst/* 2>/dev/null) \
           <($B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin -o - in8g.jsonl 2>/dev/null); then
        echo "SAME bin gpu-zst cpu-plain"; else echo "DIFFERENT bin gpu-zst cpu-plain"; fi
fi
echo "== ceilings: host memcpy, pinned PCIe copies"; timeout 30 $B/gpu_bandwidth
echo "== done $(date -u)"
