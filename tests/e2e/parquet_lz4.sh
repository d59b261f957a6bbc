#!/bin/sh
# Parquet files compressed with LZ4_RAW and with the deprecated LZ4 codec
# (Hadoop's framing, or one plain LZ4 block), the Parquet project's own
# (apache/parquet-testing; the values its commits PARQUET-1878 and
# PARQUET-1998 give). The three small files hold one table: their documents
# are the same lines; the two _larger files the same 10000 UUIDs, so dedup
# drops every row of the second file as an exact duplicate. A damaged LZ4
# page: its row group refused with file and offset, its 10000 rows counted
# as failed (damaged_row_group), exit status 2.
. "$(dirname "$0")/../lib.sh"
D=$SHARED/parquet/parquet-testing/data
require_file "$D/hadoop_lz4_compressed.parquet" "$D/non_hadoop_lz4_compressed.parquet" "$D/lz4_raw_compressed.parquet" \
    "$D/hadoop_lz4_compressed_larger.parquet" "$D/lz4_raw_compressed_larger.parquet"

# the document lines without their "id" (made from the file's path)
no_id() { sed 's/^{"id":"[^"]*",/{/' "$1"; }

cat > "$TMP/want.jsonl" <<'EOF'
{"text":"abc","metadata":{"c0":1593604800,"v11":42.0}}
{"text":"def","metadata":{"c0":1593604800,"v11":7.7}}
{"text":"abc","metadata":{"c0":1593604801,"v11":42.125}}
{"text":"def","metadata":{"c0":1593604801,"v11":7.7}}
EOF
for f in hadoop_lz4_compressed non_hadoop_lz4_compressed lz4_raw_compressed; do
    "$WINNOW" ingest -q --text-column c1 "$D/$f.parquet" > "$TMP/$f.jsonl" 2> "$TMP/err"
    is "$? $(cat "$TMP/err")" "0 " "$f: read without a message"
    no_id "$TMP/$f.jsonl" > "$TMP/$f.noid"
    ok "$f: the 4 rows c1 / c0 / v11 as PARQUET-1878 gives them" cmp -s "$TMP/$f.noid" "$TMP/want.jsonl"
done
ok "Hadoop-framed LZ4, a plain LZ4 block and LZ4_RAW: the same documents" \
    sh -c "cmp -s '$TMP/hadoop_lz4_compressed.noid' '$TMP/non_hadoop_lz4_compressed.noid' && cmp -s '$TMP/non_hadoop_lz4_compressed.noid' '$TMP/lz4_raw_compressed.noid'"

for f in hadoop_lz4_compressed_larger lz4_raw_compressed_larger; do
    "$WINNOW" ingest -q --text-column a --stats "$TMP/s.json" "$D/$f.parquet" > "$TMP/$f.jsonl" 2> "$TMP/err"
    is "$? $(cat "$TMP/err")" "0 " "$f: read without a message"
    python3 - "$TMP/$f.jsonl" > "$TMP/$f.check" <<'EOF'
import json, re, sys
t = [json.loads(l)["text"] for l in open(sys.argv[1])]
uuid = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
print(len(t), len(set(t)), all(uuid.match(x) for x in t), min(t), max(t), " ".join(x[:8] for x in t[:5]))
EOF
    is "$(cat "$TMP/$f.check")" \
        "10000 10000 True 00087de7-10df-4979-94cf-79279f9745ce ffffe6a0-e0c0-4e65-a9d4-f7f4c176aea2 c7ce6bef e8fb9197 885136e1 ce7b2019 a9ee2527" \
        "$f: 10000 distinct UUIDs, min, max and the first five as PARQUET-1998 gives them"
    no_id "$TMP/$f.jsonl" > "$TMP/$f.noid"
done
ok "the two _larger files: the same 10000 documents in the same order" \
    cmp -s "$TMP/hadoop_lz4_compressed_larger.noid" "$TMP/lz4_raw_compressed_larger.noid"
"$WINNOW" dedup -q -j2 --text-column a --stats "$TMP/d.json" "$D/hadoop_lz4_compressed_larger.parquet" \
    "$D/lz4_raw_compressed_larger.parquet" > /dev/null 2>&1
is "$?  $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["in"], d["out"], d["dropped_by_reason"])' "$TMP/d.json")" \
    "0  20000 10000 {'exact_dup': 10000}" "dedup of both: each row of the LZ4_RAW file an exact duplicate of the Hadoop-framed one's"

# a damaged LZ4_RAW page: garbage over the middle of the column chunk
python3 - "$D/lz4_raw_compressed_larger.parquet" "$TMP/holes.parquet" <<'EOF'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
for at in range(100000, 101000):
    data[at] = (at * 7) & 0xff
open(sys.argv[2], "wb").write(data)
EOF
for stage in ingest filter; do
    "$WINNOW" $stage -q --text-column a --stats "$TMP/s.json" "$TMP/holes.parquet" > "$TMP/out" 2> "$TMP/err"
    is "$?" 2 "$stage, a damaged LZ4_RAW page: exit status 2"
    ok "$stage: the row group refused, naming file, offset and the LZ4 data: $(head -c 300 "$TMP/err")" \
        grep -q "holes.parquet: offset [0-9]*: row group 0, column a: .*LZ4 data.*; row group 0 (10000 rows) skipped" "$TMP/err"
    is "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["in"], d["out"], d["failed"], d["failed_by_kind"], d["balanced"])' "$TMP/s.json") $(wc -c < "$TMP/out")" \
        "10000 0 10000 {'damaged_row_group': 10000} True 0" "$stage --stats: the 10000 rows failed (damaged_row_group), none written"
done
done_testing
