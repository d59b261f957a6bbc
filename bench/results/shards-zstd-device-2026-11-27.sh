#!/bin/bash
# what zstd costs per core on the device's Xeon for cl100k ids: levels, and the entropy stage alone
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/zs; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-zstd.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; export PATH=$B:$PATH
echo "== $(date -u)"; grep -m1 'model name' /proc/cpuinfo
zstd -dcq $D/en_code.cl100k_base.bin.zst > en.bin; zstd -dcq $D/multi.cl100k_base.bin.zst > multi.bin
cat en.bin multi.bin multi.bin > mix.bin; ls -l mix.bin
for l in "-b1" "-b3" "-b --fast=1" "-b --fast=3" "-b --fast=5" "-b --fast=7"; do echo "zstd $l: $(zstd $l -B1048576 mix.bin 2>&1 | tr '\r' '\n' | grep -o 'x[0-9.]*),.*MB/s,' | tail -1)"; done
echo "== libzstd level 1 vs ZSTD_compressSequences on level 1's own sequences (1 MiB frames, one thread)"; $B/seq mix.bin
echo "== token-granular finder + compressSequences (per 128 KiB block)"; $B/tlz2 mix.bin
echo "== 16 at once: level 1 on 16 copies in parallel"
for i in $(seq 16); do cp mix.bin m$i.bin; done
TIMEFORMAT='%R %U %S'; time (pids=; for i in $(seq 16); do $B/seq m$i.bin > s$i.txt & pids="$pids $!"; done; wait $pids)
cat s1.txt s16.txt
