#!/bin/bash
# gpu_tokenize_ab.sh - the device bench of `winnow tokenize --device gpu` on
# 8.5 GB of JSONL, one build against another in the same call (issue 15).
# Runs on the GPU machine from a bundle made by
# scripts/gpu_tokenize_ab_bundle.sh: bin.tar.xz (winnow = this build,
# winnow-old = the build to compare with, any winnow-NAME variants, zstd and
# their libraries), tokref en_code and multi as JSONL (zstd -19), the
# cl100k_base vocabulary, this script. Input: en_code x72 + multi x144 (8.5
# GB, as every 8.5 GB figure of docs/gpu_tokenize.md since 2026-11-26), in
# the page cache. Measures, wall seconds, runs alternating between the
# builds so that the machine's drift hits them alike:
#   --format bin to stdout (> /dev/null), RUNS runs per build;
#   --format bin -o FILE, FILE_RUNS runs per build (the file removed after each);
#   with SHARDS=1, -o shards/ once per build; with ZST=1, the 8.5 GB as 16
#   .jsonl.zst files once (this build).
# Each run prints WINNOW_TOKENIZE_TIMES's phases (scanner, main, writer,
# finish, the GPU library's) and its user and system seconds. Checks: this
# build's GPU bin stream identical to its CPU bin (cmp), each build's -o FILE
# identical to it, shards (diff -r) and .zst runs likewise; -o FILE, --stats
# and a missing input: the same exit status (2), file and statistics (but
# seconds) on GPU and CPU. Also, where the bundle has them, bench/json_scan
# (json_scan, json_scan-old) on en_code and multi, one thread; and the fixed
# costs: each build on one document, --device gpu and cpu. Fits in one 300 s
# device call with the defaults.
# Writes log.txt under $OUT; the last lines are a table of best walls.
#   usage: bash DIR/gpu_tokenize_ab.sh   (RUNS=3 FILE_RUNS=2 SHARDS=0 ZST=0;
#   EN_COPIES=72 MULTI_COPIES=144 make the input)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/tab; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken
RUNS=${RUNS:-3}; FILE_RUNS=${FILE_RUNS:-2}
BUILDS="winnow winnow-old $(cd $B && ls winnow-* 2>/dev/null | grep -vx winnow-old | tr '\n' ' ')"
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2; uname -r
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "builds: $BUILDS"

$B/zstd -dcq $D/en_code.jsonl.zst > en.jsonl; $B/zstd -dcq $D/multi.jsonl.zst > multi.jsonl
for k in $(seq ${EN_COPIES:-72}); do cat en.jsonl; done > in8g.jsonl
for k in $(seq ${MULTI_COPIES:-144}); do cat multi.jsonl; done >> in8g.jsonl
for k in $(seq 9); do cat en.jsonl; done > p0.jsonl   # parts of the 8.5 GB for the -o FILE / --stats check
for k in $(seq 18); do cat multi.jsonl; done > p8.jsonl
if [ "${ZST:-0}" = 1 ]; then
    mkdir -p zst; pids=
    for i in $(seq 0 15); do
        # two-digit names: zst/* lists them in in8g.jsonl's order (en_code, then multi) in any
        # locale (p1 p10 p2 sorts differently in C and in UTF-8 collation)
        { if [ $i -lt 8 ]; then cat p0.jsonl; else cat p8.jsonl; fi; } | $B/zstd -q -3 -T1 -c > zst/p$(printf %02d $i).jsonl.zst & pids="$pids $!"
    done
    wait $pids # (a bare wait would wait for the tee of the log too)
fi
ls -l in8g.jsonl; date -u
cat in8g.jsonl > /dev/null
GB=$(stat -c %s in8g.jsonl)

tok() { # bin device args...: the command, statistics quiet
    local bin=$1 dev=$2; shift 2
    $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device $dev "$@"
}
run() { # tag bin output input...: one timed --device gpu run; output is -, FILE or DIR/
    local tag=$1 bin=$2 out=$3; shift 3
    local fmt=(--format bin) t w rc
    case $out in */) fmt=() ;; esac
    rm -rf "$W/out.file" "$W/out.dir"
    { time timeout 120 $B/$bin tokenize -q --encoding cl100k_base --vocab $V --device gpu "${fmt[@]}" -o "$out" "$@" > /dev/null 2> err.$tag; } 2> time.$tag
    rc=$?
    t=$(tail -1 time.$tag); w=${t%% *}
    if [ $rc = 0 ]; then echo "$tag $w" >> $W/walls; else echo "FAILED $tag: exit status $rc"; fi
    echo "RUN $tag: $w s = $(awk -v b=$GB -v t=$w 'BEGIN{printf "%.2f GB/s", b/t/1e9}') (wall user sys: $t)"
    grep -h "times\|library\|tokenize cpu" err.$tag
    grep -v "times\|library\|tokenize cpu" err.$tag | head -3
}
best() { # tag prefix: the best wall of the runs tagged prefix-*
    awk -v p="^$1-" -v b=$GB '$1 ~ p && (best == "" || $2 < best) {best = $2} END {if (best != "") printf "%s s = %.2f GB/s", best, b / best / 1e9; else printf "-"}' $W/walls
}
export WINNOW_TOKENIZE_TIMES=1

if [ -x $B/json_scan ]; then
    echo "== JSON scan, one thread, CPU-seconds per GB (bench/json_scan; json_scan-old: the build compared with)"
    for f in en.jsonl multi.jsonl; do for j in $B/json_scan*; do $j $f 5 2> /dev/null | sed "s|^|$(basename $j) |"; done; done
fi
echo "== fixed costs: one document, wall seconds of 3 runs each (start, CUDA start and exit, no data)"
head -n 1 multi.jsonl > one.jsonl
for b in $BUILDS; do for dev in gpu cpu; do
    printf '%s --device %s:' $b $dev
    for r in 1 2 3; do { time tok $b $dev --format bin -o - one.jsonl > /dev/null 2>&1; } 2> time.one; printf ' %s' "$(tail -1 time.one | cut -d' ' -f1)"; done; echo
done; done

echo "== exactness: 8.5 GB --format bin, this build on the GPU against the CPU"
t=$( { time tok winnow cpu --format bin -o - in8g.jsonl > cpu.bin 2> /dev/null; } 2>&1 | tail -1)
echo "RUN cpu-bin winnow --device cpu: ${t%% *} s (wall user sys: $t)"
if cmp <(tok winnow gpu --format bin -o - in8g.jsonl 2> /dev/null) cpu.bin; then
    echo "SAME bin gpu cpu 8.5 GB"; else echo "DIFFERENT bin gpu cpu 8.5 GB"; fi

echo "== 8.5 GB to --format bin on stdout (> /dev/null), alternating"
for r in $(seq $RUNS); do for b in $BUILDS; do run $b-stdout-$r $b - in8g.jsonl; done; done

echo "== 8.5 GB to --format bin -o FILE, alternating; each file compared with the CPU's"
for r in $(seq $FILE_RUNS); do for b in $BUILDS; do
    run $b-file-$r $b $W/out.file in8g.jsonl
    if cmp -s $W/out.file cpu.bin; then echo "SAME -o FILE $b cpu"; else echo "DIFFERENT -o FILE $b cpu"; fi
done; done
rm -f $W/out.file

if [ "${SHARDS:-0}" = 1 ]; then
    echo "== 8.5 GB to -o shards/"
    tok winnow cpu -o $W/cpu.shards/ in8g.jsonl 2> /dev/null
    for b in $BUILDS; do
        run $b-shards-1 $b $W/out.dir/ in8g.jsonl
        if diff -rq $W/out.dir $W/cpu.shards > /dev/null; then echo "SAME shards $b cpu"; else echo "DIFFERENT shards $b cpu"; fi
    done
    rm -rf $W/out.dir $W/cpu.shards
fi
if [ "${ZST:-0}" = 1 ]; then
    echo "== the 8.5 GB as 16 .jsonl.zst to --format bin"
    run winnow-zst-1 winnow - zst/*
    if cmp <(tok winnow gpu --format bin -o - zst/* 2> /dev/null) cpu.bin; then
        echo "SAME bin gpu-zst cpu-plain"; else echo "DIFFERENT bin gpu-zst cpu-plain"; fi
fi
rm -f cpu.bin

echo "== -o FILE, --stats, a missing input: exit status, file and statistics as on the CPU"
unset WINNOW_TOKENIZE_TIMES
for dev in gpu cpu; do
    tok winnow $dev --format bin -o $W/f.$dev.bin --stats $W/s.$dev.json p0.jsonl missing.jsonl p8.jsonl 2> err.$dev
    echo "rc $dev $?: $(cat err.$dev)"
done
if cmp f.gpu.bin f.cpu.bin && diff <(grep -v seconds s.gpu.json) <(grep -v seconds s.cpu.json); then
    echo "SAME -o FILE and --stats gpu cpu ($(stat -c %s f.gpu.bin) bytes)"; else echo "DIFFERENT -o FILE or --stats gpu cpu"; fi

echo "== best walls, 8.5 GB ($GB bytes) $(date -u)"
printf '%-16s %-26s %-26s\n' build "bin to stdout" "bin -o FILE"
for b in $BUILDS; do printf '%-16s %-26s %-26s\n' $b "$(best $b-stdout)" "$(best $b-file)"; done
