#!/bin/sh
# One flipped byte anywhere in a shard makes `winnow shards verify` fail and
# name the shard and frame (or seek table / index offset) where it is.
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
require_file "$REF/multi.gpt2.bin.zst"

# the first 700 documents of the gpt2 reference ids, in three shards
$WINNOW shard -q -o "$TMP/full" --vocab-size 50257 "$REF/multi.gpt2.bin.zst"
$WINNOW shards cat "$TMP/full" --format bin --count 700 > "$TMP/part.bin"
$WINNOW shard -q -o "$TMP/clean" --vocab-size 50257 --tokenizer gpt2 --eos 50256 --shard-tokens 1200k "$TMP/part.bin"
ok "clean directory verifies" $WINNOW shards verify "$TMP/clean"
f=shard_00001.tok.zst
size=$(wc -c < "$TMP/clean/$f" | tr -d ' ')
frames=$(( $(od -An -tu4 -j $((size - 9)) -N4 "$TMP/clean/$f" | tr -d ' ') ))
ok "shard 1 has several frames ($frames)" test "$frames" -gt 2

# flip FILE OFFSET: XOR one byte with 0xff in a copy of the clean directory.
cp -r "$TMP/clean" "$TMP/bad"
last=
flip() {
    [ -n "$last" ] && cp "$TMP/clean/$last" "$TMP/bad/$last"
    last=$1
    b=$(od -An -tu1 -j "$2" -N1 "$TMP/bad/$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$TMP/bad/$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# expect_fail WHAT PATTERN: verify must exit 2 with PATTERN in its messages.
expect_fail() {
    $WINNOW shards verify "$TMP/bad" > /dev/null 2> "$TMP/err"
    is $? 2 "$1: verify exits 2"
    if grep -q "$2" "$TMP/err"; then echo "ok $((_n+1)) - $1: names '$2'"; else
        echo "not ok $((_n+1)) - $1: names '$2'"; sed 's/^/#   /' "$TMP/err"; _fail=$((_fail+1)); fi
    _n=$((_n+1))
}

# frame offsets come from the seek table: entry i = compressed size at table + 8 + 12 i
table=$((size - 9 - 12 * frames - 8))
off0=0
c0=$(od -An -tu4 -j $((table + 8)) -N4 "$TMP/clean/$f" | tr -d ' ')
c1=$(od -An -tu4 -j $((table + 20)) -N4 "$TMP/clean/$f" | tr -d ' ')
off2=$((c0 + c1))

flip $f 0;                    expect_fail "first byte (frame 0 magic)" "$f: frame 0 at offset 0"
flip $f 5;                    expect_fail "frame 0 header" "$f: frame 0"
flip $f $((c0 / 2));          expect_fail "middle of frame 0" "$f: frame 0"
flip $f $((off2 + 3000));     expect_fail "inside frame 2" "$f: frame 2 at offset $off2"
flip $f $((table - 1));       expect_fail "last byte of the last frame (its checksum)" "$f: frame $((frames - 1))"
flip $f $table;               expect_fail "seek table magic" "$f: seek table"
flip $f $((table + 8 + 4));   expect_fail "frame 0 decompressed size in the seek table" "$f"
flip $f $((table + 8 + 12 + 8)); expect_fail "frame 1 checksum in the seek table" "$f: frame 1.*checksum"
flip $f $((size - 5));        expect_fail "seek table descriptor" "$f: seek table"
flip $f $((size - 1));        expect_fail "last byte (seekable magic)" "$f: seek table"
flip shard_00000.idx 40;      expect_fail "document index" "shard_00000.idx"
flip shard_00002.tok.zst 100; expect_fail "another shard" "shard_00002.tok.zst: frame 0"

# Every 50021st byte of a shard, and every byte of its seek table: never missed.
missed=0; tried=0
for pos in $(seq 0 50021 $((size - 1))) $(seq "$table" 1 $((size - 1))); do
    flip $f "$pos"; tried=$((tried + 1))
    $WINNOW shards verify "$TMP/bad" > /dev/null 2>&1 && { missed=$((missed + 1)); echo "# missed offset $pos"; }
done
is "$missed" 0 "every one of $tried flipped bytes is caught"

# A manifest that disagrees, and a missing file
rm -rf "$TMP/bad"; cp -r "$TMP/clean" "$TMP/bad"; last=
sed 's/"documents": 700/"documents": 701/' "$TMP/clean/manifest.json" > "$TMP/bad/manifest.json"
expect_fail "manifest total (caught by the manifest checksum)" "manifest_sha256"
# the tokens' XXH3-64 in the manifest is checked on its own (the file hash
# still matches; the manifest is resealed with the Python reader's digest)
rm -rf "$TMP/bad"; cp -r "$TMP/clean" "$TMP/bad"; last=
/usr/bin/python3 - "$TMP/bad/manifest.json" "$(cd "$(dirname "$0")/../../shards/python" && pwd)" <<'PYEOF' # numpy: Debian's python3-numpy
import json, sys
sys.path.insert(0, sys.argv[2])
import winnow_shards
m = json.load(open(sys.argv[1]))
h = m["shards"][0]["xxh3_64"]
m["shards"][0]["xxh3_64"] = h[:-1] + ("0" if h[-1] != "0" else "1")
m["manifest_sha256"] = winnow_shards._manifest_digest(m)
json.dump(m, open(sys.argv[1], "w"), indent=2)
PYEOF
expect_fail "manifest's token hash of shard 0" "XXH3-64 of the tokens"
# reseal PYTHON: a copy of the clean directory whose manifest m is edited by
# PYTHON and sealed again with the Python reader's digest
reseal() {
    rm -rf "$TMP/bad"; cp -r "$TMP/clean" "$TMP/bad"; last=
    /usr/bin/python3 - "$TMP/bad/manifest.json" "$(cd "$(dirname "$0")/../../shards/python" && pwd)" "$1" <<'PYEOF'
import json, sys
sys.path.insert(0, sys.argv[2])
import winnow_shards
m = json.load(open(sys.argv[1]))
exec(sys.argv[3])
m["manifest_sha256"] = winnow_shards._manifest_digest(m)
json.dump(m, open(sys.argv[1], "w"), indent=2)
PYEOF
}
# the end-of-text id 50256 is in every shard: with vocab_size 50256 it is one
# past the last id, and every shard holds an id the embedding table lacks
reseal 'm["tokenizer"]["vocab_size"] = 50256'
expect_fail "a token id equal to vocab_size" "shard_00000.tok.zst: frame 0: token .* is id 50256, not below the vocabulary size 50256"
# the index is the only copy of the document boundaries: its count must agree
# with the manifest's even where the manifest's totals add up
reseal 'm["shards"][1]["documents"] += 1; m["totals"]["documents"] += 1'
expect_fail "index of shard 1 with one document fewer than its manifest entry" "shard_00001.idx: offset 0: document count differs from the manifest"
# frame_bytes must be a whole number of tokens (uint16 here: even); one byte
# more is odd although every frame still fits
reseal 'assert m["dtype"] == "uint16"; m["frame_bytes"] += 1'
expect_fail "frame_bytes of an odd number of bytes for uint16" '"frame_bytes" is not a whole number of tokens'
rm -rf "$TMP/bad"; cp -r "$TMP/clean" "$TMP/bad"; rm "$TMP/bad/shard_00002.tok.zst"
cp "$TMP/clean/manifest.json" "$TMP/bad/manifest.json"
expect_fail "missing shard" "shard_00002.tok.zst"
# The reader refuses a damaged frame with the same precision
rm -rf "$TMP/bad"; cp -r "$TMP/clean" "$TMP/bad"; last=
flip $f $((off2 + 3000))
$WINNOW shards cat "$TMP/bad" > /dev/null 2> "$TMP/err"
is $? 2 "cat of a damaged shard exits 2"
grep -q "$f: frame 2" "$TMP/err"; is $? 0 "cat names the damaged frame"
done_testing
