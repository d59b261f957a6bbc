#!/bin/sh
# stage_directories.sh - a directory given as input means every regular file
# under it, in name order, for every stage (core/inputs.c), not only ingest:
# filter, dedup, tokenize (the engine path and the block path), tokenize
# --decode and shard over a tree of real documents (nested directories, files
# made in another order than their names', gzip and zstd among plain JSONL, a
# FIFO, a symlink to a directory, an empty directory) give the bytes of the
# same command over the files named in that order, and --stats counts the FIFO
# as one input failed not_regular_file (warned once, exit 0, as ingest).
# An empty directory reads nothing (not stdin); two inputs with one base name
# are refused by dedup signatures (one output per input); a read error (stdin
# a directory) is reported once.
. tests/lib.sh
DCLM="$SHARED/jsonl/dclm/data/majority_data.jsonl"
CCNET="$SHARED/jsonl/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz"
VOCAB="$SHARED/vocab/tiktoken/cl100k_base.tiktoken"
require_file "$DCLM" "$CCNET" "$VOCAB"
command -v python3 >/dev/null || skip_all "python3 missing"

# the tree, made in another order than its names' (strcmp: 'Z' < 'a', and
# the directory a is walked before the file a.jsonl: name order per directory)
D="$TMP/data"
mkdir -p "$D/b" "$D/a/deep/x" "$D/empty" "$TMP/elsewhere"
sed -n 1,40p "$DCLM" > "$D/b/part-002.jsonl"
sed -n 41,80p "$DCLM" | zstd -q > "$D/a/part-010.jsonl.zst"
cp "$CCNET" "$D/a/part-001.jsonl.gz"
{ sed -n 81,100p "$DCLM"; sed -n 5,7p "$DCLM"; } > "$D/a/deep/x/part-5.jsonl" # three exact duplicates of b's
sed -n 101,130p "$DCLM" > "$D/c.jsonl"
sed -n 131,150p "$DCLM" > "$D/a.jsonl"
sed -n 151,160p "$DCLM" > "$D/Z.jsonl"
sed -n 161,170p "$DCLM" > "$TMP/elsewhere/not-read.jsonl"
ln -s "$TMP/elsewhere" "$D/link"
mkfifo "$D/pipe"
FILES="$D/Z.jsonl $D/a/deep/x/part-5.jsonl $D/a/part-001.jsonl.gz $D/a/part-010.jsonl.zst $D/a.jsonl $D/b/part-002.jsonl $D/c.jsonl"

# counts: "in out failed not_regular_file" of a --stats file (read with awk:
# many calls, and python3 can take a second to start)
counts() {
    awk '/^  "(in|out|failed)": / { gsub(/[^0-9]/, "", $2); v[substr($1, 2, length($1) - 3)] = $2 }
         /"failed_by_kind"/ { n = 0; if (match($0, /"not_regular_file": [0-9]+/)) n = substr($0, RSTART + 20, RLENGTH - 20) }
         END { print v["in"] " " v["out"] " " v["failed"] " " n + 0 }' "$1"
}
# the counts of the directory's run given the explicit run's: one more in, one more failed
plus_fifo() { set -- $(counts "$1"); echo "$(($1 + 1)) $2 $(($3 + 1)) 1"; }

# same NAME CMD...: CMD over the directory and over the files, each to its own
# output ($OUT is replaced by the output path, $STATS by the stats path)
same() {
    sn=$1; shift
    run_one() { # tag inputs... (after the command's words)
        tag=$1; shift
        cmd=$(echo "$CMDLINE" | sed "s|\$OUT|$TMP/$sn.$tag.out|g; s|\$STATS|$TMP/$sn.$tag.stats|g")
        eval "$cmd" "$@" 2> "$TMP/$sn.$tag.err"
    }
    CMDLINE="$*"
    run_one files $FILES; rc_files=$?
    run_one dir "$D"; rc_dir=$?
    echo "# $sn: in out failed not_regular_file: files $(counts "$TMP/$sn.files.stats"), directory $(counts "$TMP/$sn.dir.stats")"
    is "$rc_dir $rc_files" "0 0" "$sn: a directory with a FIFO exits 0, as its files do"
    ok "$sn: the output over the directory equals the output over its files in name order" \
        diff -r "$TMP/$sn.dir.out" "$TMP/$sn.files.out"
    is "$(counts "$TMP/$sn.dir.stats")" "$(plus_fifo "$TMP/$sn.files.stats")" \
        "$sn: --stats in/out/failed/not_regular_file: the FIFO one input failed, nothing else changed"
    is "$(grep -c 'pipe: not a regular file' "$TMP/$sn.dir.err")" 1 "$sn: the FIFO is named once"
    is "$(grep -c 'link: a symlink to a directory, not followed' "$TMP/$sn.dir.err")" 1 \
        "$sn: the symlink to a directory is named once, not followed"
    is "$(grep -c 'Is a directory' "$TMP/$sn.dir.err")" 0 "$sn: no read error on a directory"
}

W=$WINNOW
TOK="$W tokenize -q -j2 --encoding cl100k_base --vocab $VOCAB"
same ingest "$W ingest -q -j2 -o \$OUT --stats \$STATS"
same filter "$W filter -q -j2 -o \$OUT --stats \$STATS"
same dedup "$W dedup -q -j2 -o \$OUT --stats \$STATS"
is "$(stats_value "$TMP/dedup.dir.stats" dropped_by_reason.exact_dup)" 3 "dedup: the three copies in another subdirectory dropped"
same tokenize "$TOK --device cpu --format bin -o \$OUT --stats \$STATS"
same tokenize-blocks "WINNOW_TOKENIZE_BLOCKS=cpu $TOK --format bin -o \$OUT --stats \$STATS"
ok "tokenize: the block path's bytes over the directory equal the engine path's" \
    cmp "$TMP/tokenize-blocks.dir.out" "$TMP/tokenize.dir.out"
same tokenize-shards "$TOK --device cpu -o \$OUT/ --stats \$STATS"

# id streams: a directory of --format bin files (shard and tokenize --decode)
B="$TMP/bins"
mkdir -p "$B/2" "$B/1/inner" "$B/empty"
$TOK --device cpu --format bin "$D/c.jsonl" > "$B/2/c.bin"
$TOK --device cpu --format bin "$D/b/part-002.jsonl" | gzip > "$B/1/inner/b.bin.gz"
$TOK --device cpu --format bin "$D/a/part-001.jsonl.gz" | zstd -q > "$B/1/a.bin.zst"
mkfifo "$B/1/pipe"
ln -s "$TMP/elsewhere" "$B/link"
D=$B FILES="$B/1/a.bin.zst $B/1/inner/b.bin.gz $B/2/c.bin"
same shard "$W shard -q -j2 --vocab-size 100277 --eos 100257 -o \$OUT --stats \$STATS"
same decode "$TOK --decode -o \$OUT --stats \$STATS"

# an empty directory: nothing read (not stdin), a warning, exit 0
mkdir "$TMP/none"
for cmd in filter dedup "tokenize -j2 --encoding cl100k_base --vocab $VOCAB" \
           "shard --vocab-size 100277 -o $TMP/none-shards"; do
    cn=${cmd%% *}
    # shellcheck disable=SC2086
    head -n 3 "$DCLM" | $W $cmd -q --stats "$TMP/none.stats" "$TMP/none" > "$TMP/none.out" 2> "$TMP/none.err"
    rc=$?
    is "$rc $(wc -c < "$TMP/none.out" | tr -d ' ') $(stats_value "$TMP/none.stats" in)" "0 0 0" \
        "$cn: an empty directory reads nothing, not stdin (exit 0)"
    ok "$cn: an empty directory is named" grep -q "none: no file to read in this directory" "$TMP/none.err"
done

# one output per input (dedup apply): two files with one base name refused
mkdir -p "$TMP/twins/p" "$TMP/twins/q"
sed -n 1,5p "$DCLM" > "$TMP/twins/p/x.jsonl"
sed -n 6,9p "$DCLM" | gzip > "$TMP/twins/q/x.jsonl.gz"
$W dedup signatures -q --work "$TMP/work" "$TMP/twins" > /dev/null 2> "$TMP/twins.err"
is "$?" 1 "dedup signatures: two inputs with one base name in a directory are refused (exit 1)"
ok "dedup signatures: the refusal names both files" \
    grep -q "twins/p/x.jsonl and $TMP/twins/q/x.jsonl.gz would have the same output name x.jsonl" "$TMP/twins.err"
# a directory's files as staged inputs: the same documents out as streaming dedup
mkdir "$TMP/st"
$W dedup signatures -q --work "$TMP/st/w" "$TMP/data" 2> /dev/null && $W dedup buckets -q --work "$TMP/st/w" &&
    $W dedup apply -q --work "$TMP/st/w" -o "$TMP/st/out" --stats "$TMP/st/stats"
is "$?" 0 "dedup signatures/buckets/apply over the directory run"
is "$(ls "$TMP/st/out" | LC_ALL=C sort | tr "\n" " ")" "Z.jsonl a.jsonl c.jsonl part-001.jsonl part-002.jsonl part-010.jsonl part-5.jsonl " \
    "dedup apply: one output per file of the directory"
is "$(cat "$TMP/st/out/Z.jsonl" "$TMP/st/out/part-5.jsonl" "$TMP/st/out/part-001.jsonl" "$TMP/st/out/part-010.jsonl" \
      "$TMP/st/out/a.jsonl" "$TMP/st/out/part-002.jsonl" "$TMP/st/out/c.jsonl" | cksum)" "$(cksum < "$TMP/dedup.dir.out")" \
    "dedup apply: its outputs in name order are streaming dedup's output over the directory"

# winnow run: an input pattern that matches a directory reads every regular
# file under it (the FIFO and the symlink to a directory skipped, as above)
printf 'input = %s/data\nwork = %s/run-work\noutput = %s/run-out\ntasks = 2\n[ingest]\n' "$TMP" "$TMP" "$TMP" > "$TMP/dir.pipeline"
$W run -q "$TMP/dir.pipeline" > /dev/null 2> "$TMP/run.err"
is "$? $(awk '/^ingest / { print $2 }' "$TMP/run-work/report.txt")" "0 $(stats_value "$TMP/ingest.files.stats" in)" \
    "winnow run: input = DIR reads every document of its files (as ingest over them)"
ok "winnow run: the FIFO under it named" grep -q "pipe: not a regular file" "$TMP/run.err"

# a file in a directory that cannot be opened (a dangling symlink) is named
# and counted failed unreadable_input, as ingest counts it; the others are read
mkdir "$TMP/dangling"
sed -n 1,4p "$DCLM" > "$TMP/dangling/a.jsonl"
ln -s "$TMP/nowhere.jsonl" "$TMP/dangling/b.jsonl"
for cmd in ingest filter dedup "tokenize -j2 --encoding cl100k_base --vocab $VOCAB"; do
    cn=${cmd%% *}
    for blocks in "" cpu; do
        [ -n "$blocks" ] && [ "$cn" != tokenize ] && continue
        # shellcheck disable=SC2086
        WINNOW_TOKENIZE_BLOCKS=$blocks $W $cmd -q --stats "$TMP/dangling.stats" "$TMP/dangling" > /dev/null 2> "$TMP/dangling.err"
        is "$? $(stats_value "$TMP/dangling.stats" in) $(stats_value "$TMP/dangling.stats" failed_by_kind.unreadable_input) $(stats_value "$TMP/dangling.stats" balanced)" \
            "2 5 1 true" "$cn${blocks:+ (block path)}: a dangling symlink in a directory: exit 2, one failed unreadable_input, 4 read"
        ok "$cn${blocks:+ (block path)}: named" grep -q "dangling/b.jsonl: cannot open" "$TMP/dangling.err"
    done
done

# shard and tokenize --decode count it too
ln -s "$TMP/nowhere.bin" "$B/2/dangling.bin"
for cmd in "shard --vocab-size 100277 -o $TMP/dangling-shards" "tokenize --decode --encoding cl100k_base --vocab $VOCAB"; do
    cn=${cmd%% *}
    # shellcheck disable=SC2086
    $W $cmd -q --stats "$TMP/dangling.stats" "$B" > /dev/null 2> "$TMP/dangling.err"
    is "$? $(stats_value "$TMP/dangling.stats" failed_by_kind.unreadable_input) $(stats_value "$TMP/dangling.stats" balanced)" \
        "2 1 true" "$cn: a dangling symlink in a directory: exit 2, one failed unreadable_input"
done
rm "$B/2/dangling.bin"

# a read error is reported once (filter reads stdin straight into its blocks,
# shard through the decoded buffer)
"$W" filter -q < "$TMP/none" > /dev/null 2> "$TMP/eisdir.err"
is "$? $(grep -c 'read error: Is a directory' "$TMP/eisdir.err")" "2 1" "filter: stdin a directory: exit 2, the read error named once"
"$W" shard -q --vocab-size 100277 -o "$TMP/eisdir-shards" < "$TMP/none" 2> "$TMP/eisdir.err"
is "$? $(grep -c 'read error: Is a directory' "$TMP/eisdir.err")" "2 1" "shard: stdin a directory: exit 2, the read error named once"

done_testing
