#!/bin/sh
# dedup_cli.sh - options and bad input: usage errors exit 1, --device gpu
# either runs (same output as the CPU) or exits 1 saying why, bad lines are
# counted and reported with their place, --verify keeps exactly the candidate
# whose real Jaccard is far below the threshold, WINNOW_DEDUP_TIMES adds two
# lines of times (the stage's parts, the engine's) and changes nothing else,
# --device gpu without -j runs one worker less than the cores.
. tests/lib.sh
CC=$SHARED/jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz
C4=$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz
require_file "$CC" "$C4"

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
# staged steps: a rank must be below the world size; --mark and --verify are the streaming mode's
"$WINNOW" dedup apply --work "$TMP/none" -o "$TMP/none-out" --rank 2 --world-size 2 2> "$TMP/err"
is "$?" 1 "--rank 2 --world-size 2: exit 1"
ok "and says why" grep -q "rank 2 is not below world size 2" "$TMP/err"
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=3 "$WINNOW" dedup buckets --work "$TMP/none" 2> "$TMP/err"
is "$?" 1 "a Slurm task id beyond its array's count: exit 1"
"$WINNOW" dedup apply --mark --work "$TMP/none" -o "$TMP/none-out" 2> "$TMP/err"
is "$?" 1 "dedup apply --mark: exit 1 (the staged mode drops; it cannot mark)"
ok "and says --mark is for the streaming mode" grep -q -- "--mark are for the streaming mode" "$TMP/err"
"$WINNOW" dedup signatures --mark --work "$TMP/none" "$CC" 2> /dev/null
is "$?" 1 "dedup signatures --mark: exit 1"
ok "nothing written for the refused steps" test ! -e "$TMP/none" -a ! -e "$TMP/none-out"
ok "--help lists every option" sh -c "$WINNOW dedup --help | grep -q -- '--expected-docs' && $WINNOW dedup --help | grep -q -- '--world-size'"

"$WINNOW" dedup -q --device cpu "$CC" -o "$TMP/cpu.jsonl"
"$WINNOW" dedup -q --device gpu "$CC" -o "$TMP/gpu.jsonl" 2> "$TMP/gpu.err"
rc=$?
if [ $rc -eq 0 ]; then
    ok "--device gpu: same output as --device cpu" cmp "$TMP/cpu.jsonl" "$TMP/gpu.jsonl"
else
    is "$rc" 1 "--device gpu without a usable GPU: exit 1"
    ok "--device gpu without a usable GPU: says why" grep -q -- "--device gpu: " "$TMP/gpu.err"
    skip "GPU and CPU output not compared: no usable GPU"
fi
# Workers (WINNOW_DEDUP_TIMES names their number): one per core, but with
# --device gpu and no -j one core is left to the threads beside them; -j is
# taken as given.
cores=$(getconf _NPROCESSORS_ONLN)
WINNOW_DEDUP_TIMES=1 "$WINNOW" dedup -q --device cpu "$CC" -o /dev/null 2> "$TMP/workers.err"
ok "--device cpu without -j: a worker per core ($cores)" grep -q "^dedup times: $cores workers," "$TMP/workers.err"
if [ $rc -eq 0 ]; then
    WINNOW_DEDUP_TIMES=1 "$WINNOW" dedup -q --device gpu "$CC" -o /dev/null 2> "$TMP/workers.err"
    ok "--device gpu without -j: one worker less than the cores" \
        grep -q "^dedup times: $((cores > 1 ? cores - 1 : 1)) workers," "$TMP/workers.err"
    WINNOW_DEDUP_TIMES=1 "$WINNOW" dedup -q -j 3 --device gpu "$CC" -o /dev/null 2> "$TMP/workers.err"
    ok "--device gpu -j 3: 3 workers" grep -q "^dedup times: 3 workers," "$TMP/workers.err"
else
    skip "--device gpu's workers not counted: no usable GPU"
    skip "--device gpu -j 3's workers not counted: no usable GPU"
fi
# An unusable GPU (none visible) is checked while the workers start, but the
# run still exits 1 saying why before any output: no -o, --rejects or
# --stats file, nothing on stdout, for several batches of input and for an
# empty one.
mkdir "$TMP/nogpu"
for input in "$CC $C4" "$TMP/nogpu/empty.jsonl"; do
    : > "$TMP/nogpu/empty.jsonl"
    CUDA_VISIBLE_DEVICES= "$WINNOW" dedup -q -j 4 --device gpu $input -o "$TMP/nogpu/out.jsonl" \
        --rejects "$TMP/nogpu/rejects.jsonl" --stats "$TMP/nogpu/stats.json" 2> "$TMP/nogpu.err"
    is "$?" 1 "--device gpu, no GPU visible ($(basename "${input%% *}")): exit 1"
    ok "... says why, once" sh -c "test \$(grep -c -- '--device gpu: ' $TMP/nogpu.err) -eq 1"
    is "$(ls "$TMP/nogpu" | grep -v empty.jsonl)" "" "... and leaves no output, rejects or stats file"
    CUDA_VISIBLE_DEVICES= "$WINNOW" dedup -q -j 4 --device gpu $input 2> /dev/null > "$TMP/nogpu.stdout"
    is "$(wc -c < "$TMP/nogpu.stdout")" 0 "... nor anything on stdout"
done
CUDA_VISIBLE_DEVICES= "$WINNOW" dedup signatures -q --device gpu --work "$TMP/nogpu/work" "$CC" 2> "$TMP/nogpu.err"
ok "dedup signatures --device gpu, no GPU visible: exit 1 saying why, before the work directory is made" \
    sh -c "test $? -eq 1 && grep -q -- '--device gpu: ' $TMP/nogpu.err && test ! -e $TMP/nogpu/work"
WINNOW_DEDUP_TIMES=1 "$WINNOW" dedup -q -j 2 --device cpu "$CC" -o "$TMP/timed.jsonl" 2> "$TMP/timed.err"
ok "WINNOW_DEDUP_TIMES: same output, two lines of times naming the parts" sh -c "cmp $TMP/cpu.jsonl $TMP/timed.jsonl &&
    test \$(wc -l < $TMP/timed.err) -eq 2 &&
    grep -Eq '^dedup engine times: workers [0-9.]+ worker-s from the start to the last joined, map [0-9.]+; outside map -?[0-9.]+: read [0-9.]+, split [0-9.]+, JSON scan [0-9.]+, waiting to be numbered [0-9.]+, before the first batch [0-9.]+, after the last [0-9.]+, idle between batches -?[0-9.]+; reading thread waited [0-9.]+ s' $TMP/timed.err &&
    grep -Eq '^dedup times: 2 workers, [0-9.]+ s wall; map [0-9.]+ worker-s \\(add [0-9.]+, signatures [0-9.]+, band keys [0-9.]+, index [0-9.]+\\), outside map -?[0-9.]+ worker-s; run began [0-9.]+ s after' $TMP/timed.err"
"$WINNOW" dedup -q "$CC" -o "$TMP/auto.jsonl" 2> "$TMP/auto.err"
ok "--device auto: same output as --device cpu, nothing on stderr" sh -c "cmp $TMP/cpu.jsonl $TMP/auto.jsonl && test ! -s $TMP/auto.err"
"$WINNOW" dedup -q -j 1 --expected-docs 1M "$CC" -o "$TMP/presized.jsonl"
ok "presizing changes nothing in the output" cmp "$TMP/cpu.jsonl" "$TMP/presized.jsonl"

"$WINNOW" dedup -q --expected-docs 1697 "$CC" "$C4" -o "$TMP/both.jsonl" --stats "$TMP/both.json"
ok "index presized with --expected-docs: at most 200 bytes per kept document" python3 -c "
import json, sys; s = json.load(open('$TMP/both.json')); b = s['extra']['index_bytes'] / s['out']
print(b); sys.exit(not (s['out'] > 1600 and b <= 200))"

# The plain run drops 3 near-duplicate LSH candidates of the 697 documents;
# their real Jaccard of lower-cased word 5-gram sets, computed in Python, is
# 0.98 (Broadside Ballads), 0.42 (dk4tfw5x...) and 0.43 (CONICET lists that
# differ only in their numbers, which normalisation removes). --verify 0.9
# keeps exactly dk4tfw5x...: 658 lines instead of 657.
"$WINNOW" dedup -q --verify 0.9 "$CC" -o "$TMP/verify.jsonl" --stats "$TMP/verify.json"
is "$(wc -l < "$TMP/cpu.jsonl" | tr -d ' ')" 657 "plain run keeps 657 of 697"
is "$(wc -l < "$TMP/verify.jsonl" | tr -d ' ')" 658 "--verify 0.9 keeps 658 of 697"
is "$(python3 -c "import json; s=json.load(open('$TMP/verify.json')); print(s['out'], s['dropped_by_reason'])")" \
   "658 {'near_dup': 2, 'exact_dup': 37}" "--verify 0.9: 2 near and 37 exact duplicates dropped"
ok "--verify 0.9 adds exactly the dissimilar candidate dk4tfw5x..." sh -c \
   "diff '$TMP/cpu.jsonl' '$TMP/verify.jsonl' | grep '^[<>]' | grep -c . | grep -qx 1 &&
    diff '$TMP/cpu.jsonl' '$TMP/verify.jsonl' | grep -q '^> {.*\"id\": *\"dk4tfw5xsbpav6xl7q5wpj5dwdtfl57w\"'"
# --verify 1: only candidates whose signatures agree everywhere are dropped:
# the CONICET lists, equal once normalised (digits become one "0"), estimate 1
"$WINNOW" dedup -q --verify 1 "$CC" -o "$TMP/verify1.jsonl" --rejects "$TMP/verify1.rej"
is "$(wc -l < "$TMP/verify1.jsonl" | tr -d ' ')" 659 "--verify 1 keeps 659 of 697"
is "$(grep -c '"reason":"near_dup"' "$TMP/verify1.rej")" 1 "--verify 1 still drops the one candidate whose estimate is exactly 1"
ok "that candidate is the CONICET list 2zmlwccm..." grep -q '"near_dup".*"id":"2zmlwccmm6jzgimkugqlv2hv2zv3cyaz"' "$TMP/verify1.rej"
"$WINNOW" dedup -q "$CC" --rejects "$TMP/plain.rej" > /dev/null
is "$(python3 - "$CC" "$TMP/plain.rej" <<'PYEOF'
import gzip, json, re, sys
docs = {}
for line in gzip.open(sys.argv[1], "rt", encoding="utf-8"):
    d = json.loads(line)
    docs[d["id"]] = d["text"]
def grams(text):
    w = re.findall(r"\w+", text.lower())
    return {tuple(w[i:i + 5]) for i in range(max(1, len(w) - 4))}
for line in open(sys.argv[2], encoding="utf-8"):
    d = json.loads(line)
    if d["reject"]["reason"] == "near_dup" and d["id"] in ("hksijb2fhcbnrn3nrsxromjzmte3g4og", "dk4tfw5xsbpav6xl7q5wpj5dwdtfl57w"):
        a, b = grams(d["text"]), grams(docs[d["reject"]["dup_of"]])
        print(d["id"][:8], "%.2f" % (len(a & b) / len(a | b)))
PYEOF
)" "hksijb2f 0.98
dk4tfw5x 0.42" "the candidates' real Jaccard (Python): 0.98 stays dropped, 0.42 is the one --verify keeps"

zcat "$CC" | head -3 > "$TMP/bad.jsonl"
printf '{"id": "x", "text": "broken\n{"id": "y"}\n' >> "$TMP/bad.jsonl"
zcat "$CC" | head -3 >> "$TMP/bad.jsonl"
"$WINNOW" dedup -q "$TMP/bad.jsonl" -o "$TMP/bad.out" --stats "$TMP/bad.json" 2> "$TMP/bad.err"
is "$?" 0 "bad lines do not stop the stage"
ok "bad JSON reported with file and line" grep -q "bad.jsonl: line 4" "$TMP/bad.err"
is "$(python3 -c "import json; s=json.load(open('$TMP/bad.json')); print(s['in'], s['out'], s['dropped'], s['failed'])")" \
   "8 3 3 2" "8 in: 3 kept, 3 exact repeats dropped, 2 failed"
done_testing
