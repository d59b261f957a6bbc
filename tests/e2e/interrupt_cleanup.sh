#!/bin/sh
# A run stopped by Ctrl-C (SIGINT), kill or a Slurm job's end (SIGTERM), or a
# closed terminal (SIGHUP) leaves no half-written file behind: the temporary
# (NAME.tmp.PID) is removed, nothing is renamed into place, and the process
# dies of the signal, so the shell and the scheduler see why it stopped. A
# signal the caller ignored (nohup's SIGHUP) is left ignored. `winnow run`'s
# processes for each task and each input file die with it and remove theirs.
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
DOCS=$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz
WARCS=$SHARED/warc/resiliparse/tests/data
require_file "$REF/multi.gpt2.bin.zst" "$DOCS" "$WARCS/warcfile.warc.gz" "$WARCS/clueweb-quirk.warc.gz"
command -v mkfifo > /dev/null || skip_all "no mkfifo"

# A shell's background job starts with SIGINT ignored; the command under test
# gets each signal's default back (or SIG_IGN for those listed in IGNORE).
# Run with &, the function is a subshell that becomes the command: $! is its pid.
launch() {
    IGNORE=${IGNORE:-} exec python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
for name in os.environ["IGNORE"].split():
    signal.signal(getattr(signal, name), signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# wait_for GLOB: up to 20 s for a file matching it.
wait_for() {
    tries=0
    until ls $1 > /dev/null 2>&1 || [ $tries -ge 200 ]; do sleep 0.1; tries=$((tries + 1)); done
}

# stop SIG PID: sends the signal and waits; the exit status in rc. The shell's
# own "Terminated" job message is kept out of the test's log.
stop() {
    exec 4>&2 2> /dev/null
    kill -$1 $2
    wait $2
    rc=$?
    exec 2>&4 4>&-
}

gzip -dc "$DOCS" > "$TMP/docs.jsonl"

# winnow filter -o FILE, reading from a fifo that stays open: caught mid-run.
for sig_status in INT:130 TERM:143 HUP:129; do
    sig=${sig_status%:*}
    rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
    launch $WINNOW filter -q --no-langid -o "$TMP/kept.jsonl" < "$TMP/fifo" &
    pid=$!
    exec 3> "$TMP/fifo"
    head -n 200 "$TMP/docs.jsonl" >&3
    wait_for "$TMP/kept.jsonl.tmp.*"
    ok "SIG$sig: filter is writing its temporary" ls "$TMP"/kept.jsonl.tmp.*
    stop $sig $pid
    exec 3>&-
    is "$rc" "${sig_status#*:}" "SIG$sig: filter dies of the signal (status 128 + its number)"
    is "$(ls "$TMP" | grep -c kept)" 0 "SIG$sig: no temporary left and no output renamed into place"
done

# An ignored SIGHUP (nohup) stays ignored: the run goes on and finishes.
rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
IGNORE=SIGHUP launch $WINNOW filter -q --no-langid -o "$TMP/kept.jsonl" < "$TMP/fifo" &
pid=$!
exec 3> "$TMP/fifo"
head -n 200 "$TMP/docs.jsonl" >&3
wait_for "$TMP/kept.jsonl.tmp.*"
kill -HUP $pid
sleep 0.3
tail -n +201 "$TMP/docs.jsonl" >&3
exec 3>&-
wait $pid
is "$?" 0 "ignored SIGHUP: filter finishes"
$WINNOW filter -q --no-langid "$TMP/docs.jsonl" > "$TMP/whole.jsonl"
ok "ignored SIGHUP: its output is the whole run's" cmp "$TMP/kept.jsonl" "$TMP/whole.jsonl"

# winnow shard inside its third shard, with two shards already renamed into
# place: SIGTERM removes the shard being written, writes no manifest.
zstd -dcq "$REF/multi.gpt2.bin.zst" > "$TMP/in.bin"
rm -f "$TMP/fifo" && mkfifo "$TMP/fifo"
launch $WINNOW shard -q -o "$TMP/d" --vocab-size 50257 --eos 50256 --shard-tokens 500k < "$TMP/fifo" &
pid=$!
exec 3> "$TMP/fifo"
head -c 5000000 "$TMP/in.bin" >&3 # about 1.25M tokens: the third shard is half full
wait_for "$TMP/d/shard_00002.tok.zst.tmp.*"
wait_for "$TMP/d/shard_00001.tok.zst" # renamed by the writer's closer thread, a moment later
ok "shard is inside its third shard" ls "$TMP"/d/shard_00002.tok.zst.tmp.* "$TMP/d/shard_00001.tok.zst"
stop TERM $pid
exec 3>&-
is "$rc" 143 "shard dies of SIGTERM"
is "$(ls "$TMP/d" | grep -c '\.tmp\.')" 0 "no temporary left in the shard directory"
ok "no manifest: the directory reads as unfinished" test ! -e "$TMP/d/manifest.json"
ok "the shards finished before the signal stay" test -s "$TMP/d/shard_00001.tok.zst"

# winnow run, killed while an input file's process writes its documents: the
# run, its task and the file's process (PR_SET_PDEATHSIG) all go, and none
# leaves a temporary in the work or output directory.
mkdir -p "$TMP/crawls"
for k in 1 2 3; do
    for c in $(seq 12); do cat "$WARCS/warcfile.warc.gz" "$WARCS/clueweb-quirk.warc.gz"; done > "$TMP/crawls/crawl-$k.warc.gz"
done
printf 'input = %s/*\nwork = %s\noutput = %s\ntasks = 1\n[ingest]\n[filter]\n' \
    "$TMP/crawls" "$TMP/work" "$TMP/out" > "$TMP/p.ini"
launch $WINNOW run -q --threads 1 "$TMP/p.ini" 2> /dev/null &
pid=$!
wait_for "$TMP/work/docs/*.tmp.*"
ok "run: a file's process is writing its documents" ls "$TMP"/work/docs/*.tmp.*
stop TERM $pid
is "$rc" 143 "run dies of SIGTERM"
tries=0 # its children die of their own SIGTERM, a moment later
while find "$TMP/work" "$TMP/out" -name '*.tmp.*' 2> /dev/null | grep -q . && [ $tries -lt 100 ]; do
    sleep 0.1; tries=$((tries + 1))
done
is "$(find "$TMP/work" "$TMP/out" -name '*.tmp.*' 2> /dev/null | wc -l)" 0 "run: no temporary left by the run, its task or its files' processes"
done_testing
