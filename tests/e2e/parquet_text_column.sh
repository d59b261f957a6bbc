#!/bin/sh
# --text-column on Parquet input (docs/ingest.md): a flat string column is
# the text, row by row as the writer gave it (tests/parquet/fixtures'
# types.expected.jsonl); a column that is not strings (numbers, booleans) is
# refused at once with exit status 2, naming file and column, and no output,
# rather than read as documents that all fail; so is a nested column named by
# its dotted path (utf8_list.list.item).
. "$(dirname "$0")/../lib.sh"
FX=$(cd "$(dirname "$0")/../parquet/fixtures" && pwd)
PQ=$FX/types.wasm-snappy-v1.parquet
[ -r "$PQ" ] && [ -r "$FX/types.expected.jsonl" ] || { ok "fixtures ($PQ)" false; done_testing; exit 1; }

for col in n32 n64 f64 flag; do
    "$WINNOW" filter -q --no-langid --text-column $col --stats "$TMP/s.json" "$PQ" > "$TMP/out" 2> "$TMP/err"
    is "$?" 2 "--text-column $col (not strings): exit status 2"
    ok "--text-column $col: the file and column named" \
        grep -q "types.wasm-snappy-v1.parquet: the text column $col is not a string (BYTE_ARRAY) column" "$TMP/err"
    ok "--text-column $col: no documents written" test ! -s "$TMP/out"
done

# a string column: its values are the texts, in row order; null cells are no documents
"$WINNOW" filter -q --no-langid --no-gopher-repetition --no-gopher-quality --no-c4 --no-fineweb --text-column lang "$PQ" > "$TMP/lang.jsonl" 2> "$TMP/err"
is "$?" 0 "--text-column lang: exit status 0"
python3 - "$FX/types.expected.jsonl" > "$TMP/want" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    v = json.loads(line).get("lang")
    if v is not None: print(json.dumps(v))
PY
python3 -c 'import json,sys
for line in open(sys.argv[1], encoding="utf-8"): print(json.dumps(json.loads(line)["text"]))' "$TMP/lang.jsonl" > "$TMP/got"
ok "--text-column lang: the texts are the column's values, in row order ($(wc -l < "$TMP/want") rows)" cmp -s "$TMP/got" "$TMP/want"

# a nested column named by its dotted path, as the messages list it: refused
# as nested, not reported missing (the Parquet project's list_columns.parquet:
# utf8_list is a list of strings, 3 rows)
LC=$SHARED/parquet/parquet-testing/data/list_columns.parquet
"$WINNOW" filter -q --no-langid --text-column utf8_list.list.item --stats "$TMP/s.json" "$LC" > "$TMP/out" 2> "$TMP/err"
is "$?" 2 "--text-column utf8_list.list.item (a list): exit status 2"
ok "--text-column utf8_list.list.item: refused as nested, naming file and column" \
    grep -q "list_columns.parquet: the text column utf8_list.list.item is nested" "$TMP/err"
ok "--text-column utf8_list.list.item: not called missing" sh -c "! grep -q 'no column' '$TMP/err'"
is "$(stats_value "$TMP/s.json" failed)" 3 "--text-column utf8_list.list.item: its 3 rows failed (no_text_column)"

done_testing
