#!/bin/sh
# --text-column on JSON Lines (README, "Text under another name"): real
# documents (DCLM's 780 labelled lines, 1,000 C4 lines) written once with
# their text under "text" and once, the same objects, with that member
# renamed "content" in place. Every command given the second file and
# --text-column content writes exactly the bytes it writes for the first
# (the member renamed back, every other byte as it was): filter, dedup, a pipe
# of both, staged dedup, tokenize on the engine path and the block path,
# ingest, and `winnow run` with `text-column = content`. A line that also has a "text"
# member keeps it under metadata; lines that cannot be read so are reported
# with their line number and counted by kind.
. "$(dirname "$0")/../lib.sh"
J=$SHARED/jsonl
VOCAB=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
require_file "$J/dclm/data/majority_data.jsonl" "$J/dclm/data/agreement_data.jsonl" \
    "$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz" "$VOCAB"

mkdir "$TMP/a" "$TMP/b" "$TMP/c"
gzip -dc "$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz" | head -n 1000 > "$TMP/c4.jsonl"
python3 - "$TMP" "$J/dclm/data/majority_data.jsonl" "$J/dclm/data/agreement_data.jsonl" "$TMP/c4.jsonl" <<'PY'
import json, sys
tmp, inputs = sys.argv[1], sys.argv[2:]
a = open(tmp + "/a/docs.jsonl", "w", encoding="utf-8")
b = open(tmp + "/b/docs.jsonl", "w", encoding="utf-8")
c = open(tmp + "/c/docs.jsonl", "w", encoding="utf-8")
n = 0
for path in inputs:
    for line in open(path, encoding="utf-8"):
        doc = json.loads(line)
        renamed = {("content" if k == "text" else k): v for k, v in doc.items()}
        a.write(json.dumps(doc, ensure_ascii=False) + "\n")
        b.write(json.dumps(renamed, ensure_ascii=False) + "\n")
        # the same with a "text" member of its own, first or last; every third one with a metadata object already
        if n % 3 == 0: renamed["metadata"] = {"n": n}
        if n % 2: renamed = {"text": "old %d" % n, **renamed}
        else: renamed["text"] = "old %d" % n
        c.write(json.dumps(renamed, ensure_ascii=False) + "\n")
        n += 1
PY
A=$TMP/a/docs.jsonl B=$TMP/b/docs.jsonl C=$TMP/c/docs.jsonl
is "$(wc -l < "$B")" 1780 "inputs: 1780 real documents"

# the counts of a --stats file that do not depend on the input's bytes
counts() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["in"], s["out"], s["dropped"], s["failed"])' "$1"; }

# ---- every command: the renamed file gives the bytes of the original ----
same() { # NAME ARGS...: the command on A, then on B with --text-column content
    what=$1; shift
    "$WINNOW" "$@" -q -j2 --stats "$TMP/sa.json" "$A" > "$TMP/out_a" 2> "$TMP/err_a"
    "$WINNOW" "$@" -q -j2 --stats "$TMP/sb.json" --text-column content "$B" > "$TMP/out_b" 2> "$TMP/err_b"
    ok "$what: the same bytes ($(wc -l < "$TMP/out_a") lines)" cmp -s "$TMP/out_a" "$TMP/out_b"
    is "$(counts "$TMP/sb.json")" "$(counts "$TMP/sa.json")" "$what: the same counts"
}
same "filter" filter
same "dedup" dedup
same "tokenize, engine path" tokenize --device cpu --encoding cl100k_base --vocab "$VOCAB" --format jsonl
WINNOW_TOKENIZE_BLOCKS=cpu same "tokenize, block path" tokenize --encoding cl100k_base --vocab "$VOCAB" --format jsonl
WINNOW_TOKENIZE_BLOCKS=emulate same "tokenize, block path (GPU's encoder emulated)" \
    tokenize --encoding cl100k_base --vocab "$VOCAB" --format bin
# the GPU's block path where one is usable (a skip elsewhere: CI has none)
if "$WINNOW" tokenize -q --device gpu --encoding cl100k_base --vocab "$VOCAB" --format bin "$A" > "$TMP/gpu_a" 2> "$TMP/gpu.err"; then
    "$WINNOW" tokenize -q --device gpu --encoding cl100k_base --vocab "$VOCAB" --format bin --text-column content "$B" \
        > "$TMP/gpu_b"
    ok "tokenize --device gpu: the renamed file gives the original's ids, which are the CPU's" \
        sh -c "cmp -s '$TMP/gpu_a' '$TMP/gpu_b' && cmp -s '$TMP/gpu_a' '$TMP/out_a'"
else
    skip "tokenize --device gpu: no usable GPU ($(head -c 120 "$TMP/gpu.err"))"
fi
ok "filter keeps and drops: some of each" sh -c "[ $(counts "$TMP/sa.json" | cut -d' ' -f2) -gt 0 ]"

# ingest names documents by the path it was given: the same name in two folders
(cd "$TMP/a" && "$WINNOW" ingest -q docs.jsonl > "$TMP/ingest_a")
(cd "$TMP/b" && "$WINNOW" ingest -q --text-column content docs.jsonl > "$TMP/ingest_b")
ok "ingest: the same bytes" cmp -s "$TMP/ingest_a" "$TMP/ingest_b"

# a pipe: only its first command is told
"$WINNOW" filter -q "$A" | "$WINNOW" dedup -q > "$TMP/pipe_a"
"$WINNOW" filter -q --text-column content "$B" | "$WINNOW" dedup -q > "$TMP/pipe_b"
ok "filter | dedup: the same bytes, the option given to filter only ($(wc -l < "$TMP/pipe_a") lines)" \
    cmp -s "$TMP/pipe_a" "$TMP/pipe_b"

# staged dedup: the plan keeps the text member, so buckets and apply read as signatures did
for kind in a b; do
    opt=""
    [ $kind = b ] && opt="--text-column content"
    "$WINNOW" dedup signatures -q $opt --work "$TMP/w_$kind" --partitions 3 "$TMP/$kind/docs.jsonl"
    "$WINNOW" dedup buckets -q --work "$TMP/w_$kind"
    "$WINNOW" dedup apply -q --work "$TMP/w_$kind" -o "$TMP/applied_$kind"
done
ok "dedup signatures | buckets | apply: the same bytes, the option given to signatures only" \
    sh -c "cat '$TMP'/applied_a/* > '$TMP/applied_a.jsonl' && cat '$TMP'/applied_b/* > '$TMP/applied_b.jsonl' &&
           [ -s '$TMP/applied_a.jsonl' ] && cmp -s '$TMP/applied_a.jsonl' '$TMP/applied_b.jsonl'"
"$WINNOW" dedup apply -q --text-column body --work "$TMP/w_b" -o "$TMP/applied_c" 2> "$TMP/err"
is "$? $(grep -c 'read the text from "content"' "$TMP/err")" "1 1" "dedup apply with another --text-column than the plan's: refused"

# ---- a "text" member of its own moves into metadata ----
"$WINNOW" tokenize -q --device cpu --encoding cl100k_base --vocab "$VOCAB" --format jsonl --text-column content "$C" \
    > "$TMP/tok_c"
"$WINNOW" tokenize -q --device cpu --encoding cl100k_base --vocab "$VOCAB" --format jsonl "$A" > "$TMP/tok_a"
"$WINNOW" ingest -q --text-column content "$C" > "$TMP/ingest_c"
python3 - "$TMP/tok_a" "$TMP/tok_c" "$TMP/ingest_c" "$C" > "$TMP/moved" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
c = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
ing = [json.loads(l) for l in open(sys.argv[3], encoding="utf-8")]
src = [json.loads(l) for l in open(sys.argv[4], encoding="utf-8")]
print("ok - the tokens are those of the text under content" if [d["tokens"] for d in a] == [d["tokens"] for d in c]
      else "not ok - the tokens are those of the text under content")
good = len(ing) == len(src) and all(
    d["text"] == s["content"] and d["metadata"]["text"] == s["text"] and
    all(d["metadata"].get(k) == v for k, v in s.get("metadata", {}).items()) for d, s in zip(ing, src))
print(("ok" if good else "not ok") + " - every old text is metadata.text, the metadata kept (%d documents)" % len(ing))
PY
points 2 "text member besides content" cat "$TMP/moved"

# ---- lines that cannot be read so: reported by line, counted by kind ----
printf '%s\n' '{"content":"kept one","id":"1"}' '{"text":"no content here","id":"2"}' \
    '{"content":"x","text":"old","metadata":"a string"}' '{"content":"x","text":"old","metadata":{"text":"m"}}' \
    '{"content":"broken' '{"cont\u0065nt":"escaped name","id":"6"}' > "$TMP/bad.jsonl"
printf '{"content":"crlf line","id":"7"}\r\n' >> "$TMP/bad.jsonl"
printf '%s\n' '{"text":"a","content":"two old texts","text":"b"}' >> "$TMP/bad.jsonl"
printf '%s\n' '{"content":"null metadata","text":"old","metadata":null,"id":"9"}' >> "$TMP/bad.jsonl"
for path in engine block; do
    [ $path = block ] && export WINNOW_TOKENIZE_BLOCKS=cpu
    "$WINNOW" tokenize -j2 --device cpu --encoding cl100k_base --vocab "$VOCAB" --format jsonl --text-column content \
        --stats "$TMP/s.json" "$TMP/bad.jsonl" > "$TMP/bad_out" 2> "$TMP/bad_err"
    unset WINNOW_TOKENIZE_BLOCKS
    is "$(counts "$TMP/s.json") $(stats_value "$TMP/s.json" failed_by_kind.missing_text) $(stats_value "$TMP/s.json" failed_by_kind.text_clash) $(stats_value "$TMP/s.json" failed_by_kind.bad_json)" \
        "9 4 0 5 1 3 1" "$path: 9 in, 4 out; failed 1 missing_text, 3 text_clash, 1 bad_json"
    ok "$path: line 2 named, no \"content\"" grep -q 'bad.jsonl: line 2: document has no "content" string' "$TMP/bad_err"
    ok "$path: lines 3 and 4 named, the text member has no place" sh -c \
        "grep -q 'line 3: document has \"content\" (--text-column) and a \"text\" member' '$TMP/bad_err' &&
         grep -q 'line 4: document has \"content\"' '$TMP/bad_err'"
    ok "$path: line 5 named, bad JSON" grep -q 'line 5: bad JSON at byte' "$TMP/bad_err"
    ok "$path: line 8 named, two \"text\" members" grep -q 'line 8: document has "content"' "$TMP/bad_err"
    is "$(python3 -c 'import json,sys; print([json.loads(l)["text"] for l in open(sys.argv[1])])' "$TMP/bad_out")" \
        "['kept one', 'escaped name', 'crlf line', 'null metadata']" \
        "$path: the escaped name, the CRLF line and the null metadata read, in order"
    is "$(tail -1 "$TMP/bad_out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["metadata"], d["id"])')" \
        "{'text': 'old'} 9" "$path: a null metadata becomes the object holding the old text"
done
# a member named "" is a name JSON allows (DuckDB's silly-names.parquet has such a column); a line break is not
printf '{"":"empty name","id":"e1"}\n' > "$TMP/empty_name.jsonl"
"$WINNOW" filter -q --no-langid --no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb \
    --text-column "" "$TMP/empty_name.jsonl" > "$TMP/empty_name.out" 2> "$TMP/err"
is "$? $(cat "$TMP/empty_name.out")" '0 {"text":"empty name","id":"e1"}' "--text-column '': the member named \"\" is the text"
"$WINNOW" filter -q --text-column "$(printf 'a\nb')" "$A" > /dev/null 2> "$TMP/err"
is "$?" 1 "--text-column with a line break: a usage error"

# ---- winnow run: text-column under [ingest] ----
for kind in a b; do
    extra=""
    [ $kind = b ] && extra="text-column = content"
    full_pipeline "$TMP/$kind/docs.jsonl" "$TMP/work_$kind" "$TMP/shards_$kind" "$extra" > "$TMP/$kind.pipeline"
    "$WINNOW" run -q "$TMP/$kind.pipeline" > "$TMP/run_$kind.log" 2>&1
    is "$?" 0 "winnow run ($kind)"
    sed "s|^|# |" "$TMP/run_$kind.log" | head -5
    "$WINNOW" shards cat "$TMP/shards_$kind" > "$TMP/run_$kind.ids" 2>&1
done
ok "winnow run with text-column = content: the shards' ids of the original ($(wc -l < "$TMP/run_a.ids") documents)" \
    sh -c "[ -s '$TMP/run_a.ids' ] && cmp -s '$TMP/run_a.ids' '$TMP/run_b.ids'"

done_testing
