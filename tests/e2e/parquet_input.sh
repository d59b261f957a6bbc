#!/bin/sh
# Parquet input for every stage that reads documents, on files written by two
# other implementations (tests/parquet/make_fixtures.mjs: parquet-wasm, i.e.
# arrow-rs, and hyparquet-writer), compared cell by cell with the values they
# were given: every compression (snappy, zstd, gzip, brotli, none), data pages
# v1 and v2, PLAIN, dictionary and delta encodings, nulls, awkward strings.
# A FineWeb-shaped file (FineWeb's columns, snappy, 4 row groups) goes through
# ingest, filter, dedup, tokenize -o shards/ and run with the same results as
# the same rows fed as JSON Lines. Damaged files: an error naming file and
# offset, exit status 2, never a crash; the rows of a damaged row group are
# failed records (damaged_row_group) in every stage's --stats and in the
# report of winnow run, the other row groups' rows read; a file refused whole
# (its text column missing or not a string) loses its rows as failed
# no_text_column.
. "$(dirname "$0")/../lib.sh"
FX=$(cd "$(dirname "$0")/../parquet/fixtures" && pwd)
DOLMA=$SHARED/jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz
VOCAB=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
[ -r "$DOLMA" ] && [ -r "$VOCAB" ] || { ok "shared data ($DOLMA, $VOCAB)" false; done_testing; exit 1; }

# ---- cell by cell, every variant of the types table ----
cat > "$TMP/cells.py" <<'PYEOF'
import json, sys
want = [json.loads(l) for l in open(sys.argv[1])]
got = [json.loads(l) for l in open(sys.argv[2])]
bad = []
if len(got) != len(want):
    bad.append("rows: %d, want %d" % (len(got), len(want)))
for r, (w, g) in enumerate(zip(want, got)):
    m = g.get("metadata", {})
    cells = [("text", g.get("text"), w["text"])]
    for k in ("id", "url"):   # top-level fields; a null one is left out (ingest then makes an id)
        if w[k] is not None:
            cells.append((k, g.get(k), w[k]))
        elif k == "url":
            cells.append((k, g.get(k), None))
    cells.append(("lang", m.get("lang"), w["lang"]))
    cells.append(("n32", m.get("n32"), w["n32"]))
    cells.append(("n64", m.get("n64"), int(w["n64"])))   # a null cell is a key the document lacks
    cells.append(("f32", m.get("f32"), w["f32"]))
    cells.append(("f64", m.get("f64"), w["f64"]))
    cells.append(("flag", m.get("flag"), w["flag"]))
    for name, a, b in cells:
        if name == "f32" and b is not None:
            b = float(b)   # JSON wrote 0 for 0.0; the float's exact value as a double
        if a != b or type(a) != type(b):
            bad.append("row %d %s: got %r want %r" % (r, name, a, b))
print("ok" if not bad else "\n".join(bad[:5]))
PYEOF
for f in "$FX"/types.*.parquet; do
    v=${f##*/types.}; v=${v%.parquet}
    $WINNOW ingest -q --stats "$TMP/s.json" "$f" > "$TMP/got.jsonl" 2> "$TMP/err"
    is "$? $(cat "$TMP/err")" "0 " "$v: read without a message"
    is "$($PY "$TMP/cells.py" "$FX/types.expected.jsonl" "$TMP/got.jsonl")" ok "$v: 150 rows x 9 columns equal the writer's values"
done

# ---- the FineWeb-shaped file and the same rows as JSON Lines ----
$PY - "$DOLMA" > "$TMP/fineweb.jsonl" <<'PYEOF'
import gzip, json, sys
# the mapping make_fixtures.mjs used, and winnow's column mapping (docs/ingest.md)
for i, line in enumerate(gzip.open(sys.argv[1], "rt", encoding="utf-8")):
    if i == 400:
        break
    d = json.loads(line)
    print(json.dumps({"text": d["text"], "id": "<urn:uuid:%s>" % d["id"], "url": d["metadata"]["url"],
                      "date": d["metadata"]["warc_date"], "metadata": {
                          "dump": "CC-MAIN-2019-30",
                          "file_path": "s3://commoncrawl/crawl-data/CC-MAIN-2019-30/segments/" + d["metadata"]["warc_filename"],
                          "language": "en", "language_score": 0.5 + (i % 500) / 1000,
                          "token_count": len(d["text"].split(" "))}}, ensure_ascii=False))
PYEOF
$WINNOW ingest -q "$FX/fineweb.parquet" > "$TMP/fw_parquet.jsonl"
cat > "$TMP/same.py" <<'PYEOF'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
print("ok" if a == b else "differ: %d vs %d rows; first differing row %s" % (len(a), len(b),
      next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)))
PYEOF
is "$($PY "$TMP/same.py" "$TMP/fw_parquet.jsonl" "$TMP/fineweb.jsonl")" ok "fineweb: 400 rows x 9 columns equal the source documents"
cat "$FX/fineweb.parquet" | $WINNOW ingest -q - > "$TMP/fw_stdin.jsonl"
ok "fineweb from stdin: the same documents" cmp -s "$TMP/fw_stdin.jsonl" "$TMP/fw_parquet.jsonl"
$WINNOW ingest -q -j1 "$FX/fineweb.parquet" > "$TMP/fw_j1.jsonl"
ok "fineweb with -j1 (row groups one at a time): the same bytes" cmp -s "$TMP/fw_j1.jsonl" "$TMP/fw_parquet.jsonl"

ids() { $PY -c 'import json,sys; [print(json.loads(l)["id"]) for l in open(sys.argv[1])]' "$1"; }
for stage in filter dedup; do
    $WINNOW $stage -q -j2 --stats "$TMP/p.json" "$FX/fineweb.parquet" > "$TMP/p.out"
    $WINNOW $stage -q -j2 --stats "$TMP/j.json" "$TMP/fineweb.jsonl" > "$TMP/j.out"
    ids "$TMP/p.out" > "$TMP/p.ids"; ids "$TMP/j.out" > "$TMP/j.ids"
    ok "$stage on Parquet keeps the documents it keeps from JSON Lines ($(wc -l < "$TMP/p.ids") of 400)" cmp -s "$TMP/p.ids" "$TMP/j.ids"
done
ok "dedup drops the corpus's exact duplicates" test "$(wc -l < "$TMP/p.ids")" -lt 400

case ${BUILD:-} in
*build-asan*) echo "# tokenize/run skipped under ASan (a 100k vocabulary takes minutes to load)" ;;
*)
    $WINNOW tokenize -q -j2 --encoding cl100k_base --vocab "$VOCAB" --shard-tokens 200k -o "$TMP/sp/" "$FX/fineweb.parquet"
    $WINNOW tokenize -q -j2 --encoding cl100k_base --vocab "$VOCAB" --shard-tokens 200k -o "$TMP/sj/" "$TMP/fineweb.jsonl"
    $WINNOW shards cat "$TMP/sp" > "$TMP/sp.ids"; $WINNOW shards cat "$TMP/sj" > "$TMP/sj.ids"
    ok "tokenize -o shards/: Parquet gives the token ids of JSON Lines ($(wc -l < "$TMP/sp.ids") documents)" \
        test "$(wc -l < "$TMP/sp.ids")" -eq 400 -a -s "$TMP/sp.ids"
    ok "tokenize -o shards/: ids identical" cmp -s "$TMP/sp.ids" "$TMP/sj.ids"
    for kind in parquet jsonl; do
        mkdir -p "$TMP/in_$kind"
        if [ $kind = parquet ]; then cp "$FX/fineweb.parquet" "$TMP/in_$kind/"; else cp "$TMP/fineweb.jsonl" "$TMP/in_$kind/"; fi
        full_pipeline "$TMP/in_$kind/*" "$TMP/work_$kind" "$TMP/out_$kind" > "$TMP/$kind.pipeline"
        $WINNOW run -q "$TMP/$kind.pipeline" > "$TMP/run_$kind.log" 2>&1
        is $? 0 "winnow run on $kind input"
        $WINNOW shards cat "$TMP/out_$kind" > "$TMP/run_$kind.ids" 2>&1
    done
    ok "winnow run: Parquet and JSON Lines give identical shards ($(wc -l < "$TMP/run_parquet.ids") documents)" \
        test -s "$TMP/run_parquet.ids" -a "$(wc -l < "$TMP/run_parquet.ids")" -gt 20
    ok "winnow run: ids identical" cmp -s "$TMP/run_parquet.ids" "$TMP/run_jsonl.ids"
    mkdir "$TMP/in_url" && cp "$FX/types.wasm-zstd-v1.parquet" "$TMP/in_url/"
    sed -e "s|$TMP/in_jsonl|$TMP/in_url|; s|work_jsonl|work_url|; s|out_jsonl|out_url|; s|^\[ingest\]|[ingest]\ntext-column = url|" \
        "$TMP/jsonl.pipeline" > "$TMP/url.pipeline"
    $WINNOW run -q "$TMP/url.pipeline" > /dev/null 2>&1
    grep -q "^ingest  *150 in  *120 out  *0 dropped  *30 failed" "$TMP/work_url/report.txt"
    is $? 0 "winnow run with [ingest] text-column = url: 120 documents, the 30 null urls failed"
    ;;
esac

# ---- --text-column, a missing text column ----
$WINNOW ingest -q --text-column url --stats "$TMP/s.json" "$FX/types.wasm-zstd-v1.parquet" > "$TMP/url.jsonl" 2> "$TMP/err"
is "$($PY -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1])]; print(len(d), d[0]["text"], "url" in d[0])' "$TMP/url.jsonl")" \
    "120 https://example.org/1?q=1 False" "--text-column url: the url column is the text; rows with a null url are not documents"
$WINNOW filter -q --text-column url --stats "$TMP/s.json" "$FX/types.wasm-zstd-v1.parquet" > /dev/null 2>&1
grep -q '"failed": 30' "$TMP/s.json"; is $? 0 "filter counts the 30 null-url rows as failed (no text)"
$WINNOW filter -q --text-column body "$FX/fineweb.parquet" > /dev/null 2> "$TMP/err"
is $? 2 "a missing text column: exit status 2"
grep -q "fineweb.parquet: no column 'body' (columns: text, id, dump, url, date, file_path, language, language_score, token_count)" "$TMP/err"
is $? 0 "naming the file and its columns"
# a file refused whole (no such text column, or one that is not a string) loses the
# rows its footer counts: each one failed no_text_column, in every stage's --stats
refused_rows() { # NAME COLUMN COMMAND...: run on fineweb.parquet (400 rows) with --text-column COLUMN
    name=$1; column=$2; shift 2
    "$@" --text-column "$column" --stats "$TMP/s.json" "$FX/fineweb.parquet" > /dev/null 2> /dev/null
    is "$? $($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["in"], d["out"] + d["dropped"], d["failed"], d["failed_by_kind"], d["balanced"])' "$TMP/s.json")" \
        "2 400 0 400 {'no_text_column': 400} True" "$name --text-column $column: the 400 rows are in, each failed no_text_column"
}
refused_rows ingest body $WINNOW ingest -q
refused_rows filter token_count $WINNOW filter -q -j2
refused_rows dedup body $WINNOW dedup -q -j2
case ${BUILD:-} in
*build-asan*) echo "# tokenize skipped under ASan (loading a vocabulary takes minutes)" ;;
*)
    refused_rows tokenize body $WINNOW tokenize -q -j2 --encoding gpt2 --vocab "$SHARED/vocab/tiktoken/r50k_base.tiktoken"
    refused_rows "tokenize, the block path" token_count env WINNOW_TOKENIZE_BLOCKS=cpu $WINNOW tokenize -q -j2 --encoding gpt2 --vocab "$SHARED/vocab/tiktoken/r50k_base.tiktoken" ;;
esac

# ---- damaged files ----
size=$(wc -c < "$FX/fineweb.parquet")
head -c $((size - 100)) "$FX/fineweb.parquet" > "$TMP/cut.parquet"
$WINNOW filter -q "$TMP/cut.parquet" > /dev/null 2> "$TMP/err"
is "$?" 2 "a truncated file: exit status 2"
grep -q "cut.parquet: offset $((size - 104)): no PAR1 magic at the end" "$TMP/err"; is $? 0 "naming file and offset: $(head -c 200 "$TMP/err")"
$PY - "$FX/fineweb.parquet" "$TMP/lying.parquet" "$TMP/holes.parquet" <<'PYEOF'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
lying = bytearray(data)
lying[-8:-4] = struct.pack("<I", 0x7fffffff)       # a footer length beyond the file
open(sys.argv[2], "wb").write(lying)
holes = bytearray(data)
for at in range(5000, 6000):                        # garbage inside the first row group's pages
    holes[at] = (at * 7) & 0xff
open(sys.argv[3], "wb").write(holes)
PYEOF
$WINNOW tokenize -q --encoding cl100k_base --vocab "$VOCAB" "$TMP/lying.parquet" > /dev/null 2> "$TMP/err"
is "$?" 2 "a footer length over the file: exit status 2"
grep -q "lying.parquet: offset [0-9]*: footer length 2147483647 is more than the file holds" "$TMP/err"; is $? 0 "naming file and offset"
$WINNOW dedup -q "$TMP/holes.parquet" > "$TMP/holes.jsonl" 2> "$TMP/err"
is "$?" 2 "damaged pages: exit status 2"
grep -q "holes.parquet: offset [0-9]*: row group 0, column .*; row group 0 (100 rows) skipped" "$TMP/err"
is $? 0 "the damaged row group named with file, offset and rows lost: $(head -c 300 "$TMP/err")"
is "$(wc -l < "$TMP/holes.jsonl" | tr -d ' ')" "$(tail -n +101 "$TMP/fineweb.jsonl" | $WINNOW dedup -q | wc -l | tr -d ' ')" "the other row groups are read"
$WINNOW ingest -q --stats "$TMP/s.json" "$TMP/holes.parquet" > /dev/null 2>&1
grep -q '"damaged_streams": 1' "$TMP/s.json"; is $? 0 "ingest counts the damage (damaged_streams), as for any damaged input"
# the skipped row group's 100 rows are failed records (in == out + dropped + failed), the other 300 read
R50K=$SHARED/vocab/tiktoken/r50k_base.tiktoken
lost_rows() { # NAME COMMAND...: run on holes.parquet with --stats
    name=$1; shift
    "$@" --stats "$TMP/s.json" "$TMP/holes.parquet" > "$TMP/lost.out" 2> /dev/null
    is "$? $($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["in"], d["out"] + d["dropped"], d["failed"], d["failed_by_kind"], d["balanced"])' "$TMP/s.json")" \
        "2 400 300 100 {'damaged_row_group': 100} True" "$name --stats: 400 in, the 100 rows of row group 0 failed (damaged_row_group)"
}
lost_rows ingest $WINNOW ingest -q
is "$(wc -l < "$TMP/lost.out" | tr -d ' ')" 300 "ingest: the other 300 rows written"
lost_rows filter $WINNOW filter -q -j2
lost_rows dedup $WINNOW dedup -q -j2
case ${BUILD:-} in
*build-asan*) echo "# tokenize skipped under ASan (loading a vocabulary takes minutes)" ;;
*)
    lost_rows tokenize $WINNOW tokenize -q -j2 --encoding gpt2 --vocab "$R50K"
    lost_rows "tokenize, the block path" env WINNOW_TOKENIZE_BLOCKS=cpu $WINNOW tokenize -q -j2 --encoding gpt2 --vocab "$R50K" ;;
esac
mkdir "$TMP/in_holes" && cp "$TMP/holes.parquet" "$TMP/in_holes/"
printf 'input = %s/in_holes/*\nwork = %s/work_holes\noutput = %s/out_holes\ntasks = 1\n[ingest]\n[filter]\n' "$TMP" "$TMP" "$TMP" > "$TMP/holes.pipeline"
$WINNOW run -q "$TMP/holes.pipeline" > /dev/null 2>&1
grep -q "^ingest  *400 in  *300 out  *0 dropped  *100 failed" "$TMP/work_holes/report.txt" &&
    grep -q "^ *failed  *damaged_row_group  *100$" "$TMP/work_holes/report.txt"
is $? 0 "winnow run: the report counts the 100 rows as failed damaged_row_group: $(head -3 "$TMP/work_holes/report.txt" | tr -s ' ' | tr '\n' '/')"
done_testing
