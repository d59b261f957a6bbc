#!/bin/bash
# final.sh - the lead's one-call check on the GPU machine after merging:
# GPU tokenizer exactness + throughput + peers, dedup tests and whole stage
# gpu/cpu, tokenize CLI gpu vs cpu, the whole pipeline on 16 cores + H100.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; mkdir -p $W && cd $W
tar -xJf "$D/tok/bin.tar.xz" && tar -xJf "$D/dedup_tests.tar.xz"
B=$W; S=$D/tok/shared
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== gpu tokenizer (exact, e2e, bandwidth, bench, peers)"
OUT=$O/tok PEERS=${PEERS:-1} sh "$D/tok/gpu_tokenize_device.sh" 2>&1 | grep -v '^ok'
echo "== dedup tests"
SHARED=$S $B/dedup_gpu 2>&1 | grep -E 'not ok|^1\.\.|# '| tail -5; echo "dedup_gpu ok: $(SHARED=$S $B/dedup_gpu 2>&1 | grep -c '^ok')"
SHARED=$S $B/dedup_signature 2>&1 | grep -c '^ok'
J=$S/jsonl
files="$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz $(ls $J/dolma/tests/data/formats/gz/*.jsonl.gz) $J/dclm/data/majority_data.jsonl"
for f in $files; do gzip -dcf "$f"; done > one.jsonl
for i in $(seq 300); do cat one.jsonl; done > big.jsonl
for i in $(seq 40); do cat one.jsonl; done > mid.jsonl
ls -l one.jsonl big.jsonl mid.jsonl
echo "== dedup whole stage big.jsonl -j16: wall user sys"
for r in 1 2 3; do for dev in gpu cpu; do
  t=$( { time $B/winnow dedup -q -j16 --device $dev big.jsonl -o dd.$dev ; } 2>&1 | tail -1); echo "dedup $dev $t"; done; done
cmp dd.gpu dd.cpu && echo "same: dedup gpu == cpu"
echo "== tokenize CLI mid.jsonl cl100k --format bin -j16: wall user sys"
V=$S/vocab/tiktoken
for r in 1 2; do for dev in gpu cpu; do
  t=$( { time $B/winnow tokenize -q -j16 --device $dev --vocab $V/cl100k_base.tiktoken --encoding cl100k_base --format bin mid.jsonl > tk.$dev ; } 2>&1 | tail -1); echo "tokenize $dev $t"; done; done
cmp tk.gpu tk.cpu && echo "same: tokenize gpu == cpu"
echo "== pipeline: 32 files x 4 copies of 4 real WARCs, 16 tasks"
mkdir -p pin
for i in $(seq 0 31); do for c in 1 2 3 4; do cat $D/warc/*.warc.gz; done > pin/crawl-$i.warc.gz; done
echo "WARC bytes: $(cat pin/* | zcat | wc -c)"
for dev in auto cpu; do
  printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\ndevice = %s\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\ndevice = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $dev $W $dev $dev $V $dev > p-$dev.ini
  t=$( { time $B/winnow run -q -j16 p-$dev.ini ; } 2>&1 | tail -1); echo "pipeline $dev $t (rc $?)"
  cp $W/$dev-work/report.txt $O/report-$dev.txt 2>/dev/null; tail -25 $W/$dev-work/report.txt
done
diff -r auto-out cpu-out > /dev/null && echo "same: pipeline shards auto == cpu"
#!/bin/bash
# final2.sh - tokenize CLI gpu vs cpu with 32 MiB GPU batches; bigger pipeline run.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; mkdir -p $W && cd $W
tar -xJf "$D/tok/bin.tar.xz"
B=$W; S=$D/tok/shared; V=$S/vocab/tiktoken; J=$S/jsonl
TIMEFORMAT='%R %U %S'
files="$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz $(ls $J/dolma/tests/data/formats/gz/*.jsonl.gz) $J/dclm/data/majority_data.jsonl"
for f in $files; do gzip -dcf "$f"; done > one.jsonl
for i in $(seq 300); do cat one.jsonl; done > big.jsonl
for i in $(seq 40); do cat one.jsonl; done > mid.jsonl
: > empty.jsonl
cat big.jsonl mid.jsonl > /dev/null
echo "== tokenize CLI cl100k --format bin -j16: wall user sys"
for f in empty mid big; do for r in 1 2; do for dev in gpu cpu; do
  t=$( { time $B/winnow tokenize -q -j16 --device $dev --vocab $V/cl100k_base.tiktoken --encoding cl100k_base --format bin $f.jsonl > tk.$f.$dev ; } 2>&1 | tail -1); echo "tokenize $f $dev $t"; done; done
cmp tk.$f.gpu tk.$f.cpu && echo "same: $f gpu == cpu"; done
ls -l tk.big.gpu
echo "== pipeline: 64 files x 16 copies of 4 real WARCs, 16 tasks"
mkdir -p pin
for c in $(seq 16); do cat $D/warc/*.warc.gz; done > pin/crawl-0.warc.gz
for i in $(seq 1 63); do cp pin/crawl-0.warc.gz pin/crawl-$i.warc.gz; done
echo "WARC bytes: $(cat pin/* | zcat | wc -c)"
for dev in cpu auto; do
  printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\ndevice = %s\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\ndevice = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $dev $W $dev $dev $V $dev > p-$dev.ini
  t=$( { time $B/winnow run -q -j16 p-$dev.ini ; } 2>&1 | tail -1); echo "pipeline $dev $t"
  cp $W/$dev-work/report.txt $O/report-$dev.txt; grep -E '^(winnow|ingest|filter|dedup|tokenize|shard) ' $W/$dev-work/report.txt
done
diff -r auto-out cpu-out > /dev/null && echo "same: pipeline shards auto == cpu"
#!/bin/bash
D=$(cd "$(dirname "$0")" && pwd); W=/tmp/w; mkdir -p $W && cd $W
tar -xJf "$D/tok/bin.tar.xz" && tar -xJf "$D/dedup_tests.tar.xz"
SHARED=$D/tok/shared ./dedup_gpu; SHARED=$D/tok/shared ./dedup_signature | tail -3
