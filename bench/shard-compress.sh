#!/bin/sh
# shard-compress - shard frame compression on one thread, libzstd level 1 (the
# writer's default) against a token-granular match finder whose sequences
# libzstd entropy-codes (bench/token_lz.h; issue 15's `-o shards/` point), on
# the tokref ids: cl100k en_code + multi + multi (128.8 MB of uint32, the input
# the first prototype was timed on), each corpus alone, o200k, and gpt2 stored
# uint16. Also the finder's variants: a larger hash table and a second table
# of 4-token keys (zstd's double-fast idea). Best of REPEATS (default 3)
# rounds, level 1 and the matcher alternating.
. bench/lib.sh
set -eu
B=${BUILD:-build}
T=$BENCH_TMP/shard-compress
REPEATS=${REPEATS:-3}
rm -rf "$T"; mkdir -p "$T"
for f in en_code.cl100k_base multi.cl100k_base en_code.o200k_base multi.o200k_base multi.gpt2; do
    zstd -dcq "$SHARED/tokref/$f.bin.zst" > "$T/$f.ids"
done
# variant NAME FLAG: the same bench built with another compile-time setting of bench/token_lz.h
variant() {
    cc -std=c11 -O2 -march=x86-64-v2 -I. -D_GNU_SOURCE "$2" -o "$T/$1" \
        bench/shard_compress.c "$B/libwinnow.a" $(pkg-config --libs libzstd libxxhash) -lm -pthread
}
variant hash16 -DTOKEN_LZ_HASH_LOG=16
variant long14 -DTOKEN_LZ_LONG_HASH_LOG=14

echo "# Shard frame compression: libzstd level 1 against a token-granular match finder"
echo
echo "$(machine_line)."
echo
echo "One thread, 1 MiB frames with the writer's settings (content size, XXH64 content checksum), CPU"
echo "seconds of the thread, best of $REPEATS rounds, level 1 and the matcher alternating; every matcher"
echo "frame decompressed once by a streaming decoder and compared. \`build/bench/shard_compress VOCAB"
echo "$REPEATS FILE...\` (bench/shard_compress.c, bench/token_lz.h)."
row() {
    name=$1; shift
    echo
    echo "### $name"
    echo
    "$@"
}
C=$T/en_code.cl100k_base.ids; M=$T/multi.cl100k_base.ids
row "cl100k en_code + multi + multi (uint32)" "$B/bench/shard_compress" 100277 "$REPEATS" "$C" "$M" "$M"
row "cl100k en_code (uint32)" "$B/bench/shard_compress" 100277 "$REPEATS" "$C"
row "cl100k multi (uint32)" "$B/bench/shard_compress" 100277 "$REPEATS" "$M"
row "o200k en_code + multi (uint32)" "$B/bench/shard_compress" 200019 "$REPEATS" "$T/en_code.o200k_base.ids" "$T/multi.o200k_base.ids"
row "gpt2 multi (uint16)" "$B/bench/shard_compress" 50257 "$REPEATS" "$T/multi.gpt2.ids"
row "variant: hash table of 2^16 positions, cl100k en_code + multi + multi" \
    "$T/hash16" 100277 "$REPEATS" "$C" "$M" "$M"
row "variant: a second table of 4-token keys tried first (2^14), cl100k en_code + multi + multi" \
    "$T/long14" 100277 "$REPEATS" "$C" "$M" "$M"
row "variant: a second table of 4-token keys, gpt2 multi (uint16)" \
    "$T/long14" 50257 "$REPEATS" "$T/multi.gpt2.ids"
rm -rf "$T"
