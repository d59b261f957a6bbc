#!/bin/sh
# extract_articles.sh - main-content extraction scored on the article benchmark
# (121 real pages with ground truth): F1 must stay above 0.96, and winnow must
# score above every other extractor's stored output on the same pages. The
# scorer itself is checked against tests/ref/article_metric.py, a second
# implementation of the benchmark's evaluate.py metric.
. tests/lib.sh
ART="$SHARED/extraction/articles"
require_file "$ART/ground-truth.json" "$ART/html" "$ART/output/trafilatura.json"

ok "score-extraction runs" sh -c "'$WINNOW' score-extraction '$ART' > '$TMP/table.md' 2> '$TMP/err'"
cat "$TMP/table.md" | sed 's/^/# /'
row=$(grep '^| winnow |' "$TMP/table.md")
f1=$(echo "$row" | awk -F'|' '{gsub(/ /, "", $6); print $6}')
pages=$(echo "$row" | awk -F'|' '{gsub(/ /, "", $3); print $3}')
is "$pages" 121 "all 121 pages scored"
ok "F1 $f1 > 0.96" awk -v f="$f1" 'BEGIN { exit !(f > 0.96) }'
first=$(grep '^| ' "$TMP/table.md" | sed -n 2p | awk -F'|' '{gsub(/ /, "", $2); print $2}')
is "$first" winnow "winnow is first in the table (highest F1)"

# the scorer agrees with the benchmark's metric, computed independently in
# Python, on every stored extractor's output and on winnow's own texts
"$WINNOW" score-extraction --only-winnow --dump "$TMP/dump" "$ART" > /dev/null 2>&1
grep '^| ' "$TMP/table.md" | sed 1d | awk -F'|' '{gsub(/ /, ""); print $2, $4, $5, $6}' | sort > "$TMP/ours"
python3 tests/ref/article_metric.py "$ART" winnow="$TMP/dump" | sort > "$TMP/ref"
is "$(wc -l < "$TMP/ref" | tr -d ' ')" 14 "the reference scored 13 extractors and winnow"
ok "precision, recall and F1 of every row equal the reference metric's" cmp "$TMP/ours" "$TMP/ref"
diff "$TMP/ours" "$TMP/ref" | sed 's/^/# /'

# full mode keeps everything: recall near 1, precision far lower
"$WINNOW" score-extraction --only-winnow --extract=full "$ART" > "$TMP/full.md" 2>/dev/null
full_r=$(grep '^| winnow' "$TMP/full.md" | awk -F'|' '{gsub(/ /, "", $5); print $5}')
ok "--extract=full recall $full_r > 0.98" awk -v r="$full_r" 'BEGIN { exit !(r > 0.98) }'

ok "bad flag exits 1" sh -c "'$WINNOW' score-extraction --bogus '$ART' >/dev/null 2>&1; [ \$? -eq 1 ]"
done_testing
