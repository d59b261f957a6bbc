#!/bin/sh
# filter_dclm_labels.sh - how the default rule set of `winnow filter`
# (FineWeb's: Gopher repetition + Gopher quality + C4 without the
# terminal-punctuation rule + FineWeb) splits DCLM's human quality labels.
#
#   sh scripts/filter_dclm_labels.sh [majority_data.jsonl] [extra winnow filter flags...]
#
# Prints, per label, documents, kept and keep rate, then the drop reasons per label.
# Env: WINNOW (binary, default bin/winnow), SHARED (data dir).
set -eu
WINNOW=${WINNOW:-bin/winnow}
SHARED=${SHARED:-../shared/data}
IN=${1:-$SHARED/jsonl/dclm/data/majority_data.jsonl}
[ $# -gt 0 ] && shift
TMP=$(mktemp -d "${TMPDIR:-/tmp}/winnow-dclm.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

"$WINNOW" filter -q --rejects "$TMP/rejects.jsonl" "$@" "$IN" > "$TMP/kept.jsonl"
python3 - "$IN" "$TMP/kept.jsonl" "$TMP/rejects.jsonl" <<'PY'
import collections, json, sys
def labels(path):
    return [json.loads(line).get("label") for line in open(path, encoding="utf-8")]
total = collections.Counter(labels(sys.argv[1]))
kept = collections.Counter(labels(sys.argv[2]))
reasons = collections.defaultdict(collections.Counter)
for line in open(sys.argv[3], encoding="utf-8"):
    doc = json.loads(line)
    reasons[doc["reject"]["reason"]][doc.get("label")] += 1
print("| label | documents | kept | keep rate |")
print("|---|---|---|---|")
for label in sorted(total, key=str):
    print(f"| {label} | {total[label]} | {kept[label]} | {100.0 * kept[label] / total[label]:.1f}% |")
print()
print("| drop reason | label 1 | label 0 |")
print("|---|---|---|")
for reason, by in sorted(reasons.items(), key=lambda kv: -sum(kv[1].values())):
    print(f"| {reason} | {by[1]} | {by[0]} |")
PY
