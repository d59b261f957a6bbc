#!/bin/sh
# pipeline_errors - pipeline files that are wrong, `winnow slurm --dry-run`,
# an input file that fails (counted, reported, the run goes on; --fail-fast
# stops), a vocabulary that cannot be loaded (the run stops before the shards
# step's ranks), an unwritable output directory and a full work disk.
. tests/lib.sh
. tests/e2e/pipeline_lib.inc
J=$SHARED/jsonl/dolma/tests/data/multiple_files

# Pipeline files that are wrong: exit 1, FILE:LINE and what.
mkdir -p "$TMP/in"
cp "$J/cc_en_head-0091.jsonl.gz" "$TMP/in/a.jsonl.gz"
printf 'input = in/*\nwork = w\noutput = o\n[filtre]\n' > "$TMP/bad1.ini"
"$WINNOW" run "$TMP/bad1.ini" 2> "$TMP/e"; is "$?" 1 "unknown section: exit 1"
ok "unknown section named with file and line" grep -q 'bad1.ini:4: unknown section \[filtre\]' "$TMP/e"
printf 'work = w\noutput = o\n' > "$TMP/bad2.ini"
"$WINNOW" run "$TMP/bad2.ini" 2> "$TMP/e"; is "$?" 1 "no input: exit 1"
ok "missing input line said" grep -q "no 'input =' line" "$TMP/e"
printf 'input = in/*\nwork = w\noutput = o\ntasks = 0\n' > "$TMP/bad3.ini"
"$WINNOW" run "$TMP/bad3.ini" 2> "$TMP/e"; is "$?" 1 "tasks = 0: exit 1"
printf 'input = in/*\nwork = w\noutput = o\n[filter]\noutput = x\n' > "$TMP/bad4.ini"
"$WINNOW" run "$TMP/bad4.ini" 2> "$TMP/e"; is "$?" 1 "a stage option the pipeline sets: exit 1"
ok "reserved option named" grep -q 'bad4.ini:5: \[filter\] output is set by the pipeline' "$TMP/e"
printf 'input = nothing/*\nwork = w\noutput = o\n' > "$TMP/bad5.ini"
"$WINNOW" run "$TMP/bad5.ini" 2> "$TMP/e"; is "$?" 1 "no input file: exit 1"
"$WINNOW" run 2> /dev/null; is "$?" 1 "no pipeline file: exit 1"

# --dry-run: the sbatch scripts, chained with afterok, nothing submitted.
cp "$J/cc_en_head-0174.jsonl.gz" "$TMP/in/b.jsonl.gz"
cp "$J/cc_en_head-0174.jsonl" "$TMP/in/c.jsonl"
pipeline_file "$TMP/d.ini" "$TMP/in" "$TMP/dwork" "$TMP/dout" 3
printf '[slurm]\nconcurrency = 2\npartition = batch\nexclusive\n' >> "$TMP/d.ini"
PATH=/nonexistent "$WINNOW" slurm --dry-run "$TMP/d.ini" > "$TMP/dry" 2> "$TMP/e"
is "$?" 0 "slurm --dry-run exits 0 without sbatch"
is "$(grep -c '^#!/bin/sh' "$TMP/dry")" 6 "six scripts, one per step"
is "$(grep -c '^#SBATCH --array=0-2%2$' "$TMP/dry")" 5 "per-rank steps (shards too) are arrays of 3 with %concurrency"
ok "the merge step is one task" grep -q '^#SBATCH --array=0%2$' "$TMP/dry"
ok "signatures wait for docs" grep -q 'dependency=afterok:<docs job id> .*signatures.sh' "$TMP/dry"
ok "shards wait for apply" grep -q 'dependency=afterok:<apply job id> .*shards.sh' "$TMP/dry"
ok "the merge waits for shards" grep -q 'dependency=afterok:<shards job id> .*merge.sh' "$TMP/dry"
ok "[slurm] settings become #SBATCH lines" grep -q '^#SBATCH --partition=batch$' "$TMP/dry"
ok "bare [slurm] keys too" grep -q '^#SBATCH --exclusive$' "$TMP/dry"
ok "array tasks run their rank" grep -q 'run --step docs --rank "$SLURM_ARRAY_TASK_ID"' "$TMP/dry"
ok "scripts written to WORK/slurm" test -s "$TMP/dwork/slurm/docs.sh"
"$WINNOW" slurm --dry-run --fail-fast "$TMP/d.ini" > "$TMP/dry2" 2> /dev/null
ok "--fail-fast reaches the array tasks" grep -q 'run --step docs .*--fail-fast' "$TMP/dry2"

why=$(pipeline_missing)
if [ -n "$why" ]; then
    echo "ok $((_n + 1)) # SKIP the rest: $why"; _n=$((_n + 1))
    done_testing; exit
fi
# An input file that fails (it vanished after the run started): reported,
# counted, the run goes on; the report names it.
pipeline_file "$TMP/f.ini" "$TMP/in" "$TMP/fwork" "$TMP/fout" 2
"$WINNOW" run -q --step docs --rank 1 "$TMP/f.ini"; is "$?" 0 "one task of a run on its own (--step docs --rank 1)"
# the started run relaunched with the other compress setting: refused, exit 1
sed 's/^tasks = 2/tasks = 2\ncompress = false/' "$TMP/f.ini" > "$TMP/fc.ini"
"$WINNOW" run -q "$TMP/fc.ini" 2> "$TMP/e"; is "$?" 1 "compress changed on a started run: exit 1"
ok "the refusal says the run started with compress = true" grep -q 'started with compress = true' "$TMP/e"
mv "$TMP/in/a.jsonl.gz" "$TMP/a.jsonl.gz"
"$WINNOW" run "$TMP/f.ini" 2> "$TMP/e"; is "$?" 0 "a failing input file does not stop the run"
ok "the failing file is named" grep -q 'input file failed: .*a.jsonl.gz' "$TMP/e"
# the run goes on with its plan's list (a, b, c), the sizes of the files still there counted
want=$(($(stat -c %s "$TMP/in/b.jsonl.gz") + $(stat -c %s "$TMP/in/c.jsonl")))
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input_bytes"])' "$TMP/fwork/report.json")" "$want" \
    "the report's input_bytes: the sizes of the plan's files still there"
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["failed_files"])' "$TMP/fwork/report.json")" 1 "the report counts one failed file"
ok "the readable summary names it" grep -q 'failed: .*a.jsonl.gz' "$TMP/fwork/report.txt"
ok "the other files made shards" test -s "$TMP/fout/manifest.json"

# --fail-fast stops at it, with no output.
pipeline_file "$TMP/ff.ini" "$TMP/in" "$TMP/ffwork" "$TMP/ffout" 2
"$WINNOW" run -q --step docs --rank 1 "$TMP/ff.ini" 2> /dev/null
mv "$TMP/a.jsonl.gz" "$TMP/in/a.jsonl.gz"
"$WINNOW" run -q "$TMP/ff.ini" 2> /dev/null   # the plan now lists a.jsonl.gz; take it away again
rm -rf "$TMP/ffwork" "$TMP/ffout"
"$WINNOW" run -q --step docs --rank 1 "$TMP/ff.ini" 2> /dev/null
mv "$TMP/in/a.jsonl.gz" "$TMP/a.jsonl.gz"
"$WINNOW" run -q --fail-fast "$TMP/ff.ini" 2> "$TMP/e"; is "$?" 2 "--fail-fast: exit 2 at the failing file"
ok "--fail-fast says it stopped" grep -q 'fail-fast' "$TMP/e"
ok "--fail-fast leaves no shards" test ! -e "$TMP/ffout/manifest.json"
mv "$TMP/a.jsonl.gz" "$TMP/in/a.jsonl.gz"

# A vocabulary that cannot be loaded (not cl100k_base's published file):
# the run loads it once before its first step, so it stops there (exit 1,
# the message once): no documents are made, no shards rank starts.
head -c 4000 "$SHARED/vocab/tiktoken/cl100k_base.tiktoken" > "$TMP/cut.tiktoken"
printf 'input = %s/*\nwork = %s\noutput = %s\ntasks = 2\n[tokenize]\nencoding = cl100k_base\nvocab = %s\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\nvocab = %s\neos = 100257\n' \
    "$TMP/in" "$TMP/vwork" "$TMP/vout" "$TMP/cut.tiktoken" "$TMP/cut.tiktoken" > "$TMP/v.ini"
"$WINNOW" run -q "$TMP/v.ini" 2> "$TMP/e"; is "$?" 1 "a vocabulary that cannot be loaded: exit 1"
is "$(grep -c "cut.tiktoken: sha256 [0-9a-f]* is not cl100k_base's published" "$TMP/e")" 1 "the tokenizer's message, once"
ok "before the docs step" test ! -e "$TMP/vwork/done/docs.0" -a ! -e "$TMP/vwork/done/docs.1"
is "$(ls "$TMP/vwork/logs" "$TMP/vwork/locks" 2>/dev/null | grep -c "^shards")" 0 "no shards rank started"
ok "no shards" test ! -e "$TMP/vout/manifest.json"

# Unwritable output directory: a clear message, exit 2, no manifest.
touch "$TMP/plainfile"
pipeline_file "$TMP/u.ini" "$TMP/in" "$TMP/uwork" "$TMP/plainfile/out" 1
"$WINNOW" run -q "$TMP/u.ini" 2> "$TMP/e"; is "$?" 2 "unwritable output: exit 2"
ok "the message names the output" grep -q 'plainfile/out' "$TMP/e"
ok "and says the run stopped" grep -q 'stopped' "$TMP/e"

# Full disk under the work directory (a tiny tmpfs; only where mounting works).
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2> /dev/null; then
    pipeline_file "$TMP/full.ini" "$TMP/in" "$TMP/full/work" "$TMP/fullout" 1
    sed -i 's/^tasks = 1/tasks = 1\ncompress = false/' "$TMP/full.ini"
    "$WINNOW" run -q "$TMP/full.ini" 2> "$TMP/e"; rc=$?
    is "$rc" 2 "full work disk: exit 2"
    ok "the message says the disk is full" grep -q 'No space left on device' "$TMP/e"
    is "$(ls "$TMP/full/work/docs" | grep -c 'jsonl$')" 0 "no per-file output that looks finished"
    ok "no input file was marked failed" test -z "$(ls "$TMP/full/work/failed" 2> /dev/null)"
    umount "$TMP/full"
else
    echo "ok $((_n + 1)) # SKIP cannot mount a tmpfs here to fill a disk"; _n=$((_n + 1))
fi
done_testing
