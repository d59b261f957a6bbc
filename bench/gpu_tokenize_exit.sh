#!/bin/bash
# gpu_tokenize_exit.sh - runs on the GPU machine from a bundle (bin.tar.xz
# holding winnow, winnow-base = main's binary, zstd and their libraries;
# cl100k_base.tiktoken; en_code.jsonl.zst and multi.jsonl.zst as
# scripts/gpu_tokenize_path_bundle.sh makes them; this script). Measures the
# exit without CUDA teardown and the unpack copy in parts (issue 15): the
# 8.5 GB of JSONL of bench/gpu_tokenize_raw.sh (tokref en_code x72 + multi
# x144, 16 parts), files in the page cache, wall seconds (best of RUNS) of
# --device gpu to --format bin on stdout (> /dev/null) for this build and
# main's in the same call, each run's own "total" beside its wall (wall -
# total = process start, vocabulary load and exit); -o shards/ and the 16
# .jsonl.zst files once each. Checks: the GPU's bin stream identical to the
# CPU's (cmp), shard directories identical (diff -r), the .zst input's bin
# identical; with -o FILE and --stats on one part plus a missing input: the
# same exit status (2), file and statistics (but seconds) as --device cpu.
# Fits in one 300 s device call. Writes log.txt under $OUT.
#   usage: bash DIR/gpu_tokenize_exit.sh   (RUNS=3)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/te; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; RUNS=${RUNS:-3}
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

$B/zstd -dcq $D/en_code.jsonl.zst > en.jsonl; $B/zstd -dcq $D/multi.jsonl.zst > multi.jsonl
mkdir -p parts zst
for i in $(seq 0 15); do # part i: en_code x9 (i < 8) or multi x18, so the 16 parts are the 8.5 GB
    if [ $i -lt 8 ]; then for k in $(seq 9); do cat en.jsonl; done; else for k in $(seq 18); do cat multi.jsonl; done; fi > parts/p$i.jsonl
done
cat parts/p*.jsonl > in8g.jsonl
pids=
for i in $(seq 0 15); do $B/zstd -q -3 -T1 -c parts/p$i.jsonl > zst/p$i.jsonl.zst & pids="$pids $!"; done
wait $pids # (a bare wait would wait for the tee of the log too)
ls -l in8g.jsonl; du -sh zst; date -u
cat in8g.jsonl > /dev/null
GB=$(stat -c %s in8g.jsonl)
tok() { # bin device args...: the command, statistics quiet
    local bin=$1 dev=$2; shift 2
    $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device $dev "$@"
}

tk() { # tag bin format runs input...: best wall of runs of --device gpu (to stdout > /dev/null, or -o DIR/ for shards)
    local tag=$1 bin=$2 fmt=$3 runs=$4; shift 4
    local best= all= t r w o=(--format "$fmt" -o -)
    [ "$fmt" = shards ] && o=(-o "$W/out.$tag/")
    for r in $(seq $runs); do
        rm -rf "$W/out.$tag"
        t=$( { time timeout 100 $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device gpu "${o[@]}" "$@" > /dev/null 2> err.$tag; } 2>&1 | tail -1)
        all="$all | $t, run total $(grep -o 'total [0-9.]*' err.$tag | cut -d' ' -f2)"
        w=${t%% *}
        [ -z "$best" ] || awk -v a=$w -v b=$best 'BEGIN{exit !(a<b)}' && best=$w
    done
    echo "$tag $best" >> $W/walls
    echo "RUN $tag $bin --device gpu $fmt: best $best s = $(awk -v b=$GB -v t=$best 'BEGIN{printf "%.2f GB/s", b/t/1e9}') (wall user sys$all)"
    grep -h "times\|library" err.$tag
    grep -v "times\|library" err.$tag | head -3
}
export WINNOW_TOKENIZE_TIMES=1
echo "== exactness: 8.5 GB --format bin, gpu against cpu"
tok winnow cpu --format bin -o - in8g.jsonl > cpu.bin 2> /dev/null
if cmp <(tok winnow gpu --format bin -o - in8g.jsonl 2> /dev/null) cpu.bin; then
    echo "SAME bin gpu cpu 8.5 GB"; else echo "DIFFERENT bin gpu cpu 8.5 GB"; fi
echo "== 8.5 GB to --format bin (stdout > /dev/null), this build and main's, alternating"
for r in $(seq $RUNS); do tk gpu-bin-$r winnow bin 1 in8g.jsonl; tk base-gpu-bin-$r winnow-base bin 1 in8g.jsonl; done
for tag in gpu-bin base-gpu-bin; do
    awk -v p="^$tag-" -v b=$GB '$1 ~ p && (best == "" || $2 < best) {best = $2} END {printf "BEST %s: %s s = %.2f GB/s\n", p, best, b / best / 1e9}' $W/walls
done
echo "== 8.5 GB to -o shards/"
tk gpu-shards winnow shards 1 in8g.jsonl
tk base-gpu-shards winnow-base shards 1 in8g.jsonl
tok winnow cpu -o $W/out.cpu-shards/ in8g.jsonl 2> /dev/null
if diff -rq out.gpu-shards out.cpu-shards > /dev/null; then echo "SAME shards gpu cpu"; else echo "DIFFERENT shards gpu cpu"; fi
rm -rf out.*
echo "== 16 .jsonl.zst (the 8.5 GB) to --format bin"
tk gpu-zst winnow bin 1 zst/*
if cmp <(tok winnow gpu --format bin -o - zst/* 2> /dev/null) cpu.bin; then
    echo "SAME bin gpu-zst cpu-plain"; else echo "DIFFERENT bin gpu-zst cpu-plain"; fi
rm -f cpu.bin
echo "== -o FILE, --stats, a missing input: exit status, file and statistics as on the CPU"
unset WINNOW_TOKENIZE_TIMES
for dev in gpu cpu; do
    tok winnow $dev --format bin -o $W/f.$dev.bin --stats $W/s.$dev.json parts/p0.jsonl missing.jsonl parts/p8.jsonl 2> err.$dev
    echo "rc $dev $?: $(cat err.$dev)"
done
if cmp f.gpu.bin f.cpu.bin && diff <(grep -v seconds s.gpu.json) <(grep -v seconds s.cpu.json); then
    echo "SAME -o FILE and --stats gpu cpu ($(stat -c %s f.gpu.bin) bytes)"; else echo "DIFFERENT -o FILE or --stats gpu cpu"; fi
echo "== done $(date -u)"
