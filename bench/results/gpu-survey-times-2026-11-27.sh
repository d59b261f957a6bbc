#!/bin/bash
# where the fixed second of a mid-size --device gpu run goes (WINNOW_TOKENIZE_TIMES)
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/times; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-times.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
. $D/gpu_tokenize_inputs.sh
python3 $D/tokenize_tokref.py jsonl $D/en_code.txt.zst $D/en_code.idx.tsv 0 > en.jsonl
zstd -dcq $D/multi.jsonl.zst > multi.jsonl
for k in $(seq 8); do cat en.jsonl multi.jsonl multi.jsonl; done > in1g.jsonl
for k in $(seq 3); do cat in1g.jsonl; done > in3g.jsonl
for k in $(seq 9); do cat in1g.jsonl; done > in9g.jsonl
head -c 300000000 in1g.jsonl | sed '$d' > in300m.jsonl
ls -l in*.jsonl | awk '{print $5, $9}'
cat in*.jsonl > /dev/null
export WINNOW_TOKENIZE_TIMES=1
for f in in300m in1g in3g in9g in1g in3g; do
  echo "== $f gpu"
  { time $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - $f.jsonl > /dev/null; } 2>&1
done
echo "== in3g with strace -c -f"
command -v strace > /dev/null && strace -c -f -o $O/strace3g.txt $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in3g.jsonl > /dev/null 2>/dev/null; [ -f $O/strace3g.txt ] && head -25 $O/strace3g.txt
echo "== empty input gpu"
: > empty.jsonl; { time $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - empty.jsonl > /dev/null; } 2>&1
