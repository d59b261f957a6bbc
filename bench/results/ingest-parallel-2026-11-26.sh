#!/bin/bash
# The script that ran on the GPU machine on 2026-11-26 for issue 20 (dist-gpu-i20/run.sh).
# Input as in issue 20 and h100-2026-11-26: 64 files, each 16 copies of 4 real WARCs gzip'd
# record by record (Common Crawl 2020 and 2024, ClueWeb09, iana.org), page cache warm.
# 1. `winnow ingest` of the 64 files, all cores: old (main 133c95d) and new, alternating;
#    outputs compared (old = new, new -j1 = new default).
# 1b. The 64 files concatenated into one per-record gzip WARC, old and new.
# 2. The README's shell pipe (ingest | filter | dedup | tokenize -o shards/) against
#    `winnow run` (16 tasks, every stage), new and old binary.
# 3. Each stage alone on stdin at 16 threads, fed the new ingest output 4 times over.
# 4. Some of the same with glibc malloc tunables that keep freed large blocks (sys time).
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=${WORKDIR:-/tmp/w}; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; V=$D/cl100k_base.tiktoken
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p pin
for c in $(seq 16); do cat $D/warc/iana.warc.gz $D/warc/clueweb-quirk.warc.gz $D/warc/warcfile.warc.gz $D/warc/whirlwind.warc.gz; done > pin/crawl-00.warc.gz
N=${FILES:-64}
for i in $(seq -w 1 $((N - 1))); do cp pin/crawl-00.warc.gz pin/crawl-$i.warc.gz; done
per=$(zcat pin/crawl-00.warc.gz | wc -c); bytes=$((per * N))
echo "WARC bytes: $bytes ($N x $per), gzip bytes: $(cat pin/* | wc -c)"
cat pin/* > /dev/null
# timed LABEL CMD...: runs CMD (stdout to /dev/null), prints LABEL wall user sys MB/s cores
timed() {
  local label=$1; shift
  local t; t=$( { time "$@" > /dev/null 2>$W/err ; } 2>&1 | tail -1 )
  echo "$label $t" | awk -v b=$bytes '{ printf "%-44s wall %6.2f user %6.2f sys %5.2f  %6.0f MB/s  %4.1f cores\n", $1, $2, $3, $4, b / 1e6 / $2, ($3 + $4) / $2 }'
  [ -s $W/err ] && head -3 $W/err
}
echo "== 1. winnow ingest of the $N files"
for r in 1 2; do
  timed ingest-old-default $B/winnow-old ingest -q -o ing.old.jsonl pin/
  timed ingest-new-default $B/winnow ingest -q -o ing.new.jsonl pin/
done
cmp ing.old.jsonl ing.new.jsonl && echo "same: ingest old == new ($(wc -c < ing.new.jsonl) bytes, $(wc -l < ing.new.jsonl) docs)"
timed ingest-new-j1 $B/winnow ingest -q -j1 -o ing.j1.jsonl pin/
cmp ing.j1.jsonl ing.new.jsonl && echo "same: ingest new -j1 == new default"
echo "== 1b. one file: the 64 files concatenated (one per-record gzip WARC of $(($(cat pin/* | wc -c) / 1000000)) MB)"
cat pin/* > one.warc.gz
timed one-file-old-default $B/winnow-old ingest -q -o one.old.jsonl one.warc.gz
timed one-file-new-default $B/winnow ingest -q -o one.new.jsonl one.warc.gz
cmp one.old.jsonl one.new.jsonl && echo "same: one file old == new"
rm -f one.warc.gz one.old.jsonl one.new.jsonl
echo "== 2. shell pipe vs winnow run (16 tasks)"
ini() { # tag
  printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\n' $W $W $1 $W $1
  printf '[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $V; }
pipe() { # bin tag
  $B/$1 ingest -q pin/* | $B/$1 filter -q | $B/$1 dedup -q | $B/$1 tokenize -q --encoding cl100k_base --vocab $V -o $W/$2/; }
for r in 1 2; do
  for bin in winnow winnow-old; do
    [ $r = 2 ] && [ $bin = winnow-old ] && continue
    rm -rf $W/run-$bin-work $W/run-$bin-out $W/pipe-$bin; ini run-$bin > run-$bin.ini
    timed run-$bin-j16 $B/$bin run -q -j16 run-$bin.ini
    timed pipe-$bin pipe $bin pipe-$bin
  done
done
grep -E '^(ingest|filter|dedup|tokenize|shard) ' $W/run-winnow-work/report.txt
cp $W/run-winnow-work/report.txt $O/report-run.txt
for d in run-winnow-out pipe-winnow pipe-winnow-old; do
  echo "$d: $(grep -o '"documents": *[0-9]*' $W/$d/manifest.json | head -1) $(grep -o '"tokens": *[0-9]*' $W/$d/manifest.json | head -1)"; done
echo "== 3. each stage alone on stdin, 16 threads (input: the new ingest output 4 times over)"
for i in 1 2 3 4; do cat ing.new.jsonl; done > docs4.jsonl
bytes=$(wc -c < docs4.jsonl); echo "JSONL bytes: $bytes"
timed cat-floor sh -c "cat docs4.jsonl | cat"
timed filter-stdin sh -c "cat docs4.jsonl | $B/winnow filter -q -j16"
timed dedup-stdin sh -c "cat docs4.jsonl | $B/winnow dedup -q -j16"
rm -rf $W/tok; timed tokenize-stdin-shards sh -c "cat docs4.jsonl | $B/winnow tokenize -q -j16 --encoding cl100k_base --vocab $V -o $W/tok/"
timed tokenize-stdin-jsonl sh -c "cat docs4.jsonl | $B/winnow tokenize -q -j16 --encoding cl100k_base --vocab $V"
timed ingest-stdin-jsonl sh -c "cat docs4.jsonl | $B/winnow ingest -q -j16"
echo "== 4. the same with glibc's malloc keeping freed blocks (no mmap/munmap per large buffer): where does sys time go?"
T=glibc.malloc.mmap_threshold=268435456:glibc.malloc.trim_threshold=1073741824
timed tokenize-stdin-jsonl-tunables env GLIBC_TUNABLES=$T sh -c "cat docs4.jsonl | $B/winnow tokenize -q -j16 --encoding cl100k_base --vocab $V"
timed dedup-stdin-tunables env GLIBC_TUNABLES=$T sh -c "cat docs4.jsonl | $B/winnow dedup -q -j16"
bytes=$((per * N))
timed ingest-new-default-tunables env GLIBC_TUNABLES=$T $B/winnow ingest -q -o ing.t.jsonl pin/
timed pipe-winnow-tunables env GLIBC_TUNABLES=$T bash -c "$(declare -f pipe); B=$B V=$V W=$W; pipe winnow pipe-t"
echo "== done $(date -u)"
