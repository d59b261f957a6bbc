#!/bin/sh
# dedup_exact.sh - exact duplicates in the real Common Crawl sample of dolma:
# its 35 texts that repeat an earlier text byte for byte must all go as
# exact_dup naming the first copy, whatever the thread count; the accounting
# must balance; a file named .zst that is plain JSONL reads the same.
. tests/lib.sh
CC=$SHARED/jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz
TRAP=$SHARED/jsonl/dolma/tests/data/formats/zst/CC-MAIN-20190717121559-20190717143559-00140.jsonl.zst
require_file "$CC"

"$WINNOW" dedup -q -j 2 "$CC" -o "$TMP/out.jsonl" --rejects "$TMP/rej.jsonl" --stats "$TMP/stats.json"
is "$?" 0 "dedup exits 0"

# The reference, computed here from the raw texts: id -> id of the first document with the same text.
python3 - "$CC" "$TMP/rej.jsonl" "$TMP/stats.json" "$TMP/out.jsonl" > "$TMP/check" <<'PY'
import gzip, json, sys
docs = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")]
first, want = {}, {}
for d in docs:
    if d["text"] in first: want[d["id"]] = first[d["text"]]
    else: first[d["text"]] = d["id"]
rej = [json.loads(l) for l in open(sys.argv[2])]
got = {r["id"]: r["reject"]["dup_of"] for r in rej if r["reject"]["reason"] == "exact_dup"}
print("raw_dups", len(want))
print("all_found", all(got.get(i) == f for i, f in want.items()))
st = json.load(open(sys.argv[3]))
out = [json.loads(l)["id"] for l in open(sys.argv[4])]
print("balanced", st["in"] == st["out"] + st["dropped"] + st["failed"] and st["in"] == len(docs))
print("out_is_rest", out == [d["id"] for d in docs if d["id"] not in {r["id"] for r in rej}])
print("firsts_kept", all(f in set(out) for f in want.values()))
PY
is "$(sed -n 1p "$TMP/check")" "raw_dups 35" "the sample has 35 byte-identical repeated texts"
is "$(sed -n 2p "$TMP/check")" "all_found True" "each is dropped as exact_dup naming the first copy"
is "$(sed -n 3p "$TMP/check")" "balanced True" "in == out + dropped + failed == 697"
is "$(sed -n 4p "$TMP/check")" "out_is_rest True" "kept lines are the rest, in order, byte for byte"
is "$(sed -n 5p "$TMP/check")" "firsts_kept True" "the first copy of each group is kept"

"$WINNOW" dedup -q -j 1 "$TMP/out.jsonl" -o "$TMP/again.jsonl" --stats "$TMP/again.json"
ok "deduplicated output has no duplicates left" cmp "$TMP/out.jsonl" "$TMP/again.jsonl"

"$WINNOW" dedup -q -j 1 "$TRAP" -o "$TMP/trap.jsonl"
ok "plain JSONL named .zst and one thread: the same documents kept" \
   sh -c "python3 -c 'import json,sys; [print(json.loads(l)[\"id\"]) for l in open(sys.argv[1])]' $TMP/trap.jsonl > $TMP/a; \
          python3 -c 'import json,sys; [print(json.loads(l)[\"id\"]) for l in open(sys.argv[1])]' $TMP/out.jsonl > $TMP/b; cmp $TMP/a $TMP/b"

"$WINNOW" dedup -q --mark "$CC" -o "$TMP/mark.jsonl"
is "$(wc -l < "$TMP/mark.jsonl" | tr -d ' ')" 697 "--mark keeps every document"
is "$(grep -c '"dup_reason":"exact_dup"' "$TMP/mark.jsonl")" "$(grep -c '"exact_dup"' "$TMP/rej.jsonl")" \
   "--mark annotates the documents the drop mode drops"
done_testing
