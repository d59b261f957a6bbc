#!/bin/bash
# multi-gpu-2026-11-27.sh - issue 15's "uses every visible GPU" on a machine
# with two GPUs (one 300 s device call): the same winnow with
# CUDA_VISIBLE_DEVICES=0 (one GPU) and with it unset (both), runs
# alternating, files in the page cache, wall/user/sys seconds and the
# command's phase times (WINNOW_TOKENIZE_TIMES=1):
#   * tokenize --device gpu --format bin > /dev/null on ~8.5 GB of JSONL
#     (tokref en_code x72 + multi x144, as docs/gpu_tokenize.md's runs);
#   * dedup --device gpu -o /dev/null on ~5.4 GB of unique long documents
#     (bench/dedup_unique_inputs.py long, 52 copies of en_code);
#   * exactness: tokenize's 8.5 GB bin streams of 2 GPUs and 1 GPU compared,
#     and on ~1.1 GB 2 GPUs / 1 GPU / --device cpu; dedup's output on ~1 GB
#     (10 of the parts) the same three ways;
#   * tests/unit/gpu_bpe_exact (every tokref document, vectors, adversarial
#     input against the CPU path) with both GPUs visible, if time is left.
# (DOCS=200 TOK_COPIES=1 DEDUP_COPIES=1 OUT=/tmp/x: a small smoke run of the script.)
# Bundle: sh scripts/gpu_multi_bundle.sh /work/main/dist-gpu-i15m; run
# `bash dist-gpu-i15m/multi-gpu-2026-11-27.sh` with carry ["dist-gpu-i15m"].
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/mg; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; S=$D/shared; V=$S/vocab/tiktoken/cl100k_base.tiktoken
export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
one() { env CUDA_VISIBLE_DEVICES=0 "$@"; }
two() { env -u CUDA_VISIBLE_DEVICES "$@"; }
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
echo "CUDA_VISIBLE_DEVICES at start: '${CUDA_VISIBLE_DEVICES-unset}'"
nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

echo "== inputs ($SECONDS s)"
python3 $D/tokenize_tokref.py jsonl $S/tokref/en_code.txt.zst $S/tokref/en_code.idx.tsv ${DOCS:-0} > en.jsonl & pids=$!
python3 $D/tokenize_tokref.py jsonl $S/tokref/multi.txt.zst $S/tokref/multi.idx.tsv ${DOCS:-0} > multi.jsonl & pids="$pids $!"
SHARED=$S python3 $D/dedup_unique_inputs.py long long ${DEDUP_COPIES:-52} > /dev/null & pids="$pids $!"
wait $pids # (a bare wait would wait for the log's tee too)
mkdir -p parts
for i in $(seq 0 15); do # en_code x9 (parts 0-7) or multi x18 (8-15): 8.5 GB in all
    n=${TOK_COPIES:-9}
    if [ $i -lt 8 ]; then for k in $(seq $n); do cat en.jsonl; done; else for k in $(seq $((2 * n))); do cat multi.jsonl; done; fi > parts/p$i.jsonl
done
cat parts/p*.jsonl > in8g.jsonl; rm -f parts/p[1-79].jsonl parts/p1[0-5].jsonl
ls -l in8g.jsonl parts; du -sh long; ls long | wc -l
cat in8g.jsonl long/*.jsonl parts/*.jsonl > /dev/null
echo "inputs ready at $SECONDS s"

tk() { # tag runner args...: one tokenize run to stdout > /dev/null
    local tag=$1 runner=$2; shift 2
    local t=$( { time $runner env WINNOW_TOKENIZE_TIMES=1 $B/winnow tokenize -q --encoding cl100k_base --vocab $V \
        --format bin "$@" > /dev/null 2> err.txt; } 2>&1 | tail -1)
    echo "RUN tokenize $tag: $t"
    grep -h "times\|library\|cpu (s)" err.txt
    grep -v "times\|library\|cpu (s)" err.txt | head -3
}
dp() { # tag runner args...: one dedup run
    local tag=$1 runner=$2; shift 2
    local t=$( { time $runner $B/winnow dedup -q "$@" 2> err.txt; } 2>&1 | tail -1)
    echo "RUN dedup $tag: $t"
    head -3 err.txt
}
same() { if cmp -s "$1" "$2"; then echo "SAME $3"; else echo "DIFFERENT $3"; fi; }

echo "== tokenize 8.5 GB --device gpu --format bin: 1 GPU / 2 GPUs alternating (wall user sys)"
for r in 1 2; do
    tk "1-gpu" one --device gpu in8g.jsonl
    tk "2-gpu" two --device gpu in8g.jsonl
done
echo "== tokenize exactness ($SECONDS s)"
# each side's exit status and byte count go to its file, so that two failed (empty) runs do not look alike
if cmp <(two $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin in8g.jsonl 2> e2.txt |
         tee >(wc -c > n2.txt); echo "2 GPUs exit ${PIPESTATUS[0]}" >> e2.txt) \
       <(one $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin in8g.jsonl 2> e1.txt |
         tee >(wc -c > n1.txt); echo "1 GPU exit ${PIPESTATUS[0]}" >> e1.txt); then
    echo "SAME tokenize 8.5 GB bin: 2 GPUs == 1 GPU"; else echo "DIFFERENT tokenize 8.5 GB bin: 2 GPUs vs 1 GPU"; fi
sleep 1; echo "bytes: $(cat n2.txt) (2 GPUs) $(cat n1.txt) (1 GPU)"; cat e2.txt e1.txt | head -6
two $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin parts/p0.jsonl parts/p8.jsonl > t2.bin
one $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin parts/p0.jsonl parts/p8.jsonl > t1.bin
$B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin parts/p0.jsonl parts/p8.jsonl > tc.bin
ls -l parts/p0.jsonl parts/p8.jsonl t2.bin t1.bin tc.bin
same t2.bin tc.bin "tokenize 1.1 GB bin: 2 GPUs == cpu"
same t1.bin tc.bin "tokenize 1.1 GB bin: 1 GPU == cpu"
rm -f t2.bin t1.bin tc.bin
tk "1-gpu 1.1 GB" one --device gpu parts/p0.jsonl parts/p8.jsonl
tk "2-gpu 1.1 GB" two --device gpu parts/p0.jsonl parts/p8.jsonl

echo "== dedup 5.4 GB unique long documents --device gpu -o /dev/null: 1 GPU / 2 GPUs alternating ($SECONDS s)"
for r in 1 2; do
    dp "1-gpu" one --device gpu long/*.jsonl -o /dev/null
    dp "2-gpu" two --device gpu long/*.jsonl -o /dev/null
done
dp "cpu" two --device cpu long/*.jsonl -o /dev/null
echo "== dedup exactness, 10 parts ($SECONDS s)"
L10=$(ls long/*.jsonl | head -10); du -ch $L10 | tail -1
dp "2-gpu 10 parts" two --device gpu $L10 -o d2.jsonl
dp "1-gpu 10 parts" one --device gpu $L10 -o d1.jsonl
dp "cpu 10 parts" two --device cpu $L10 -o dc.jsonl
ls -l d2.jsonl d1.jsonl dc.jsonl
same d2.jsonl dc.jsonl "dedup 10 parts: 2 GPUs == cpu"
same d1.jsonl dc.jsonl "dedup 10 parts: 1 GPU == cpu"
rm -f d2.jsonl d1.jsonl dc.jsonl

left=$((285 - SECONDS))
echo "== gpu_bpe_exact with both GPUs visible ($SECONDS s; ${left} s left)"
if [ $left -gt 20 ]; then
    SHARED=$S timeout $left $B/gpu_bpe_exact > exact.txt 2>&1
    echo "rc $?: $(grep -c '^ok' exact.txt) ok, $(grep -c '^not ok' exact.txt) not ok"; grep "^not ok" exact.txt | head -5; tail -2 exact.txt
fi
echo "== done $(date -u) ($SECONDS s)"
