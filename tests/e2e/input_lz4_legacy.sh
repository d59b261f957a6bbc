#!/bin/sh
# input_lz4_legacy - lz4's legacy frame format (`lz4 -l`: magic 0x184C2102,
# blocks of a 4-byte size and one LZ4 block of at most 8 MiB decoded, no
# checksums) is read as what `lz4 -dc` gives: real documents (DCLM) in a file
# of two blocks (over 8 MiB decoded) and in two frames one after the other,
# through filter, dedup, tokenize (engine and block path) and ingest, outputs
# identical to the uncompressed file's; damaged copies (a block cut short, a
# block that does not decode, a block size over the limit, junk after the last
# block) keep every document before the damage, report file and offset, count
# the loss (in = out + failed) and exit 2.
. tests/lib.sh
D=$SHARED/jsonl/dclm/data/majority_data.jsonl
VOCAB=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
require_file "$D" "$VOCAB"
RULES_OFF="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"
cd "$TMP" || exit 1
# 8 copies of the 499 documents: 10.6 MB, two legacy blocks
for i in 1 2 3 4 5 6 7 8; do cat "$D"; done > big.jsonl
lz4 -l -q big.jsonl big.lz4
head -n 40 "$D" > p1
sed -n 41,80p "$D" > p2
lz4 -l -q p1 p1.lz4; lz4 -l -q p2 p2.lz4
cat p1.lz4 p2.lz4 > two.lz4; cat p1 p2 > p12
# blocks FILE: "offset size" of each block of a one-frame legacy file
blocks() {
    python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(); o = 4
while o < len(d):
    n = struct.unpack("<I", d[o:o + 4])[0]; print(o, n); o += 4 + n' "$1"
}
is "$(od -An -tx1 -N4 big.lz4 | tr -d ' ')" "02214c18" "lz4 -l writes the legacy magic"
is "$(blocks big.lz4 | wc -l)" 2 "the big file holds two blocks"
ok "lz4 -dc reads the big file back" sh -c 'lz4 -dc big.lz4 | cmp -s - big.jsonl'

read_through() { "$WINNOW" filter -q $RULES_OFF --stats s.json "$1" > out.jsonl 2> err.txt; }

read_through big.lz4
is "$?" 0 "filter: two blocks: exit 0"
ok "filter: two blocks: every document, as lz4 -dc gives them" cmp -s out.jsonl big.jsonl
is "$(stats_value s.json in)" 3992 "filter: two blocks: in counts 3992 documents"
is "$(stats_value s.json failed)" 0 "filter: two blocks: nothing failed"
read_through two.lz4
is "$?" 0 "filter: two frames: exit 0"
ok "filter: two frames: both frames' documents" cmp -s out.jsonl p12

"$WINNOW" filter -q big.jsonl > ref.filter
"$WINNOW" filter -q big.lz4 > got.filter
ok "filter with its rules: the same documents kept as from the plain file" cmp -s ref.filter got.filter
"$WINNOW" dedup -q p12 > ref.dedup
"$WINNOW" dedup -q two.lz4 > got.dedup
ok "dedup: the same documents as from the plain file" cmp -s ref.dedup got.dedup
"$WINNOW" ingest -q p12 > ref.ingest
"$WINNOW" ingest -q two.lz4 | sed 's/two\.lz4/p12/g' > got.ingest
ok "ingest: the same documents as from the plain file (ids named by file)" cmp -s ref.ingest got.ingest
tok() { "$WINNOW" tokenize -q -j2 --encoding cl100k_base --vocab "$VOCAB" --format bin "$@"; }
tok --device cpu big.jsonl > ref.bin
tok --device cpu big.lz4 > got.bin
ok "tokenize: the same ids as from the plain file" cmp -s ref.bin got.bin
WINNOW_TOKENIZE_BLOCKS=cpu tok big.lz4 > blk.bin
ok "tokenize block path: the same ids as from the plain file" cmp -s ref.bin blk.bin

# damage in the second block: the first block's documents come out whole
set -- $(blocks big.lz4 | sed -n 2p); second=$1 size2=$2
lz4 -dc big.lz4 | head -c 8388608 > block1
whole1=$(python3 -c 'import sys; d = open("block1", "rb").read(); print(d.count(b"\n"))')
head -n "$whole1" big.jsonl > before
check_damage() { # NAME FILE: exit 2, the documents before the damage, in = out + failed, file and offset named
    read_through "$2"
    is "$?" 2 "$1: exit 2"
    ok "$1: the first block's whole documents come out" sh -c "head -n $whole1 out.jsonl | cmp -s - before"
    is "$(( $(stats_value s.json in) ))" "$(( $(stats_value s.json out) + $(stats_value s.json failed) ))" "$1: in = out + failed"
    ok "$1: the message names the file and the block's offset" grep -q "$2: .*lz4 legacy .*offset $second" err.txt
}
head -c $((second + 4 + size2 / 2)) big.lz4 > cut.lz4
check_damage "a block cut short" cut.lz4
is "$(stats_value s.json failed_by_kind.bad_json)" 1 "a block cut short: the line the first block ended in fails"
is "$(stats_value s.json out)" "$whole1" "a block cut short: out counts the first block's whole documents"
# the second block's bytes replaced by 0xff: every token asks for more literals than there are
python3 -c 'import sys
d = bytearray(open("big.lz4", "rb").read()); o = int(sys.argv[1]) + 4
d[o:] = b"\xff" * (len(d) - o); open("bad.lz4", "wb").write(d)' "$second"
ok "lz4 -t refuses the block that does not decode" sh -c '! lz4 -t bad.lz4 2>/dev/null'
check_damage "a block that does not decode" bad.lz4
ok "a block that does not decode: said so" grep -q "does not decode" err.txt
is "$(stats_value s.json failed_by_kind.bad_json)" 1 "a block that does not decode: the line the first block ended in fails"
python3 -c 'import sys, struct
d = bytearray(open("big.lz4", "rb").read()); o = int(sys.argv[1])
d[o:o + 4] = struct.pack("<I", 0x7fffffff); open("size.lz4", "wb").write(d)' "$second"
check_damage "a block size over the limit" size.lz4
ok "a block size over the limit: said so" grep -q "bad lz4 legacy block size 2147483647" err.txt
# junk after the last block, where a size word or a magic should be
{ cat p1.lz4; printf 'junk'; } > junk.lz4
read_through junk.lz4
is "$?" 2 "junk after the last block: exit 2"
ok "junk after the last block: the documents before it" cmp -s out.jsonl p1
is "$(stats_value s.json failed_by_kind.damaged_member)" 1 "junk after the last block: one failed damaged_member"
ok "junk after the last block: the message names the file and offset" grep -q "junk.lz4: bad lz4 legacy block size .* at offset $(wc -c < p1.lz4)" err.txt
# a frame whose only block does not decode, after a whole frame: that block gave nothing
python3 -c 'd = bytearray(open("p2.lz4", "rb").read()); d[8:] = b"\xff" * (len(d) - 8); open("bad2.lz4", "wb").write(d)'
cat p1.lz4 bad2.lz4 > lost.lz4
read_through lost.lz4
is "$?" 2 "a frame whose block gave nothing: exit 2"
ok "a frame whose block gave nothing: the first frame's documents" cmp -s out.jsonl p1
is "$(stats_value s.json failed_by_kind.damaged_member)" 1 "a frame whose block gave nothing: one failed damaged_member"
is "$(stats_value s.json in)" 41 "a frame whose block gave nothing: in counts 40 documents and the lost block"
WINNOW_TOKENIZE_BLOCKS=cpu tok --stats t.json lost.lz4 > /dev/null 2>&1
is "$?" 2 "tokenize block path: a block that gave nothing: exit 2"
is "$(stats_value t.json failed_by_kind.damaged_member)" 1 "tokenize block path: one failed damaged_member"
done_testing
