#!/bin/bash
# The script that ran on the GPU machine on 2026-11-26 for issue 21 (dist-gpu-i21/run.sh):
# the whole pipeline (bench/pipeline.sh's WARC input as on the GPU machine: 64 files,
# each 16 copies of 4 real WARCs, 16 tasks, no dedup) with the shards step as one
# process (main 133c95d, "main") and in 16 ranks plus a merge (branch i21, "ranks"),
# both binaries in this one call, alternating. Two pipelines: A = ingest, filter,
# tokenize, shard (the bench's no-dedup row); B = ingest, tokenize, shard (no filter,
# so tokenize has ~8x the documents). Then the shards step alone: the run again after
# removing the shards and merge markers (main: done/shards.0), so only it runs.
# Output ids compared between the binaries (shards cat | md5sum).
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
V=$D/cl100k_base.tiktoken
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p pin
for c in $(seq 16); do cat $D/warc/*.warc.gz; done > pin/crawl-0.warc.gz
for i in $(seq 1 63); do cp pin/crawl-0.warc.gz pin/crawl-$i.warc.gz; done
echo "WARC bytes: $(( $(zcat pin/crawl-0.warc.gz | wc -c) * 64 ))"
ini() { # tag filter(yes|no) device
  { printf 'input = %s/pin/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 16\n[ingest]\n' $W $W $1 $W $1
    if [ "$2" = yes ]; then printf '[filter]\n'; fi
    printf '[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\ndevice = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $V $3; } > p-$1.ini
}
run() { # bin tag filter device
  rm -rf $W/$2-work $W/$2-out; ini $2 $3 $4
  t=$( { time ./$1 run -q -j16 p-$2.ini ; } 2>&1 | tail -1); echo "whole $1 filter=$3 device=$4 $t"
  if [ $1 = winnow-main ]; then rm $W/$2-work/done/shards.0; else rm $W/$2-work/done/shards.* $W/$2-work/done/merge.0; fi
  t=$( { time ./$1 run -q -j16 p-$2.ini ; } 2>&1 | tail -1); echo "shards-step $1 filter=$3 device=$4 $t"
  ls $W/$2-work/done | grep -c '^shards' | sed "s/^/shards markers: /"
  grep -E '^(tokenize|shard) ' $W/$2-work/report.txt
  ./winnow shards cat --format ids $W/$2-out | md5sum | sed "s/-$/ids $1 filter=$3 device=$4/"
  cp $W/$2-work/report.txt $O/report-$1-$3-$4.txt
}
for f in yes no; do
  for r in 1 2 3; do run winnow-main m$f $f cpu; run winnow r$f $f cpu; done
done 2>&1 | tee $O/log.txt
echo "== auto (ranks binary: tokenize on the GPU where auto picks it), no filter"
run winnow ra no auto 2>&1 | tee -a $O/log.txt
./winnow shards verify $W/rno-out | tail -1
echo "== done $(date -u)"
