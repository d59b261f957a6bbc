#!/bin/sh
# winnow ingest's counts and fields against independent readers: bytes_in is
# the decoded bytes (Python's gzip), each damaged gzip member one
# damaged_stream (members zlib refuses), a zstd frame damaged before any
# output one failed damaged_member as a gzip member is, a damaged compressed archive member
# counted and exit 2, an input that cannot be opened counted failed,
# archives followed 4 deep inside a file and no deeper, a single-document
# file's content_type, compressed empty archive members whole and one cut in
# its signature damaged, and text that starts with "BZh" read as text
# (Python's bz2 refuses it; libarchive's bzip2 filter does not bid on it).
. tests/lib.sh
R=$SHARED/warc/resiliparse/tests/data
W=$SHARED/warc/whirlwind-python
A=$SHARED/extraction/articles/html
require_file "$R/warcfile.warc.gz" "$R/warcfile.warc" "$W/whirlwind.warc.gz" "$A" "$SHARED/warc/resiliparse/LICENSE"

# bytes_in: the decoded bytes, as Python's gzip gives them (per-record gzip
# and one member of a whole plain file)
for f in "$W/whirlwind.warc.gz" "$R/warcfile.warc.gz"; do
    want=$(python3 -c 'import gzip, sys; print(len(gzip.open(sys.argv[1]).read()))' "$f")
    "$WINNOW" ingest -q -j2 --stats "$TMP/s.json" "$f" >/dev/null
    is "$(stats_value "$TMP/s.json" bytes_in)" "$want" "$(basename "$f"): bytes_in is its $want decoded bytes"
done

# two damaged response members of the 50 in warcfile.warc.gz (the 2nd and the
# 12th response; each, alone, refused by zlib): two damaged streams, each
# costing its record
python3 - "$R/warcfile.warc.gz" "$TMP/two.warc.gz" >"$TMP/two.ref" <<'PY'
import sys, zlib
data = open(sys.argv[1], "rb").read()
members, responses, at = [], [], 0
while at < len(data):
    d = zlib.decompressobj(31)
    record = d.decompress(data[at:])
    n = len(data) - at - len(d.unused_data)
    if b"WARC-Type: response\r\n" in record[:300]: responses.append(len(members))
    members.append(bytearray(data[at:at + n]))
    at += n
refused = 0
for i in (responses[1], responses[11]):
    m = members[i]
    for k in range(len(m) // 2, len(m) // 2 + 16): m[k] ^= 0x55
    try:
        zlib.decompress(bytes(m), 31)
    except zlib.error:
        refused += 1
open(sys.argv[2], "wb").write(b"".join(members))
print(len(members), len(responses), refused)
PY
is "$(cat "$TMP/two.ref")" "50 16 2" "warcfile.warc.gz: 50 members, 16 responses, 2 of them damaged so that zlib refuses each"
for j in 1 2; do
    "$WINNOW" ingest -q -j$j --stats "$TMP/s.json" "$TMP/two.warc.gz" >/dev/null 2>"$TMP/two.err"
    rc=$?
    is "$rc $(stats_value "$TMP/s.json" extra.damaged_streams) $(grep -c 'reading on from the next gzip member' "$TMP/two.err")" "2 2 2" \
        "-j$j: two damaged members: exit 2, damaged_streams 2, each reported"
    is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" failed) $(stats_value "$TMP/s.json" balanced)" "50 2 true" \
        "-j$j: two damaged members: 50 records in, 2 failed, balanced"
done

# JSON Lines of C4 in two zstd frames (two gzip members), the second damaged
# before it gives any output (zstd -d and Python's gzip refuse it): the
# first's 10 documents out, the second counted as one failed damaged_member,
# the same for both codecs
C4=$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz
require_file "$C4"
gzip -dc "$C4" | head -n 10 >"$TMP/c4a.jsonl"
gzip -dc "$C4" | sed -n 11,20p >"$TMP/c4b.jsonl"
python3 - "$TMP" <<'PY'
import gzip, subprocess, sys, zlib
d = sys.argv[1]
a, b = open(d + "/c4a.jsonl", "rb").read(), open(d + "/c4b.jsonl", "rb").read()
zstd = lambda data: bytearray(subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout)
zb, gb = zstd(b), bytearray(gzip.compress(b))
zb[0] ^= 0x5a  # the frame's magic
gb[10] = 0x07  # the first deflate block's type: reserved
open(d + "/lost.jsonl.zst", "wb").write(bytes(zstd(a) + zb))
open(d + "/lost.jsonl.gz", "wb").write(gzip.compress(a) + bytes(gb))
try:
    gzip.decompress(open(d + "/lost.jsonl.gz", "rb").read())
    sys.exit(1)
except zlib.error:
    pass
PY
is "$?" 0 "made C4 JSON Lines in two zstd frames and two gzip members, the second damaged (Python's gzip refuses it)"
ok "zstd -d refuses the damaged frame" sh -c "! zstd -q -d -c '$TMP/lost.jsonl.zst' >/dev/null 2>&1"
for f in lost.jsonl.zst lost.jsonl.gz; do
    "$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/$f" >"$TMP/lost.jsonl" 2>/dev/null
    is "$? $(wc -l <"$TMP/lost.jsonl" | tr -d ' ')" "2 10" "$f: exit 2, the first frame's 10 documents"
    is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" failed_by_kind.damaged_member) $(stats_value "$TMP/s.json" balanced)" "11 1 true" \
        "$f: the damaged second part counted as one failed damaged_member, balanced"
done

# an input that cannot be opened: counted in and failed, the others read
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/absent.warc" "$W/whirlwind.warc.gz" >"$TMP/abs.jsonl" 2>"$TMP/abs.err"
is "$? $(wc -l <"$TMP/abs.jsonl" | tr -d ' ')" "2 1" "an input that cannot be opened: exit 2, the other input's document written"
is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" failed_by_kind.unreadable_input) $(stats_value "$TMP/s.json" balanced)" "5 1 true" \
    "an input that cannot be opened: 1 + whirlwind's 4 records in, 1 failed unreadable_input, balanced"
ok "an input that cannot be opened: named" grep -q "absent.warc: cannot open" "$TMP/abs.err"

# a tar holding a gzip member cut short (Python's gzip: EOFError) and a whole
# one: the damage counted (exit 2), the whole member read
mkdir -p "$TMP/cut/m"
gzip -c "$SHARED/warc/resiliparse/LICENSE" | head -c 2000 >"$TMP/cut/m/a.txt.gz"
gzip -c "$SHARED/warc/resiliparse/LICENSE" >"$TMP/cut/m/b.txt.gz"
python3 -c 'import gzip, sys
try: gzip.open(sys.argv[1]).read()
except EOFError: sys.exit(0)
sys.exit(1)' "$TMP/cut/m/a.txt.gz"
is "$?" 0 "a.txt.gz: Python's gzip finds it cut short"
(cd "$TMP/cut" && tar cf "$TMP/cut.tar" m)
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/cut.tar" >"$TMP/cut.jsonl" 2>"$TMP/cut.err"
is "$? $(stats_value "$TMP/s.json" extra.damaged_streams)" "2 1" "tar with a gzip member cut short: exit 2, damaged_streams 1"
ok "tar with a gzip member cut short: the member named" grep -q "cut.tar/m/a.txt.gz: damaged compressed data" "$TMP/cut.err"
ok "tar with a gzip member cut short: the whole member read" grep -q "\"id\":\"$TMP/cut.tar/m/b.txt.gz\"" "$TMP/cut.jsonl"

# archives inside a file: followed 4 deep (the file and 4 tars in it), not 5
python3 - "$TMP" <<'PY'
import io, sys, tarfile
def wrap(name, data, depth):
    for level in range(depth, 0, -1):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as t:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        data, name = buf.getvalue(), "level%d.tar" % level
    return data
text = b"A page of plain text inside nested archives.\n"
open(sys.argv[1] + "/deep5.tar", "wb").write(wrap("doc.txt", text, 5))
open(sys.argv[1] + "/deep6.tar", "wb").write(wrap("doc.txt", text, 6))
PY
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/deep5.tar" >"$TMP/deep5.jsonl" 2>"$TMP/deep5.err"
is "$? $(stats_value "$TMP/s.json" out) $(stats_value "$TMP/s.json" failed)" "0 1 0" "a file and 4 tars inside: the document read"
is "$(grep -o '"id":"[^"]*"' "$TMP/deep5.jsonl")" "\"id\":\"$TMP/deep5.tar/level2.tar/level3.tar/level4.tar/level5.tar/doc.txt\"" \
    "a file and 4 tars inside: the member's id is its path through them"
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/deep6.tar" >"$TMP/deep6.jsonl" 2>"$TMP/deep6.err"
is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" out) $(stats_value "$TMP/s.json" failed_by_kind.nested_too_deep)" "1 0 1" \
    "a file and 5 tars inside: the innermost tar counted failed nested_too_deep"
ok "a file and 5 tars inside: named" grep -q "level6.tar: archives nested more than 4 deep; skipped" "$TMP/deep6.err"

# archive members compressed from nothing (gzip, xz, zstd, bzip2 of an empty
# file; Python's decompressors give b"" for each): whole, no document, exit 0;
# a bzip2 member cut inside its end marker (Python's bz2: ended before the
# end-of-stream marker) is damaged
mkdir -p "$TMP/empty/m"
python3 -c 'import bz2, gzip, lzma, sys
d = sys.argv[1]
for name, data in (("e.gz", gzip.compress(b"")), ("e.xz", lzma.compress(b"")), ("e.bz2", bz2.compress(b""))):
    assert {"gz": gzip, "xz": lzma, "bz2": bz2}[name[2:]].decompress(data) == b""
    open(d + "/" + name, "wb").write(data)' "$TMP/empty/m"
zstd -q -c </dev/null >"$TMP/empty/m/e.zst"
is "$(zstd -dc "$TMP/empty/m/e.zst" | wc -c | tr -d ' ')" 0 "e.zst: zstd -d gives no bytes"
cp "$SHARED/warc/resiliparse/LICENSE" "$TMP/empty/m/z.txt"
(cd "$TMP/empty" && tar cf "$TMP/empty.tar" m)
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/empty.tar" >"$TMP/empty.jsonl" 2>"$TMP/empty.err"
is "$? $(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" out) $(stats_value "$TMP/s.json" extra.damaged_streams)" "0 1 1 0" \
    "a tar of 4 compressed empty members and a text: exit 0, the text's one document, nothing damaged"
is "$(cat "$TMP/empty.err")" "" "a tar of 4 compressed empty members: no message"
head -c 11 "$TMP/empty/m/e.bz2" >"$TMP/cut11.bz2"
python3 -c 'import bz2, sys
try: bz2.decompress(open(sys.argv[1], "rb").read())
except ValueError as e: sys.exit("end-of-stream marker" not in str(e))
sys.exit(1)' "$TMP/cut11.bz2"
is "$?" 0 "cut11.bz2: Python's bz2 finds it cut short"
mkdir -p "$TMP/cut11" && mv "$TMP/cut11.bz2" "$TMP/cut11/" && (cd "$TMP" && tar cf cut11.tar cut11)
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/cut11.tar" >/dev/null 2>"$TMP/cut11.err"
is "$? $(stats_value "$TMP/s.json" extra.damaged_streams) $(stats_value "$TMP/s.json" failed)" "2 1 0" \
    "a tar holding a bzip2 stream cut inside its end marker: exit 2, one damaged stream"
ok "... named as damaged compressed data" grep -q "cut11.tar/cut11/cut11.bz2: damaged compressed data" "$TMP/cut11.err"

# a single-document file's content_type: text/html for a page, text/plain for text
"$WINNOW" ingest -q "$A/$(ls "$A" | head -1)" "$SHARED/warc/resiliparse/LICENSE" >"$TMP/types.jsonl"
is "$(python3 -c 'import json, sys; print(" ".join(json.loads(l)["metadata"]["content_type"] for l in open(sys.argv[1])))' "$TMP/types.jsonl")" \
    "text/html text/plain" "single-document files: content_type text/html for the page, text/plain for the text"

# text that starts with "BZh" is text, as a file and as an archive member; a
# real bzip2 file of it (and an empty one) still decodes
mkdir -p "$TMP/bzh/m"
printf 'BZh is how the text of this file begins.\nIt is plain text, not bzip2.\n' >"$TMP/bzh/m/bzh.txt"
python3 -c 'import bz2, sys
try: bz2.decompress(open(sys.argv[1], "rb").read())
except OSError: sys.exit(0)
sys.exit(1)' "$TMP/bzh/m/bzh.txt"
is "$?" 0 "bzh.txt: Python's bz2 refuses it"
python3 -c 'import bz2, sys; open(sys.argv[2], "wb").write(bz2.compress(open(sys.argv[1], "rb").read())); open(sys.argv[3], "wb").write(bz2.compress(b""))' \
    "$TMP/bzh/m/bzh.txt" "$TMP/bzh/m/real.txt.bz2" "$TMP/bzh/m/empty.bz2"
(cd "$TMP/bzh" && tar cf bzh.tar m)
want=$(python3 -c 'import json, sys; print(json.dumps(open(sys.argv[1]).read()))' "$TMP/bzh/m/bzh.txt")
for case in m/bzh.txt:1 m/real.txt.bz2:1 m/empty.bz2:0 bzh.tar:2; do
    input=$TMP/bzh/${case%:*} n=${case#*:}
    "$WINNOW" ingest -q --stats "$TMP/s.json" "$input" >"$TMP/bzh.jsonl" 2>"$TMP/bzh.err"
    rc=$?
    texts=$(python3 -c 'import json, sys; print(" ".join(sorted(set(json.dumps(json.loads(l)["text"]) for l in open(sys.argv[1])))))' "$TMP/bzh.jsonl")
    [ "$n" = 0 ] && want_texts= || want_texts=$want
    is "$rc $(wc -l <"$TMP/bzh.jsonl" | tr -d ' ') $(stats_value "$TMP/s.json" failed) $texts" "0 $n 0 $want_texts" \
        "${case%:*}: read whole, $n documents of the text"
done

done_testing
