#!/bin/bash
# Device call for branch i15d3 (issue 15, dedup: the reading thread's per-byte
# work and the cores left idle): the branch ("new") against main 8497ccd
# ("old") in one call, runs alternating, on unique documents made on the
# machine by bench/dedup_unique_inputs.py:
#   long:  tokref en_code x52 with per-copy word prefixes (5.40 GB, 460,460
#          documents, 52 files)
#   short: 2,000,000 documents of 40 words (761 MB, one file)
# --device gpu and cpu, -o /dev/null (timings) and -o file with --rejects and
# --stats (outputs, rejects and stats compared across builds and devices).
# Third binary "pinned": new's CPU code with gpu/minhash.cu of i15d2's 1b869ba
# (pinned host buffers, a blocking-sync event instead of the spinning stream
# synchronise), measured again now that the reader no longer bounds the run.
# Bundle: /work/main/dist-gpu-i15d3/ (bin.tar.xz: winnow, winnow-old,
# winnow-pinned, dedup_gpu, dedup_stream and their libraries; shared/: the
# JSONL test data and en_code). Run with
#   run(command="bash dist-gpu-i15d3/run.sh", carry=["dist-gpu-i15d3"], timeout_s=300)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; { time "$@" 2>err.txt; } 2>time.txt; rc=$?; echo "$tag: $(tail -1 time.txt) rc=$rc"; [ $rc = 0 ] || head -3 err.txt; }
same() { if cmp -s "$1" "$2"; then echo "   same: $3"; else echo "   DIFFERS: $3"; fi; }
nosec() { grep -v '"seconds"' "$1"; }
samestats() { if [ ! -s "$1" ] || [ ! -s "$2" ]; then echo "   NO STATS: $3"; elif cmp -s <(nosec "$1") <(nosec "$2"); then echo "   same stats: $3"; else echo "   STATS DIFFER: $3"; diff <(nosec "$1") <(nosec "$2") | head -5; fi; }
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; uname -r; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SHARED=$S $B/dedup_gpu > gpu.tap 2>&1; echo "dedup_gpu: $(grep -c '^ok' gpu.tap) ok, $(grep -c '^not ok' gpu.tap) not ok"; grep -E '^(not ok|# skip|1\.\.)' gpu.tap
echo "dedup_stream: $(SHARED=$S $B/dedup_stream 2>/dev/null | grep -c '^ok') ok"
COPIES=${COPIES:-52}; SHORT=${SHORT:-2000000} # smaller for a dry run elsewhere
run "make long inputs ($COPIES files)" env SHARED=$S python3 $D/dedup_unique_inputs.py long long $COPIES
run "make short inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py short short.jsonl $SHORT
L=$(ls long/*.jsonl)
echo "long bytes: $(cat $L | wc -c)  short bytes: $(wc -c < short.jsonl)"
run "page cache: cat long short > /dev/null" sh -c "cat $L short.jsonl > /dev/null"
echo "== long, 5.40 GB, --device gpu -j16 -o /dev/null, alternating (wall user sys)"
for r in 1 2 3; do
  run "old long gpu" $B/winnow-old dedup -q -j16 --device gpu $L -o /dev/null
  run "new long gpu" $B/winnow dedup -q -j16 --device gpu $L -o /dev/null
done
for r in 1 2; do
  run "pinned long gpu" $B/winnow-pinned dedup -q -j16 --device gpu $L -o /dev/null
  run "new long gpu -j24" $B/winnow dedup -q -j24 --device gpu $L -o /dev/null
done
run "new long gpu -j20" $B/winnow dedup -q -j20 --device gpu $L -o /dev/null
run "pinned long gpu -j24" $B/winnow-pinned dedup -q -j24 --device gpu $L -o /dev/null
run "new long cpu -j16" $B/winnow dedup -q -j16 --device cpu $L -o /dev/null
run "old long cpu -j16" $B/winnow-old dedup -q -j16 --device cpu $L -o /dev/null
echo "== short, 2 M documents, --device gpu -j16 -o /dev/null, alternating"
for r in 1 2; do
  run "old short gpu" $B/winnow-old dedup -q -j16 --device gpu short.jsonl -o /dev/null
  run "new short gpu" $B/winnow dedup -q -j16 --device gpu short.jsonl -o /dev/null
done
run "pinned short gpu" $B/winnow-pinned dedup -q -j16 --device gpu short.jsonl -o /dev/null
run "new short cpu" $B/winnow dedup -q -j16 --device cpu short.jsonl -o /dev/null
echo "== outputs: -o file with --rejects and --stats"
run "new short gpu -o file" $B/winnow dedup -q -j16 --device gpu short.jsonl -o S.new --stats Ss.new --rejects Sr.new
run "old short gpu -o file" $B/winnow-old dedup -q -j16 --device gpu short.jsonl -o S.old --stats Ss.old --rejects Sr.old
run "new short cpu -o file" $B/winnow dedup -q -j16 --device cpu short.jsonl -o S.cpu --stats Ss.cpu --rejects Sr.cpu
same S.new S.old "short: new gpu == old gpu"; same Sr.new Sr.old "short rejects: new gpu == old gpu"; same S.cpu S.new "short: new cpu == new gpu"
samestats Ss.new Ss.old "short new gpu / old gpu"; samestats Ss.cpu Ss.new "short new cpu / new gpu"
rm -f S.* Ss.* Sr.*
run "new long gpu -o file" $B/winnow dedup -q -j16 --device gpu $L -o L.new --stats Ls.new --rejects Lr.new
run "old long gpu -o file" $B/winnow-old dedup -q -j16 --device gpu $L -o L.old --stats Ls.old --rejects Lr.old
same L.new L.old "long: new gpu == old gpu"; same Lr.new Lr.old "long rejects: new gpu == old gpu"; samestats Ls.new Ls.old "long new gpu / old gpu"
rm -f L.old Lr.old
run "pinned long gpu -o file" $B/winnow-pinned dedup -q -j16 --device gpu $L -o L.pin
same L.pin L.new "long: pinned gpu == new gpu"; rm -f L.pin
run "new long cpu -o file" $B/winnow dedup -q -j16 --device cpu $L -o L.cpu --stats Ls.cpu
same L.cpu L.new "long: new cpu == new gpu"; samestats Ls.cpu Ls.new "long new cpu / new gpu"
echo "kept: $(wc -c < L.new 2>/dev/null) bytes"
rm -f L.* Ls.* Lr.*
echo "== done $(date -u)"
