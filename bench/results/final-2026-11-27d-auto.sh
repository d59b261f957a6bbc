#!/bin/bash
# run.sh - `--device auto` against `--device cpu` at 10 MB and 300 MB (bench/gpu_issue15.sh's inputs),
# 10 rounds, the order of the two flipped every round (auto first in odd rounds), to tell a
# position effect from a difference; main 9f5ba36. Under 1 GiB of sized input auto takes the
# CPU path before any CUDA call (tokenize_stage.c choose_blocks).
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/auto; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-auto.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; TIMEFORMAT="%R %U %S"; export PATH=$B:$PATH
echo "== machine $(date -u)"; nproc; nvidia-smi --query-gpu=name --format=csv,noheader
python3 $D/tokenize_tokref.py jsonl $D/en_code.txt.zst $D/en_code.idx.tsv 0 > en.jsonl; zstd -dcq $D/multi.jsonl.zst > multi.jsonl
head -c 10000000 en.jsonl | sed '$d' > in10m.jsonl
{ cat en.jsonl en.jsonl; for k in 1 2 3 4 5 6 7; do cat multi.jsonl; done; } > in300m.jsonl
ls -l in10m.jsonl in300m.jsonl | awk '{print $5, $9}'; cat *.jsonl > /dev/null
tok() { $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device $1 --format bin -o - $2 > /dev/null; }
for f in in10m in300m; do
    for r in $(seq 10); do
        if [ $((r % 2)) = 1 ]; then order="auto cpu"; else order="cpu auto"; fi
        for d in $order; do t=$( { time tok $d $f.jsonl; } 2>&1 | tail -1); echo "$f $d round $r: $t"; done
    done
done
echo "== done $(date -u)"
