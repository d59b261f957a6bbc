#!/bin/bash
# run.sh - the lead's last device call of 2026-11-27 (third session): main 96060ae (after i15rep's
# filter and i15chk's GPU verdict) against 5da6e2c (the session's start), alternating: tokenize
# 8.5 GB of JSONL (bench/gpu_issue15.sh's input) to --format bin on stdout, 5 runs each, new's bin
# against --device cpu's; `winnow run -j16` on the first 20 long files of
# bench/dedup_unique_inputs.py (bench/gpu_issue15.sh's PART=dedup pipeline file), 3 runs each,
# shards compared, and the README's shell pipe.
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/last; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-last.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; TIMEFORMAT="%R %U %S"; export PATH=$B:$PATH
echo "== machine $(date -u)"; nproc; nvidia-smi --query-gpu=name --format=csv,noheader
$B/gpu_bandwidth | grep "16 threads"
python3 $D/tokenize_tokref.py jsonl $D/en_code.txt.zst $D/en_code.idx.tsv 0 > en.jsonl; zstd -dcq $D/multi.jsonl.zst > multi.jsonl
for i in $(seq 0 15); do for k in $(seq 9); do if [ $i -lt 8 ]; then cat en.jsonl; else cat multi.jsonl multi.jsonl; fi; done; done > in8g.jsonl
mkdir -p shared/tokref; cp $D/en_code.txt.zst $D/en_code.idx.tsv shared/tokref/
SHARED=$W/shared python3 $D/dedup_unique_inputs.py long long 20 > /dev/null
ls -l in8g.jsonl | awk '{print $5}'; echo "long20 bytes: $(cat long/*.jsonl | wc -c)"; cat in8g.jsonl long/* > /dev/null
echo "== tokenize 8.5 GB to bin on stdout"
for r in 1 2 3 4 5; do
    for b in winnow winnow-base; do
        t=$( { time $B/$b tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl > /dev/null 2> err; } 2>&1 | tail -1)
        echo "$b: $t"; head -2 err
    done
done
$B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl | cmp - <($B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin -o - in8g.jsonl) && echo "SAME gpu bin and cpu bin"
rm -f in8g.jsonl
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
