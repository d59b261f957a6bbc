#!/bin/sh
# input_json_array - a .json file that is one JSON array of documents (what
# Hugging Face `datasets`' json loader reads) is read as its elements, one
# document each, in order, exactly as the same objects one per line: real
# documents (DCLM, dolma's with nested metadata, C4) as JSON Lines, as a
# compact array, as a pretty-printed array (json.dump indent=2), gzip'd and
# zstd'd, through filter, dedup, tokenize (engine and block path) and ingest:
# the same output bytes and the same --stats. Broken arrays (an element that
# is not an object, empty elements, an array cut short inside an element or
# after one, data after the closing ']') are reported with file and element
# number or offset, counted failed (bad_json: in = out + failed), never
# crash; a text file that starts with "[1]" stays a text document for ingest.
. tests/lib.sh
DCLM=$SHARED/jsonl/dclm/data/majority_data.jsonl
DOLMA=$SHARED/jsonl/dolma/tests/data/provided/documents/000.json.gz
C4=$SHARED/jsonl/olmo/test_fixtures/c4-sample.01.json.gz
VOCAB=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
require_file "$DCLM" "$DOLMA" "$C4" "$VOCAB"
PY=/usr/bin/python3
cd "$TMP" || exit 1
# the objects: dolma's 10 (nested metadata), DCLM's 499 and its first 30 again (dedup drops them), C4's 10
{ zcat "$DOLMA"; cat "$DCLM"; head -n 30 "$DCLM"; zcat "$C4"; } > src.jsonl
$PY - <<'EOF' || exit 1
import json
docs = [json.loads(l) for l in open("src.jsonl", encoding="utf-8")]
with open("docs.jsonl", "w", encoding="utf-8") as f:
    for d in docs:
        f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")
with open("compact.json", "w", encoding="utf-8") as f:
    f.write(json.dumps(docs, ensure_ascii=False, separators=(",", ":")))
with open("pretty.json", "w", encoding="utf-8") as f:
    json.dump(docs, f, ensure_ascii=False, indent=2)
# \u escapes in every non-ASCII string, for the JSON Lines form too
with open("ascii.jsonl", "w") as f:
    for d in docs:
        f.write(json.dumps(d, separators=(",", ":")) + "\n")
with open("ascii.json", "w") as f:
    json.dump(docs, f, indent=4)
EOF
n=$(wc -l < docs.jsonl)
is "$n" 549 "549 documents"
ok "the pretty-printed array spans many lines" test "$(wc -l < pretty.json)" -gt 2000
ok "Python reads the pretty-printed array back as the documents" $PY -c 'import json, sys
a = json.load(open("pretty.json")); b = [json.loads(l) for l in open("docs.jsonl")]
sys.exit(a != b)'
gzip -c pretty.json > pretty.json.gz
zstd -q -c pretty.json > pretty.json.zst
cp compact.json compact.json.txt # the name says nothing: the content decides
FORMS="compact.json pretty.json pretty.json.gz pretty.json.zst compact.json.txt"
RULES_OFF="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"

# same FORM NAME: FILE.out (and FILE.stats without seconds) equal docs.jsonl's
same() {
    ok "$2: $1: the same output as from the JSON Lines file" cmp -s "ref.out" "got.out"
    grep -v '"seconds"' ref.stats > ref.s; grep -v '"seconds"' got.stats > got.s
    ok "$2: $1: the same --stats" cmp -s ref.s got.s
}
"$WINNOW" filter -q $RULES_OFF docs.jsonl > through.out
ok "filter without rules passes the JSON Lines file through as it is" cmp -s through.out docs.jsonl
"$WINNOW" filter -q --stats ref.stats docs.jsonl > ref.out
ok "filter with its rules drops some documents" test "$(wc -l < ref.out)" -lt "$n"
for f in $FORMS; do
    "$WINNOW" filter -q --stats got.stats "$f" > got.out 2> err.txt
    is "$?" 0 "filter: $f: exit 0"
    same "$f" filter
    ok "filter: $f: no message" test ! -s err.txt
done
"$WINNOW" filter -q $RULES_OFF ascii.json > got.out
ok "filter: an array with \\u escapes: the same as its JSON Lines form" cmp -s got.out ascii.jsonl

"$WINNOW" dedup -q --stats ref.stats docs.jsonl > ref.out
ok "dedup drops the repeated documents" test "$(wc -l < ref.out)" -le $((n - 30))
for f in pretty.json pretty.json.gz; do
    "$WINNOW" dedup -q --stats got.stats "$f" > got.out
    same "$f" dedup
done

tok() { "$WINNOW" tokenize -q -j2 --encoding cl100k_base --vocab "$VOCAB" --format bin "$@"; }
tok --device cpu --stats ref.stats docs.jsonl > ref.out
for f in pretty.json pretty.json.zst; do
    tok --device cpu --stats got.stats "$f" > got.out
    same "$f" "tokenize"
    WINNOW_TOKENIZE_BLOCKS=cpu tok --stats got.stats "$f" > got.out
    same "$f" "tokenize block path"
done

# ingest names documents without an id by path: each form as l/d.json, a/d.json (paths of one length)
mkdir l a; cp docs.jsonl l/d.json
"$WINNOW" ingest -q --stats ref.stats l/d.json > ref.out
for f in compact.json pretty.json pretty.json.gz; do
    cp "$f" a/d.json
    "$WINNOW" ingest -q --stats got.stats a/d.json | sed 's|"a/d.json#|"l/d.json#|' > got.out
    same "$f" ingest
done
"$WINNOW" ingest -q pretty.json > got.out
ok "ingest: a document without an id is named by file and element number" grep -q '^{"id":"pretty.json#13","text"' got.out
# winnow run reads its inputs as ingest does
for d in r1 r2; do
    mkdir $d
    printf 'input = d.json\nwork = work\noutput = out\ntasks = 1\ncompress = false\n' > $d/p.pipeline
done
cp docs.jsonl r1/d.json; cp pretty.json r2/d.json
"$WINNOW" run -q r1/p.pipeline > /dev/null 2>&1; "$WINNOW" run -q r2/p.pipeline > /dev/null 2>&1
is "$?" 0 "run: a pretty-printed array: exit 0"
sed 's|r2/d.json#|r1/d.json#|g' r2/out/documents.jsonl > got.out
ok "run: the same documents as from the JSON Lines file" cmp -s r1/out/documents.jsonl got.out
ok "run: documents came out" test -s got.out
printf '[1] is a footnote mark, not JSON.\n' > note.txt
"$WINNOW" ingest -q note.txt > got.out
ok "ingest: a text file that starts with [1] stays one text document" grep -q '"text":"\[1\] is a footnote mark' got.out

# broken arrays: in = out + failed, each problem named
balanced() { is "$(( $(stats_value "$1" in) ))" "$(( $(stats_value "$1" out) + $(stats_value "$1" failed) ))" "$2: in = out + failed"; }
head -n 3 docs.jsonl > three.jsonl
$PY - <<'EOF' || exit 1
import json
d = [json.loads(l) for l in open("three.jsonl", encoding="utf-8")]
def arr(items): return "[\n" + ",\n".join(items) + "\n]\n"
j = [json.dumps(x, ensure_ascii=False, indent=2) for x in d]
open("scalar.json", "w").write(arr([j[0], "42", j[1], '"a string"', j[2]]))
open("empty.json", "w").write("[\n" + j[0] + ",\n,\n" + j[1] + ",\n" + j[2] + ",\n]\n")
s = arr(j)
open("cut_inside.json", "w").write(s[: len(arr(j[:2])) + 20])
open("cut_after.json", "w").write(arr(j)[: -3] + ",\n")
open("junk.json", "w").write(arr(j) + "\n[{\"text\": \"a second array\"}]\n")
EOF
"$WINNOW" filter -q $RULES_OFF --stats s.json scalar.json > out.jsonl 2> err.txt
is "$?" 0 "elements that are not objects: exit 0 (bad documents, as bad lines)"
ok "elements that are not objects: the three documents come out" cmp -s out.jsonl three.jsonl
is "$(stats_value s.json failed_by_kind.bad_json)" 2 "elements that are not objects: two failed bad_json"
ok "elements that are not objects: named by file and element" grep -q "scalar.json: element 2: bad JSON at byte 1: not a JSON object" err.txt
ok "elements that are not objects: the fourth too" grep -q "scalar.json: element 4: bad JSON" err.txt
balanced s.json "elements that are not objects"
WINNOW_TOKENIZE_BLOCKS=cpu tok --stats t.json scalar.json > /dev/null 2> terr.txt
ok "tokenize block path: elements that are not objects named as element" grep -q "scalar.json: element 4: bad JSON" terr.txt
is "$(stats_value t.json failed_by_kind.bad_json)" 2 "tokenize block path: two failed bad_json"
"$WINNOW" ingest -q --stats s.json scalar.json > /dev/null 2> err.txt
ok "ingest: elements that are not objects named as element" grep -q "scalar.json: element 2: not a JSON object" err.txt
is "$(stats_value s.json failed_by_kind.bad_json)" 2 "ingest: two failed bad_json"

"$WINNOW" filter -q $RULES_OFF --stats s.json empty.json > out.jsonl 2> err.txt
is "$?" 0 "empty elements: exit 0"
ok "empty elements: the three documents come out" cmp -s out.jsonl three.jsonl
is "$(stats_value s.json failed_by_kind.bad_json)" 2 "empty elements: two failed bad_json"
ok "empty elements: the first named by element and offset" grep -q "empty.json: element 2 at offset [0-9]*: empty element" err.txt
ok "empty elements: the trailing comma" grep -q "empty.json: element 5 at offset [0-9]*: empty element (',' before the closing ']')" err.txt
balanced s.json "empty elements"

"$WINNOW" filter -q $RULES_OFF --stats s.json cut_inside.json > out.jsonl 2> err.txt
is "$?" 2 "an array cut short inside an element: exit 2"
ok "cut inside an element: the whole elements come out" sh -c 'head -n 2 three.jsonl | cmp -s - out.jsonl'
is "$(stats_value s.json failed_by_kind.bad_json)" 1 "cut inside an element: its line fails bad_json"
ok "cut inside an element: said so, with file, element and offset" grep -q "cut_inside.json: element 3 at offset $(wc -c < cut_inside.json): the array is cut short inside this element" err.txt
balanced s.json "cut inside an element"
"$WINNOW" filter -q $RULES_OFF --stats s.json cut_after.json > out.jsonl 2> err.txt
is "$?" 2 "an array cut short after an element: exit 2"
ok "cut after an element: every document comes out" cmp -s out.jsonl three.jsonl
is "$(stats_value s.json failed_by_kind.bad_json)" 1 "cut after an element: counted as one failed bad_json"
ok "cut after an element: said so, with file and offset" grep -q "cut_after.json: offset $(wc -c < cut_after.json): the JSON array is cut short after element 3" err.txt
balanced s.json "cut after an element"
WINNOW_TOKENIZE_BLOCKS=cpu tok --stats t.json cut_after.json > /dev/null 2>&1
is "$?" 2 "tokenize block path: cut after an element: exit 2"
is "$(stats_value t.json failed_by_kind.bad_json)" 1 "tokenize block path: cut after an element: one failed bad_json"

"$WINNOW" filter -q $RULES_OFF --stats s.json junk.json > out.jsonl 2> err.txt
is "$?" 2 "data after the closing ']': exit 2"
ok "data after the closing ']': the array's documents come out" cmp -s out.jsonl three.jsonl
is "$(stats_value s.json failed_by_kind.bad_json)" 1 "data after the closing ']': one failed bad_json"
ok "data after the closing ']': said so, with file and offset" grep -q "junk.json: offset $(( $(wc -c < junk.json) - 29 )): data after the JSON array's closing ']'" err.txt
balanced s.json "data after the closing ']'"
"$WINNOW" ingest -q --stats s.json junk.json > /dev/null 2>&1
is "$?" 2 "ingest: data after the closing ']': exit 2"
is "$(stats_value s.json failed_by_kind.bad_json)" 1 "ingest: data after the closing ']': one failed bad_json"
balanced s.json "ingest: data after the closing ']'"

# several inputs: an array between JSON Lines files, numbering restarting per file
"$WINNOW" filter -q $RULES_OFF three.jsonl scalar.json three.jsonl > out.jsonl 2> err.txt
ok "an array between JSON Lines files: every document in order" sh -c 'cat three.jsonl three.jsonl three.jsonl | cmp -s - out.jsonl'
printf '[]\n' > none.json
"$WINNOW" filter -q $RULES_OFF --stats s.json none.json > out.jsonl 2> err.txt
is "$?:$(stats_value s.json in):$(wc -c < out.jsonl)" "0:0:0" "an empty array: no document, nothing failed, exit 0"
"$WINNOW" filter -q $RULES_OFF < pretty.json > out.jsonl
ok "an array on stdin: the documents" cmp -s out.jsonl docs.jsonl
done_testing
