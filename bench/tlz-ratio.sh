#!/bin/sh
# tlz-ratio - winnow's token encoder (shards/tlz_block.h) against libzstd
# level 1 on one thread, 1 MiB shard frames of the tokref ids: cl100k and
# o200k stored uint32, gpt2 uint16. The encoder as of each commit in
# TLZ_COMMITS (default: main before the sequence tables, and HEAD), built
# from that commit's tlz_block.h; best of REPEATS (default 5) rounds each;
# every frame decoded back by libzstd (one-shot and streaming).
. bench/lib.sh
set -eu
B=${BUILD:-build}
T=$BENCH_TMP/tlz-ratio
REPEATS=${REPEATS:-5}
COMMITS=${TLZ_COMMITS:-08f37c0 HEAD}
rm -rf "$T"; mkdir -p "$T"
for f in en_code.cl100k_base multi.cl100k_base en_code.o200k_base multi.gpt2; do
    zstd -dcq "$SHARED/tokref/$f.bin.zst" > "$T/$f.ids"
done
for c in $COMMITS; do
    mkdir -p "$T/$c/shards"
    git show "$c:shards/tlz_block.h" > "$T/$c/shards/tlz_block.h"
    cc -std=c11 -O2 -march=x86-64-v2 -I"$T/$c" -I. -D_GNU_SOURCE -o "$T/$c/tlz_ratio" \
        bench/tlz_ratio.c shards/tlz.c "$B/libwinnow.a" $(pkg-config --libs libzstd libxxhash) -lm -pthread
done

echo "# Shard frames: winnow's token encoder (tlz) against libzstd level 1"
echo
echo "$(machine_line)."
echo
echo "One thread, frames of 1 MiB (blocks of 128 KiB, each on its own for tlz), CPU seconds of the"
echo "thread, best of $REPEATS rounds, tlz and level 1 alternating; \`sh bench/run.sh tlz-ratio\`"
echo "(TLZ_COMMITS=\"$COMMITS\"). bad: frames that do not decode back (ZSTD_decompress and ZSTD_decompressStream)."
echo
echo "| commit | input | ids | MB | tlz bytes | tlz ratio | level 1 bytes | level 1 ratio | size tlz/l1 | tlz MB/s | level 1 MB/s | speed tlz/l1 | bad |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for c in $COMMITS; do
    for f in en_code.cl100k_base multi.cl100k_base en_code.o200k_base multi.gpt2; do
        vocab=100277
        [ "$f" = multi.gpt2 ] && vocab=50257
        printf '| %s ' "$(git rev-parse --short "$c")"
        "$T/$c/tlz_ratio" "$vocab" "$T/$f.ids" "$REPEATS"
    done
done
rm -rf "$T"
