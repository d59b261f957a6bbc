#!/bin/sh
# dedup_neareval.sh - near-duplicate detection follows the LSH theory: pairs
# made from real documents by controlled edits (scripts/dedup_neareval.py),
# per Jaccard bin the detected fraction within 4 standard errors (+0.03) of
# 1-(1-s^8)^14 averaged over the bin; false positives on distinct real
# documents at most 0.5%. A subset here; the full run is in docs/dedup.md.
. tests/lib.sh
require_file "$SHARED/jsonl"
python3 scripts/dedup_neareval.py --winnow "$WINNOW" --shared "$SHARED" --out "$TMP" --pairs 400 > "$TMP/log" 2>&1
is "$?" 0 "evaluation script runs"
python3 - "$TMP/dedup_neareval.tsv" > "$TMP/bins" <<'PY'
import math, sys
for line in open(sys.argv[1]):
    if line.startswith("#"): continue
    lo, hi, n, rate, theory = line.split()
    n, rate, theory = int(n), float(rate), float(theory)
    tol = 4 * math.sqrt(theory * (1 - theory) / n) + 0.03
    print("%s-%s %d %s" % (lo, hi, n, "fits" if abs(rate - theory) <= tol else "off: %.3f vs %.3f" % (rate, theory)))
PY
ok "ten Jaccard bins measured" test "$(wc -l < "$TMP/bins")" -eq 10
while read -r bin n verdict; do
    is "$verdict" "fits" "bin $bin ($n pairs): detection rate fits the theory"
done < "$TMP/bins"
fp=$(grep '^FP ' "$TMP/log")
ok "false positives on distinct documents <= 0.5% ($fp)" python3 -c "import sys; f, n = map(int, '${fp#FP }'.split()); sys.exit(not (n > 1000 and f <= n * 0.005))"
done_testing
