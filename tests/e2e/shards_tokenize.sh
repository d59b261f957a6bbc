#!/bin/sh
# `winnow tokenize -o DIR/` writes shards whose ids are tiktoken's, and
# `winnow shards cat --decode` gives back every document's text.
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
VOCAB=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
require_file "$REF/multi.txt.zst" "$VOCAB"
case ${BUILD:-} in
    *build-asan*) skip_all "loading a 100k vocabulary takes minutes under ASan; the writer is covered by the other shards tests there" ;;
esac
PY=
for p in /usr/bin/python3 python3; do
    if $p -c 'import json' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip_all "no python3 to build the JSONL input"

# the first 400 documents of the multi corpus (UDHR in many languages, translated
# man pages): text cut at the index's byte offsets
NDOCS=400
zstd -dcq "$REF/multi.txt.zst" > "$TMP/multi.txt"
$PY - "$TMP/multi.txt" "$REF/multi.idx.tsv" $NDOCS > "$TMP/multi.jsonl" <<'PYEOF'
import itertools, json, sys
text = open(sys.argv[1], "rb").read()
for i, line in enumerate(itertools.islice(open(sys.argv[2]), int(sys.argv[3]))):
    off, n = map(int, line.split("\t")[:2])
    print(json.dumps({"id": "multi-%d" % i, "text": text[off:off + n].decode("utf-8")}))
PYEOF

ok "tokenize -o DIR/ writes shards" $WINNOW tokenize -q -j2 --encoding cl100k_base --vocab "$VOCAB" \
    --shard-tokens 500k -o "$TMP/d/" "$TMP/multi.jsonl"
ok "verify passes" $WINNOW shards verify "$TMP/d"
grep -q '"name": "cl100k_base", "vocab_sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", "vocab_size": 100277' "$TMP/d/manifest.json"
is $? 0 "manifest names the tokenizer, its vocabulary hash and size"
grep -q '"eos": 100257' "$TMP/d/manifest.json" && grep -q '"eos_appended": true' "$TMP/d/manifest.json"
is $? 0 "manifest: EOS <|endoftext|> appended"
$WINNOW shard -q -o "$TMP/ref" --vocab-size 100277 "$REF/multi.cl100k_base.bin.zst"
$WINNOW shards cat "$TMP/ref" --format bin --count $NDOCS > "$TMP/ref.bin"
$WINNOW shards cat "$TMP/d" --format bin --strip > "$TMP/back.bin"
ok "the shards hold tiktoken's ids for every document" cmp "$TMP/ref.bin" "$TMP/back.bin"
ok "tokenize -j1 writes the same bytes" $WINNOW tokenize -q -j1 --encoding cl100k_base --vocab "$VOCAB" \
    --shard-tokens 500k --format shards -o "$TMP/d1" "$TMP/multi.jsonl"
same=yes
for f in "$TMP"/d/*; do cmp -s "$f" "$TMP/d1/$(basename "$f")" || same=no; done
is "$same" yes "-j1 and -j2 shards are byte-identical"
grep -q '"zstd_level": 1,' "$TMP/d/manifest.json"; is $? 0 "manifest: default zstd level 1"

# --level: the frames' zstd level, or tlz (0 in the manifest); the ids are the same at any level
for level in -3 3 tlz; do
    ok "tokenize --level $level" $WINNOW tokenize -q -j2 --encoding cl100k_base --vocab "$VOCAB" --level $level \
        --shard-tokens 500k -o "$TMP/l$level/" "$TMP/multi.jsonl"
    [ "$level" = tlz ] && manifest_level=0 || manifest_level=$level
    grep -q "\"zstd_level\": $manifest_level," "$TMP/l$level/manifest.json"; is $? 0 "manifest: zstd level $manifest_level"
    ok "--level $level: verify passes" $WINNOW shards verify "$TMP/l$level"
    $WINNOW shards cat "$TMP/l$level" --format bin --strip > "$TMP/l$level.bin"
    ok "--level $level: the same ids" cmp "$TMP/ref.bin" "$TMP/l$level.bin"
done
$WINNOW tokenize -q --encoding cl100k_base --vocab "$VOCAB" --level 0 -o "$TMP/l0/" "$TMP/multi.jsonl" 2> "$TMP/err"
is $? 1 "--level 0 is a usage error (exit 1)"
grep -q -- "--level wants tlz, 1..22, or a negative level (faster), not '0'" "$TMP/err"; is $? 0 "--level 0: the message says what is wanted"

$WINNOW shards cat "$TMP/d" --decode --vocab "$VOCAB" > "$TMP/dec.jsonl"
$PY - "$TMP/multi.jsonl" "$TMP/dec.jsonl" <<'PYEOF' > "$TMP/py.out"
import json, sys
a = [json.loads(l)["text"] for l in open(sys.argv[1])]
b = [json.loads(l)["text"] for l in open(sys.argv[2])]
print("same %d" % len(a) if a == b else "differ %d %d" % (len(a), len(b)))
PYEOF
is "$(cat "$TMP/py.out")" "same $NDOCS" "cat --decode gives back the text of all $NDOCS documents"
$WINNOW shards cat "$TMP/d" --decode --vocab "$SHARED/vocab/tiktoken/o200k_base.tiktoken" > /dev/null 2> "$TMP/err"
is $? 1 "decoding with another vocabulary is refused"

# an id below the vocabulary size that names no token (cl100k_base has no 100256): `winnow shard`
# keeps it, `cat --decode` leaves that document out (its text without the id would look whole)
# and exits 2; the documents around it are decoded
$PY -c 'import struct, sys
docs = [[15339, 1917], [15339, 100256, 1917], [1917]]
sys.stdout.buffer.write(b"".join(struct.pack("<%dI" % (len(d) + 1), len(d), *d) for d in docs))' > "$TMP/gap.bin"
$WINNOW shard -q -o "$TMP/gap" --vocab-size 100277 --tokenizer cl100k_base "$TMP/gap.bin"
$WINNOW shards cat "$TMP/gap" --decode --vocab "$VOCAB" > "$TMP/gap.jsonl" 2> "$TMP/err"
is $? 2 "cat --decode of a document with an id no token has: exit 2"
is "$(cat "$TMP/gap.jsonl" | tr '\n' '|')" '{"text":"hello world"}|{"text":" world"}|' "cat --decode: the documents around it, that one left out"
grep -q "document 1: id 100256 (id 2 of 3) is not in the vocabulary; document left out" "$TMP/err"
is $? 0 "cat --decode: the message names the document and the id"
done_testing
