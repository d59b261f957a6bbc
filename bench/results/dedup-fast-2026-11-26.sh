#!/bin/bash
# Device call for branch i15d2 (issue 15, dedup per-byte speed): the branch
# ("new") against main 0938881 ("base") in one call, on unique documents made
# on the machine by bench/dedup_unique_inputs.py:
#   long:  tokref en_code x52 with per-copy word prefixes (5.40 GB, 460,460
#          documents); its first 20 files (2.08 GB) are the input of
#          final-2026-11-26.md
#   short: 2,000,000 documents of 40 words (761 MB)
# --device gpu and cpu, -o /dev/null and -o file, outputs and stats compared
# across builds and devices, plus the write ceilings (one writer and several
# pwrite() writers into one file). Bundle: /work/main/dist-gpu-i15d2/
# (bin.tar.xz: winnow, winnow-base, winnow-pageable (the branch's CPU code
# with main's gpu/minhash.cu: pageable copies, spinning synchronise),
# dedup_gpu, dedup_stream and their libraries; shared/: the test data and
# en_code). Run with
#   run(command="bash dist-gpu-i15d2/run.sh", carry=["dist-gpu-i15d2"], timeout_s=300)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/w; rm -rf $W; mkdir -p $W && cd $W
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall('.')" "$D/bin.tar.xz"
B=$W; S=$D/shared
TIMEFORMAT='%R %U %S'
run() { tag=$1; shift; t=$( { time "$@" ; } 2>&1 | tail -1); echo "$tag: $t"; }
same() { if cmp -s "$1" "$2"; then echo "   same: $3"; else echo "   DIFFERS: $3"; fi; }
nosec() { grep -v '"seconds"' "$1"; }
samestats() { if [ ! -s "$1" ] || [ ! -s "$2" ]; then echo "   NO STATS: $3"; elif cmp -s <(nosec "$1") <(nosec "$2"); then echo "   same stats: $3"; else echo "   STATS DIFFER: $3"; diff <(nosec "$1") <(nosec "$2") | head -5; fi; }
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SHARED=$S $B/dedup_gpu > gpu.tap 2>&1; echo "dedup_gpu: $(grep -c '^ok' gpu.tap) ok, $(grep -c '^not ok' gpu.tap) not ok"; grep -E '^(not ok|# skip|1\.\.)' gpu.tap
echo "dedup_stream: $(SHARED=$S $B/dedup_stream 2>/dev/null | grep -c '^ok') ok"
COPIES=${COPIES:-52}; SHORT=${SHORT:-2000000} # smaller for a dry run elsewhere
run "make long inputs ($COPIES files)" env SHARED=$S python3 $D/dedup_unique_inputs.py long long $COPIES
run "make short inputs" env SHARED=$S python3 $D/dedup_unique_inputs.py short short.jsonl $SHORT
L20=$(ls long/*.jsonl | head -20); L52=$(ls long/*.jsonl)
echo "long20 bytes: $(cat $L20 | wc -c)  long52 bytes: $(cat $L52 | wc -c)  short bytes: $(wc -c < short.jsonl)"
cat $L52 short.jsonl > /dev/null
echo "== short, 2 M documents (wall user sys)"
run "base short gpu" $B/winnow-base dedup -q -j16 --device gpu short.jsonl -o S.base --stats Ss.base
for r in 1 2; do run "new short gpu" $B/winnow dedup -q -j16 --device gpu short.jsonl -o S.gpu --stats Ss.gpu; done
run "new short cpu" $B/winnow dedup -q -j16 --device cpu short.jsonl -o S.cpu --stats Ss.cpu
run "pageable short gpu" $B/winnow-pageable dedup -q -j16 --device gpu short.jsonl -o /dev/null
run "new short gpu -j32" $B/winnow dedup -q -j32 --device gpu short.jsonl -o /dev/null
run "new short gpu --expected-docs 2M" $B/winnow dedup -q -j16 --device gpu --expected-docs 2M short.jsonl -o /dev/null
same S.gpu S.base "short: new gpu == base gpu"; same S.cpu S.base "short: new cpu == base gpu"
samestats Ss.gpu Ss.base "short new gpu / base gpu"; samestats Ss.cpu Ss.gpu "short new cpu / new gpu"
rm -f S.*
echo "== long, first 20 files (2.08 GB), -o /dev/null"
run "base long20 gpu" $B/winnow-base dedup -q -j16 --device gpu $L20 -o /dev/null
for r in 1 2; do run "new long20 gpu" $B/winnow dedup -q -j16 --device gpu $L20 -o /dev/null; done
run "pageable long20 gpu" $B/winnow-pageable dedup -q -j16 --device gpu $L20 -o /dev/null
run "new long20 cpu" $B/winnow dedup -q -j16 --device cpu $L20 -o /dev/null
echo "== long, 52 files (5.40 GB)"
run "base long52 gpu -o /dev/null" $B/winnow-base dedup -q -j16 --device gpu $L52 -o /dev/null
for r in 1 2; do run "new long52 gpu -o /dev/null" $B/winnow dedup -q -j16 --device gpu $L52 -o /dev/null; done
run "pageable long52 gpu -o /dev/null" $B/winnow-pageable dedup -q -j16 --device gpu $L52 -o /dev/null
run "new long52 gpu -j32 -o /dev/null" $B/winnow dedup -q -j32 --device gpu $L52 -o /dev/null
run "new long52 cpu -o /dev/null" $B/winnow dedup -q -j16 --device cpu $L52 -o /dev/null
run "new long52 gpu -o file" $B/winnow dedup -q -j16 --device gpu $L52 -o L.gpu --stats Ls.gpu --rejects R.gpu
run "base long52 gpu -o file" $B/winnow-base dedup -q -j16 --device gpu $L52 -o L.base --stats Ls.base --rejects R.base
same L.gpu L.base "long52: new gpu == base gpu"; same R.gpu R.base "long52 rejects: new gpu == base gpu"
samestats Ls.gpu Ls.base "long52 new gpu / base gpu"
rm -f L.base R.base
run "new long52 cpu -o file" $B/winnow dedup -q -j16 --device cpu $L52 -o L.cpu --stats Ls.cpu
same L.cpu L.gpu "long52: new cpu == new gpu"; samestats Ls.cpu Ls.gpu "long52 new cpu / new gpu"
rm -f L.cpu R.gpu
echo "== write ceilings: the 5.15 GB output, page cache"
run "cat output > /dev/null" sh -c "cat L.gpu > /dev/null"
run "cat output > file (one writer)" sh -c "cat L.gpu > C.out"
rm -f C.out
for t in 2 4 8; do
  run "pwrite into one file, $t threads" python3 -c "
import os, sys, threading
src = os.open('L.gpu', os.O_RDONLY); n = os.fstat(src).st_size; t = int(sys.argv[1]); chunk = 8 << 20
data = os.pread(src, min(n, 256 << 20), 0)  # 256 MiB written over and over: no read in the timing
fd = os.open('P.out', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
def work(i):
    for off in range(i * chunk, n, t * chunk):
        m = min(chunk, n - off); s = off % len(data); s = min(s, len(data) - m)
        os.pwrite(fd, memoryview(data)[s:s + m], off)
th = [threading.Thread(target=work, args=(i,)) for i in range(t)]
[x.start() for x in th]; [x.join() for x in th]; os.close(fd)
" $t
  rm -f P.out
done
rm -f L.gpu Ls.* 
echo "== done $(date -u)"
