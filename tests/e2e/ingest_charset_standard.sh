#!/bin/sh
# Charsets as the HTML and Encoding Standards decide them, through
# `winnow ingest` on WARC responses (tests/ref/charset_warc.py writes the
# records and the text Python's codecs give): UTF-16 named by the HTTP
# header without a BOM, x-user-defined, invalid UTF-8 (one U+FFFD per
# maximal subpart), a charset in a meta content without http-equiv (not a
# declaration), and the "replacement" encodings (iso-2022-kr by HTTP,
# hz-gb-2312 by meta), which are refused with a message and counted.
. tests/lib.sh
python3 tests/ref/charset_warc.py "$TMP/c.warc" "$TMP/expected" || { ok "the WARC is written" false; done_testing; exit 1; }
"$WINNOW" ingest -q --extract=full --stats "$TMP/stats.json" "$TMP/c.warc" > "$TMP/out.jsonl" 2> "$TMP/err"
is "$?" 0 "ingest exits 0"
python3 - "$TMP/out.jsonl" "$TMP/expected" > "$TMP/report" <<'PY'
import json, sys
got = {}
for line in open(sys.argv[1], encoding="utf-8"):
    d = json.loads(line)
    got[int(d["url"].rsplit("/", 1)[1])] = d["text"]
for n, want in enumerate(open(sys.argv[2], encoding="utf-8").read().split("\n")[:-1]):
    have = got.get(n, "FAIL")
    print("ok" if have == want else "record %d: got %r, want %r" % (n, have, want))
PY
n=0
while read -r line; do
    n=$((n+1))
    is "$line" ok "record $n: the text Python's codecs give (or refused)"
done < "$TMP/report"
is "$n" 8 "every record checked"
is "$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["in"], s["out"], s["failed"], s["failed_by_kind"].get("replacement_charset"), s["balanced"])' "$TMP/stats.json")" \
   "8 6 2 2 True" "stats: 8 in, 6 out, 2 failed as replacement_charset, balanced"
is "$(grep -c 'decodes as a single U+FFFD' "$TMP/err")" 2 "each refusal says why"
ok "... naming the file, record and offset" grep -q 'c.warc: record 6 at offset [0-9]*: charset from http' "$TMP/err"
done_testing
