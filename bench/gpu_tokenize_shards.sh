#!/bin/bash
# gpu_tokenize_shards.sh - runs on the GPU machine from a bundle
# (scripts/gpu_tokenize_shards_bundle.sh: bin.tar.xz holding winnow,
# winnow-base = main's binary, zstd, zstd_params, shard_writer_bench and
# their libraries; cl100k_base.tiktoken; en_code.jsonl.zst and
# multi.jsonl.zst; this script).
# Measures `winnow tokenize --device gpu -o shards/` on 8.5 GB of JSONL
# (tokref en_code x72 + multi x144, as bench/gpu_tokenize_exit.sh builds it),
# files in the page cache, output on the machine's /tmp (issue 15: the shard
# writer's calling thread no longer touches the ids; frames written by a
# thread of their own, shards synced and renamed by another):
#  1. zstd alone on the real cl100k ids of en_code (bench/zstd_params), one
#     process, then 16 at once (one per core: the per-core speed when every
#     core compresses), at level 1 (default) and the levels and parameters
#     docs/shards.md compares; the shard writer alone fed from memory
#     (bench/shard_writer_bench: cores kept busy = CPU / wall);
#  2. --device gpu -o shards/, this build and main's alternating (RUNS each,
#     best kept), wall/user/sys and the run's own phase times
#     (WINNOW_TOKENIZE_TIMES); this build at --level -1 and -3 (RUNS2 each);
#  3. --format bin to /dev/null once (what the run costs without shards);
#  4. the shard directories of this build, main's and --device cpu identical.
# Fits in one 600 s device call. Writes log.txt under $OUT.
#   usage: bash DIR/gpu_tokenize_shards.sh   (RUNS=3 RUNS2=2)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/ts; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; RUNS=${RUNS:-3}; RUNS2=${RUNS2:-2}
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r; uptime
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
df -hT /tmp | tail -1

$B/zstd -dcq $D/en_code.jsonl.zst > en.jsonl; $B/zstd -dcq $D/multi.jsonl.zst > multi.jsonl
for i in $(seq 0 15); do # part i: en_code x9 (i < 8) or multi x18, so the 16 parts are the 8.5 GB
    if [ $i -lt 8 ]; then for k in $(seq 9); do cat en.jsonl; done; else for k in $(seq 18); do cat multi.jsonl; done; fi
done > in8g.jsonl
ls -l in8g.jsonl; cat in8g.jsonl > /dev/null
GB=$(stat -c %s in8g.jsonl)
tok() { # bin device args...
    local bin=$1 dev=$2; shift 2
    $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device $dev "$@"
}

echo "== 1. zstd on real cl100k ids (tokref en_code, uint32, 1 MiB frames), best of 3"
tok winnow cpu --format bin -o en.bin en.jsonl
SPECS="1 -1 -3 -5 2 1,hlog=12 -3,lit=1"
$B/zstd_params 100277 en.bin 3 $SPECS
echo "-- the same, 16 processes at once (one per core); each one's rows:"
pids=
for i in $(seq 16); do $B/zstd_params 100277 en.bin 3 $SPECS > zp.$i & pids="$pids $!"; done
wait $pids # (a bare wait would wait for the tee of the log too)
for s in $SPECS; do
    grep -h "^| $s |" zp.* | awk -F'|' -v s="$s" '{c += $3; r = $5; n++} END {printf "| %s | 16 at once: %.2f CPU-s per GB of ids per process (mean of %d), %.0f MB/s per core, ratio %s |\n", s, c / n, n, 1000 / (c / n), r}'
done
rm -f zp.*
echo "-- the shard writer alone fed from memory (bench/shard_writer_bench), en_code's ids x8, lent, -j16 and -j8, twice each:"
for r in 1 2; do for j in 16 8; do
    rm -rf out.swb; WINNOW_SHARD_TIMES=1 $B/shard_writer_bench 100277 100257 en.bin out.swb $j 1 borrowed 8 2>&1
done; done
rm -rf out.swb

tk() { # tag bin runs args...: best wall of --device gpu -o DIR/
    local tag=$1 bin=$2 runs=$3; shift 3
    local best= all= t r w
    for r in $(seq $runs); do
        rm -rf "$W/out.$tag"
        t=$( { time timeout 120 $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device gpu -o "$W/out.$tag/" "$@" > /dev/null 2> err.$tag; } 2>&1 | tail -1)
        all="$all | $t, run total $(grep -o 'total [0-9.]*' err.$tag | cut -d' ' -f2)"
        w=${t%% *}
        [ -z "$best" ] || awk -v a=$w -v b=$best 'BEGIN{exit !(a<b)}' && best=$w
        grep -h "times\|library\|tokenize cpu\|shard writer" err.$tag | sed 's/^/    /'
    done
    echo "RUN $tag $bin: best $best s = $(awk -v b=$GB -v t=$best 'BEGIN{printf "%.2f GB/s", b/t/1e9}') (wall user sys$all); $(du -sb $W/out.$tag | cut -f1) bytes"
}
export WINNOW_TOKENIZE_TIMES=1 WINNOW_SHARD_TIMES=1 # the old build ignores the second
echo "== 2. 8.5 GB --device gpu -o shards/: this build and main's, alternating"
for r in $(seq $RUNS); do
    tk new winnow 1 in8g.jsonl; tk base winnow-base 1 in8g.jsonl
done
for lv in -1 -3; do tk "new-level$lv" winnow $RUNS2 --level $lv in8g.jsonl; rm -rf "out.new-level$lv"; done
echo "== 3. 8.5 GB --device gpu --format bin to /dev/null (no shards)"
t=$( { time tok winnow gpu --format bin -o - in8g.jsonl > /dev/null 2> err.bin; } 2>&1 | tail -1)
echo "RUN bin: $t (wall user sys)"; grep -h "times\|library" err.bin | sed 's/^/    /'
unset WINNOW_TOKENIZE_TIMES WINNOW_SHARD_TIMES
echo "== 4. identical shard directories"
if diff -rq out.new out.base > /dev/null; then echo "SAME shards new base"; else echo "DIFFERENT shards new base"; fi
rm -rf out.base
tok winnow cpu -o $W/out.cpu/ in8g.jsonl 2> /dev/null
if diff -rq out.new out.cpu > /dev/null; then echo "SAME shards gpu cpu"; else echo "DIFFERENT shards gpu cpu"; fi
$B/winnow shards verify out.new | tail -1
rm -rf out.*
echo "== done $(date -u)"
