#!/bin/sh
# Several compressed streams in one file (xz and bzip2 streams, gzip
# members), real documents in three parts: a later stream that is damaged,
# whose header is damaged, or junk where a stream should begin, counts one
# failed damaged_member and the other parts' documents come out whole (exit
# 2); xz stream padding is read as `xz -t` reads it (4-byte words of zeros:
# good; 3 zeros: damage).
. tests/lib.sh
D=$SHARED/jsonl/dclm/data/majority_data.jsonl
require_file "$D"
RULES_OFF="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"
# flip FILE OFFSET: inverts the byte at OFFSET of FILE
flip() {
    python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[int(sys.argv[2])] ^= 0xff
open(sys.argv[1], "wb").write(d)' "$1" "$2"
}
cd "$TMP" || exit 1
head -n 40 "$D" > p1
sed -n 41,80p "$D" > p2
sed -n 81,120p "$D" > p3
cat p1 p3 > p13
cat p1 p2 p3 > p123
n13=$(wc -l < p13)
is "$(wc -l < p2)" 40 "the middle part holds 40 documents"

# read FILE: winnow filter with its rules off (it passes documents through as they are)
read_through() {
    "$WINNOW" filter -q $RULES_OFF --stats s.json "$1" > out.jsonl 2> err.txt
}

for kind in xz bz2 gz; do
    case $kind in
    xz) z() { xz -c "$1"; } ;;
    bz2) z() { bzip2 -c "$1"; } ;;
    gz) z() { gzip -nc "$1"; } ;;
    esac
    z p1 > s1; z p2 > s2; z p3 > s3
    cat s1 s2 s3 > whole.$kind
    read_through whole.$kind
    is "$?" 0 "$kind: three whole streams: exit 0"
    ok "$kind: three whole streams give every document" cmp -s out.jsonl p123

    # the middle stream's data damaged (a byte in its middle)
    cp s2 bad2; flip bad2 $(($(wc -c < s2) / 2))
    cat s1 bad2 s3 > data.$kind
    read_through data.$kind
    is "$?" 2 "$kind: damaged data in the middle stream: exit 2"
    is "$(( $(stats_value s.json in) ))" "$(( $(stats_value s.json out) + $(stats_value s.json failed) ))" "$kind: damaged data: in = out + failed"
    ok "$kind: damaged data: the first part's documents come out whole" sh -c "head -n 40 out.jsonl | cmp -s - p1"

    # the middle stream's header damaged (its first byte): nothing of it can be read
    cp s2 head2; flip head2 0
    cat s1 head2 s3 > header.$kind
    read_through header.$kind
    is "$?" 2 "$kind: damaged header of the middle stream: exit 2"
    is "$(stats_value s.json failed_by_kind.damaged_member)" 1 "$kind: damaged header: one failed damaged_member"
    ok "$kind: damaged header: the first part's documents come out whole" cmp -s out.jsonl p1
    is "$(stats_value s.json in)" 41 "$kind: damaged header: in counts the 40 documents and the lost stream"
    ok "$kind: damaged header: the message names the file" grep -q "header.$kind" err.txt

    # junk after the last stream
    { cat s1; printf 'junk'; } > junk.$kind
    read_through junk.$kind
    is "$?" 2 "$kind: junk after the last stream: exit 2"
    is "$(stats_value s.json failed_by_kind.damaged_member)" 1 "$kind: junk after the last stream: one failed damaged_member"
    ok "$kind: junk after the last stream: the documents before it come out whole" cmp -s out.jsonl p1
done

# xz stream padding: 4-byte words of zeros between and after streams are part of the format
xz -c p1 > s1; xz -c p3 > s3
{ cat s1; printf '\0\0\0\0'; cat s3; printf '\0\0\0\0\0\0\0\0'; } > padded.xz
ok "xz -t accepts 4 and 8 zero bytes of stream padding" xz -t padded.xz
read_through padded.xz
is "$?" 0 "xz padding of 4-byte words: exit 0"
ok "xz padding of 4-byte words: both streams' documents" cmp -s out.jsonl p13
is "$(stats_value s.json failed)" 0 "xz padding of 4-byte words: nothing failed"
{ cat s1; printf '\0\0\0'; cat s3; } > badpad.xz
xz -t badpad.xz 2>/dev/null
ok "xz -t refuses 3 zero bytes of stream padding" test $? -ne 0
read_through badpad.xz
is "$?" 2 "xz padding of 3 bytes: exit 2"
ok "xz padding of 3 bytes: the first stream's documents come out whole" cmp -s out.jsonl p1
is "$(stats_value s.json failed_by_kind.damaged_member)" 1 "xz padding of 3 bytes: the stream after it counts one failed damaged_member"
is "$n13" 80 "the outer parts hold 80 documents"
done_testing
