#!/bin/sh
# Parquet columns whose annotation (parquet.thrift LogicalType / ConvertedType)
# changes what the stored value means, read as documents (docs/ingest.md):
# DECIMAL(p, s) as its exact decimal value (12345 with scale 2 is 123.45; in
# INT32, INT64 or fixed bytes), unsigned integers as unsigned (INT32
# 0xffffffff is 4294967295, not -1), dates, times and timestamps as ISO 8601
# strings with their unit's digits and a Z only for an instant in UTC
# (isAdjustedToUTC), FLOAT16 as its double; list, struct and map columns as
# arrays and objects (checked against hyparquet too), and a group named
# metadata's members joining the document's metadata;
# unannotated fixed-length bytes left out with a warning naming the column; a
# non-string top-level field as a string ("id":"7");
# infinities and NaN as null (JSON has neither, RFC 8259).
# tests/parquet/fixtures/annotated.parquet is arrow-rs's file
# (tests/parquet/make_annotated.mjs), the rows below the values it was given
# (the instants checked with GNU date -u -d @SECONDS; hyparquet reads the same
# values); byte_array_decimal.parquet is the Parquet project's
# (apache/parquet-testing: DECIMAL(4, 2) in bytes, 1.00 ...).
. "$(dirname "$0")/../lib.sh"
FX=$(cd "$(dirname "$0")/../parquet/fixtures" && pwd)
PT=$SHARED/parquet/parquet-testing/data
require_file "$FX/annotated.parquet" "$PT/byte_array_decimal.parquet"

cat > "$TMP/want.jsonl" <<'EOT'
{"text":"first","id":"7","date":"1970-01-01T00:00:00.000","metadata":{"price":123.45,"big":922337203685477.5807,"u32":4294967295,"u64":18446744073709551615,"day":"1970-01-01","wide":0.001,"score":1.5,"us":"1970-01-01T00:00:00.000000Z","ns":"1970-01-01T00:00:00.000000001","clock":"00:00:00.000","clock_us":"23:59:59.999999","half":1.5,"tags":["a","b"],"meta":{"src":"cc","n":1},"kv":{"a":1,"b":2},"lang":"en"}}
{"text":"second","id":"-1","date":"2023-11-14T22:13:20.123","metadata":{"price":-0.05,"big":-922337203685477.5808,"u32":0,"u64":0,"day":"2022-01-08","wide":0.002,"score":null,"us":"2023-11-14T22:13:20.123456Z","clock":"12:34:56.789","clock_us":"00:00:00.000001","half":-0.0,"tags":[],"kv":{}}}
{"text":"third","id":"0","metadata":{"price":1.00,"big":0.0001,"u32":2147483648,"u64":9223372036854775808,"day":"1970-01-02","score":null,"us":"1969-12-31T23:59:59.999999Z","ns":"1969-12-31T23:59:58.999999999","meta":{"src":null,"n":3},"lang":null}}
{"text":"fourth","id":"2147483647","date":"1970-01-01T00:00:00.001","metadata":{"price":0.00,"big":-1.0000,"u32":1,"u64":1,"wide":0.003,"score":null,"ns":"2262-04-11T23:47:16.854775807","clock":"23:59:59.999","clock_us":"00:00:00.000000","half":null,"tags":["c"],"meta":{"src":"wiki","n":null},"kv":{"c":null},"lang":"fr"}}
{"id":"annotated.parquet#5","text":"fifth","date":"1970-01-01T00:00:00.002","metadata":{"big":12345678901234.5678,"u64":12345678901234567890,"day":"1970-01-03","wide":0.004,"us":"9999-12-31T23:59:59.999999Z","ns":"1677-09-21T00:12:43.145224192","clock":"00:00:00.001","clock_us":"12:00:00.000000","half":5.9604644775390625e-08,"meta":{"src":"x","n":5},"kv":{"d":4},"lang":"de"}}
{"text":"sixth","id":"42","date":"1970-01-01T00:00:00.003","metadata":{"price":9999999.99,"u32":3000000000,"day":"1970-01-04","wide":0.005,"score":-0.25,"us":"0001-01-01T00:00:00.000000Z","ns":"1970-01-01T00:00:00.000000000","clock":"01:00:00.000","clock_us":"00:01:00.000000","half":65504.0,"tags":["d"],"lang":"en"}}
EOT
cd "$FX" && "$WINNOW" ingest -q annotated.parquet > "$TMP/got.jsonl" 2> "$TMP/err"
is "$?" 0 "annotated.parquet: exit status 0"
ok "the six rows: decimals exact, unsigned integers unsigned, id a string, dates and times in ISO 8601, no infinity or NaN" cmp -s "$TMP/got.jsonl" "$TMP/want.jsonl"
[ -s "$TMP/got.jsonl" ] && diff "$TMP/got.jsonl" "$TMP/want.jsonl" | head -6 | sed 's/^/# /'
python3 - "$TMP/got.jsonl" > "$TMP/strict" <<'PY'
import json, sys
def refuse(name): raise ValueError("not JSON: " + name)
n = sum(1 for line in open(sys.argv[1]) if json.loads(line, parse_constant=refuse))
print(n)
PY
is "$(cat "$TMP/strict")" 6 "every line is strict JSON (RFC 8259)"
# filter passes the rows on as they are read (ingest makes every id a string itself)
"$WINNOW" filter -q --no-langid --no-gopher-repetition --no-gopher-quality --no-c4 --no-fineweb annotated.parquet > "$TMP/filter.jsonl" 2> /dev/null
sed 's/^{"id":"annotated.parquet#5",/{/' "$TMP/want.jsonl" > "$TMP/want_filter.jsonl"
ok "filter with every filter off: the same rows, the INT32 id column as strings (\"id\":\"7\")" cmp -s "$TMP/filter.jsonl" "$TMP/want_filter.jsonl"
ok "the column blob (fixed-length bytes, no annotation): left out, with a warning naming file and column" \
    grep -q "annotated.parquet: column blob is fixed-length bytes without an annotation: left out of the documents" "$TMP/err"
is "$(grep -c 'left out' "$TMP/err")" 1 "no other column left out"

# the nested columns as a second reader reads them (hyparquet: tests/parquet/read_back.mjs, make deps)
node "$FX/../read_back.mjs" "$FX/annotated.parquet" > "$TMP/hy.jsonl" 2> "$TMP/hy_err"
is "$?" 0 "hyparquet reads annotated.parquet"
is "$(python3 - "$TMP/got.jsonl" "$TMP/hy.jsonl" "$FX/../same_rows.py" <<'PY'
import json, sys, importlib.util
spec = importlib.util.spec_from_file_location('same_rows', sys.argv[3])
rows = importlib.util.module_from_spec(spec); spec.loader.exec_module(rows)
ours = [json.loads(l) for l in open(sys.argv[1])]
theirs = [json.loads(l) for l in open(sys.argv[2]) if '"_file"' not in l]
bad = sum(not rows.same(o['metadata'].get(k), t[k]) for o, t in zip(ours, theirs) for k in ('tags', 'meta', 'kv'))
bad += sum(not rows.same(o['metadata'].get('lang'), (t['metadata'] or {}).get('lang')) for o, t in zip(ours, theirs))
print(bad, len(ours), len(theirs))
PY
)" "0 6 6" "list, struct and map columns (tags, meta, kv) and the metadata group's lang: every cell as hyparquet reads it, a null one left out"

# LIST's backward-compatibility rules (LogicalTypes.md): a repeated group of one
# field named array, or the list's name with _tuple, is the element itself
# (hyparquet reads the field instead: this is where it and the spec differ)
"$WINNOW" ingest -q "$FX/legacy_lists.parquet" > "$TMP/legacy.jsonl" 2> "$TMP/err"
is "$(sed 's/^{"id":"[^"]*",/{/' "$TMP/legacy.jsonl")" '{"text":"one","metadata":{"a":[{"x":1},{"x":null}],"b":[{"y":7}]}}
{"text":"two","metadata":{"a":[]}}' "legacy 2-level lists (array, b_tuple): each element the repeated group"

"$WINNOW" ingest -q --text-column value "$PT/byte_array_decimal.parquet" > "$TMP/out" 2> "$TMP/err"
is "$?" 2 "a DECIMAL in bytes as the text column: exit status 2"
ok "naming file, column and annotation" grep -q "byte_array_decimal.parquet: the text column value is annotated DECIMAL (not text)" "$TMP/err"
ok "no documents written" test ! -s "$TMP/out"
done_testing
