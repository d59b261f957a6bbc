#!/bin/sh
# tokenize_regex_limit.sh - a tokenizer.json regex that PCRE2 cannot finish
# on a document (here the match limit: (a+)+b backtracks exponentially on
# 40 a's not followed by b) fails that document (regex_limit: named with
# file, line and PCRE2's message, counted, not written) instead of leaving
# the rest of its text unsplit or unreplaced, which gave plausible but wrong
# ids; the documents around it get their exact ids (worked out by hand from
# the tiny vocabularies below). A Split pre-tokenizer (jsonl, bin, -j2,
# shards) and a Replace normalizer; an added token whose normalized content
# the regex cannot finish on refuses the file.
. tests/lib.sh
command -v python3 >/dev/null || skip_all "python3 missing"
counts() { python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
print(s['in'], s['out'], s['failed'], json.dumps(s['failed_by_kind']))" "$1"; }
AS=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa # 40: 2^40 ways to split them among (a+)+
LIMIT="a regex of %s could not finish on the document's text (PCRE2: match limit exceeded); document skipped"

# --- Split by (a+)+b, Isolated: "ab cab" is ab | " c" | ab, "aab cab" aab | " c" | ab ---
cat > $TMP/split.json <<'EOF'
{"version": "1.0", "normalizer": null,
 "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+b"}, "behavior": "Isolated", "invert": false},
 "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "ab": 1, " c": 2, "aab": 3}, "unk_token": "[UNK]"},
 "added_tokens": [{"id": 4, "content": "<|endoftext|>", "single_word": false, "lstrip": false, "rstrip": false,
                   "normalized": false, "special": true}],
 "post_processor": null, "decoder": null}
EOF
printf '{"text":"ab cab"}\n{"text":"%sc b"}\n{"text":"aab cab"}\n' $AS > $TMP/docs.jsonl
$WINNOW tokenize -q --vocab $TMP/split.json --no-eos --stats $TMP/s.json $TMP/docs.jsonl > $TMP/out.jsonl 2> $TMP/err
is "$?" 0 "split: a failed document is counted, not fatal: exit 0"
is "$(cat $TMP/out.jsonl | tr '\n' '|')" '{"text":"ab cab","tokens":[1,2,1]}|{"text":"aab cab","tokens":[3,2,1]}|' \
    "split: the documents around it get their exact ids, it is not written"
is "$(counts $TMP/s.json)" '3 2 1 {"regex_limit": 1}' "split: in 3 = out 2 + failed 1 (regex_limit)"
ok "split: the failure names file, line and PCRE2's reason" \
    grep -qF "docs.jsonl: line 2: $(printf "$LIMIT" split.json)" $TMP/err
# (with <|endoftext|>, 4, after each document: none of the failed one's ids, its EOS neither, stay)
$WINNOW tokenize -q -j2 --vocab $TMP/split.json --format bin $TMP/docs.jsonl 2> /dev/null | od -An -tu4 -v | xargs > $TMP/bin.txt
is "$(cat $TMP/bin.txt)" "4 1 2 1 4 4 3 2 1 4" "split, --format bin -j2, EOS: the two documents' counts and ids only"
$WINNOW tokenize -q --vocab $TMP/split.json --no-eos --format shards -o $TMP/sh/ --stats $TMP/sh.json $TMP/docs.jsonl 2> /dev/null
is "$($WINNOW shards cat $TMP/sh | tr '\n' '|')/$(counts $TMP/sh.json)" '1 2 1|3 2 1|/3 2 1 {"regex_limit": 1}' \
    "split, --format shards: the two documents in the shards, the failure counted"

# --- Replace (a+)+b by X before WhitespaceSplit: "ab c aab" is X c X ---
cat > $TMP/norm.json <<'EOF'
{"version": "1.0",
 "normalizer": {"type": "Replace", "pattern": {"Regex": "(a+)+b"}, "content": "X"},
 "pre_tokenizer": {"type": "WhitespaceSplit"},
 "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "X": 1, "c": 2}, "unk_token": "[UNK]"},
 "added_tokens": [], "post_processor": null, "decoder": null}
EOF
printf '{"text":"%sc b"}\n{"text":"ab c aab"}\n' $AS > $TMP/norm.jsonl
$WINNOW tokenize -q --vocab $TMP/norm.json --no-eos --stats $TMP/n.json $TMP/norm.jsonl > $TMP/nout.jsonl 2> $TMP/err
is "$?/$(cat $TMP/nout.jsonl)" '0/{"text":"ab c aab","tokens":[1,2,1]}' "normalizer: the other document gets its exact ids"
is "$(counts $TMP/n.json)" '2 1 1 {"regex_limit": 1}' "normalizer: in 2 = out 1 + failed 1 (regex_limit)"
ok "normalizer: the failure names file and line" grep -qF "norm.jsonl: line 1: $(printf "$LIMIT" norm.json)" $TMP/err

# --- an added token normalized by that Replace: its content cannot be normalized, the file is refused ---
python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))
t['added_tokens'] = [{'id': 3, 'content': sys.argv[2] + 'c b', 'single_word': False, 'lstrip': False, 'rstrip': False,
                      'normalized': True, 'special': False}]
json.dump(t, open(sys.argv[3], 'w'))" $TMP/norm.json $AS $TMP/added.json
$WINNOW tokenize -q --vocab $TMP/added.json --no-eos $TMP/norm.jsonl > /dev/null 2> $TMP/err
is "$?" 1 "added token: the file is refused (exit 1)"
ok "added token: the refusal names it and PCRE2's reason" \
    grep -qF "added_tokens[0].content: the normalizer's regex could not finish on it: PCRE2: match limit exceeded" $TMP/err
done_testing
