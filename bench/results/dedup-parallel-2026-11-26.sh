#!/bin/bash
# The scripts that ran on the GPU machine on 2026-11-26 (dist-gpu-i15d/run.sh), calls 1 and 2.
# ---- call 1 (commit 98065b2) ----
# The script that ran on the GPU machine on 2026-11-26 (dist-gpu-i15d/run.sh):
# streaming dedup with the partitioned index (branch i15d, "new") against
# main 133c95d ("base"), same call: unique long documents (tokref en_code,
# 52 copies, each copy's words given their own prefix, ~5.4 GB) and 2 M
# unique short documents (40 words), --device gpu and cpu, outputs compared.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; t=$( { time "$@" ; } 2>&1 | tail -1); echo "$tag: $t"; }
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
free -g | head -2; df -h /tmp | tail -1
echo "dedup_gpu: $(SHARED=$S $B/dedup_gpu 2>&1 | tee $O/dedup_gpu.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_gpu.txt) not ok"
echo "dedup_stream: $(SHARED=$S $B/dedup_stream 2>/dev/null | tee $O/dedup_stream.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_stream.txt) not ok"
run "make long inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py long long 52
run "make short inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py short short.jsonl 2000000
echo "long bytes: $(cat long/*.jsonl | wc -c) in $(cat long/*.jsonl | wc -l) docs; short: $(wc -c < short.jsonl) bytes, $(wc -l < short.jsonl) docs"
echo "== ceilings (wall user sys)"
run "cat long > /dev/null" sh -c 'cat long/*.jsonl > /dev/null'
run "cat long > file" sh -c 'cat long/*.jsonl > catcopy'; rm -f catcopy
echo "== long, -j16 (wall user sys); each output compared with base cpu's, then removed"
run "base long cpu -o file --rejects" $B/winnow-base dedup -q -j16 --device cpu long/*.jsonl -o L.ref --rejects L.ref.rejects
same() { if cmp -s "$1" "$2"; then echo "   same: $3"; else echo "   DIFFERS: $3"; fi; rm -f "$1"; }
run "base long gpu -o file" $B/winnow-base dedup -q -j16 --device gpu long/*.jsonl -o L.out; same L.out L.ref "base gpu == base cpu"
for r in 1 2; do
  for dev in gpu cpu; do run "new long $dev -o file" $B/winnow dedup -q -j16 --device $dev long/*.jsonl -o L.out; same L.out L.ref "new $dev == base cpu"; done
  run "new long gpu -o /dev/null" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o /dev/null
done
run "new long gpu --rejects" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o L.out --rejects L.rejects
echo "long kept $(wc -l < L.out), rejects $(wc -l < L.rejects)"
same L.out L.ref "new gpu --rejects output == base cpu"; same L.rejects L.ref.rejects "rejects new gpu == base cpu"
rm -f L.*
echo "== short, -j16 (wall user sys)"
for r in 1 2; do for dev in gpu cpu; do run "new short $dev" $B/winnow dedup -q -j16 --device $dev short.jsonl -o S.new.$dev --stats S.new.$dev.json; done; done
for dev in gpu cpu; do run "base short $dev" $B/winnow-base dedup -q -j16 --device $dev short.jsonl -o S.base.$dev; done
cmp S.new.gpu S.new.cpu && cmp S.new.cpu S.base.cpu && cmp S.base.gpu S.base.cpu && echo "same: short new gpu == new cpu == base cpu == base gpu"
echo "short kept $(wc -l < S.new.gpu)"; cp S.new.gpu.json $O/short-stats.json
echo "== scaling, new (wall user sys)"
for j in 1 4 8; do run "new short cpu -j$j" $B/winnow dedup -q -j$j --device cpu short.jsonl -o S.j$j; cmp S.j$j S.new.cpu || echo "DIFFERS -j$j"; done
for j in 4 8; do run "new long gpu -j$j" $B/winnow dedup -q -j$j --device gpu long/part-00*.jsonl -o /dev/null; done
run "new long gpu -j16 (10 files)" $B/winnow dedup -q -j16 --device gpu long/part-00*.jsonl -o /dev/null
echo "== staged, 4 long files, signatures on the GPU, vs streaming"
rm -rf work sout
run "staged signatures gpu" $B/winnow dedup signatures -q -j16 --device gpu --work work long/part-00[0-3].jsonl
run "staged buckets" $B/winnow dedup buckets -q --work work
run "staged apply" $B/winnow dedup apply -q -j16 --work work -o sout
$B/winnow dedup -q -j16 --device gpu long/part-00[0-3].jsonl -o s4
cat sout/part-00[0-3].jsonl | cmp - s4 && echo "same: staged == streaming (4 files)"
echo "== index alone (dedup_sig, one thread)"; $B/dedup_sig $S/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | grep -E 'index|gpu'
echo "== done $(date -u)"

# ---- call 2 (commit 3ac3df9: reused batch buffers, sleeping instead of yielding) ----
# Same inputs; new against base in the same call; outputs compared with base cpu's.
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; t=$( { time "$@" ; } 2>&1 | tail -1); echo "$tag: $t"; }
same() { if cmp -s "$1" "$2"; then echo "   same: $3"; else echo "   DIFFERS: $3"; fi; rm -f "$1"; }
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; lscpu | grep -E '^(Thread|Core|Socket)'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "dedup_gpu: $(SHARED=$S $B/dedup_gpu 2>&1 | tee $O/dedup_gpu.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_gpu.txt) not ok"
echo "dedup_stream: $(SHARED=$S $B/dedup_stream 2>/dev/null | tee $O/dedup_stream.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_stream.txt) not ok"
run "make long inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py long long 52
run "make short inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py short short.jsonl 2000000
echo "long bytes: $(cat long/*.jsonl | wc -c) in $(cat long/*.jsonl | wc -l) docs; short: $(wc -c < short.jsonl) bytes, $(wc -l < short.jsonl) docs"
run "cat long > /dev/null" sh -c 'cat long/*.jsonl > /dev/null'
run "cat long > file" sh -c 'cat long/*.jsonl > catcopy'; rm -f catcopy
echo "== long, -j16 (wall user sys)"
run "base long cpu -o file --rejects" $B/winnow-base dedup -q -j16 --device cpu long/*.jsonl -o L.ref --rejects L.ref.rejects
run "base long gpu -o file" $B/winnow-base dedup -q -j16 --device gpu long/*.jsonl -o L.out; same L.out L.ref "base gpu == base cpu"
for r in 1 2; do
  run "new long gpu -o file" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o L.out; same L.out L.ref "new gpu == base cpu"
  run "new long gpu -o /dev/null" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o /dev/null
done
run "new long cpu -o file" $B/winnow dedup -q -j16 --device cpu long/*.jsonl -o L.out; same L.out L.ref "new cpu == base cpu"
run "new long gpu --rejects" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o L.out --rejects L.rejects
same L.out L.ref "new gpu --rejects output == base cpu"; same L.rejects L.ref.rejects "rejects new gpu == base cpu"
rm -f L.*
echo "== short, -j16 (wall user sys)"
run "base short gpu" $B/winnow-base dedup -q -j16 --device gpu short.jsonl -o S.ref
for r in 1 2; do for dev in gpu cpu; do run "new short $dev" $B/winnow dedup -q -j16 --device $dev short.jsonl -o S.out; same S.out S.ref "new $dev == base gpu"; done; done
run "new short gpu -o /dev/null" $B/winnow dedup -q -j16 --device gpu short.jsonl -o /dev/null
echo "== scaling, new (wall user sys)"
for j in 1 4 8; do run "new short cpu -j$j" $B/winnow dedup -q -j$j --device cpu short.jsonl -o S.out; same S.out S.ref "-j$j"; done
for j in 4 8 16; do run "new long gpu -j$j (10 files)" $B/winnow dedup -q -j$j --device gpu long/part-00*.jsonl -o /dev/null; done
echo "== staged, 4 long files, signatures on the GPU, vs streaming"
rm -rf work sout
run "staged signatures gpu" $B/winnow dedup signatures -q -j16 --device gpu --work work long/part-00[0-3].jsonl
run "staged buckets" $B/winnow dedup buckets -q --work work
run "staged apply" $B/winnow dedup apply -q -j16 --work work -o sout
$B/winnow dedup -q -j16 --device gpu long/part-00[0-3].jsonl -o s4
cat sout/part-00[0-3].jsonl | cmp - s4 && echo "same: staged == streaming (4 files)"
echo "== index alone (dedup_sig, one thread)"; $B/dedup_sig $S/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz | grep -E 'index'
if command -v perf > /dev/null; then
  perf record -q -o perf.data $B/winnow dedup -q -j16 --device gpu long/part-00*.jsonl -o /dev/null 2>/dev/null
  perf report -i perf.data --no-children --sort symbol 2>/dev/null | grep '%' | head -30
else echo "no perf"; fi
echo "== done $(date -u)"

# ---- call 3: prepared, NOT run (device time for helpers ran out) ----
# ---- call 3 (commit c9d5fbf: no worker waits for another) against 3ac3df9 ("prev", call 2's build), same call ----
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; t=$( { time "$@" ; } 2>&1 | tail -1); echo "$tag: $t"; }
same() { if cmp -s "$1" "$2"; then echo "   same: $3"; else echo "   DIFFERS: $3"; fi; rm -f "$1"; }
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "dedup_stream: $(SHARED=$S $B/dedup_stream 2>/dev/null | tee $O/dedup_stream.txt | grep -c '^ok') ok, $(grep -c '^not ok' $O/dedup_stream.txt) not ok"
run "make long inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py long long 52
run "make short inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py short short.jsonl 2000000
run "prev short gpu" $B/winnow-prev dedup -q -j16 --device gpu short.jsonl -o S.ref
for r in 1 2; do
  run "new short gpu" $B/winnow dedup -q -j16 --device gpu short.jsonl -o S.out; same S.out S.ref "new == prev"
  run "prev short gpu" $B/winnow-prev dedup -q -j16 --device gpu short.jsonl -o /dev/null
done
run "new short cpu" $B/winnow dedup -q -j16 --device cpu short.jsonl -o S.out; same S.out S.ref "new cpu == prev gpu"
run "new short gpu -o /dev/null" $B/winnow dedup -q -j16 --device gpu short.jsonl -o /dev/null
run "prev long gpu -o file" $B/winnow-prev dedup -q -j16 --device gpu long/*.jsonl -o L.ref
run "new long gpu -o file" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o L.out; same L.out L.ref "new == prev"
for r in 1 2; do
  run "new long gpu -o /dev/null" $B/winnow dedup -q -j16 --device gpu long/*.jsonl -o /dev/null
  run "prev long gpu -o /dev/null" $B/winnow-prev dedup -q -j16 --device gpu long/*.jsonl -o /dev/null
done
echo "== done $(date -u)"
