#!/bin/sh
# score_extraction_metric.sh - `winnow score-extraction` on a handmade
# benchmark directory whose scores were worked out by hand from the
# definition in scrapinghub/article-extraction-benchmark's evaluate.py:
# tokens are Python's \w+ runs (underscore included), shingles are token
# 4-grams (a text of 1..3 tokens is one shorter shingle), tp/fp/fn are
# multiset counts, precision is the mean over pages with tp+fp > 0 and
# recall the mean over pages with tp+fn > 0, F1 = 2PR/(P+R) of the means.
#
# page  truth                            prediction                      P    R
# a     snake_case words are here now.   snake case words are here now.  1/3  1/2
# b     one two three four five          one two three four five six     2/3  1
# c     Short note.                      Short note                      1    1
# d     alpha beta gamma delta epsilon   completely different words ...  0    0
# e     some words in the truth text     (empty)                         -    0
# f     a b c d a b c d (abcd twice)     a b c d                         1    1/5
# P = 3/5 = 0.600, R = 2.7/6 = 0.450, F1 = 0.54/1.05 = 0.514
. tests/lib.sh
ART="$TMP/bench"
mkdir -p "$ART/html" "$ART/output"
truth_a='snake_case words are here now.'; pred_a='snake case words are here now.'
truth_b='one two three four five';        pred_b='one two three four five six'
truth_c='Short note.';                    pred_c='Short note'
truth_d='alpha beta gamma delta epsilon'; pred_d='completely different words here now'
truth_e='some words in the truth text';   pred_e=''
truth_f='a b c d a b c d';                pred_f='a b c d'
printf '{' > "$ART/ground-truth.json"
printf '{' > "$ART/output/t.json"
sep=
for id in a b c d e f; do
    eval "truth=\$truth_$id pred=\$pred_$id"
    printf '%s"%s": {"articleBody": "%s", "url": "http://example.com/%s"}' "$sep" "$id" "$truth" "$id" >> "$ART/ground-truth.json"
    printf '%s"%s": {"articleBody": "%s"}' "$sep" "$id" "$pred" >> "$ART/output/t.json"
    printf '<html><body><p>%s</p></body></html>' "$truth" | gzip > "$ART/html/$id.html.gz"
    sep=', '
done
echo '}' >> "$ART/ground-truth.json"
echo '}' >> "$ART/output/t.json"

ok "score-extraction runs" sh -c "'$WINNOW' score-extraction --extract=full '$ART' > '$TMP/table.md' 2> '$TMP/err'"
sed 's/^/# /' "$TMP/table.md"
is "$(grep '^| t |' "$TMP/table.md")" "| t | 6 | 0.600 | 0.450 | 0.514 |" \
   "precision, recall and F1 as worked out by hand from evaluate.py's definition"
is "$(grep '^| winnow' "$TMP/table.md")" "| winnow (--extract=full) | 6 | 1.000 | 1.000 | 1.000 |" \
   "winnow's full text of each one-paragraph page is its ground truth exactly"
is "$(python3 tests/ref/article_metric.py "$ART")" "t 0.600 0.450 0.514" "the reference metric agrees"
done_testing
