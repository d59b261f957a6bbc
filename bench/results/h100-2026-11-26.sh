#!/bin/bash
# The script that ran on the GPU machine on 2026-11-26, call D (dist-gpu-d/run.sh).
# Call D of 2026-11-26 on the GPU machine (asked for as nvidia-h100-x1): the
# final main (own HTML parser, lazier pipeline steps) against 6ca8488 (base):
# ingest per core, and the whole pipeline (64 files x 16 copies of 4 real
# WARCs, 16 tasks) with and without dedup, same call.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; V=$D/vocab
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p pin
for c in $(seq 16); do cat $D/warc/*.warc.gz; done > pin/crawl-0.warc.gz
echo "WARC bytes per file: $(zcat pin/crawl-0.warc.gz | wc -c)"
echo "== ingest -j1 one file: wall user sys"
for r in 1 2 3; do for bin in winnow-base winnow; do
  t=$( { time $B/$bin ingest -q -j1 pin/crawl-0.warc.gz > ing.$bin ; } 2>&1 | tail -1); echo "ingest $bin -j1 $t"; done; done
wc -l ing.winnow-base ing.winnow
for i in $(seq 1 63); do cp pin/crawl-0.warc.gz pin/crawl-$i.warc.gz; done
echo "WARC bytes: $(( $(zcat pin/crawl-0.warc.gz | wc -c) * 64 ))"
echo "== pipeline 16 tasks: wall user sys"
run() { # bin device dedup(yes|no) tag
  rm -rf $W/$4-work $W/$4-out
  { printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n' $W $W $4 $W $4
    if [ "$3" = yes ]; then printf '[dedup]\ndevice = %s\n' $2; fi
    printf '[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\ndevice = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $V $2; } > p-$4.ini
  t=$( { time $B/$1 run -q -j16 p-$4.ini ; } 2>&1 | tail -1); echo "pipeline $1 $2 dedup=$3 $t"
  cp $W/$4-work/report.txt $O/report-$4.txt; grep -E '^(winnow|ingest|filter|dedup|tokenize|shard) ' $W/$4-work/report.txt
}
for r in 1 2; do run winnow-base cpu yes base-cpu; run winnow cpu yes new-cpu; done
run winnow auto yes new-auto
diff -r new-cpu-out new-auto-out > /dev/null && echo "same: pipeline shards new cpu == auto"
run winnow-base cpu no base-nodedup
run winnow cpu no new-nodedup
run winnow auto no new-nodedup-auto
diff -r new-nodedup-out new-nodedup-auto-out > /dev/null && echo "same: no-dedup shards cpu == auto"
echo "== done $(date -u)"

# ---- call E (dist-gpu-e/run.sh) ----
# Call E of 2026-11-26 on the GPU machine: dedup on the GPU after the staged
# mode's new work-directory format (one signature file per input file,
# removal lists as markers): dedup_gpu unit test, streaming gpu == cpu, staged
# (signatures on the GPU, 2 ranks) == staged on the CPU == streaming.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared; J=$S/jsonl
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "dedup_gpu: $(SHARED=$S $B/dedup_gpu 2>&1 | tee $O/dedup_gpu.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_gpu.txt) not ok"
files="$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz $(ls $J/dolma/tests/data/formats/gz/*.jsonl.gz) $J/dclm/data/majority_data.jsonl"
for f in $files; do gzip -dcf "$f"; done > one.jsonl
mkdir -p in
for k in 0 1 2 3 4 5 6 7; do for i in $(seq 40); do cat one.jsonl; done > in/part-$k.jsonl; done
ls -l in | head -3; echo "bytes: $(cat in/* | wc -c)"
echo "== streaming: wall user sys"
for dev in gpu cpu; do t=$( { time $B/winnow dedup -q -j16 --device $dev in/*.jsonl -o s.$dev ; } 2>&1 | tail -1); echo "stream $dev $t"; done
cmp s.gpu s.cpu && echo "same: streaming gpu == cpu"
echo "== staged, 2 ranks per step: wall user sys"
for dev in gpu cpu; do
  rm -rf work-$dev out-$dev
  t=$( { time for r in 0 1; do $B/winnow dedup signatures -q -j16 --device $dev --work work-$dev --rank $r --world-size 2 in/*.jsonl || exit 1; done ; } 2>&1 | tail -1); echo "signatures $dev $t"
  for r in 0 1; do $B/winnow dedup buckets -q --work work-$dev --rank $r --world-size 2 || echo "buckets failed"; done
  for r in 0 1; do $B/winnow dedup apply -q --work work-$dev -o out-$dev --rank $r --world-size 2 || echo "apply failed"; done
  ls work-$dev work-$dev/sig | head -20 | tr '\n' ' '; echo
done
diff -r out-gpu out-cpu > /dev/null && echo "same: staged gpu == cpu"
cat out-cpu/part-*.jsonl | cmp - s.cpu && echo "same: staged == streaming"
wc -l s.cpu
echo "== done $(date -u)"
