#!/bin/sh
# A gzip file cut short and then concatenated with others (`cat *.warc.gz`
# after an interrupted download): the cut member's deflate stream runs on into
# the next file's members without a decoding error until the end of input, so
# reading goes on from the next member header after the cut member's own. The
# cut record is counted failed, the exit status is 2, and every record and
# document of the files after it comes out as it does from those files alone.
. "$(dirname "$0")/../lib.sh"
W=$SHARED/warc
CLIPPED=$W/resiliparse/tests/data/clipped.warc.gz
WHIRL=$W/whirlwind-python/whirlwind.warc.gz
C4=$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz
for f in "$CLIPPED" "$WHIRL" "$C4"; do [ -r "$f" ] || { ok "shared data $f" false; done_testing; exit 1; }; done
stat() { v=$(grep -o "\"$2\": [0-9a-z.]*" "$1" | head -1 | sed 's/.*: //'); echo "${v:-0}"; }

# real Common Crawl: the clipped member (cut mid-record), then whirlwind.warc.gz's 4 records
cat "$CLIPPED" "$WHIRL" > "$TMP/joined.warc.gz"
"$WINNOW" ingest -q --stats "$TMP/alone.json" "$WHIRL" > "$TMP/alone.jsonl"
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/joined.warc.gz" > "$TMP/joined.jsonl" 2> "$TMP/err"
is "$?" 2 "ingest, cut member then a whole file: exit status 2"
ok "ingest: the cut member named" grep -q "joined.warc.gz: truncated gzip member at offset" "$TMP/err"
is "$(stat "$TMP/s.json" in)/$(stat "$TMP/s.json" out)/$(stat "$TMP/s.json" failed)/$(stat "$TMP/s.json" damaged_record)" \
    "$(($(stat "$TMP/alone.json" in) + 1))/$(stat "$TMP/alone.json" out)/1/1" \
    "ingest: whirlwind's records all read after the cut one, which fails (damaged_record)"
python3 -c 'import json,sys
print(*[json.loads(l)["url"] for l in open(sys.argv[1])])' "$TMP/joined.jsonl" > "$TMP/urls"
ok "ingest: whirlwind's page comes out ($(cat "$TMP/urls"))" grep -qx "https://an.wikipedia.org/wiki/Escopete" "$TMP/urls"

# JSON Lines: 300 C4 documents cut inside their member, then 200 whole ones
zcat "$C4" | head -300 | gzip -n | head -c 40000 > "$TMP/cut.jsonl.gz"
zcat "$C4" | sed -n 301,500p | gzip -n > "$TMP/whole.jsonl.gz"
cat "$TMP/cut.jsonl.gz" "$TMP/whole.jsonl.gz" > "$TMP/docs.jsonl.gz"
"$WINNOW" filter -q --no-langid --no-gopher-repetition --no-gopher-quality --no-c4 --no-fineweb \
    "$TMP/docs.jsonl.gz" > "$TMP/docs.out" 2> "$TMP/err"
is "$?" 2 "filter, cut member then whole documents: exit status 2"
zcat "$C4" | sed -n 301,500p > "$TMP/want"
ok "filter: the 200 whole documents after the cut member come out, in order" sh -c "tail -200 '$TMP/docs.out' | cmp -s - '$TMP/want'"

done_testing
