#!/bin/sh
# pipeline_resume - `winnow run` over many real input files: an uninterrupted
# run, then a run killed with kill -9 at random points and resumed, must give
# byte-identical shards; the report adds up stage to stage; a changed task
# count is refused.
. tests/lib.sh
. tests/e2e/pipeline_lib.inc
pipeline_need_stages

pipeline_inputs "$TMP/in"
nfiles=$(ls "$TMP/in" | wc -l)
pipeline_file "$TMP/ref.ini" "$TMP/in" "$TMP/ref-work" "$TMP/ref-out" 3
sed -i 's/^tasks = 3/tasks = 3\nrejects = true/' "$TMP/ref.ini"
# a step whose earlier step has not finished is refused, naming the missing marker
"$WINNOW" run -q --step buckets --rank 0 "$TMP/ref.ini" 2> "$TMP/early.err"
is "$?" 1 "--step buckets before docs has run exits 1"
ok "the refusal names the missing completion marker" grep -q 'needs step docs finished.*done/docs.0' "$TMP/early.err"
ok "and nothing of the step was done" test ! -e "$TMP/ref-work/done/buckets.0"
t0=$(date +%s.%N)
"$WINNOW" run -q "$TMP/ref.ini" 2> "$TMP/ref.err"
is "$?" 0 "uninterrupted run exits 0"
ref_seconds=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
ok "shards written" test -s "$TMP/ref-out/manifest.json"
"$WINNOW" shards verify "$TMP/ref-out" > /dev/null 2>&1; is "$?" 0 "winnow shards verify accepts the output"
r=$TMP/ref-work/report.json
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input_files"])' "$r")" "$nfiles" "report counts every input file"
is "$(json_number "$r" filter in)" "$(json_number "$r" ingest out)" "filter got every document ingest wrote"
is "$(json_number "$r" dedup in)" "$(json_number "$r" filter out)" "dedup got every document filter kept"
is "$(json_number "$r" tokenize in)" "$(json_number "$r" dedup out)" "tokenize got every document dedup kept"
sums=$(python3 - "$r" <<'PYEOF'
import json, sys
stages = json.load(open(sys.argv[1]))["stages"]
wrong = [n for n, s in sorted(stages.items()) if sum(s.get("dropped_by_reason", {}).values()) != s["dropped"]]
print("%s; reasons not adding up: %s" % (" ".join(sorted(stages)), " ".join(wrong) or "none"))
PYEOF
)
is "$sums" "dedup filter ingest shard tokenize; reasons not adding up: none" \
   "report: every stage's drop reasons add up to its dropped count, summed over the tasks"
docs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["documents"])' "$TMP/ref-out/manifest.json")
is "$docs" "$(json_number "$r" dedup out)" "the shards hold every document dedup kept"
dups=$(json_number "$r" dedup dropped)
ok "the copied JSONL file is found as duplicates ($dups dropped)" test "$dups" -ge 1
ok "readable summary names a filter rule" grep -q 'dropped gopher' "$TMP/ref-work/report.txt"
is "$(cat "$TMP/ref-work/rejects/"*.filter.jsonl | wc -l)" "$(json_number "$r" filter dropped)" "rejects = true: one filter reject line per dropped document"
is "$(cat "$TMP/ref-work/rejects/dedup/"* | wc -l)" "$dups" "rejects = true: one dedup reject line per duplicate"

# a finished run, run again, redoes nothing: every completion marker holds
stamp() { find "$TMP/ref-work/docs" "$TMP/ref-work/done" "$TMP/ref-out" -type f -exec stat -c '%n %i %y' {} + | sort; }
stamp > "$TMP/stamp.before"
"$WINNOW" run -q "$TMP/ref.ini"; is "$?" 0 "a finished run runs again with exit 0"
"$WINNOW" run -q --step docs --rank 0 "$TMP/ref.ini"; is "$?" 0 "a finished step's rank runs again with exit 0"
stamp > "$TMP/stamp.after"
ok "and no output, document file or marker was rewritten" cmp "$TMP/stamp.before" "$TMP/stamp.after"

descendants() { for c in $(ps -o pid= --ppid "$1"); do echo "$c"; descendants "$c"; done; }

# The same pipeline killed at random points, then resumed.
pipeline_file "$TMP/p.ini" "$TMP/in" "$TMP/work" "$TMP/out" 3
seed=${PIPELINE_SEED:-$$}
echo "# kill points from seed $seed; the uninterrupted run took ${ref_seconds}s"
kills=0 finished=0
for round in 1 2 3 4 5 6 7 8; do
    [ -e "$TMP/work/done/merge.0" ] && break
    # a random point within the first quarter of a whole run's time: progress
    # accumulates over the rounds, so the kills land in every step
    delay=$(awk -v s="$seed" -v r="$round" -v t="$ref_seconds" 'BEGIN { srand(s * 7 + r); printf "%.2f", 0.05 + rand() * t / 4 }')
    "$WINNOW" run -q "$TMP/p.ini" 2>> "$TMP/kill.err" &
    pid=$!
    sleep "$delay"
    if kill -0 "$pid" 2> /dev/null; then
        # alternate: only the coordinator, or it and every process under it at once
        if [ $((round % 2)) = 0 ]; then kill -9 "$pid" $(descendants "$pid") 2> /dev/null; else kill -9 "$pid"; fi
        kills=$((kills + 1))
        echo "# round $round: killed after ${delay}s ($(ls "$TMP/work/done" 2> /dev/null | tr '\n' ' '))"
    fi
    wait "$pid" 2> /dev/null
    if [ -z "${refused:-}" ] && [ -e "$TMP/work/plan" ] && [ ! -e "$TMP/work/done/merge.0" ]; then
        refused=yes
        sed 's/^tasks = 3/tasks = 4/' "$TMP/p.ini" > "$TMP/p4.ini"
        "$WINNOW" run -q "$TMP/p4.ini" 2> "$TMP/p4.err"
        is "$?" 1 "a changed task count on a started run is refused"
        ok "the refusal says which task count the run started with" grep -q 'started with tasks = 3' "$TMP/p4.err"
    fi
done
ok "killed at least once ($kills times)" test "$kills" -ge 1
"$WINNOW" run -q "$TMP/p.ini" 2>> "$TMP/kill.err"
is "$?" 0 "the resumed run exits 0"
ok "no temporary files left in the output" sh -c "! ls '$TMP/out' | grep -q tmp"
diff -r "$TMP/ref-out" "$TMP/out" > "$TMP/diff" 2>&1
is "$?" 0 "resumed output is byte-identical to the uninterrupted run"
[ -s "$TMP/diff" ] && sed 's/^/#   /' "$TMP/diff" | head -5
is "$(json_number "$TMP/work/report.json" dedup out)" "$(json_number "$r" dedup out)" "resumed report counts the same documents"

# A finished run is not redone.
before=$(stat -c %Y "$TMP/out/manifest.json")
"$WINNOW" run -q "$TMP/p.ini"; is "$?" 0 "rerunning a finished run exits 0"
is "$(stat -c %Y "$TMP/out/manifest.json")" "$before" "rerunning a finished run rewrites nothing"
done_testing
