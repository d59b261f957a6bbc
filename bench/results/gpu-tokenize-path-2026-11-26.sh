#!/bin/bash
# gpu_tokenize_path.sh - runs on the GPU machine from a bundle made by
# scripts/gpu_tokenize_path_bundle.sh: `winnow tokenize` end to end (wall
# seconds, files in the page cache) with --device gpu, cpu and auto on
# JSONL of 10 MB, 300 MB, 946 MB (tokref en_code x8 + multi x16) and
# ~8.5 GB (the 946 MB x9), to --format bin and to -o shards/; the 946 MB
# as 16 .jsonl.zst and 16 .jsonl.gz files; main's binary (winnow-base) on
# the 946 MB; every GPU output compared (cmp) with the CPU's; the ceilings
# (page-cache read, host memcpy, pinned PCIe copy: gpu_bandwidth) and the
# Python peers (tiktoken, HF tokenizers, 16 threads). Writes log.txt under
# $OUT. WINNOW_TOKENIZE_TIMES=1 makes the GPU runs print where time went.
#   usage: bash DIR/gpu_tokenize_path.sh   (BIG=0 skips the 8.5 GB runs, PEERS=0 the peers)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/tp; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader; df -h /tmp | tail -1

# inputs
$B/zstd -dcq $D/en_code.jsonl.zst > en.jsonl; $B/zstd -dcq $D/multi.jsonl.zst > multi.jsonl
mkdir -p parts
for i in $(seq 0 15); do if [ $i -lt 8 ]; then cp en.jsonl parts/p$i.jsonl; else cp multi.jsonl parts/p$i.jsonl; fi; done
for i in $(seq 8 15); do cat multi.jsonl >> parts/p$i.jsonl; done
cat parts/p*.jsonl > in946.jsonl
head -c 10000000 in946.jsonl | sed '$d' > in10.jsonl
{ cat en.jsonl en.jsonl; cat multi.jsonl multi.jsonl multi.jsonl multi.jsonl multi.jsonl multi.jsonl multi.jsonl; } > in300.jsonl
for k in 1 2 3 4 5 6; do cat en.jsonl multi.jsonl; done > in600.jsonl
mkdir -p zst gz
pids=
for i in $(seq 0 15); do
    $B/zstd -q -3 -c parts/p$i.jsonl > zst/p$i.jsonl.zst & pids="$pids $!"
    gzip -6 -c parts/p$i.jsonl > gz/p$i.jsonl.gz & pids="$pids $!"
done
wait $pids # (a bare wait would wait for the tee of the log too)
if [ "${BIG:-1}" = 1 ]; then
    for k in $(seq 9); do cat in946.jsonl; done > in8g.jsonl
    mkdir -p zst8 gz8
    for i in $(seq 0 15); do
        for k in $(seq 9); do cat zst/p$i.jsonl.zst; done > zst8/p$i.jsonl.zst # concatenated frames: one stream
        for k in $(seq 9); do cat gz/p$i.jsonl.gz; done > gz8/p$i.jsonl.gz     # concatenated members: one stream
    done
fi
ls -l in*.jsonl; du -sh zst gz zst8 gz8; date -u
cat in*.jsonl parts/* zst/* gz/* > /dev/null

echo "== ceilings"
t=$( { time cat in946.jsonl > /dev/null; } 2>&1 ); echo "page-cache read, cat, 1 thread, 946 MB: $t"
t=$( { time (ls parts/* | xargs -P16 -n1 cat > /dev/null); } 2>&1 ); echo "page-cache read, cat, 16 files on 16 threads, 946 MB: $t"
[ -e in8g.jsonl ] && { t=$( { time cat in8g.jsonl > /dev/null; } 2>&1 ); echo "page-cache read, cat, 1 thread, 8.5 GB: $t"; }
t=$( { time cp in946.jsonl copy.jsonl; } 2>&1 ); echo "page-cache write, cp 946 MB: $t"; rm -f copy.jsonl
$B/gpu_bandwidth

tk() { # tag bin device format input... ; DEST=file writes -o out.TAG (bin: fsync'ed at close), else stdout > /dev/null
    local tag=$1 bin=$2 dev=$3 fmt=$4; shift 4
    local out=$W/out.$tag t mb
    rm -rf "$out"
    local o=(--format "$fmt" -o "$out")
    [ "$fmt" = shards ] && o=(-o "$out/")
    [ "$fmt" != shards ] && [ "${DEST:-null}" = null ] && o=(--format "$fmt" -o -) out=/dev/null
    t=$( { time timeout 150 $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device $dev "${o[@]}" "$@" > /dev/null 2> err.$tag; } 2>&1 | tail -1)
    mb=$(cat "$@" | wc -c)
    case $1 in zst/*|gz/*) mb=$(stat -c %s in946.jsonl) ;; zst8/*|gz8/*) mb=$(stat -c %s in8g.jsonl) ;; esac
    echo "RUN $tag $bin --device $dev --format $fmt -> ${out#$W/}: wall user sys = $t ; $(awk -v b=$mb -v t="${t%% *}" 'BEGIN{printf "%.2f GB/s of %.3f GB", b/t/1e9, b/1e9}')"
    grep -h "times\|library" err.$tag
    grep -v "times\|library" err.$tag | head -3
}
same() { if cmp -s "$1" "$2" 2>/dev/null || diff -rq "$1" "$2" > /dev/null 2>&1; then echo "SAME $1 $2"; else echo "DIFFERENT $1 $2"; fi; }

export WINNOW_TOKENIZE_TIMES=1
echo "== main (133c95d) on 946 MB, --format bin"
tk base-cpu winnow-base cpu bin in946.jsonl
tk base-gpu winnow-base gpu bin in946.jsonl
echo "== this branch: --format bin to stdout (/dev/null), then to -o FILE (compared), then -o shards/ (compared)"
for size in 10 300 600 946; do
    for dev in cpu gpu auto; do tk $dev-$size-bin winnow $dev bin in$size.jsonl; done
    for dev in cpu gpu auto; do DEST=file tk $dev-$size-bin winnow $dev bin in$size.jsonl; done
    same out.cpu-$size-bin out.gpu-$size-bin; same out.cpu-$size-bin out.auto-$size-bin
    for dev in cpu gpu auto; do tk $dev-$size-shards winnow $dev shards in$size.jsonl; done
    same out.cpu-$size-shards out.gpu-$size-shards; same out.cpu-$size-shards out.auto-$size-shards
done
echo "== 16 .jsonl.zst / 16 .jsonl.gz (the 946 MB)"
for c in zst gz; do
    tk gpu-$c-bin winnow gpu bin $c/*; tk cpu-$c-bin winnow cpu bin $c/*
    DEST=file tk gpu-$c-bin winnow gpu bin $c/*; same out.gpu-$c-bin out.cpu-946-bin
    tk gpu-$c-shards winnow gpu shards $c/*; same out.gpu-$c-shards out.cpu-946-shards
done
rm -rf out.*-946-* out.*-zst-* out.*-gz-* out.base-*
if [ -e in8g.jsonl ]; then
    echo "== 8.5 GB"
    for dev in gpu auto cpu; do tk $dev-8g-bin winnow $dev bin in8g.jsonl; done
    for dev in gpu cpu; do DEST=file tk $dev-8g-bin winnow $dev bin in8g.jsonl; done
    same out.gpu-8g-bin out.cpu-8g-bin; rm -rf out.*-8g-bin
    for dev in gpu auto cpu; do tk $dev-8g-shards winnow $dev shards in8g.jsonl; done
    same out.gpu-8g-shards out.cpu-8g-shards; same out.gpu-8g-shards out.auto-8g-shards; rm -rf out.*-8g-*
    echo "== 16 .jsonl.zst / 16 .jsonl.gz (the 8.5 GB)"
    for c in zst8 gz8; do
        for dev in gpu auto cpu; do tk $dev-$c-bin winnow $dev bin $c/*; done
        DEST=file tk gpu-$c-bin winnow gpu bin $c/*; DEST=file tk cpu-$c-bin winnow cpu bin $c/*
        same out.gpu-$c-bin out.cpu-$c-bin; rm -rf out.*-$c-*
    done
fi
if [ "${PEERS:-1}" = 1 ]; then
    echo "== peers (tokref en_code, 80.8 MB of text, 16 threads)"
    mkdir -p shared/tokref shared/vocab/tiktoken shared/vocab/gpt2
    cp $D/en_code.idx.tsv shared/tokref/; cp $D/*.tiktoken shared/vocab/tiktoken/; cp $D/encoder.json $D/vocab.bpe shared/vocab/gpt2/
    $B/zstd -dcq $D/en_code.txt.zst > en_code.txt
    PYTHONUNBUFFERED=1 timeout 150 python3 $D/gpu_tokenize_peers.py $W/shared en_code.txt 1 16 2>&1
fi
echo "== done $(date -u)"
