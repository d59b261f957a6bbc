#!/bin/sh
# Output never depends on -j: ingest with 1, 2 and 16 threads gives the same
# documents, rejects, counts and messages (in any order) on many small files (every file of
# the WARC collection, damaged ones included, and a directory of HTML files),
# on one large WARC gzip'd record by record (its members inflated on several
# threads, built here from real records), the same WARC damaged, and the same
# WARC gzip'd as a whole (one member: read serially). filter and dedup given
# several files, one of them JSONL gzip'd in many members, likewise.
. tests/lib.sh
W=$SHARED/warc
A=$SHARED/extraction/articles
# stats without the timing fields, which differ from run to run
counts() { grep -v '"seconds"\|"index_bytes"\|"docs_per_second"\|"mb_per_second"\|"started"\|"cpu' "$1"; }

# ingest_same NAME ARGS...: -j1, -j2 and -j16 agree on documents, rejects, stats, messages
ingest_same() {
    what=$1; shift
    for j in 1 2 16; do
        "$WINNOW" ingest -q -j$j --stats "$TMP/s$j.json" --rejects "$TMP/r$j.jsonl" "$@" >"$TMP/d$j.jsonl" 2>"$TMP/e$j.txt"
        echo $? >"$TMP/rc$j"
        counts "$TMP/s$j.json" >"$TMP/c$j.json"
        sort "$TMP/e$j.txt" >"$TMP/e$j.s"
    done
    for j in 2 16; do
        ok "$what: -j$j documents = -j1" cmp "$TMP/d1.jsonl" "$TMP/d$j.jsonl"
        ok "$what: -j$j rejects and counts = -j1" sh -c "cmp '$TMP/r1.jsonl' '$TMP/r$j.jsonl' && cmp '$TMP/c1.json' '$TMP/c$j.json'"
        # workers report bad JSON lines as they meet them: the same messages, in any order
        ok "$what: -j$j messages and exit status = -j1" sh -c "sort '$TMP/e1.txt' | cmp - '$TMP/e$j.s' && cmp '$TMP/rc1' '$TMP/rc$j'"
    done
}

[ -d "$W" ] && [ -d "$A/html" ] || { ok "test data at $W and $A/html" false; done_testing; exit; }

# many small files: every file of the WARC collection (malformed ones too) and 121 HTML files
find "$W" -type f | sort >"$TMP/files"
ingest_same "many small files" $(cat "$TMP/files") "$A/html"
is "$(wc -l <"$TMP/d1.jsonl" | tr -d ' ')" "$(grep -o '"out": [0-9]*' "$TMP/s1.json" | head -1 | sed 's/.*: //')" \
    "many small files: one line per document counted"
ok "many small files: damage reported" test -s "$TMP/e1.txt"

# one large WARC, gzip'd record by record: real records (Common Crawl 2020 and 2024,
# ClueWeb09, iana.org, wget) 4 times over, about 5 MB compressed (five inflate stretches)
copy="$W/pywb/sample_archive/warcs/iana.warc.gz $W/resiliparse/tests/data/clueweb-quirk.warc.gz"
copy="$copy $W/resiliparse/tests/data/warcfile.warc.gz $W/whirlwind-python/whirlwind.warc.gz"
for i in 1 2 3 4; do cat $copy; done >"$TMP/big.warc.gz"
one_html=0
for f in $copy; do
    "$WINNOW" ingest -q -j1 --stats "$TMP/one.json" "$f" >/dev/null
    one_html=$((one_html + $(grep -o '"out": [0-9]*' "$TMP/one.json" | head -1 | sed 's/.*: //')))
done
ingest_same "per-record gzip WARC" "$TMP/big.warc.gz"
is "$(wc -l <"$TMP/d1.jsonl" | tr -d ' ')" $((4 * one_html)) "per-record gzip WARC: 4 times the documents of its parts"
cp "$TMP/d1.jsonl" "$TMP/big.jsonl"

# the same, damaged in two places: the members around the damage still read, the same way for any -j
cp "$TMP/big.warc.gz" "$TMP/bad.warc.gz"
size=$(wc -c <"$TMP/bad.warc.gz")
printf 'XXXXXXXXXXXXXXXX' | dd of="$TMP/bad.warc.gz" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
printf 'XXXXXXXXXXXXXXXX' | dd of="$TMP/bad.warc.gz" bs=1 seek=$((size * 2 / 3)) conv=notrunc 2>/dev/null
ingest_same "damaged per-record gzip WARC" "$TMP/bad.warc.gz"
ok "damaged per-record gzip WARC: damage reported" grep -q 'gzip\|incorrect\|invalid' "$TMP/e1.txt"

# the same WARC gzip'd as a whole: one member, read serially; the same documents
gzip -dc "$TMP/big.warc.gz" | gzip -c >"$TMP/whole.warc.gz"
ingest_same "whole-file gzip WARC" "$TMP/whole.warc.gz"
sed 's|whole\.warc\.gz|big.warc.gz|g' "$TMP/d1.jsonl" >"$TMP/whole-as-big.jsonl"
ok "whole-file gzip WARC: the documents of the per-record one" cmp "$TMP/big.jsonl" "$TMP/whole-as-big.jsonl"

# several large files at once (each split by its own reader, members inflated on the threads):
# per-record gzip, damaged, whole-file gzip, per-record again; the output is each file's own, in order
cp "$TMP/big.warc.gz" "$TMP/big2.warc.gz"
several="$TMP/big.warc.gz $TMP/bad.warc.gz $TMP/whole.warc.gz $TMP/big2.warc.gz"
for f in $several; do "$WINNOW" ingest -q -j1 "$f" 2>/dev/null; done >"$TMP/alone.jsonl"
ingest_same "several large WARCs at once" $several
ok "several large WARCs at once: each file's documents, in order" cmp "$TMP/alone.jsonl" "$TMP/d1.jsonl"
ok "several large WARCs at once: -j16 = each file alone" cmp "$TMP/alone.jsonl" "$TMP/d16.jsonl"

# files of more batches than a reader may hold ahead of the output (256): 70,000 short JSON lines each
for k in 1 2 3; do
    awk -v k=$k 'BEGIN { for (i = 1; i <= 70000; i++) printf "{\"id\":\"f%d-%d\",\"text\":\"word %d\"}\n", k, i, i }' >"$TMP/many$k.jsonl"
done
cat "$TMP/many1.jsonl" "$TMP/many2.jsonl" "$TMP/many3.jsonl" >"$TMP/many-all.jsonl"
ingest_same "files of many batches" "$TMP/many1.jsonl" "$TMP/many2.jsonl" "$TMP/many3.jsonl"
ok "files of many batches: the lines in input order" cmp "$TMP/many-all.jsonl" "$TMP/d16.jsonl"

# stdin between files: read in its turn, the output in argument order for any -j
for j in 1 2 16; do
    "$WINNOW" ingest -q -j$j "$TMP/many1.jsonl" - "$TMP/many3.jsonl" <"$TMP/many2.jsonl" >"$TMP/stdin$j.jsonl"
    ok "stdin between files, -j$j: in argument order" cmp "$TMP/many-all.jsonl" "$TMP/stdin$j.jsonl"
done

# filter and dedup given several files: plain JSONL, and 12 times the same gzip'd in members of 20 lines (> 2 MB)
cp "$TMP/big.jsonl" "$TMP/a.jsonl"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do cat "$TMP/big.jsonl"; done | split -a 4 -l 20 - "$TMP/part."
for p in "$TMP"/part.*; do gzip -c "$p"; done >"$TMP/b.jsonl.gz"
ok "members JSONL is over 2 MB" test "$(wc -c <"$TMP/b.jsonl.gz")" -gt 2097152
for stage in filter dedup; do
    for j in 1 2 16; do
        "$WINNOW" $stage -q -j$j --stats "$TMP/s$j.json" "$TMP/a.jsonl" "$TMP/b.jsonl.gz" "$TMP/a.jsonl" >"$TMP/$stage$j.jsonl"
        counts "$TMP/s$j.json" >"$TMP/c$j.json"
    done
    ok "$stage: several files give documents" test -s "$TMP/${stage}1.jsonl"
    for j in 2 16; do
        ok "$stage: several files, -j$j = -j1" sh -c "cmp '$TMP/${stage}1.jsonl' '$TMP/$stage$j.jsonl' && cmp '$TMP/c1.json' '$TMP/c$j.json'"
    done
done
done_testing
