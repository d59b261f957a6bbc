#!/bin/bash
set -u
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/w; rm -rf $W; mkdir -p $W/p && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('p')" "$D/p/perf.tar.xz"
B=$W; S=$D/shared; P=$W/p/perf
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; t=$( { time "$@" > /dev/null ; } 2>&1 | tail -1); echo "$tag: $t"; }
grep -m1 flags /proc/cpuinfo | tr ' ' '\n' | grep -E "avx2|avx512bw|bmi2" | tr '\n' ' '; echo
env SHARED=$S python3 $D/dedup_unique_inputs.py long long 20
cat long/*.jsonl > /dev/null
for b in winnow-main winnow; do
  $P record -F 10000 -o $b.data $B/$b filter -q -j1 long/part-000.jsonl > /dev/null 2>&1
  echo "== profile $b"; $P report -i $b.data --no-children --percent-limit 0.8 --stdio 2>/dev/null | grep -E "^ +[0-9]" | head -28
done
printf 'input = %s/long/*.jsonl\nwork = %s/work\noutput = %s/shards-run\ntasks = 16\n[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $W $D > p.ini
for args in "winnow-main run -j16" "winnow run -j16" "winnow run -j16 --threads 1" "winnow run -j16 --threads 16"; do
  rm -rf work shards-run; echo "== $args"; ( time $B/$args p.ini 2>&1 | grep -E "done|docs 20" ) 2>&1
done
