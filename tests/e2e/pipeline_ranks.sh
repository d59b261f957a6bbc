#!/bin/sh
# pipeline_ranks - the shards step in `tasks` ranks and the merge after it:
# tasks = 1, 2 and 4 give one shard directory each, read back (cat, the
# Python reader, a Megatron export) as the same documents with the same ids;
# tasks = 1 is byte-identical to `winnow tokenize --format bin | winnow shard`
# over the final documents, which are compressed as without [dedup]; two copies of each rank at once, a rank run again
# over its own part, over a stale part of other settings, and a merge run
# again all leave the same output; [slurm.STEP] lines reach only that step's
# script (--dry-run).
. tests/lib.sh
. tests/e2e/pipeline_lib.inc
pipeline_need_stages
V=$SHARED/vocab/tiktoken/cl100k_base.tiktoken

pipeline_inputs "$TMP/in"
for n in 1 2 4; do
    pipeline_file "$TMP/p$n.ini" "$TMP/in" "$TMP/w$n" "$TMP/o$n" $n
    printf 'shard-tokens = 10k\n' >> "$TMP/p$n.ini"
    "$WINNOW" run -q "$TMP/p$n.ini"
    is "$?" 0 "tasks = $n: the run exits 0"
    is "$(ls "$TMP/w$n/done" | grep -c '^shards\.')" "$n" "tasks = $n: the shards step ran as $n ranks ($n completion markers)"
    ok "tasks = $n: the merge step is marked" test -e "$TMP/w$n/done/merge.0"
    ok "tasks = $n: shards verify" "$WINNOW" shards verify "$TMP/o$n"
    ok "tasks = $n: no parts left in the output" test ! -e "$TMP/o$n/parts"
    "$WINNOW" shards cat --format ids "$TMP/o$n" > "$TMP/ids$n"
done
# tasks = 5 over the 12 inputs (not a multiple): rank r takes files r, r + 5,
# r + 10, so ranks 0 and 1 take three files and ranks 2 to 4 two; a second
# input line matching files of the first adds none (the union, no repeats).
# The docs step's files are those of tasks = 1, byte for byte.
pipeline_file "$TMP/p5.ini" "$TMP/in" "$TMP/w5" "$TMP/o5" 5
sed -i "/^input = /a input = $TMP/in/c4-*" "$TMP/p5.ini"
for r in 0 1 2 3 4; do "$WINNOW" run -q --step docs --rank $r "$TMP/p5.ini" || echo "rank $r failed"; done
is "$(sed -n 's/^files \([0-9]*\) .*/\1/p' "$TMP/w5/done/docs".* | tr '\n' ' ')" "3 3 2 2 2 " \
    "tasks = 5: the docs ranks take 3, 3, 2, 2 and 2 of the 12 files"
is "$(sed -n 's/^files //p' "$TMP/w5/plan")" 12 "the plan lists each of the 12 files once"
is "$(ls "$TMP/w5/docs" | tr '\n' ' ')" "$(ls "$TMP/w1/docs" | tr '\n' ' ')" "tasks = 5 wrote the docs files of tasks = 1"
same=0
for f in "$TMP/w1/docs"/*; do cmp -s "$f" "$TMP/w5/docs/$(basename "$f")" && same=$((same + 1)); done
is "$same" "$(ls "$TMP/w1/docs" | wc -l)" "byte for byte"
docs=$(wc -l < "$TMP/ids1")
ok "the output has documents ($docs)" test "$docs" -gt 20
ok "tasks = 2: the same documents with the same ids as tasks = 1" cmp "$TMP/ids1" "$TMP/ids2"
ok "tasks = 4: the same documents with the same ids as tasks = 1" cmp "$TMP/ids1" "$TMP/ids4"
nonempty=0
for r in 0 1 2 3; do
    d=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["documents"])' "$TMP/w4/shards/0000$r.json")
    [ "$d" -gt 0 ] && nonempty=$((nonempty + 1))
done
is "$nonempty" 4 "tasks = 4: every rank tokenized a share of the documents"
is "$(json_number "$TMP/w4/report.json" tokenize out)" "$docs" "the report sums the ranks' tokenize counts"
is "$(json_number "$TMP/w4/report.json" shard out)" "$docs" "and their shard counts"
ok "tasks = 4 wrote more shards than tasks = 1 (each rank starts its own)" \
    test "$(ls "$TMP/o4" | grep -c 'tok.zst$')" -gt "$(ls "$TMP/o1" | grep -c 'tok.zst$')"

# tasks = 1: the shards of tokenize | shard over the final documents (the
# run's writer records the tokenizer's bos, which [shard] does not name, as
# `winnow tokenize -o DIR/` does: --bos 100257 here)
"$WINNOW" tokenize -q --format bin --encoding cl100k_base --vocab "$V" --no-eos "$TMP/w1/dedup-out"/*.jsonl.zst |
"$WINNOW" shard -q -o "$TMP/ref" --vocab-size 100277 --tokenizer cl100k_base --vocab "$V" --eos 100257 --bos 100257 \
    --shard-tokens 10k
diff -r "$TMP/ref" "$TMP/o1" > /dev/null 2>&1
is "$?" 0 "tasks = 1 is byte-identical to tokenize --format bin | shard"

# The final documents (WORK/dedup-out) are compressed as the docs step writes
# final documents without [dedup] (the shards step splits them over its ranks
# by their compressed bytes): a file whose documents dedup left as they were
# is byte-identical to its documents from a run without [dedup].
grep -v '^\[dedup\]$' "$TMP/p1.ini" | sed "s|$TMP/w1|$TMP/wn|; s|$TMP/o1|$TMP/on|" > "$TMP/pn.ini"
"$WINNOW" run -q "$TMP/pn.ini"
is "$?" 0 "the same run without [dedup] exits 0"
untouched=0 same=0
for f in "$TMP/w1/dedup-out"/*.jsonl.zst; do
    g=$TMP/wn/docs/$(basename "$f")
    zstd -q -dc "$f" > "$TMP/kept.jsonl" && zstd -q -dc "$g" > "$TMP/all.jsonl" || continue
    cmp -s "$TMP/kept.jsonl" "$TMP/all.jsonl" || continue
    untouched=$((untouched + 1))
    cmp -s "$f" "$g" && same=$((same + 1))
done
ok "dedup left some files' documents as they were ($untouched)" test "$untouched" -ge 2
is "$same" "$untouched" "each of them is byte-identical to the docs step's file without [dedup]"

# Trainers' readers: a Megatron export, and the Python reader.
"$WINNOW" shards export --format megatron "$TMP/o1" "$TMP/m1" && "$WINNOW" shards export --format megatron "$TMP/o4" "$TMP/m4"
ok "the Megatron exports of tasks = 1 and 4 are byte-identical (.bin)" cmp "$TMP/m1.bin" "$TMP/m4.bin"
ok "and their .idx" cmp "$TMP/m1.idx" "$TMP/m4.idx"
if /usr/bin/python3 -c 'import numpy, zstandard' 2> /dev/null; then
    cat > "$TMP/read.py" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from winnow_shards import ShardReader
with ShardReader(sys.argv[2]) as r:
    for d in r.documents():
        print(" ".join(str(int(t)) for t in d))
EOF
    /usr/bin/python3 "$TMP/read.py" shards/python "$TMP/o4" > "$TMP/py4"
    ok "the Python reader reads tasks = 4 as cat reads tasks = 1" cmp "$TMP/ids1" "$TMP/py4"
else
    echo "ok $((_n+1)) # SKIP no /usr/bin/python3 with numpy and zstandard"; _n=$((_n+1))
fi

# Two copies of every rank at once (a Slurm task run twice): one wins, the
# other finds the work done; the merge then gives the same output.
cp -r "$TMP/o4" "$TMP/o4.first"
rm -r "$TMP/o4"; rm "$TMP/w4/done/shards".* "$TMP/w4/done/merge.0"
pids=
for r in 0 1 2 3; do
    "$WINNOW" run -q --step shards --rank $r "$TMP/p4.ini" & pids="$pids $!"
    "$WINNOW" run -q --step shards --rank $r "$TMP/p4.ini" & pids="$pids $!"
done
fails=0
for p in $pids; do wait "$p" || fails=$((fails + 1)); done
is "$fails" 0 "eight rank processes, two per rank, all exit 0"
is "$(ls "$TMP/o4/parts")" "$(printf '00000\n00001\n00002\n00003')" "one part per rank, no temporary left"
"$WINNOW" run -q --step merge --rank 0 "$TMP/p4.ini"
is "$?" 0 "the merge exits 0"
diff -r "$TMP/o4.first" "$TMP/o4" > /dev/null 2>&1
is "$?" 0 "the output is byte-identical to the first run's"

# A rank run again after the merge: its part is merged again, same output.
rm "$TMP/w4/done/shards.2"
"$WINNOW" run -q "$TMP/p4.ini"
is "$?" 0 "a run after removing shards.2 exits 0"
ok "it merged again" test -e "$TMP/w4/done/merge.0"
diff -r "$TMP/o4.first" "$TMP/o4" > /dev/null 2>&1
is "$?" 0 "same output"
# A merge run again: nothing left to move, the same manifest.
rm "$TMP/w4/done/merge.0"
"$WINNOW" run -q --step merge --rank 0 "$TMP/p4.ini"
is "$?" 0 "the merge runs again"
diff -r "$TMP/o4.first" "$TMP/o4" > /dev/null 2>&1
is "$?" 0 "same output"
# A merge that fails (a rank's part manifest in WORK/shards is gone) leaves
# no completion marker: a relaunch must merge again, not skip the merge.
rm "$TMP/w4/done/merge.0"
mv "$TMP/w4/shards/00002.json" "$TMP/kept2.json"
"$WINNOW" run -q --step merge --rank 0 "$TMP/p4.ini" 2> "$TMP/merge.err"
is "$?" 2 "a merge missing rank 2's part manifest exits 2"
ok "it names the file" grep -q "w4/shards/00002.json" "$TMP/merge.err"
ok "and leaves no merge marker" test ! -e "$TMP/w4/done/merge.0"
mv "$TMP/kept2.json" "$TMP/w4/shards/00002.json"

# A rank whose part name is taken: by its own finished part (a copy killed
# before its marker: dropped, the work is done), and by a stale part of
# another run (replaced).
rm "$TMP/w4/done/shards.1" "$TMP/w4/done/shards.3"
"$WINNOW" run -q --step shards --rank 1 "$TMP/p4.ini"
inode=$(stat -c %i "$TMP/o4/parts/00001/manifest.json")
rm "$TMP/w4/done/shards.1"
mkdir -p "$TMP/o4/parts/00003" && cp "$TMP/o4/parts/00001/"* "$TMP/o4/parts/00003/"
"$WINNOW" run -q --step shards --rank 1 "$TMP/p4.ini"
is "$?" 0 "a rank whose finished part is there already exits 0"
is "$(stat -c %i "$TMP/o4/parts/00001/manifest.json")" "$inode" "and keeps that part"
is "$(ls "$TMP/o4/parts" | tr '\n' ' ')" "00001 00003 " "no temporary left"
"$WINNOW" run -q "$TMP/p4.ini"
is "$?" 0 "the run goes on over a stale part of another run"
diff -r "$TMP/o4.first" "$TMP/o4" > /dev/null 2>&1
is "$?" 0 "same output (the stale part 3 was replaced)"

# [slurm.STEP]: lines of one step's script only, replacing [slurm]'s of the same key.
printf '[slurm]\npartition = batch\ntime = 10\n[slurm.signatures]\ngres = gpu:1\n[slurm.shards]\ngres = gpu:1\ntime = 30\nconcurrency = 2\n' >> "$TMP/p2.ini"
rm -r "$TMP/w2/done"
PATH=/nonexistent "$WINNOW" slurm --dry-run "$TMP/p2.ini" > "$TMP/dry" 2> "$TMP/e"
is "$?" 0 "slurm --dry-run exits 0"
for s in docs signatures buckets apply shards merge; do
    n=$(grep -c '^#SBATCH --gres=gpu:1$' "$TMP/w2/slurm/$s.sh")
    want=0; [ $s = signatures ] || [ $s = shards ] && want=1
    is "$n" "$want" "gres = gpu:1 in the $s script: $want"
    ok "partition = batch in the $s script" grep -q '^#SBATCH --partition=batch$' "$TMP/w2/slurm/$s.sh"
done
is "$(grep -c '^#SBATCH --time=' "$TMP/w2/slurm/shards.sh")" 1 "one time line for shards"
ok "[slurm.shards] time replaces [slurm] time there" grep -q '^#SBATCH --time=30$' "$TMP/w2/slurm/shards.sh"
ok "and not elsewhere" grep -q '^#SBATCH --time=10$' "$TMP/w2/slurm/apply.sh"
ok "shards: an array of 2 ranks with its own concurrency" grep -q '^#SBATCH --array=0-1%2$' "$TMP/w2/slurm/shards.sh"
ok "merge: one task after shards" grep -q 'dependency=afterok:<shards job id> .*merge.sh' "$TMP/dry"
printf '[slurm.tokenize]\ngres = gpu:1\n' >> "$TMP/p2.ini"
"$WINNOW" slurm --dry-run "$TMP/p2.ini" > /dev/null 2> "$TMP/e"
is "$?" 1 "an unknown [slurm.STEP] is refused"
ok "naming the file and line" grep -q "p2.ini:[0-9]*: unknown section \[slurm.tokenize\]" "$TMP/e"
done_testing
