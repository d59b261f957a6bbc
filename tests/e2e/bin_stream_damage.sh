#!/bin/sh
# A --format bin id stream (`winnow shard`, `winnow tokenize --decode`) with
# damaged compression: real cl100k ids, 60 documents cut into 3 parts, each
# part compressed on its own (gzip members or zstd frames, as `cat a.gz b.gz`
# gives), part 2 damaged. Reading stops at the damage (a bin stream has no
# marker to realign by: shards/id_stream.h), so exactly the 20 documents of
# part 1 come out, byte for byte; the damaged member counts one failed
# document, the rest of the file is refused with a message, never read as
# plausible but wrong ids (before: a phantom document, ids of garbage, part 3
# swallowed as one "truncated" document), and the exit status is 2.
. "$(dirname "$0")/../lib.sh"

REF=$SHARED/tokref
V=$SHARED/vocab
require_file "$REF/multi.cl100k_base.bin.zst" "$V/tiktoken/cl100k_base.tiktoken"
CL="--encoding cl100k_base --vocab $V/tiktoken/cl100k_base.tiktoken"
zstd -dcq "$REF/multi.cl100k_base.bin.zst" > "$TMP/all.bin"

# make CODEC MODE OUT: the parts (OUT.part1..3, plain) and OUT, their members
# concatenated with part 2's damaged: flip (64 bytes in its middle), cut (its
# second half gone) or head (its compressed data flipped from the start: it
# gives nothing)
make() {
    python3 - "$TMP/all.bin" "$1" "$2" "$3" <<'PY'
import gzip, struct, subprocess, sys
src, codec, mode, out = sys.argv[1:5]
data = open(src, "rb").read()
docs, at = [], 0
while len(docs) < 60:
    n = struct.unpack_from("<I", data, at)[0]
    docs.append(data[at:at + 4 + 4 * n]); at += 4 + 4 * n
parts = [b"".join(docs[i:i + 20]) for i in (0, 20, 40)]
def compress(b):
    if codec == "gz": return gzip.compress(b, mtime=0)
    return subprocess.run(["zstd", "-q", "-c"], input=b, stdout=subprocess.PIPE, check=True).stdout
members = [bytearray(compress(p)) for p in parts]
m = members[1]
if mode == "flip":
    for k in range(len(m) // 2, len(m) // 2 + 64): m[k] ^= 0x55
elif mode == "cut":
    members[1] = m[:len(m) // 2]
elif mode == "head":
    first = 10 if codec == "gz" else 12   # after the gzip header / the zstd frame header
    for k in range(first, len(m) - 8): m[k] ^= 0x55
open(out, "wb").write(b"".join(members))
for i, p in enumerate(parts): open("%s.part%d" % (out, i + 1), "wb").write(p)
PY
}

# stats FILE: in out failed failed_by_kind, from a --stats file
stats() { python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["in"], s["out"], s["failed"], json.dumps(s["failed_by_kind"], sort_keys=True, separators=(",", ":")))' "$1"; }

for codec in gz zst; do
    for mode in flip cut head; do
        f=$TMP/$codec.$mode
        make $codec $mode "$f"
        what="$codec members, part 2 damaged ($mode)"
        rm -rf "$TMP/sh"
        "$WINNOW" shard -q -o "$TMP/sh" --vocab-size 100277 --stats "$TMP/s.json" "$f" 2> "$TMP/err"
        is "$?" 2 "shard, $what: exit 2"
        is "$(stats "$TMP/s.json")" '21 20 1 {"damaged_member":1}' "shard, $what: in 21, out 20, failed 1 (damaged_member)"
        "$WINNOW" shards cat "$TMP/sh" --format bin --strip > "$TMP/back.bin"
        ok "shard, $what: the ids out are part 1's, byte for byte" cmp "$TMP/back.bin" "$f.part1"
        # gzip reads on at the next member, where the reader refuses the rest;
        # zstd damage ends the input there already
        if [ $codec = gz ]; then
            ok "shard, $what: the rest of the file is refused with a message" \
                grep -q "$codec.$mode: the rest of the input after offset [0-9]* (decoded) is not read" "$TMP/err"
        fi
        "$WINNOW" tokenize -q --decode $CL --stats "$TMP/d.json" "$f" > "$TMP/dec.jsonl" 2> "$TMP/err"
        is "$?" 2 "decode, $what: exit 2"
        is "$(stats "$TMP/d.json")" '21 20 1 {"damaged_member":1}' "decode, $what: in 21, out 20, failed 1"
        "$WINNOW" tokenize -q --decode $CL "$f.part1" > "$TMP/want.jsonl"
        ok "decode, $what: the text out is part 1's" cmp "$TMP/dec.jsonl" "$TMP/want.jsonl"
    done
done

# a damaged file does not stop the next file (each file starts at a document):
# part 1 of the damaged file, then all of an intact part 3
f=$TMP/gz.cut
rm -rf "$TMP/sh"
"$WINNOW" shard -q -o "$TMP/sh" --vocab-size 100277 --stats "$TMP/s.json" "$f" "$f.part3" 2> /dev/null
is "$?" 2 "shard, damaged file then an intact one: exit 2"
is "$(stats "$TMP/s.json")" '41 40 1 {"damaged_member":1}' "shard, damaged file then an intact one: in 41, out 40, failed 1"
"$WINNOW" shards cat "$TMP/sh" --format bin --strip > "$TMP/back.bin"
cat "$f.part1" "$f.part3" > "$TMP/want.bin"
ok "shard, damaged file then an intact one: part 1's ids, then part 3's" cmp "$TMP/back.bin" "$TMP/want.bin"

# damage that cuts a document (xz, whose damage ends the input, cut in its
# middle): the documents before it come out as a prefix, byte for byte; the
# cut one fails as damaged_document, with no inserted byte read as an id
cat "$f.part1" "$f.part2" "$f.part3" > "$TMP/p.bin"
xz -c "$TMP/p.bin" > "$TMP/p.bin.xz"
head -c $(($(wc -c < "$TMP/p.bin.xz") / 2)) "$TMP/p.bin.xz" > "$TMP/cut.xz"
rm -rf "$TMP/sh"
"$WINNOW" shard -q -o "$TMP/sh" --vocab-size 100277 --stats "$TMP/s.json" "$TMP/cut.xz" 2> "$TMP/err"
is "$?" 2 "shard, xz cut in its middle: exit 2"
set -- $(stats "$TMP/s.json")
is "$1 $3 $4" "$(($2 + 1)) 1 {\"damaged_document\":1}" "shard, xz cut in its middle: in = out + 1, failed 1 (damaged_document)"
"$WINNOW" shards cat "$TMP/sh" --format bin --strip > "$TMP/back.bin"
is "$(python3 -c 'import struct, sys
got = open(sys.argv[1], "rb").read(); want = open(sys.argv[2], "rb").read()
at = n = 0
while at < len(want) and n < int(sys.argv[3]):
    at += 4 + 4 * struct.unpack_from("<I", want, at)[0]; n += 1
print(n > 0 and got == want[:at])' "$TMP/back.bin" "$TMP/p.bin" "$2")" True "shard, xz cut in its middle: the documents out are the stream's first ones, byte for byte"
ok "shard, xz cut in its middle: the cut document is named" grep -q "cut.xz: document $2 at offset [0-9]*: damaged compressed data at offset [0-9]* (decoded) cut it" "$TMP/err"

done_testing
