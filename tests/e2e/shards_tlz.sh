#!/bin/sh
# `--level tlz`: shard frames by winnow's own token encoder (shards/tlz.h) are
# standard zstd frames: zstd's own decoder gives back exactly the ids that
# level-1 shards hold, on real tiktoken ids stored as uint32 and as uint16,
# whatever the thread count.
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
require_file "$REF/multi.cl100k_base.bin.zst" "$REF/multi.gpt2.bin.zst"

check() { # TAG VOCAB_SIZE INPUT
    tag=$1 vocab=$2 in=$3
    ok "$tag: --level tlz writes shards" $WINNOW shard -q -j2 --level tlz --vocab-size "$vocab" --shard-tokens 2M \
        -o "$TMP/$tag-tlz" "$in"
    ok "$tag: level 1 beside it" $WINNOW shard -q -j2 --vocab-size "$vocab" --shard-tokens 2M -o "$TMP/$tag-l1" "$in"
    ok "$tag: verify passes" $WINNOW shards verify "$TMP/$tag-tlz"
    grep -q '"zstd_level": 0,' "$TMP/$tag-tlz/manifest.json"
    is $? 0 "$tag: the manifest's zstd_level is 0 (tlz)"
    n=0 same=0
    for f in "$TMP/$tag-l1"/shard_*.tok.zst; do
        n=$((n + 1))
        g="$TMP/$tag-tlz/$(basename "$f")"
        zstd -dcq "$f" > "$TMP/a" && zstd -dcq "$g" > "$TMP/b" && cmp -s "$TMP/a" "$TMP/b" && same=$((same + 1))
    done
    ok "$tag: several shards" test "$n" -ge 3
    is "$same" "$n" "$tag: zstd -d of every tlz shard gives level 1's token bytes"
    tlz_bytes=$(cat "$TMP/$tag-tlz"/shard_*.tok.zst | wc -c) l1_bytes=$(cat "$TMP/$tag-l1"/shard_*.tok.zst | wc -c)
    ok "$tag: the tlz shards are at most 1.1x the bytes of level 1's ($tlz_bytes, $l1_bytes)" \
        test $((tlz_bytes * 10)) -le $((l1_bytes * 11))
    raw=$(cat "$TMP/a" | wc -c) packed=$(wc -c < "$TMP/$tag-tlz/$(basename "$f")")
    ok "$tag: the last shard is compressed (at least 1.5x)" test $((packed * 3)) -lt $((raw * 2))
    $WINNOW shards cat "$TMP/$tag-l1" --format bin > "$TMP/l1.bin"
    $WINNOW shards cat "$TMP/$tag-tlz" --format bin > "$TMP/tlz.bin"
    ok "$tag: shards cat reads the same documents" cmp "$TMP/l1.bin" "$TMP/tlz.bin"
    ok "$tag: -j1" $WINNOW shard -q -j1 --level tlz --vocab-size "$vocab" --shard-tokens 2M -o "$TMP/$tag-j1" "$in"
    same=0
    for f in "$TMP/$tag-tlz"/shard_*; do cmp -s "$f" "$TMP/$tag-j1/$(basename "$f")" && same=$((same + 1)); done
    is "$same" $((2 * n)) "$tag: -j1 writes the same files as -j2"
}
check cl100k 100277 "$REF/multi.cl100k_base.bin.zst"
check gpt2 50257 "$REF/multi.gpt2.bin.zst"

$WINNOW shards inspect "$TMP/gpt2-tlz" > "$TMP/inspect"
grep -q '; tlz, 1048576-byte frames)' "$TMP/inspect"
is $? 0 "inspect names the encoder"
$WINNOW shard -q --level tlz1 --vocab-size 50257 -o "$TMP/bad" "$REF/multi.gpt2.bin.zst" 2> "$TMP/err"
is $? 1 "--level tlz1 is a usage error"
grep -q "wants tlz, 1..22" "$TMP/err"
is $? 0 "... naming what --level takes"
# level = tlz in a pipeline's [shard] section: the run's shards say tlz and hold
# the same documents as a level-1 run of the same pipeline
case ${BUILD:-} in
*build-asan*) ;; # loading the 100k vocabulary takes minutes under ASan; the writer is covered above
*)
    VOCAB=$SHARED/vocab/tiktoken/cl100k_base.tiktoken DOCS=$SHARED/jsonl/dclm/data/majority_data.jsonl
    require_file "$VOCAB" "$DOCS"
    for lv in tlz 1; do
        mkdir -p "$TMP/p$lv/in" && cp "$DOCS" "$TMP/p$lv/in/"
        printf 'input = %s/in/*\nwork = %s/work\noutput = %s/out\ntasks = 1\n[tokenize]\nencoding = cl100k_base\nvocab = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\nvocab = %s\neos = 100257\nlevel = %s\n' \
            "$TMP/p$lv" "$TMP/p$lv" "$TMP/p$lv" "$VOCAB" "$VOCAB" "$lv" > "$TMP/p$lv.pipeline"
        ok "winnow run with [shard] level = $lv" $WINNOW run -q "$TMP/p$lv.pipeline"
        $WINNOW shards cat "$TMP/p$lv/out" --format bin > "$TMP/p$lv.bin"
    done
    grep -q '"zstd_level": 0,' "$TMP/ptlz/out/manifest.json"
    is $? 0 "the run's manifest says zstd_level 0 (tlz)"
    ok "the run's tlz shards hold the level-1 run's documents ($(wc -c < "$TMP/p1.bin") bytes)" \
        cmp "$TMP/p1.bin" "$TMP/ptlz.bin"
    ;;
esac
done_testing
