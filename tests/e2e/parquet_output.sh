#!/bin/sh
# `-o NAME.parquet`: the document stream written as Parquet (zstd pages; the
# metadata keys as typed columns, so FineWeb in gives FineWeb's columns out), read
# back by a second, independent implementation (hyparquet, in node; `make deps`
# installs it from tests/parquet/package-lock.json) cell by cell against the
# JSON Lines the same command writes, and by winnow itself to the same bytes.
. "$(dirname "$0")/../lib.sh"
HERE=$(cd "$(dirname "$0")/../parquet" && pwd)
FX=$HERE/fixtures
WARC=$SHARED/warc/resiliparse/tests/data/warcfile.warc.gz
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
[ -d "$HERE/node_modules/hyparquet-compressors" ] || { ok "hyparquet installed in tests/parquet (make deps)" false; done_testing; exit 1; }
[ -r "$WARC" ] || { ok "$WARC" false; done_testing; exit 1; }

cat > "$TMP/compare.py" <<'PYEOF'
import json, sys
want = [json.loads(l) for l in open(sys.argv[1])]
lines = [json.loads(l) for l in open(sys.argv[2])]
info, got = lines[-1]["_file"], lines[:-1]
FIXED = ("text", "id", "url", "date", "source", "metadata")
bad = []
if len(got) != len(want):
    bad.append("rows %d, want %d" % (len(got), len(want)))
for r, (w, g) in enumerate(zip(want, got)):
    for k in ("text", "id", "url", "date", "source"):
        a, b = g.get(k), w.get(k)
        if k == "text" and b.startswith("\ufeff"):
            b = b[1:]   # hyparquet decodes with TextDecoder, which drops a leading byte order mark
        if a != b:
            bad.append("row %d %s: %r, want %r" % (r, k, g.get(k), w.get(k)))
    # the metadata object: its keys are columns of their own (nulls left out), the
    # members that did not fit a column are JSON in the "metadata" column
    meta = {k: v for k, v in g.items() if k not in FIXED and v is not None}
    if g.get("metadata") is not None:
        meta.update(json.loads(g["metadata"]))
    want_meta = {k: v for k, v in (w.get("metadata") or {}).items() if v is not None}   # null = absent
    if meta != want_meta:
        bad.append("row %d metadata: %r, want %r" % (r, meta, want_meta))
if info["codecs"] != ["ZSTD"] or info["num_rows"] != len(want):
    bad.append("file: %r" % info)
want_cols = sys.argv[3].split(",") if len(sys.argv) > 3 else []
if info["columns"][:6] != list(FIXED) or info["columns"][6:6 + len(want_cols)] != want_cols:
    bad.append("columns: %r" % info["columns"])
print("ok" if not bad else "\n".join(bad[:5]))
PYEOF

check() { # check NAME COLUMNS CMD... : CMD -o x.parquet and CMD > x.jsonl, then both readers
    name=$1 columns=$2; shift 2
    "$@" -o "$TMP/$name.parquet" 2> "$TMP/err"
    is "$? $(head -c 200 "$TMP/err")" "0 " "$name: -o $name.parquet"
    "$@" > "$TMP/$name.jsonl" 2>/dev/null
    node "$HERE/read_back.mjs" "$TMP/$name.parquet" > "$TMP/$name.hy" 2> "$TMP/err"
    is "$? $(head -c 300 "$TMP/err")" "0 " "$name: hyparquet reads it"
    is "$($PY "$TMP/compare.py" "$TMP/$name.jsonl" "$TMP/$name.hy" $columns)" ok \
        "$name: hyparquet's rows equal the JSON Lines, cell by cell ($(($(wc -l < "$TMP/$name.hy") - 1)) rows)"
    $WINNOW ingest -q "$TMP/$name.parquet" > "$TMP/$name.back"
    $PY - "$TMP/$name.back" "$TMP/$name.jsonl" > "$TMP/same" <<'PYEOF'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
for x, y in zip(a, b):
    if "id" not in y:
        x.pop("id", None)   # ingest gives a document without one an id (source#row)
    if "metadata" in y:     # a null is a key the document does not have, in a column as in a row
        y["metadata"] = {k: v for k, v in y["metadata"].items() if v is not None}
print(a == b)
PYEOF
    is "$(cat "$TMP/same")" True "$name: winnow reads it back to the same documents"
}
# FineWeb in, FineWeb's columns out
check filter_fineweb dump,file_path,language,language_score,token_count $WINNOW filter -q "$FX/fineweb.parquet"
check ingest_warc "" $WINNOW ingest -q "$WARC"
check dedup_types lang,n32,n64,f32,f64,flag $WINNOW dedup -q "$FX/types.wasm-zstd-v2-delta.parquet"
# numbers no column type holds (an integer beyond int64: a 64-bit hash; beyond a
# double's range) stay JSON in the row's metadata column, never a double that
# changes them; the columns take the rows whose values fit
printf '%s\n' '{"text":"a","metadata":{"h":12345678901234567890,"big":1e400,"n":5,"f":0.1}}' \
    '{"text":"b","metadata":{"h":1,"big":2.5,"n":-7,"f":1e-400}}' \
    '{"text":"c","metadata":{"h":-18446744073709551616,"big":-1e999,"n":9007199254740991,"f":-2.5e-3}}' > "$TMP/numbers.jsonl"
check numbers_kept n,f $WINNOW ingest -q "$TMP/numbers.jsonl"
# metadata members named as the columns every file has (a dataset's own "id",
# "url" or "text" moved into metadata) stay JSON in the metadata column: no two
# columns of one name, no metadata "url" read back as the document's url); so
# does a key holding a NUL (a column's name would end there)
printf '%s\n' '{"text":"a","id":"i1","metadata":{"text":"old","id":5,"metadata":"x","url":"u","source":"s","lang":"en"}}' \
    '{"text":"b","id":"i2","url":"https://b","metadata":{"lang":"fr","date":"2024","x\u0000y":"nul","":"empty"}}' > "$TMP/names.jsonl"
check names_kept lang $WINNOW ingest -q "$TMP/names.jsonl"

# a document's other top-level members (dolma's "added", "attributes") are
# columns like the metadata keys (Parquet has one level of columns): nothing
# is lost, and winnow reads them back into the metadata
printf '%s\n' '{"text":"a","added":"2024-01-01","attributes":{"x":[1,2]},"metadata":{"k":1},"n":3}' \
    '{"n":"str","text":"b","created":12345678901234567890}' > "$TMP/top.jsonl"
$WINNOW ingest -q "$TMP/top.jsonl" -o "$TMP/top.parquet"
$WINNOW ingest -q "$TMP/top.parquet" > "$TMP/top.back"
is "$($PY - "$TMP/top.jsonl" "$TMP/top.back" <<'PYEOF'
import json, sys
FIXED = ("text", "id", "url", "date", "source", "metadata")
bad = 0
for a, b in zip(open(sys.argv[1]), open(sys.argv[2])):
    a, b = json.loads(a), json.loads(b)
    want = dict(a.get("metadata") or {}, **{k: v for k, v in a.items() if k not in FIXED})
    bad += b["metadata"] != want or b["text"] != a["text"]
print(bad)
PYEOF
)" 0 "top-level members other than the six are written, and read back into the metadata"
node "$HERE/read_back.mjs" "$TMP/top.parquet" > "$TMP/top.hy" 2>&1
ok "hyparquet reads it, with the columns added and n" grep -q '"columns":\["text","id","url","date","source","metadata","k","added","n"\]' "$TMP/top.hy"

# written atomically: a failed run leaves no file of that name
$WINNOW filter -q --no-such-option -o "$TMP/none.parquet" "$FX/fineweb.parquet" 2> /dev/null
ok "a failed run leaves no out.parquet" test ! -e "$TMP/none.parquet"
done_testing
