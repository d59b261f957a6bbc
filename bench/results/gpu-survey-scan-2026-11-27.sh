#!/bin/bash
# the scan's page-table work on this host: mapped input prefaulted (MADV_POPULATE_READ) and
# dropped (MADV_DONTNEED) per block, against each left out (env knobs of an experiment build)
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/scan; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-scan.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; grep -m1 'model name' /proc/cpuinfo; uname -r; cat /sys/kernel/mm/transparent_hugepage/enabled
python3 $D/tokenize_tokref.py jsonl $D/en_code.txt.zst $D/en_code.idx.tsv 0 > en.jsonl
zstd -dcq $D/multi.jsonl.zst > multi.jsonl
for k in $(seq 8); do cat en.jsonl multi.jsonl multi.jsonl; done > in1g.jsonl
for k in $(seq 9); do cat in1g.jsonl; done > in9g.jsonl
cat in9g.jsonl > /dev/null
echo "cat: $( { time cat in9g.jsonl > /dev/null; } 2>&1 )"
export WINNOW_TOKENIZE_TIMES=1
run() { echo "-- $*"; { time env "$@" $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in9g.jsonl > /dev/null; } 2>&1 | grep -v "^gpu library\|^id ring\|clock"; }
for r in 1 2 3; do
  run X=1
  run NO_DROP=1
  run NO_POPULATE=1
  run NO_DROP=1 NO_POPULATE=1
done
