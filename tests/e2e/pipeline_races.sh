#!/bin/sh
# Two copies of the same rank at once (Slurm requeues a task while the old
# one still runs) and leftovers of a kill in dedup (issue 16, points 10-11):
# every rank's work is idempotent under concurrency, and `winnow run` removes
# the temporaries a killed dedup left in the work directory.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/pipeline_lib.inc"
pipeline_need_stages

pipeline_inputs "$TMP/in" 6
pipeline_file "$TMP/p.ini" "$TMP/in" "$TMP/work" "$TMP/out" 2

# race: every step, each rank run by two processes at once
for step in docs signatures buckets apply shards merge; do
    ranks=2; [ $step = merge ] && ranks=1
    r=0
    while [ $r -lt $ranks ]; do
        "$WINNOW" run -q --step $step --rank $r "$TMP/p.ini" 2>"$TMP/$step.$r.a.err" & a=$!
        "$WINNOW" run -q --step $step --rank $r "$TMP/p.ini" 2>"$TMP/$step.$r.b.err" & b=$!
        [ $step = merge ] && { "$WINNOW" run -q --step $step --rank $r "$TMP/p.ini" 2>"$TMP/$step.$r.c.err" & c=$!; }
        wait $a; ra=$?
        wait $b; rb=$?
        rc=0; [ $step = merge ] && { wait $c; rc=$?; }
        is "$ra $rb $rc" "0 0 0" "$step rank $r twice at once: both exit 0"
        r=$((r + 1))
    done
done
is "$(ls "$TMP/work/failed" 2>/dev/null | wc -l | tr -d ' ')" 0 "no input recorded failed"
ok "shards verify" "$WINNOW" shards verify "$TMP/out"
python3 - "$TMP/work/report.json" >"$TMP/flow" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["stages"]
print(r["filter"]["in"] == r["ingest"]["out"], r["dedup"]["in"] == r["filter"]["out"],
      r["tokenize"]["in"] == r["dedup"]["out"], all(s["in"] == s["out"] + s["dropped"] + s["failed"] for s in r.values()))
PY
is "$(cat "$TMP/flow")" "True True True True" "report adds up stage to stage"

# the same pipeline run uninterrupted by one process gives the same shards
pipeline_file "$TMP/ref.ini" "$TMP/in" "$TMP/refwork" "$TMP/ref" 2
"$WINNOW" run -q "$TMP/ref.ini"
is "$(cat "$TMP/out"/*.tok.zst | md5sum)" "$(cat "$TMP/ref"/*.tok.zst | md5sum)" "raced run: shards identical to a single run's"

# leftovers of a kill during dedup signatures are removed by the next run
rm -f "$TMP/work/done/signatures.0" "$TMP/work/done/buckets".* "$TMP/work/done/apply".* "$TMP/work/done/shards".* "$TMP/work/done/merge.0"
for d in sig ids; do : >"$TMP/work/dedup/$d/f000000.tmp.999999"; done
: >"$TMP/work/dedup/done/signatures.f000000.tmp.999999"
"$WINNOW" run -q "$TMP/p.ini"
is "$?" 0 "rerun after a kill in dedup signatures"
is "$(find "$TMP/work" -name '*.tmp.*' | wc -l | tr -d ' ')" 0 "no temporary left in the work directory"

done_testing
