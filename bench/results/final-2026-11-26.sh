#!/bin/bash
# Final call of 2026-11-26 on the GPU machine: main after every merge (issues
# 15-22) against 3ac3df9 (i15d's measured build, "prev"): dedup on unique
# documents with the no-wait partitioned index, and the JSONL pipeline
# (filter -> dedup -> tokenize -> shard) as winnow run and as the shell pipe.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; t=$( { time "$@" ; } 2>&1 | tail -1); echo "$tag: $t"; }
same() { if cmp -s "$1" "$2"; then echo "   same: $3"; else echo "   DIFFERS: $3"; fi; }
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "dedup_stream (3ac3df9's test): $(SHARED=$S $B/dedup_stream 2>/dev/null | grep -c '^ok') ok"
run "make long inputs (20 files)" env SHARED=$S python3 $D/dedup_unique_inputs.py long long 20
run "make short inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py short short.jsonl 2000000
echo "long bytes: $(cat long/*.jsonl | wc -c)  short bytes: $(wc -c < short.jsonl)"
cat long/*.jsonl short.jsonl > /dev/null
echo "== dedup: wall user sys"
run "prev short gpu" $B/winnow-prev dedup -q -j16 --device gpu short.jsonl -o S.ref
for r in 1 2; do run "new short gpu" $B/winnow dedup -q -j16 --device gpu short.jsonl -o S.out; done
same S.out S.ref "short: new == prev"
run "prev long gpu -o /dev/null" $B/winnow-prev dedup -q -j16 --device gpu long/*.jsonl -o /dev/null
for r in 1 2; do run "new long gpu -o /dev/null" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o /dev/null; done
run "new long gpu -o file" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o L.out
run "prev long gpu -o file" $B/winnow-prev dedup -q -j16 --device gpu long/*.jsonl -o L.ref
same L.out L.ref "long: new == prev"
rm -f S.out S.ref L.out L.ref
echo "== JSONL pipeline, filter -> dedup -> tokenize -> shard: wall user sys"
printf 'input = %s/long/*.jsonl\nwork = %s/work\noutput = %s/shards-run\ntasks = 16\n[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $W $D > p.ini
for r in 1 2; do rm -rf work shards-run; run "winnow run -j16 (16 tasks)" $B/winnow run -q -j16 p.ini; done
grep -E '^(winnow|filter|dedup|tokenize|shard) ' work/report.txt | head -8
run "the shell pipe" sh -c "$B/winnow filter -q long/*.jsonl | $B/winnow dedup -q | $B/winnow tokenize -q --encoding cl100k_base --vocab $D/cl100k_base.tiktoken --no-eos -o shards-pipe/"
$B/winnow shards verify shards-run; $B/winnow shards verify shards-pipe
echo "== done $(date -u)"
