#!/bin/bash
# GPU machine script for issue 20, second round (branch i20p; dist-gpu-i20p/run.sh).
# new = i20p (several files split at once by several reader threads), old = main at 0938881.
# Input as in ingest-parallel-2026-11-26: 64 files, each 16 copies of 4 real WARCs gzip'd
# record by record (Common Crawl 2020 and 2024, ClueWeb09, iana.org), page cache warm.
# 1. `winnow ingest -o FILE` of the 64 files, default -j (all cores): old and new alternating,
#    3 runs each (best of 3 in the summary); new -j1; outputs cmp'd (old = new = new -j1).
# 2. Where the CPU went, by thread name (bench/thread_cpu.py): new and old, 64 files.
# 3. One file: the 64 concatenated (1.2 GB per-record gzip): one reader; old and new.
# 4. The README's shell pipe against `winnow run -j16` (16 tasks, every stage): new 3 runs
#    each, old once each; shard manifests' counts.
# 5. Each stage alone on stdin at 16 threads (the new ingest output 4 times over).
# Summary: best wall per label, MB/s of WARC, and the pipe's share of the run's throughput.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=${WORKDIR:-/tmp/w}; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; V=$D/cl100k_base.tiktoken; T=$O/times.txt; : > $T
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name --format=csv,noheader
lscpu | grep -E "^(Thread|Core|Socket|CPU\(s\)|Model name)"
mkdir -p pin
for c in $(seq 16); do cat $D/warc/iana.warc.gz $D/warc/clueweb-quirk.warc.gz $D/warc/warcfile.warc.gz $D/warc/whirlwind.warc.gz; done > pin/crawl-00.warc.gz
N=${FILES:-64}
for i in $(seq -w 1 $((N - 1))); do cp pin/crawl-00.warc.gz pin/crawl-$i.warc.gz; done
per=$(zcat pin/crawl-00.warc.gz | wc -c); warc=$((per * N)); bytes=$warc
echo "WARC bytes: $warc ($N x $per), gzip bytes: $(cat pin/* | wc -c)"
cat pin/* > /dev/null
# timed LABEL CMD...: runs CMD (stdout to /dev/null), prints and records LABEL wall user sys MB/s cores
timed() {
  local label=$1; shift
  local t; t=$( { time "$@" > /dev/null 2>$W/err ; } 2>&1 | tail -1 )
  echo "$label $t" | awk -v b=$bytes '{ printf "%-34s wall %6.2f user %6.2f sys %5.2f  %6.0f MB/s  %4.1f cores\n", $1, $2, $3, $4, b / 1e6 / $2, ($3 + $4) / $2 }' | tee -a $T
  [ -s $W/err ] && head -3 $W/err
}
same() { if cmp -s "$1" "$2"; then echo "   same: $3 ($(wc -c < "$1") bytes, $(wc -l < "$1") lines)"; else echo "   DIFFERS: $3"; fi; }

echo "== 1. winnow ingest -o FILE of the $N files, default -j"
for r in 1 2 3; do
  timed ingest-files-old $B/winnow-old ingest -q -o ing.old.jsonl pin/
  timed ingest-files-new $B/winnow ingest -q -o ing.new.jsonl pin/
done
same ing.old.jsonl ing.new.jsonl "ingest old == new"
timed ingest-files-new-j1 $B/winnow ingest -q -j1 -o ing.j1.jsonl pin/
same ing.j1.jsonl ing.new.jsonl "ingest new -j1 == new default"
rm -f ing.j1.jsonl ing.old.jsonl

echo "== 2. CPU by thread name (polled every 20 ms), 64 files"
python3 $D/thread_cpu.py $B/winnow ingest -q -o x.jsonl pin/
python3 $D/thread_cpu.py $B/winnow-old ingest -q -o x.jsonl pin/
rm -f x.jsonl

echo "== 3. one file: the $N concatenated ($(($(cat pin/* | wc -c) / 1000000)) MB per-record gzip)"
cat pin/* > one.warc.gz
timed one-file-old $B/winnow-old ingest -q -o one.old.jsonl one.warc.gz
timed one-file-new $B/winnow ingest -q -o one.new.jsonl one.warc.gz
timed one-file-new $B/winnow ingest -q -o one.new.jsonl one.warc.gz
same one.old.jsonl one.new.jsonl "one file old == new"
python3 $D/thread_cpu.py $B/winnow ingest -q -o one.new.jsonl one.warc.gz
rm -f one.warc.gz one.old.jsonl one.new.jsonl

echo "== 4. the shell pipe against winnow run -j16 (16 tasks)"
ini() { # tag
  printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\n' $W $W $1 $W $1
  printf '[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $V; }
pipe() { # bin tag
  $B/$1 ingest -q pin/* | $B/$1 filter -q | $B/$1 dedup -q | $B/$1 tokenize -q --encoding cl100k_base --vocab $V -o $W/$2/; }
for r in 1 2 3; do
  for bin in winnow winnow-old; do
    [ $r != 1 ] && [ $bin = winnow-old ] && continue
    tag=${bin#winnow}; tag=${tag:--new}
    rm -rf $W/run-$bin-work $W/run-$bin-out $W/pipe-$bin; ini run-$bin > run-$bin.ini
    timed run-j16$tag $B/$bin run -q -j16 run-$bin.ini
    timed pipe$tag pipe $bin pipe-$bin
  done
done
grep -E '^(ingest|filter|dedup|tokenize|shard) ' $W/run-winnow-work/report.txt
for d in run-winnow-out pipe-winnow run-winnow-old-out pipe-winnow-old; do
  echo "$d: $(grep -o '"documents": *[0-9]*' $W/$d/manifest.json | head -1) $(grep -o '"tokens": *[0-9]*' $W/$d/manifest.json | head -1)"; done

echo "== 5. each stage alone on stdin, 16 threads (input: the new ingest output 4 times over)"
for i in 1 2 3 4; do cat ing.new.jsonl; done > docs4.jsonl
bytes=$(wc -c < docs4.jsonl); echo "JSONL bytes: $bytes (MB/s below are of JSONL)"
timed stdin-cat-floor sh -c "cat docs4.jsonl | cat"
timed stdin-filter sh -c "cat docs4.jsonl | $B/winnow filter -q -j16"
timed stdin-dedup sh -c "cat docs4.jsonl | $B/winnow dedup -q -j16"
rm -rf $W/tok; timed stdin-tokenize-shards sh -c "cat docs4.jsonl | $B/winnow tokenize -q -j16 --encoding cl100k_base --vocab $V -o $W/tok/"
timed stdin-tokenize-jsonl sh -c "cat docs4.jsonl | $B/winnow tokenize -q -j16 --encoding cl100k_base --vocab $V"
timed stdin-ingest-jsonl sh -c "cat docs4.jsonl | $B/winnow ingest -q -j16"

echo "== summary: best wall of each label (MB/s of WARC; section 5: of JSONL)"
awk '{ w = $3 + 0; if (!($1 in best) || w < best[$1]) { best[$1] = w; line[$1] = $0 } } END { for (k in line) print line[k] }' $T | sort
awk '$1 == "run-j16-new" && (!r || $3 < r) { r = $3 } $1 == "pipe-new" && (!p || $3 < p) { p = $3 }
     $1 == "run-j16-old" { ro = $3 } $1 == "pipe-old" { po = $3 }
     END { printf "pipe / run throughput, best of 3: new %.1f%%; old (one run each) %.1f%%\n", 100 * r / p, 100 * ro / po }' $T
echo "== done $(date -u)"
