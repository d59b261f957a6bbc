#!/bin/sh
# A writer killed with SIGKILL mid-write leaves no manifest (not even the one
# an earlier run left in the same directory); a rerun completes it.
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
require_file "$REF/multi.gpt2.bin.zst"
command -v mkfifo > /dev/null || skip_all "no mkfifo"

zstd -dcq "$REF/multi.gpt2.bin.zst" > "$TMP/in.bin"
$WINNOW shard -q -o "$TMP/d" --vocab-size 50257 --eos 50256 --shard-tokens 500k "$TMP/in.bin"
ok "an earlier complete run left a manifest" test -f "$TMP/d/manifest.json"

# The input arrives through a fifo that stays open, so the writer is caught
# mid-run: some shards renamed into place, one still under its temporary name.
mkfifo "$TMP/fifo"
$WINNOW shard -q -o "$TMP/d" --vocab-size 50257 --eos 50256 --shard-tokens 500k < "$TMP/fifo" &
pid=$!
exec 3> "$TMP/fifo"
head -c 5000000 "$TMP/in.bin" >&3 # about 1.25M tokens: the third shard is half full
tries=0
until ls "$TMP"/d/shard_00002.tok.zst.tmp.* > /dev/null 2>&1 || [ $tries -ge 200 ]; do sleep 0.1; tries=$((tries + 1)); done
ok "the writer is inside its third shard" ls "$TMP"/d/shard_00002.tok.zst.tmp.*
ok "the old manifest was removed before the first shard was written" test ! -e "$TMP/d/manifest.json"
kill -9 $pid
wait $pid 2> /dev/null
exec 3>&-
ok "killed writer left no manifest" test ! -e "$TMP/d/manifest.json"
$WINNOW shards verify "$TMP/d" > /dev/null 2>&1
is $? 2 "verify refuses the unfinished directory"
$WINNOW shards inspect "$TMP/d" > /dev/null 2> "$TMP/err"
is $? 2 "inspect refuses it"
grep -q "/d: no manifest.json: not a shard directory, or its writer stopped before the end" "$TMP/err"; is $? 0 "saying the manifest is missing and why"

# Rerunning the same command finishes the directory, byte for byte as a clean run.
$WINNOW shard -q -o "$TMP/d" --vocab-size 50257 --eos 50256 --shard-tokens 500k "$TMP/in.bin"
$WINNOW shard -q -o "$TMP/clean" --vocab-size 50257 --eos 50256 --shard-tokens 500k "$TMP/in.bin"
ok "rerun verifies" $WINNOW shards verify "$TMP/d"
same=yes
for f in "$TMP"/clean/*; do cmp -s "$f" "$TMP/d/$(basename "$f")" || same=no; done
is "$same" yes "rerun equals a clean run"
done_testing
