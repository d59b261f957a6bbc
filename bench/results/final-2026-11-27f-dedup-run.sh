#!/bin/bash
# run.sh - the lead's second final call of 2026-11-27 (fourth session): bench/gpu_issue15.sh
# PART=dedup RUNS=3, then `winnow run -j16` on the first 20 long files of
# bench/dedup_unique_inputs.py, 3 runs alternating with winnow-base, shards compared, and the
# README's shell pipe; main e17aaf2 (i15w, i18m2) against 8e9c188 (the session's start).
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
PART=dedup RUNS=3 bash $D/gpu_issue15.sh > /dev/null 2>&1
W=/tmp/lastrun; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-run.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; TIMEFORMAT="%R %U %S"; export PATH=$B:$PATH
echo "== machine $(date -u)"; nproc; nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p shared/tokref; cp $D/en_code.txt.zst $D/en_code.idx.tsv shared/tokref/
SHARED=$W/shared python3 $D/dedup_unique_inputs.py long long 20 > /dev/null
echo "long20 bytes: $(cat long/*.jsonl | wc -c)"; cat long/* > /dev/null
echo "== winnow run -j16 (16 tasks), 20 long files"
printf 'input = %s/long/*.jsonl\nwork = %s/work\noutput = %s/shards-run\ntasks = 16\n[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $W $V > p.ini
for r in 1 2 3; do
    for b in winnow winnow-base; do
        rm -rf work shards-run; t=$( { time $B/$b run -q -j16 p.ini > /dev/null 2> err; } 2>&1 | tail -1); echo "run $b: $t"; head -2 err
        rm -rf shards-$b; mv shards-run shards-$b
    done
    rm -rf shards-pipe; t=$( { time sh -c "$B/winnow filter -q long/*.jsonl | $B/winnow dedup -q | $B/winnow tokenize -q --encoding cl100k_base --vocab $V --no-eos -o shards-pipe/"; } 2>&1 | tail -1); echo "shell pipe (new): $t"
done
if diff -rq shards-winnow shards-winnow-base > /dev/null; then echo "SAME shards of run, new and base"; else echo "DIFFERENT shards of run"; fi
$B/winnow shards verify shards-winnow
echo "== done $(date -u)"
