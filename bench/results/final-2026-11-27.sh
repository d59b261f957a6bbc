#!/bin/bash
# Device call 2 of the final bundle (2026-11-27): main with tokenize's deferred GPU start for
# streams. ing.sh = bench/results/ingest-pipe-2026-11-26.sh (new = this main, old = 0938881);
# then a 2.2 GB stream on stdin (tokref en_code x26) to --format bin, auto vs cpu, compared, with
# the GPU's start time; and the pipe's tokenize alone with WINNOW_TOKENIZE_TIMES (no GPU start).
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}
mkdir -p $O/ing
OUT=$O/ing WORKDIR=/tmp/wi bash $D/ing.sh 2>&1 | tail -n 28
W=/tmp/ws; rm -rf $W; mkdir -p $W/bin; cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; V=$D/cl100k_base.tiktoken
$B/zstd -dcq $D/en_code.jsonl.zst > en.jsonl
for k in $(seq 26); do cat en.jsonl; done > big.jsonl; ls -l big.jsonl; cat big.jsonl > /dev/null
TIMEFORMAT='%R %U %S'
echo "== 2.2 GB on stdin to --format bin (wall user sys)"
for r in 1 2; do
  t=$( { time WINNOW_TOKENIZE_TIMES=1 $B/winnow tokenize -q --encoding cl100k_base --vocab $V --format bin -o auto.bin < big.jsonl 2> times.txt; } 2>&1 | tail -1); echo "stdin auto: $t"; grep "tokenize times" times.txt
done
t=$( { time $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin -o cpu.bin big.jsonl; } 2>&1 | tail -1); echo "file cpu: $t"
t=$( { time $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o gpu.bin big.jsonl; } 2>&1 | tail -1); echo "file gpu: $t"
cmp auto.bin cpu.bin && echo "SAME stdin auto == file cpu"
echo "== a short stream (the end of a filtering pipe): 40 documents on stdin"
head -40 en.jsonl > small.jsonl
t=$( { time WINNOW_TOKENIZE_TIMES=1 $B/winnow tokenize -q --encoding cl100k_base --vocab $V -o sh/ < small.jsonl 2> times.txt; } 2>&1 | tail -1); echo "stdin auto, 40 docs: $t"; grep "tokenize times" times.txt
echo "== done $(date -u)"
