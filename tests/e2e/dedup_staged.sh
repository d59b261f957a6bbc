#!/bin/sh
# dedup_staged.sh - the staged mode (signatures -> buckets -> apply, each run
# as several ranks) removes exactly what the streaming mode removes, on real
# documents split into several files of mixed compression; reruns skip work
# whose completion marker exists; ranks default from SLURM_ARRAY_TASK_* (here
# an array numbered from 1).
. tests/lib.sh
J=$SHARED/jsonl
CC=$J/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz
require_file "$CC"
mkdir -p "$TMP/in"
zcat "$CC" | split -l 200 -d - "$TMP/in/cc"
gzip "$TMP/in/cc01"
zstd -q --rm "$TMP/in/cc02"
cp "$J/dclm/data/majority_data.jsonl" "$TMP/in/majority.jsonl"
cp "$J/dclm/data/agreement_data.jsonl" "$TMP/in/agreement.jsonl"   # a subset of majority: exact dups across files
cp "$J/olmo/test_fixtures/c4-sample.01.json.gz" "$TMP/in/c4-01.json.gz"
FILES="$TMP/in/cc00 $TMP/in/cc01.gz $TMP/in/majority.jsonl $TMP/in/cc02.zst $TMP/in/agreement.jsonl $TMP/in/c4-01.json.gz $TMP/in/cc03"
OUTS="cc00 cc01 majority.jsonl cc02 agreement.jsonl c4-01.json cc03"

"$WINNOW" dedup -q $FILES -o "$TMP/stream.jsonl" --rejects "$TMP/stream.rej"
W=$TMP/work
for r in 0 1 2; do "$WINNOW" dedup signatures -q --work "$W" --partitions 5 --rank $r --world-size 3 $FILES || echo fail >> "$TMP/err"; done
for r in 1 2; do SLURM_ARRAY_TASK_ID=$r SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=2 "$WINNOW" dedup buckets -q --work "$W" || echo fail >> "$TMP/err"; done
for r in 0 1 2 3; do "$WINNOW" dedup apply -q --work "$W" -o "$TMP/out" --rejects "$TMP/rej" --stats "$TMP/st" --rank $r --world-size 4 || echo fail >> "$TMP/err"; done
ok "every rank of every stage exits 0" test ! -e "$TMP/err"
for f in $OUTS; do cat "$TMP/out/$f"; done > "$TMP/staged.jsonl"
for f in $OUTS; do cat "$TMP/rej/$f.rejects.jsonl"; done > "$TMP/staged.rej"
ok "staged output == streaming output, byte for byte" cmp "$TMP/staged.jsonl" "$TMP/stream.jsonl"
ok "staged rejects (reasons, dup_of) == streaming rejects" cmp "$TMP/staged.rej" "$TMP/stream.rej"
ok "agreement.jsonl (inside majority.jsonl) goes entirely as exact_dup" \
   test "$(wc -l < "$TMP/rej/agreement.jsonl.rejects.jsonl")" -eq "$(wc -l < "$TMP/in/agreement.jsonl")"
ok "there are near duplicates too" grep -q '"near_dup"' "$TMP/stream.rej"

# a document near two earlier ones through different bands names the
# earliest as dup_of, in both modes: c is the first half of C4 document a
# and the second half of document b (a in one file, b and c in another);
# one row per band makes each of c's 20 bands a 1-in-3 chance of meeting
# a's, and as likely b's
zcat "$J/olmo/test_fixtures/c4-sample.01.json.gz" | python3 -c "
import json, sys
docs = [json.loads(l)['text'].split() for l in sys.stdin]
a, b = docs[3], docs[4]
c = a[:len(a) // 2] + b[len(b) // 2:]
print(json.dumps({'id': 'a', 'text': ' '.join(a)}), file=open('$TMP/two1.jsonl', 'w'))
print(json.dumps({'id': 'b', 'text': ' '.join(b)}) + '\\n' + json.dumps({'id': 'c', 'text': ' '.join(c)}), file=open('$TMP/two2.jsonl', 'w'))"
P="--bands 20 --rows 1"
"$WINNOW" dedup -q $P "$TMP/two1.jsonl" "$TMP/two2.jsonl" -o /dev/null --rejects "$TMP/two.rej"
"$WINNOW" dedup signatures -q $P --work "$TMP/w3" --partitions 3 "$TMP/two1.jsonl" "$TMP/two2.jsonl"
"$WINNOW" dedup buckets -q --work "$TMP/w3"
"$WINNOW" dedup apply -q --work "$TMP/w3" -o "$TMP/two.out" --rejects "$TMP/two.rejdir"
dup_of() { python3 -c "import json, sys; print(' '.join(json.loads(l)['id'] + '>' + json.loads(l)['reject']['dup_of'] for l in open(sys.argv[1])))" "$1"; }
is "$(dup_of "$TMP/two.rej")" "c>a" "streaming: c, near a and b, names a (the earlier) as dup_of"
is "$(dup_of "$TMP/two.rejdir/two2.jsonl.rejects.jsonl")" "c>a" "staged: the same"

ls -l --time-style=+%s.%N "$TMP/out" > "$TMP/before"
"$WINNOW" dedup signatures --work "$W" --partitions 5 $FILES 2> "$TMP/rerun.log"
ok "a rerun of signatures skips done files" grep -q "already done, skipped" "$TMP/rerun.log"
"$WINNOW" dedup apply -q --work "$W" -o "$TMP/out" 2>/dev/null
ls -l --time-style=+%s.%N "$TMP/out" > "$TMP/after"
ok "a rerun of apply rewrites nothing" cmp "$TMP/before" "$TMP/after"
cp "$TMP/out/cc02" "$TMP/cc02.kept"
rm "$W/done/apply.f000003" "$TMP/out/cc02"
"$WINNOW" dedup apply -q --work "$W" -o "$TMP/out" 2>/dev/null
ok "a file whose marker is gone is redone, the same" cmp "$TMP/out/cc02" "$TMP/cc02.kept"
# a signature file whose footer magic ("WNSIG 1\n", the last 24 bytes' first 8) is
# damaged is refused by buckets, naming it, rather than read
cp -r "$W" "$TMP/w2"
rm -f "$TMP/w2/rm/"*   # each partition's removal list is its buckets completion marker
sig=$TMP/w2/sig/f000000
printf 'XXSIG 1\n' | dd of="$sig" bs=1 seek=$(($(stat -c %s "$sig") - 24)) conv=notrunc 2>/dev/null
"$WINNOW" dedup buckets -q --work "$TMP/w2" --rank 0 --world-size 1 2> "$TMP/badsig.err"
ok "a signature file with a damaged footer fails buckets" test $? -ne 0
ok "the message names the file as damaged" grep -q "f000000: damaged" "$TMP/badsig.err"
"$WINNOW" dedup signatures -q --work "$W" --partitions 5 --bands 10 $FILES 2>/dev/null
is "$?" 1 "a work directory of other parameters is refused"
"$WINNOW" dedup buckets -q --work "$TMP/nowhere" 2>/dev/null
is "$?" 1 "buckets without a plan: usage error"

if [ "${FULL:-0}" = 1 ]; then   # make check-full: every JSONL file of the shared data, 4 ranks
    mkdir -p "$TMP/full"
    i=0
    for f in $(find "$J" -type f -name '*.json*' | sort); do
        i=$((i + 1)); cp "$f" "$TMP/full/$(printf %03d $i)-$(basename "$f")"
    done
    ALL=$(ls "$TMP"/full/* | sort)
    "$WINNOW" dedup -q $ALL -o "$TMP/fs.jsonl" --rejects "$TMP/fs.rej" 2>/dev/null
    for r in 0 1 2 3; do "$WINNOW" dedup signatures -q --work "$TMP/fw" --rank $r --world-size 4 $ALL 2>/dev/null; done
    for r in 0 1 2 3; do "$WINNOW" dedup buckets -q --work "$TMP/fw" --rank $r --world-size 4; done
    for r in 0 1 2 3; do "$WINNOW" dedup apply -q --work "$TMP/fw" -o "$TMP/fo" --rejects "$TMP/fr" --rank $r --world-size 4 2>/dev/null; done
    for f in $ALL; do b=$(basename "$f" | sed 's/\.gz$//; s/\.zst$//'); cat "$TMP/fo/$b"; done > "$TMP/fstaged.jsonl"
    for f in $ALL; do b=$(basename "$f" | sed 's/\.gz$//; s/\.zst$//'); cat "$TMP/fr/$b.rejects.jsonl"; done > "$TMP/fstaged.rej"
    ok "all shared JSONL ($i files): staged output == streaming" cmp "$TMP/fstaged.jsonl" "$TMP/fs.jsonl"
    ok "all shared JSONL ($i files): staged rejects == streaming" cmp "$TMP/fstaged.rej" "$TMP/fs.rej"
fi
done_testing
