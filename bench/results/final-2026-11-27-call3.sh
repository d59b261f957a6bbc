#!/bin/bash
# auto against cpu (and gpu) by input size, to stdout (> /dev/null) and to -o FILE (fsync'd),
# cl100k_base --format bin; inputs: tokref en_code + multi JSONL repeated; best of 2 each.
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/wa; rm -rf $W; mkdir -p $W/bin; cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken
$B/zstd -dcq $D/en_code.jsonl.zst > en.jsonl; $B/zstd -dcq $D/multi.jsonl.zst > multi.jsonl
head -c 10000000 en.jsonl | head -n -1 > s10m.jsonl
for k in 1 2 3; do cat en.jsonl multi.jsonl; done | head -c 300000000 | head -n -1 > s300m.jsonl
for k in $(seq 10); do cat en.jsonl multi.jsonl; done > s1g.jsonl
for k in $(seq 22); do cat en.jsonl multi.jsonl; done > s2g.jsonl
for k in $(seq 80); do cat en.jsonl multi.jsonl; done > s8g.jsonl
ls -l s*.jsonl | awk '{print $5, $9}'; cat s*.jsonl > /dev/null
TIMEFORMAT='%R'
best() { local b=999 t; for r in 1 2; do rm -f out.bin; t=$( { time "$@" > /dev/null 2>&1; } 2>&1 | tail -1); b=$(awk -v a=$t -v b=$b 'BEGIN{print (a<b)?a:b}'); done; echo $b; }
for f in s10m s300m s1g s2g s8g; do
  for dev in cpu auto gpu; do
    a=$(best $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device $dev --format bin $f.jsonl -o -)
    b=$(best $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device $dev --format bin $f.jsonl -o out.bin)
    echo "$f $dev stdout $a file $b"
  done
done
echo "== done $(date -u)"
