#!/bin/sh
# slurm_pipeline - `winnow slurm` on a single-node Slurm cluster started on
# localhost: the job arrays (the shards step in 4 ranks) produce the same
# shards as `winnow run`, and a
# resubmission runs only the ranks whose completion markers are missing.
. tests/lib.sh
. tests/e2e/pipeline_lib.inc
. tests/e2e/slurm_cluster.inc
pipeline_need_stages
slurm_install

pipeline_inputs "$TMP/in" 7   # C4 JSONL and Common Crawl WARCs
pipeline_file "$TMP/local.ini" "$TMP/in" "$TMP/local-work" "$TMP/local-out" 4
"$WINNOW" run -q "$TMP/local.ini"
is "$?" 0 "local run exits 0"

slurm_start
pipeline_file "$TMP/s.ini" "$TMP/in" "$TMP/work" "$TMP/out" 4
printf '[slurm]\nconcurrency = 2\ntime = 10\n[slurm.shards]\nconcurrency = 4\n' >> "$TMP/s.ini"
"$WINNOW" slurm "$TMP/s.ini" > "$TMP/submit.out" 2> "$TMP/submit.err"
is "$?" 0 "winnow slurm exits 0"
is "$(grep -c ': job [0-9]*, array' "$TMP/submit.out")" 6 "six job arrays submitted (docs, signatures, buckets, apply, shards, merge)"
ok "the docs array has one task per rank" grep -q '^winnow slurm: docs: job [0-9]*, array 0-3$' "$TMP/submit.out"
ok "so has the shards array" grep -q '^winnow slurm: shards: job [0-9]*, array 0-3$' "$TMP/submit.out"
slurm_wait 120; is "$?" 0 "the queue drains"
# afterok: no rank of a step finished before every rank of the step before it
order_ok=yes prev=
for step in docs signatures buckets apply shards merge; do
    first=$(stat -c %.9Y "$TMP/work/done/$step".* | sort -n | head -1)
    last=$(stat -c %.9Y "$TMP/work/done/$step".* | sort -n | tail -1)
    [ -n "$prev" ] && [ "$(awk -v a="$first" -v b="$prev" "BEGIN{print (a<b)}")" = 1 ] && order_ok=no
    prev=$last
done
is "$order_ok" yes "each array ran after the one before it had finished (afterok)"
ok "every step finished" test -e "$TMP/work/done/merge.0"
is "$(ls "$TMP/work/done" | grep -c '^shards\.')" 4 "the shards step ran as 4 array tasks (4 completion markers)"
is "$(ls "$TMP/local-work/done" | grep -c '^shards\.')" 4 "as it ran as 4 ranks locally"
diff -r "$TMP/local-out" "$TMP/out" > "$TMP/diff" 2>&1
is "$?" 0 "Slurm output is byte-identical to the local run"
[ -s "$TMP/diff" ] && sed 's/^/#   /' "$TMP/diff" | head -5
[ -s "$TMP/diff" ] && for f in "$TMP/work/slurm/logs/"*.out; do sed 's/^/#   /' "$f" | head -3; done

# Resubmission runs only what is missing.
rm "$TMP/work/done/apply.2" "$TMP/work/done/shards.0"
"$WINNOW" slurm "$TMP/s.ini" > "$TMP/resubmit.out" 2>&1
is "$(grep -c ': job' "$TMP/resubmit.out")" 3 "resubmission submits three arrays"
ok "only apply rank 2 again" grep -q '^winnow slurm: apply: job [0-9]*, array 2$' "$TMP/resubmit.out"
ok "shards rank 0" grep -q '^winnow slurm: shards: job [0-9]*, array 0$' "$TMP/resubmit.out"
ok "and the merge after it" grep -q '^winnow slurm: merge: job [0-9]*, array 0$' "$TMP/resubmit.out"
slurm_wait 60; is "$?" 0 "the queue drains again"
diff -r "$TMP/local-out" "$TMP/out" > /dev/null 2>&1
is "$?" 0 "output still byte-identical after the resubmission"
"$WINNOW" slurm "$TMP/s.ini" > "$TMP/again.out" 2>&1
ok "nothing left to submit" grep -q 'nothing to submit' "$TMP/again.out"

# afterok: an array task that fails keeps the arrays after it from starting.
# Shards rank 1 is run again and cannot write its part manifest (a directory
# has its name): the merge array is cancelled, never run.
rm "$TMP/work/done/shards.1" "$TMP/work/shards/00001.json"
mkdir "$TMP/work/shards/00001.json"
"$WINNOW" slurm "$TMP/s.ini" > "$TMP/fail.out" 2>&1
merge_job=$(sed -n 's/^winnow slurm: merge: job \([0-9]*\), array 0$/\1/p' "$TMP/fail.out")
ok "shards rank 1 and the merge after it submitted" grep -q '^winnow slurm: shards: job [0-9]*, array 1$' "$TMP/fail.out"
slurm_wait 60; is "$?" 0 "the queue drains (the merge cancelled)"
ok "shards rank 1 failed (no marker)" test ! -e "$TMP/work/done/shards.1"
is "$(ls "$TMP/work/slurm/logs" | grep -c "^merge-${merge_job:-none}_")" 0 "the merge array (job ${merge_job:-none}) never ran"
slurm_stop
done_testing
