#!/bin/sh
# filter_stream.sh - `winnow filter` on real documents: accounting balances,
# kept lines are byte for byte, rejects carry reasons, threads do not change
# the output, flags and config files agree, bad input is counted not fatal,
# and the rules separate DCLM's human quality labels.
. "$(dirname "$0")/../lib.sh"
DCLM=$SHARED/jsonl/dclm/data/majority_data.jsonl
UDHR=$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl
require_file "$DCLM"

ok "--help exits 0" "$WINNOW" filter --help
"$WINNOW" filter --no-such-flag </dev/null >/dev/null 2>&1; is "$?" 1 "an unknown flag exits 1"
"$WINNOW" filter --gopher-min-words abc </dev/null >/dev/null 2>&1; is "$?" 1 "a bad value exits 1"

"$WINNOW" filter -q -j2 --no-langid --stats "$TMP/s.json" --rejects "$TMP/r.jsonl" "$DCLM" > "$TMP/k.jsonl"
is "$(grep -c '"balanced": true' "$TMP/s.json")" 1 "stats balance (in == out + dropped + failed)"
in=$(wc -l < "$DCLM"); out=$(wc -l < "$TMP/k.jsonl"); rej=$(wc -l < "$TMP/r.jsonl")
is "$((out + rej))" "$in" "every document is kept or rejected ($out + $rej = $in)"
is "$(grep -c '"reject":{"stage":"filter","reason":"' "$TMP/r.jsonl")" "$rej" "every reject carries the stage and a reason"

# without language ID and with C4 unchanged documents, kept lines are input lines byte for byte
"$WINNOW" filter -q --no-langid --no-c4 "$DCLM" > "$TMP/k2.jsonl"
is "$(sort "$DCLM" "$TMP/k2.jsonl" | uniq -d | wc -l)" "$(wc -l < "$TMP/k2.jsonl")" "kept lines are input lines byte for byte"

"$WINNOW" filter -q -j1 "$DCLM" > "$TMP/j1.jsonl"
"$WINNOW" filter -q -j2 "$DCLM" > "$TMP/j2.jsonl"
ok "output does not depend on -j" cmp "$TMP/j1.jsonl" "$TMP/j2.jsonl"
is "$(grep -c '"lang":"en","lang_score":' "$TMP/j1.jsonl")" "$(grep -c . "$TMP/j1.jsonl")" "every kept DCLM document is annotated lang en"

printf 'gopher_min_words = 200  # stricter\nc4 = false\n' > "$TMP/conf"
"$WINNOW" filter -q --config "$TMP/conf" "$DCLM" > "$TMP/c1.jsonl"
"$WINNOW" filter -q --gopher-min-words 200 --no-c4 "$DCLM" > "$TMP/c2.jsonl"
ok "a config file and the same flags agree" cmp "$TMP/c1.jsonl" "$TMP/c2.jsonl"
"$WINNOW" filter --config "$TMP/conf" --gopher-min-words=300 --print-config > "$TMP/eff"
is "$(grep -E '^(gopher_min_words|c4) ' "$TMP/eff" | tr '\n' ' ')" "gopher_min_words = 300 c4 = false " "flags override the config file"
"$WINNOW" filter --config "$TMP/conf" --c4=true --fineweb=false --print-config > "$TMP/eff2"
is "$(grep -E '^(c4|fineweb) ' "$TMP/eff2" | tr '\n' ' ')" "c4 = true fineweb = false " "a switch takes --X=true and --X=false (as the help says)"

# bad lines are counted as failed, the rest goes on
{ head -3 "$DCLM"; echo '{"text": "broken'; printf '{"id": 1}\n'; sed -n 4,5p "$DCLM"; } > "$TMP/bad.jsonl"
"$WINNOW" filter -q --stats "$TMP/bs.json" "$TMP/bad.jsonl" > /dev/null 2> "$TMP/err"
is "$(grep -o '"failed": [0-9]*' "$TMP/bs.json")" '"failed": 2' "two bad lines are counted as failed"
ok "the bad line is reported with file and line" grep -q "bad.jsonl: line 4" "$TMP/err"

# URL block list: top-level url (JSON escapes decoded) or, in Dolma's layout, metadata.url
printf 'bad.example.com\n' > "$TMP/blocked"
printf '%s\n' '{"text":"a","url":"http:\/\/x.bad.example.com\/p"}' \
    '{"text":"b","metadata":{"url":"https://bad.example.com/q","x":{"url":"y"}}}' \
    '{"text":"c","metadata":{"x":{"url":"http://bad.example.com"}}}' \
    '{"text":"d","url":"http://good.example.com"}' > "$TMP/urls.jsonl"
"$WINNOW" filter -q --no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid \
    --url-blocklist "$TMP/blocked" --rejects "$TMP/url-rej.jsonl" "$TMP/urls.jsonl" > "$TMP/url-kept.jsonl"
is "$(grep -o '"text":"[a-d]"' "$TMP/url-kept.jsonl" | tr '\n' ' ')" '"text":"c" "text":"d" ' "URL block list drops by url and metadata.url, not nested urls"
is "$(grep -c '"reason":"url_blocklist"' "$TMP/url-rej.jsonl")" 2 "blocked documents are rejected as url_blocklist"

# the default rules keep more of what people labelled good than of what they labelled bad
keep1=$(grep -c '"label": 1' "$TMP/j1.jsonl"); keep0=$(grep -c '"label": 0' "$TMP/j1.jsonl")
all1=$(grep -c '"label": 1' "$DCLM"); all0=$(grep -c '"label": 0' "$DCLM")
ok "keep rate on label 1 ($keep1/$all1) is at least 1.5x that on label 0 ($keep0/$all0)" \
    [ $((keep1 * all0 * 2)) -ge $((keep0 * all1 * 3)) ]

# language ID accuracy over CLD2's languages on the UDHR
if [ -f "$UDHR" ]; then
    acc=$(WINNOW=$WINNOW SHARED=$SHARED sh "$(dirname "$0")/../../scripts/filter_udhr_langid.sh" | sed -n 's/.*accuracy: \([0-9]*\).*/\1/p')
    ok "UDHR language ID accuracy ${acc}% >= 85%" [ "${acc:-0}" -ge 85 ]
    "$WINNOW" filter -q --no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --lang de "$UDHR" > "$TMP/de.jsonl"
    ok "--lang de keeps the German UDHR" grep -q '"bcp47": "de-1996"' "$TMP/de.jsonl"
    is "$(grep -vc '"lang":"de"' "$TMP/de.jsonl")" 0 "--lang de keeps only documents identified as de"
fi

# Filtered twice (new thresholds on a filtered set; C4's line rules make a
# second pass drop a little more): the second run's lang and lang_score
# replace the first's; no line holds a name twice
"$WINNOW" filter -q "$DCLM" > "$TMP/once.jsonl"
"$WINNOW" filter -q "$TMP/once.jsonl" > "$TMP/twice.jsonl"
ok "filtered twice: documents kept" test -s "$TMP/twice.jsonl"
cat > "$TMP/dups.py" <<'PYEOF'
import json, sys
def pairs(p):
    names = [k for k, _ in p]
    if len(names) != len(set(names)):
        raise SystemExit("a name twice: %r" % names)
    return dict(p)
n = 0
for line in open(sys.argv[1]):
    d = json.loads(line, object_pairs_hook=pairs)
    n += "lang" in d["metadata"] and "lang_score" in d["metadata"]
print(n)
PYEOF
is "$(python3 "$TMP/dups.py" "$TMP/twice.jsonl" 2>&1)" "$(wc -l < "$TMP/twice.jsonl" | tr -d ' ')" \
    "filtered twice: every line has lang and lang_score once, and no object a name twice"
# metadata that is not an object (a JSON string, as some datasets keep it) is
# not lost when lang is added: it stays, under "metadata", in the new object
head -n 1 "$TMP/once.jsonl" | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); d["metadata"]="{\"src\": 1}"; print(json.dumps(d))' > "$TMP/strmeta.jsonl"
"$WINNOW" filter -q "$TMP/strmeta.jsonl" > "$TMP/strmeta.out"
is "$(python3 -c 'import json,sys; m=json.loads(open(sys.argv[1]).read())["metadata"]; print(m["metadata"], sorted(m))' "$TMP/strmeta.out" 2>&1)" \
    "{\"src\": 1} ['lang', 'lang_score', 'metadata']" "string metadata kept under metadata.metadata"
done_testing
