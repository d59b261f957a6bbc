#!/bin/sh
# pipeline_cli - `winnow run` as a user meets it, on a quick pipeline (ingest
# and filter over five real inputs, one of them a truncated WARC): --step
# without --rank takes SLURM_ARRAY_TASK_ID as it is (winnow slurm's arrays list
# the ranks themselves); two input files that fail (the run goes on, report.json
# is JSON naming both, each record keeps the stage's own last message);
# report.txt's table says what report.json says; the truncated input's damage
# reaches the report as `winnow ingest --stats` counts it; leftovers of killed
# processes are removed; WORK/lock held by another process is waited for
# (up to 5 s) and then refused with exit 1 (docs/pipeline.md).
. tests/lib.sh
W=$SHARED/warc; J=$SHARED/jsonl
require_file "$W/resiliparse/tests/data/clipped.warc.gz" "$W/resiliparse/tests/data/warcfile.warc.gz" \
    "$W/warcio/test/data/example.warc.gz" "$J/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz" \
    "$J/olmo/test_fixtures/c4-sample.01.json.gz"
mkdir -p "$TMP/in"
cp "$W/resiliparse/tests/data/clipped.warc.gz" "$TMP/in/a-clipped.warc.gz"
cp "$W/resiliparse/tests/data/warcfile.warc.gz" "$TMP/in/b-cc.warc.gz"
cp "$W/warcio/test/data/example.warc.gz" "$TMP/in/c-example.warc.gz"
cp "$J/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz" "$TMP/in/d-dolma.jsonl.gz"
cp "$J/olmo/test_fixtures/c4-sample.01.json.gz" "$TMP/in/e-c4.jsonl.gz"
chmod u+w "$TMP/in"/*
P=$TMP/p.ini
printf 'input = %s/*\nwork = %s/w\noutput = %s/out\ntasks = 2\n[ingest]\n[filter]\n' "$TMP/in" "$TMP" "$TMP" > "$P"

# An array task of `winnow slurm` (--array=1 when only rank 1 is missing): rank 1, not 1 - MIN.
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=1 "$WINNOW" run -q --step docs "$P"
is "$?" 0 "--step docs without --rank under a Slurm array task exits 0"
is "$(ls "$TMP/w/done")" "docs.1" "it ran rank SLURM_ARRAY_TASK_ID (1), whatever SLURM_ARRAY_TASK_MIN"
is "$(ls "$TMP/w/docs" | tr '\n' ' ')" "000001.jsonl.zst 000003.jsonl.zst " "rank 1's files (1 and 3 of 5) have their documents"

# Two of rank 0's files vanish: both fail, the run goes on.
mv "$TMP/in/c-example.warc.gz" "$TMP/in/e-c4.jsonl.gz" "$TMP"
# leftovers of killed processes in the work directory
mkdir -p "$TMP/w/dedup/rm" "$TMP/w/dedup/sig" "$TMP/w/stats/tokenize" "$TMP/w/stats/shard" "$TMP/w/shards"
: > "$TMP/w/stats/tokenize/00000.json.tmp.999999"   # a shards rank's stats and part manifest
: > "$TMP/w/stats/shard/00001.json.tmp.999999"
: > "$TMP/w/shards/00000.json.tmp.999999"
: > "$TMP/w/dedup/rm/p00000.tmp.999999"
: > "$TMP/w/dedup/sig/f000000.tmp.999999"
: > "$TMP/w/docs/000004.part"
# WORK/lock held by another process that lets go within a second: the run waits for it
flock "$TMP/w/lock" sh -c ": > '$TMP/held'; sleep 1" &
holder=$!
while [ ! -e "$TMP/held" ]; do sleep 0.05; done
"$WINNOW" run -q "$P" 2> "$TMP/run.err"
is "$?" 0 "a run whose lock is let go within 5 s waits for it and finishes (two failed files: exit 0)"
wait "$holder"
is "$(find "$TMP/w" -name '*.tmp.*' -o -name '*.part' | wc -l | tr -d ' ')" 0 \
    "the temporaries a kill left (WORK/dedup/rm, dedup/sig, stats/tokenize, stats/shard, shards, docs/*.part) are removed"
python3 - "$TMP/w/report.json" "$TMP/in" > "$TMP/failed" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["failed_files"], " ".join(f[len(sys.argv[2]) + 1:] for f in r["failed"]))
PY
is "$(cat "$TMP/failed")" "2 c-example.warc.gz e-c4.jsonl.gz" "report.json is JSON and names both failed files"
is "$(grep -c 'failed: ' "$TMP/w/report.txt")" 2 "report.txt names both"
ok "a failed file's record keeps the stage's last message" \
    grep -q 'c-example.warc.gz: ingest | filter exited with status 2: .*c-example.warc.gz: cannot open: No such file or directory$' "$TMP/w/failed/000002"
ok "and so does the warning" grep -q 'input file failed: .*e-c4.jsonl.gz: ingest | filter exited with status 2: .*cannot open: No such file or directory' "$TMP/run.err"

# report.txt holds report.json's numbers, each in its column
python3 - "$TMP/w/report.json" "$TMP/w/report.txt" > "$TMP/table" 2>&1 <<'PY'
import json, re, sys
stages = json.load(open(sys.argv[1]))["stages"]
text, cur, bad = {}, None, []
for line in open(sys.argv[2]).read().splitlines()[1:]:
    m = re.match(r"(\w+) +(\d+) in +(\d+) out +(\d+) dropped +(\d+) failed +([\d.]+) MB in +([\d.]+) MB out", line)
    if m:
        cur = m.group(1)
        text[cur] = {"in": int(m.group(2)), "out": int(m.group(3)), "dropped": int(m.group(4)),
                     "failed": int(m.group(5)), "mb_in": m.group(6), "mb_out": m.group(7),
                     "dropped_by_reason": {}, "failed_by_kind": {}, "extra": {}}
        continue
    m = re.match(r" +(dropped|failed|counted) +(\S+) +(\d+)$", line)
    if cur and m:
        table = {"dropped": "dropped_by_reason", "failed": "failed_by_kind", "counted": "extra"}[m.group(1)]
        text[cur][table][m.group(2)] = int(m.group(3))
for name, s in stages.items():
    want = {k: s[k] for k in ("in", "out", "dropped", "failed")}
    want.update(mb_in="%.1f" % (s["bytes_in"] / 1e6), mb_out="%.1f" % (s["bytes_out"] / 1e6))
    for k in ("dropped_by_reason", "failed_by_kind", "extra"):
        want[k] = {n: int(v) for n, v in s[k].items()}
    if text.get(name) != want:
        bad.append(name)
        print("%s: text %s, json %s" % (name, text.get(name), want))
print("%s; differing: %s" % (" ".join(sorted(text)), " ".join(bad) or "none"))
PY
is "$(tail -1 "$TMP/table")" "filter ingest; differing: none" "report.txt's table holds report.json's counts, bytes, reasons and other counts"
grep -v '; differing' "$TMP/table" | sed 's/^/# /'

# the truncated WARC's damage is in the report as ingest alone counts it
want=0
for f in "$TMP/in"/*; do
    "$WINNOW" ingest -q --stats "$TMP/one.json" "$f" > /dev/null 2>&1
    n=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1])).get("extra", {}).get("damaged_streams", 0)))' "$TMP/one.json")
    want=$((want + n))
done
ok "winnow ingest finds the clipped WARC damaged ($want stream)" test "$want" -ge 1
is "$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["stages"]["ingest"]["extra"]["damaged_streams"]))' "$TMP/w/report.json")" \
    "$want" "report.json counts the damaged streams ingest counts (damaged_streams)"

# WORK/lock held longer than 5 s: refused, exit 1, naming the lock
flock "$TMP/w/lock" sh -c ": > '$TMP/held2'; while [ ! -e '$TMP/release' ]; do sleep 0.1; done" &
holder=$!
while [ ! -e "$TMP/held2" ]; do sleep 0.05; done
"$WINNOW" run -q "$P" 2> "$TMP/locked.err"
is "$?" 1 "a run whose work directory another process holds exits 1"
ok "saying the work directory is in use, naming the lock" grep -q "w is in use by another winnow run (lock .*/w/lock)" "$TMP/locked.err"
: > "$TMP/release"
wait "$holder"
mv "$TMP/c-example.warc.gz" "$TMP/e-c4.jsonl.gz" "$TMP/in"
done_testing
