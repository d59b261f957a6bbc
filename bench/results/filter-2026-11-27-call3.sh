#!/bin/bash
# i15f call 3: the WARC pipeline (ingest -> filter -> dedup -> tokenize -> shard)
# with main's and i15f's default threads per rank: 64 files (4 rounds of 16)
# and 20 files (a second round of 4), 16 tasks.
set -u
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W
TIMEFORMAT='%R %U %S'
mkdir -p pin64 pin20
for c in $(seq 16); do cat $D/warc/*.warc.gz; done > pin64/crawl-0.warc.gz
for i in $(seq 1 63); do cp pin64/crawl-0.warc.gz pin64/crawl-$i.warc.gz; done
for i in $(seq 0 19); do cp pin64/crawl-0.warc.gz pin20/crawl-$i.warc.gz; done
echo "WARC bytes per file: $(zcat pin64/crawl-0.warc.gz | wc -c)"; cat pin64/* > /dev/null
for set in pin64 pin20; do
  printf 'input = %s/%s/*\nwork = %s/work\noutput = %s/out\ntasks = 16\n[ingest]\n[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $set $W $W $D > p.ini
  for r in 1 2 3; do for b in winnow-main winnow; do
    rm -rf work out; t=$( { time $B/$b run -q -j16 p.ini ; } 2>&1 | tail -1); echo "$set $b run -j16: $t"
    [ $b = winnow-main ] && { rm -rf out-main; mv out out-main; }
  done; done
  diff -r out-main out > /dev/null && echo "   same: $set shards main vs new" || echo "   DIFFERS: $set shards main vs new"
  grep -E '^(winnow|ingest|filter|dedup|tokenize|shard) ' work/report.txt
done
