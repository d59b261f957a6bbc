#!/bin/bash
# i15f on the GPU machine (16 cores): filter cost per byte and `winnow run`
# on the JSONL pipeline, main (8497ccd, "main") against i15f ("new").
set -u
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; t=$( { time "$@" > /dev/null ; } 2>&1 | tail -1); echo "$tag: $t"; }
same() { if cmp -s "$1" "$2"; then echo "   same: $3"; else echo "   DIFFERS: $3"; fi; }
echo "== machine $(date -u)"; nproc; lscpu | grep -E "Model name|Thread|Core|Socket|MHz" ; uptime
env SHARED=$S python3 $D/dedup_unique_inputs.py long long 20
zcat $D/real.jsonl.gz > real1.jsonl; for i in 1 2 3 4 5 6 7 8; do cat real1.jsonl; done > real8.jsonl
echo "long bytes: $(cat long/*.jsonl | wc -c)  real8 bytes: $(wc -c < real8.jsonl)"
cat long/*.jsonl real8.jsonl > /dev/null
echo "== filter -j1, one long file (104 MB) and real8 (56 MB): wall user sys"
for r in 1 2 3; do for b in winnow-main winnow; do run "$b -j1 long/part-000" $B/$b filter -q -j1 long/part-000.jsonl; done; done
for r in 1 2 3; do for b in winnow-main winnow; do run "$b -j1 real8" $B/$b filter -q -j1 real8.jsonl; done; done
$B/winnow-main filter -q -j1 long/part-000.jsonl --stats m.st > m.out; $B/winnow filter -q -j1 long/part-000.jsonl --stats n.st > n.out
same m.out n.out "filter output long/part-000"; sed -i '/seconds/d' m.st n.st; same m.st n.st "filter stats long/part-000"
$B/winnow-main filter -q -j1 real8.jsonl > m.out; $B/winnow filter -q -j1 real8.jsonl > n.out; same m.out n.out "filter output real8"
echo "== filter -j16, 20 files (2.07 GB) -o /dev/null: wall user sys"
for r in 1 2; do for b in winnow-main winnow; do run "$b -j16 long/*" $B/$b filter -q -j16 long/*.jsonl; done; done
echo "== winnow run, 16 tasks: wall user sys"
printf 'input = %s/long/*.jsonl\nwork = %s/work\noutput = %s/shards-run\ntasks = 16\n[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s/cl100k_base.tiktoken\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n' $W $W $W $D > p.ini
for r in 1 2 3; do
  for b in winnow-main winnow "winnow --threads 1"; do
    rm -rf work shards-run; run "$b run -j16" $B/$b run -q -j16 p.ini
    grep -E '^(filter|dedup|tokenize|shard) ' work/report.txt | awk '{print "   " $1, $NF, $(NF-1)}' | tr '\n' ' '; echo
    [ "$b" = winnow-main ] && { rm -rf shards-main; mv shards-run shards-main; }
  done
done
diff -r shards-main shards-run > /dev/null && echo "   same: shards main vs new" || echo "   DIFFERS: shards main vs new"
cat work/report.txt | head -12
rm -rf work shards-run
run "the shell pipe (new)" sh -c "$B/winnow filter -q long/*.jsonl | $B/winnow dedup -q | $B/winnow tokenize -q --encoding cl100k_base --vocab $D/cl100k_base.tiktoken --no-eos -o shards-pipe/"
echo "== done $(date -u)"
