#!/bin/bash
# The two scripts that ran on the GPU machine on 2026-11-26 (dist-gpu-a/run.sh, dist-gpu-b/run.sh).
# ---- call A ----
# Call A of 2026-11-26 on the GPU machine: dedup GPU tests and the whole stage
# gpu/auto/cpu (auto now moves to the GPU after 256 MiB of text), per-core CPU
# speed of filter and ingest on the Xeon cores, and the whole pipeline on
# 16 cores + H100 (cpu and auto devices).
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared; V=$S/vocab/tiktoken; J=$S/jsonl
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== dedup tests"
echo "dedup_gpu: $(SHARED=$S $B/dedup_gpu 2>&1 | tee $O/dedup_gpu.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_gpu.txt) not ok"
echo "dedup_signature: $(SHARED=$S $B/dedup_signature 2>&1 | tee $O/dedup_sig.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_sig.txt) not ok"
files="$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz $(ls $J/dolma/tests/data/formats/gz/*.jsonl.gz) $J/dclm/data/majority_data.jsonl"
for f in $files; do gzip -dcf "$f"; done > one.jsonl
for i in $(seq 300); do cat one.jsonl; done > big.jsonl
for i in $(seq 4); do cat one.jsonl; done > f.jsonl
ls -l one.jsonl big.jsonl f.jsonl
echo "== dedup whole stage big.jsonl -j16: wall user sys"
for r in 1 2; do for dev in gpu auto cpu; do
  t=$( { time $B/winnow dedup -q -j16 --device $dev big.jsonl -o dd.$dev ; } 2>&1 | tail -1); echo "dedup $dev $t"; done; done
cmp dd.gpu dd.cpu && cmp dd.auto dd.cpu && echo "same: dedup gpu == auto == cpu"
echo "== filter f.jsonl default rules + langid: wall user sys"
for r in 1 2 3; do for j in 1 16; do
  t=$( { time $B/winnow filter -q -j$j f.jsonl > fo.$j ; } 2>&1 | tail -1); echo "filter -j$j $t"; done; done
cmp fo.1 fo.16 && echo "same: filter -j1 == -j16"
t=$( { time $B/winnow filter -q -j1 --no-langid f.jsonl > /dev/null ; } 2>&1 | tail -1); echo "filter --no-langid -j1 $t"
echo "== ingest one WARC file (16 copies of 4 real WARCs): wall user sys"
mkdir -p pin
for c in $(seq 16); do cat $D/warc/*.warc.gz; done > pin/crawl-0.warc.gz
echo "WARC bytes per file: $(zcat pin/crawl-0.warc.gz | wc -c)"
for r in 1 2 3; do t=$( { time $B/winnow ingest -q -j1 pin/crawl-0.warc.gz > ing.jsonl ; } 2>&1 | tail -1); echo "ingest -j1 $t"; done
echo "== pipeline: 64 files x 16 copies of 4 real WARCs, 16 tasks"
for i in $(seq 1 63); do cp pin/crawl-0.warc.gz pin/crawl-$i.warc.gz; done
echo "WARC bytes: $(( $(zcat pin/crawl-0.warc.gz | wc -c) * 64 ))"
for dev in cpu auto; do
  printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\ndevice = %s\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\ndevice = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $dev $W $dev $dev $V $dev > p-$dev.ini
  t=$( { time $B/winnow run -q -j16 p-$dev.ini ; } 2>&1 | tail -1); echo "pipeline $dev $t"
  cp $W/$dev-work/report.txt $O/report-$dev.txt; grep -E '^(winnow|ingest|filter|dedup|tokenize|shard) ' $W/$dev-work/report.txt
done
diff -r auto-out cpu-out > /dev/null && echo "same: pipeline shards auto == cpu"
# ---- call B ----
# Call B of 2026-11-26 on the GPU machine, after merging tokfast: GPU tokenizer
# exactness + throughput (the CPU tokenizer and vocab loader changed; gpu/ did
# not), dedup GPU tests over all real JSONL, the CPU tokenize command per core
# on the Xeon cores, and the whole pipeline, old main (81615a9) vs new, same call.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; [tarfile.open(f).extractall('.') for f in sys.argv[1:]]" "$D/tok/bin.tar.xz" "$D/extra.tar.xz"
B=$W; S=$D/tok/shared; V=$S/vocab/tiktoken
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== gpu tokenizer (exact, e2e, bench; no peers)"
OUT=$O/tok PEERS=0 BW=1 sh "$D/tok/gpu_tokenize_device.sh" 2>&1 | grep -v '^ok'
echo "== dedup tests"
echo "dedup_gpu: $(SHARED=$S $B/dedup_gpu 2>&1 | tee $O/dedup_gpu.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_gpu.txt) not ok"
echo "dedup_signature: $(SHARED=$S $B/dedup_signature 2>&1 | tee $O/dedup_sig.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_sig.txt) not ok"
echo "== tokenize command, en_code as JSONL, --format bin, --device cpu: wall user sys"
$B/gpu_tokenize_bench --dump $S/tokref/en_code.txt.zst en.txt
python3 - en.txt $S/tokref/en_code.idx.tsv > en.jsonl <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
for i, line in enumerate(open(sys.argv[2])):
    off, n = map(int, line.split("\t")[:2])
    sys.stdout.write(json.dumps({"id": "tokref-%d" % i, "text": data[off:off + n].decode("utf-8")}, ensure_ascii=False) + "\n")
PY
ls -l en.jsonl
for e in cl100k_base o200k_base; do
  for r in 1 2 3; do for bin in winnow-base winnow; do
    t=$( { time $B/$bin tokenize -q -j1 --device cpu --vocab $V/$e.tiktoken --encoding $e --format bin en.jsonl > tk.$bin ; } 2>&1 | tail -1); echo "tokenize $e $bin -j1 $t"; done; done
  cmp tk.winnow-base tk.winnow && echo "same: $e base == new"
  t=$( { time $B/winnow tokenize -q -j16 --device cpu --vocab $V/$e.tiktoken --encoding $e --format bin en.jsonl > tk.16 ; } 2>&1 | tail -1); echo "tokenize $e winnow -j16 $t"
  cmp tk.16 tk.winnow && echo "same: $e -j16 == -j1"
  t=$( { time $B/winnow tokenize -q -j16 --device gpu --vocab $V/$e.tiktoken --encoding $e --format bin en.jsonl > tk.gpu ; } 2>&1 | tail -1); echo "tokenize $e winnow --device gpu -j16 $t"
  cmp tk.gpu tk.winnow && echo "same: $e gpu == cpu"
done
echo "== pipeline: 64 files x 16 copies of 4 real WARCs, 16 tasks, device cpu"
mkdir -p pin
for c in $(seq 16); do cat $D/warc/*.warc.gz; done > pin/crawl-0.warc.gz
for i in $(seq 1 63); do cp pin/crawl-0.warc.gz pin/crawl-$i.warc.gz; done
echo "WARC bytes: $(( $(zcat pin/crawl-0.warc.gz | wc -c) * 64 ))"
for r in 1 2; do for bin in winnow-base winnow; do
  rm -rf $W/$bin-work $W/$bin-out
  printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\ndevice = cpu\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\ndevice = cpu\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $bin $W $bin $V > p-$bin.ini
  t=$( { time $B/$bin run -q -j16 p-$bin.ini ; } 2>&1 | tail -1); echo "pipeline $bin $t"
  cp $W/$bin-work/report.txt $O/report-$bin.txt; grep -E '^(ingest|filter) ' $W/$bin-work/report.txt
done; done
diff -r winnow-base-out winnow-out > /dev/null && echo "same: pipeline shards base == new"
# ---- call C ----
# Call C of 2026-11-26 on the GPU machine: winnow's own HTML parser (new)
# against 6ca8488 (base, libxml2's parser): ingest per core, and the whole
# pipeline (64 files x 16 copies of 4 real WARCs, 16 tasks), same call.
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
run() { # bin device tag
  rm -rf $W/$3-work $W/$3-out
  printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\ndevice = %s\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\ndevice = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $3 $W $3 $2 $V $2 > p-$3.ini
  t=$( { time $B/$1 run -q -j16 p-$3.ini ; } 2>&1 | tail -1); echo "pipeline $1 $2 $t"
  cp $W/$3-work/report.txt $O/report-$3.txt; grep -E '^(winnow|ingest|filter|dedup|tokenize|shard) ' $W/$3-work/report.txt
}
for r in 1 2; do run winnow-base cpu base-cpu; run winnow cpu new-cpu; done
run winnow auto new-auto
diff -r new-cpu-out new-auto-out > /dev/null && echo "same: pipeline shards new cpu == auto"
echo "== done $(date -u)"
