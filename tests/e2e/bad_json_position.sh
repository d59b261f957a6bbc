#!/bin/sh
# A bad JSON line is named by file, line and byte alike by every stage that
# reads JSON Lines (ingest, filter, dedup, tokenize), and as Python's json
# names it: the line number counts every line (blank ones too), the byte is
# Python's JSONDecodeError.colno (1-based) of that line.
. "$(dirname "$0")/../lib.sh"
VOCAB=$SHARED/vocab/tiktoken/r50k_base.tiktoken
[ -r "$VOCAB" ] || { ok "shared data $VOCAB" false; done_testing; exit 1; }
python3 - "$TMP/bad.jsonl" > "$TMP/want" <<'PY'
import json, sys
good = '{"id":"g%d","text":"A good document number %d with a few words in it."}'
bad = ['{"text": broken}', '{"text":"a",}', '{"text":"a" "b"}', '{"text":"a"', '{"text":"a"}x',
       '{"text":"caf\\u00e9", "n": 01}', '{"text":"tab\tinside"}', '{"id":"x", "text":"a", "t2": tru}']
lines = [good % (1, 1), bad[0], '', bad[1], bad[2], good % (2, 2), bad[3], bad[4], '', '', bad[5], bad[6], bad[7],
         good % (3, 3)]
open(sys.argv[1], "w", encoding="utf-8").write("\n".join(lines) + "\n")
for no, line in enumerate(lines, 1):
    if not line.strip(): continue
    try: json.loads(line)
    except json.JSONDecodeError as e: print("line %d: byte %d" % (no, e.colno))
PY
is "$(wc -l < "$TMP/want" | tr -d ' ')" 8 "Python's json finds 8 bad lines"
for stage in ingest filter dedup tokenize; do
    case $stage in
    filter) opts="--no-langid --no-gopher-repetition --no-gopher-quality --no-c4 --no-fineweb" ;;
    tokenize) opts="--encoding gpt2 --vocab $VOCAB" ;;
    *) opts= ;;
    esac
    "$WINNOW" $stage -q $opts "$TMP/bad.jsonl" > /dev/null 2> "$TMP/err"
    sed -n 's/.*bad\.jsonl: \(line [0-9]*\): .*at byte \([0-9]*\).*/\1: byte \2/p' "$TMP/err" > "$TMP/got"
    ok "$stage: each bad line named by line and byte as Python's json names it" cmp -s "$TMP/got" "$TMP/want"
    cmp -s "$TMP/got" "$TMP/want" || sed 's/^/#   got: /' "$TMP/got"
done
# tokenize's block path (the GPU path's reader and scanner, here with the CPU encoder)
WINNOW_TOKENIZE_BLOCKS=cpu "$WINNOW" tokenize -q --encoding gpt2 --vocab "$VOCAB" "$TMP/bad.jsonl" > /dev/null 2> "$TMP/err"
sed -n 's/.*bad\.jsonl: \(line [0-9]*\): .*at byte \([0-9]*\).*/\1: byte \2/p' "$TMP/err" > "$TMP/got"
ok "tokenize, block path: each bad line named as Python's json names it" cmp -s "$TMP/got" "$TMP/want"
done_testing
