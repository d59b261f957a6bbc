#!/bin/sh
# dedup_cli.sh - options and bad input: usage errors exit 1, --device gpu
# either runs (same output as the CPU) or exits 1 saying why, bad lines are
# counted and reported with their place, --verify only removes fewer.
. tests/lib.sh
CC=$SHARED/jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz
[ -r "$CC" ] || skip_all "no $CC"

"$WINNOW" dedup --bogus "$CC" > /dev/null 2> "$TMP/err"
is "$?" 1 "unknown option: exit 1"
ok "unknown option: usage printed" grep -q "usage: winnow dedup" "$TMP/err"
"$WINNOW" dedup --bands 0 "$CC" > /dev/null 2>&1
is "$?" 1 "--bands 0: exit 1"
"$WINNOW" dedup --bands 64 --rows 64 "$CC" > /dev/null 2>&1
is "$?" 1 "K over 1024: exit 1"
"$WINNOW" dedup --device tpu "$CC" > /dev/null 2>&1
is "$?" 1 "--device tpu: exit 1"
"$WINNOW" dedup --verify 1.5 "$CC" > /dev/null 2>&1
is "$?" 1 "--verify 1.5: exit 1"
ok "--help lists every option" sh -c "$WINNOW dedup --help | grep -q -- '--expected-docs' && $WINNOW dedup --help | grep -q -- '--world-size'"

"$WINNOW" dedup -q --device cpu "$CC" -o "$TMP/cpu.jsonl"
"$WINNOW" dedup -q --device gpu "$CC" -o "$TMP/gpu.jsonl" 2> "$TMP/gpu.err"
rc=$?
if [ $rc -eq 0 ]; then
    ok "--device gpu: same output as --device cpu" cmp "$TMP/cpu.jsonl" "$TMP/gpu.jsonl"
else
    is "$rc" 1 "--device gpu without a usable GPU: exit 1"
    ok "--device gpu without a usable GPU: says why" grep -q -- "--device gpu: " "$TMP/gpu.err"
fi
"$WINNOW" dedup -q "$CC" -o "$TMP/auto.jsonl" 2> "$TMP/auto.err"
ok "--device auto: same output, nothing on stderr" sh -c "cmp $TMP/cpu.jsonl $TMP/auto.jsonl && test ! -s $TMP/auto.err"
"$WINNOW" dedup -q -j 1 --expected-docs 1M "$CC" -o "$TMP/presized.jsonl"
ok "presizing changes nothing in the output" cmp "$TMP/cpu.jsonl" "$TMP/presized.jsonl"

C4=$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz
"$WINNOW" dedup -q --expected-docs 1697 "$CC" "$C4" -o "$TMP/both.jsonl" --stats "$TMP/both.json"
ok "index presized with --expected-docs: at most 200 bytes per kept document" python3 -c "
import json, sys; s = json.load(open('$TMP/both.json')); b = s['extra']['index_bytes'] / s['out']
print(b); sys.exit(not (s['out'] > 1600 and b <= 200))"

"$WINNOW" dedup -q --verify 0.9 "$CC" -o "$TMP/verify.jsonl" --stats "$TMP/verify.json"
ok "--verify keeps at least what the plain run keeps" test "$(wc -l < "$TMP/verify.jsonl")" -ge "$(wc -l < "$TMP/cpu.jsonl")"

zcat "$CC" | head -3 > "$TMP/bad.jsonl"
printf '{"id": "x", "text": "broken\n{"id": "y"}\n' >> "$TMP/bad.jsonl"
zcat "$CC" | head -3 >> "$TMP/bad.jsonl"
"$WINNOW" dedup -q "$TMP/bad.jsonl" -o "$TMP/bad.out" --stats "$TMP/bad.json" 2> "$TMP/bad.err"
is "$?" 0 "bad lines do not stop the stage"
ok "bad JSON reported with file and line" grep -q "bad.jsonl: line 4" "$TMP/bad.err"
is "$(python3 -c "import json; s=json.load(open('$TMP/bad.json')); print(s['in'], s['out'], s['dropped'], s['failed'])")" \
   "8 3 3 2" "8 in: 3 kept, 3 exact repeats dropped, 2 failed"
done_testing
