#!/bin/sh
# filter_udhr_langid.sh - language ID accuracy of `winnow filter` (CLD2) on
# the Universal Declaration of Human Rights in every language of the udhr
# package, over the languages CLD2 can report.
#
#   sh scripts/filter_udhr_langid.sh [udhr_text_DERIVED.jsonl]
#
# A text counts when its BCP 47 tag, its primary subtag or its ISO 639-3 code
# is a code in `winnow filter --list-languages`; it is right when CLD2's
# metadata.lang is that code. Prints the accuracy and the misses.
# Env: WINNOW (binary, default bin/winnow), SHARED (data dir), VERBOSE=1 lists misses,
# UDHR_FLAGS extra flags for winnow filter (e.g. --langid-max-bytes 0).
set -eu
WINNOW=${WINNOW:-bin/winnow}
SHARED=${SHARED:-../shared/data}
IN=${1:-$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/winnow-udhr.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

"$WINNOW" filter --list-languages > "$TMP/langs.tsv"
"$WINNOW" filter -q ${UDHR_FLAGS:-} --no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb "$IN" > "$TMP/out.jsonl"
python3 - "$TMP/langs.tsv" "$TMP/out.jsonl" "${VERBOSE:-0}" <<'PY'
import json, sys
codes = {}
for line in open(sys.argv[1], encoding="utf-8"):
    code, name = line.rstrip("\n").split("\t")
    codes[code.lower()] = code
def expected(doc):
    tag = doc.get("bcp47") or ""
    for cand in (tag, tag.split("-")[0], doc.get("iso6393") or ""):
        c = cand.lower()
        if c == "zh-hans": c = "zh"            # CLD2 reports Simplified Chinese as "zh"
        if c in codes: return codes[c]
    return None
total = right = skipped = 0
misses = []
for line in open(sys.argv[2], encoding="utf-8"):
    doc = json.loads(line)
    want = expected(doc)
    if want is None:
        skipped += 1
        continue
    got = doc["metadata"]["lang"]
    total += 1
    if got == want: right += 1
    else: misses.append((doc.get("name"), want, got))
print(f"udhr texts: {total + skipped}, in CLD2's languages: {total}, identified: {right}, "
      f"accuracy: {100.0 * right / total:.1f}%")
langs = {w for _, w, _ in misses}
print(f"misses: {len(misses)} texts")
if sys.argv[3] == "1":
    for name, want, got in sorted(misses, key=lambda m: m[1]): print(f"  {want:8} -> {got:8} {name}")
PY
