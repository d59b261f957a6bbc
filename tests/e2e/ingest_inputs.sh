#!/bin/sh
# winnow ingest on every kind of input besides WARC: a directory of gzip HTML
# files, tar/zip archives of it, JSON Lines (passed through, ids added),
# plain text, stdin; rejects; thread-count independence; CLI errors.
. tests/lib.sh
A=$SHARED/extraction/articles
require_file "$A/html"
n_articles=$(ls "$A/html" | wc -l | tr -d ' ')

# a directory of gzip-compressed HTML files: one document each, in name order
"$WINNOW" ingest -q -j2 --stats "$TMP/s.json" "$A/html" >"$TMP/dir.jsonl"
is "$(wc -l <"$TMP/dir.jsonl" | tr -d ' ')" "$n_articles" "articles dir: one document per file"
is "$(stats_value "$TMP/s.json" balanced)" true "articles dir: balanced"
python3 - "$TMP/dir.jsonl" "$A/html" >"$TMP/order" <<'PY'
import json, os, sys
docs = [json.loads(l) for l in open(sys.argv[1])]
want = [os.path.join(sys.argv[2], n) for n in sorted(os.listdir(sys.argv[2]))]
print([d["source"] for d in docs] == want and [d["id"] for d in docs] == want)
PY
is "$(cat "$TMP/order")" True "articles dir: id and source are the file paths, in name order"

# the right text for the right file: ground-truth words found in the full text
"$WINNOW" ingest -q -j2 --extract=full "$A/html" >"$TMP/full.jsonl"
python3 - "$TMP/full.jsonl" "$A/ground-truth.json" >"$TMP/recall" <<'PY'
import json, os, re, sys
truth = json.load(open(sys.argv[2]))
recalls = []
for l in open(sys.argv[1]):
    d = json.loads(l)
    key = os.path.basename(d["source"]).split(".")[0]
    want = set(re.findall(r"\w+", truth[key]["articleBody"].lower()))
    got = set(re.findall(r"\w+", d["text"].lower()))
    recalls.append(len(want & got) / max(1, len(want)))
print(min(recalls) > 0.5 and sum(recalls) / len(recalls) > 0.95)
PY
is "$(cat "$TMP/recall")" True "articles: full text holds each page's ground-truth words (mean recall > 0.95)"

# thread count does not change the output
"$WINNOW" ingest -q -j1 "$A/html" >"$TMP/dir1.jsonl"
ok "articles: -j1 and -j2 give identical output" cmp "$TMP/dir.jsonl" "$TMP/dir1.jsonl"

# archives made here: tar, tar.gz, zip; members are gzip files, read by content
texts() { python3 -c 'import json,sys; [print(json.dumps(json.loads(l)["text"])) for l in open(sys.argv[1])]' "$1"; }
texts "$TMP/dir.jsonl" >"$TMP/dir.txt"
(cd "$A" && tar cf "$TMP/a.tar" html && tar czf "$TMP/a.tar.gz" html && zip -qr "$TMP/a.zip" html)
for arc in a.tar a.tar.gz a.zip; do
    "$WINNOW" ingest -q -j2 --stats "$TMP/s.json" "$TMP/$arc" >"$TMP/arc.jsonl"
    is "$(stats_value "$TMP/s.json" out)" "$n_articles" "$arc: one document per member"
    texts "$TMP/arc.jsonl" | sort >"$TMP/arc.txt"
    sort "$TMP/dir.txt" | cmp -s - "$TMP/arc.txt"
    ok "$arc: same texts as the directory" test $? -eq 0
done
first=$(head -1 "$TMP/arc.jsonl" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["source"])')
case "$first" in "$TMP/a.zip/html/"*.html.gz) r=0 ;; *) r=1 ;; esac
ok "archive member source is archive/member ($first)" test $r -eq 0

# a tar of zstd-compressed pages: members are found compressed by their magic
# bytes (28 B5 2F FD), read as HTML, and give the texts of the plain pages
mkdir -p "$TMP/zst/html"
for p in $(ls "$A/html" | head -5); do gzip -dc "$A/html/$p" | zstd -q -c >"$TMP/zst/html/${p%.gz}.zst"; done
(cd "$TMP/zst" && tar cf "$TMP/zst.tar" html)
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/zst.tar" >"$TMP/zst.jsonl"
is "$(stats_value "$TMP/s.json" out)" 5 "tar of zstd members: one document per member"
texts "$TMP/zst.jsonl" | sort >"$TMP/zst.txt"
head -5 "$TMP/dir.txt" | sort >"$TMP/dir5.txt"
ok "tar of zstd members: the texts of the same pages from the directory" cmp -s "$TMP/zst.txt" "$TMP/dir5.txt"

# JSONL: passed through byte for byte when it has ids (a plain file named .zst)
J=$SHARED/jsonl/dolma/tests/data/formats/zst/CC-MAIN-20190717121559-20190717143559-00140.jsonl.zst
"$WINNOW" ingest -q -j2 --stats "$TMP/s.json" "$J" >"$TMP/j.jsonl"
ok "dolma JSONL with ids: passed through byte for byte" cmp "$J" "$TMP/j.jsonl"
is "$(stats_value "$TMP/s.json" out)" 697 "dolma JSONL: 697 documents"
# no ids: generated from source and line number
C4=$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz
"$WINNOW" ingest -q -j2 "$C4" >"$TMP/c4.jsonl"
python3 - "$TMP/c4.jsonl" "$C4" >"$TMP/c4ok" <<'PY'
import gzip, json, sys
src = [json.loads(l) for l in gzip.open(sys.argv[2], "rt")]
out = [json.loads(l) for l in open(sys.argv[1])]
ok = len(out) == len(src) == 1000
ok = ok and all(o["id"] == "%s#%d" % (sys.argv[2], i + 1) for i, o in enumerate(out))
ok = ok and all({k: v for k, v in o.items() if k != "id"} == s for o, s in zip(out, src))
print(ok)
PY
is "$(cat "$TMP/c4ok")" True "c4 JSONL without ids: 1000 documents, id = source#line, other fields kept"
printf '{"id":7,"text":"a"}\n{"text":"b"}\nnot json\n{"no":"text"}\n\n' >"$TMP/mixed.jsonl"
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/mixed.jsonl" >"$TMP/m.jsonl" 2>"$TMP/err"
is "$(head -1 "$TMP/m.jsonl")" '{"id":"7","text":"a"}' "numeric id becomes a string"
is "$(sed -n 2p "$TMP/m.jsonl")" "{\"id\":\"$TMP/mixed.jsonl#2\",\"text\":\"b\"}" "missing id generated"
is "$(stats_value "$TMP/s.json" failed_by_kind.bad_json)/$(stats_value "$TMP/s.json" failed_by_kind.no_text)" "1/1" "bad JSON and text-less lines counted"
is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" out) $(stats_value "$TMP/s.json" dropped) $(stats_value "$TMP/s.json" failed)" "4 2 0 2" \
   "bad JSON and text-less lines are failed, not dropped: 4 in, 2 out, 0 dropped, 2 failed"
ok "bad JSON reported with file and line" grep -q "mixed.jsonl: line 3: " "$TMP/err"

# JSONL as an archive member (read from memory): CRLF line ends, lines of only
# blanks skipped but counted as lines (ids name the line), a last line without
# a newline still read
mkdir -p "$TMP/crlf/m"
printf '{"id":"a","text":"one"}\r\n  \r\n{"text":"two"}\r\n\r\n\t\n{"id":"c","text":"three"}' >"$TMP/crlf/m/docs.jsonl"
(cd "$TMP/crlf" && tar cf "$TMP/crlf.tar" m)
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/crlf.tar" >"$TMP/crlf.jsonl"
printf '{"id":"a","text":"one"}\n{"id":"%s/crlf.tar/m/docs.jsonl#3","text":"two"}\n{"id":"c","text":"three"}\n' "$TMP" >"$TMP/crlf.want"
ok "CRLF JSONL member: 3 documents, CRs gone, blank lines skipped, ids by line, last line without newline kept" \
   cmp "$TMP/crlf.jsonl" "$TMP/crlf.want"
is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" out) $(stats_value "$TMP/s.json" failed)" "3 3 0" "CRLF JSONL member: 3 in, 3 out, 0 failed"

# a binary file beside a text file: counted in and dropped, with its reject line
mkdir -p "$TMP/bin"
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000>\000\001\000\000\000' >"$TMP/bin/x.bin"
cp "$SHARED/warc/resiliparse/LICENSE" "$TMP/bin/y.txt"
"$WINNOW" ingest -q --stats "$TMP/s.json" --rejects "$TMP/binrej.jsonl" "$TMP/bin" >"$TMP/bin.jsonl"
is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" out) $(stats_value "$TMP/s.json" dropped_by_reason.binary_file) $(stats_value "$TMP/s.json" balanced)" \
   "2 1 1 true" "binary file: 2 in, 1 out, 1 dropped as binary_file, balanced"
is "$(cat "$TMP/binrej.jsonl")" "{\"reject\":{\"stage\":\"ingest\",\"reason\":\"binary_file\"},\"id\":\"$TMP/bin/x.bin\",\"source\":\"$TMP/bin/x.bin\"}" \
   "binary file: its reject line"

# plain text and HTML files, and stdin
R=$SHARED/warc/resiliparse/tests/data
"$WINNOW" ingest -q "$SHARED/warc/resiliparse/LICENSE" >"$TMP/t.jsonl"
python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(d["text"].strip() == open(sys.argv[2]).read().strip() and d["id"] == sys.argv[2])' \
    "$TMP/t.jsonl" "$SHARED/warc/resiliparse/LICENSE" >"$TMP/tok"
is "$(cat "$TMP/tok")" True "plain text file: one document, its text, id = path"
is "$(cat "$R/warcfile.warc.gz" | "$WINNOW" ingest -q | wc -l | tr -d ' ')" 16 "stdin: a WARC through a pipe"
is "$("$WINNOW" ingest -q "$TMP/mixed.jsonl" "$R/warcfile.warc.gz" 2>/dev/null | sed -n 3p | cut -c1-9)" '{"id":"<u' "inputs in order: JSONL docs first, then the WARC's"

# rejects: every dropped record, with its reason
"$WINNOW" ingest -q --stats "$TMP/s.json" --rejects "$TMP/rej.jsonl" "$R/warcfile.warc.gz" >/dev/null
is "$(wc -l <"$TMP/rej.jsonl" | tr -d ' ')" "$(stats_value "$TMP/s.json" dropped)" "rejects: one line per dropped record"
is "$(grep -c '"reject":{"stage":"ingest","reason":"request_record"}' "$TMP/rej.jsonl")" 17 "rejects: 17 request records with their reason"

# a directory with a symlink loop: walked once, the loop not followed
mkdir -p "$TMP/loop/a" && ln -s "$TMP/loop" "$TMP/loop/a/up" && cp "$SHARED/warc/resiliparse/LICENSE" "$TMP/loop/x.txt"
is "$("$WINNOW" ingest -q "$TMP/loop" 2>/dev/null | wc -l | tr -d ' ')" 1 "symlink loop: the one file read once"

# a directory named with a trailing '/', holding a FIFO: the file's id has one
# '/', the FIFO is not opened (it would block) but counted failed
mkdir -p "$TMP/fifo" && mkfifo "$TMP/fifo/p" && cp "$SHARED/warc/resiliparse/LICENSE" "$TMP/fifo/x.txt"
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/fifo/" >"$TMP/fifo.jsonl" 2>/dev/null
is "$(grep -o '"id":"[^"]*"' "$TMP/fifo.jsonl")" "\"id\":\"$TMP/fifo/x.txt\"" "directory with a trailing '/': ids without '//'"
is "$(stats_value "$TMP/s.json" in) $(stats_value "$TMP/s.json" out) $(stats_value "$TMP/s.json" failed_by_kind.not_regular_file) $(stats_value "$TMP/s.json" balanced)" \
   "2 1 1 true" "a FIFO in a directory: counted in and failed (not_regular_file), balanced"

# CLI
"$WINNOW" ingest --extract=bogus "$R/warcfile.warc.gz" >/dev/null 2>&1
is $? 1 "bad --extract value: exit 1"
"$WINNOW" ingest --no-such-flag >/dev/null 2>&1
is $? 1 "unknown flag: exit 1"
ok "--help lists --extract" sh -c "'$WINNOW' ingest --help | grep -q -- --extract"
"$WINNOW" ingest -q /nonexistent/file >/dev/null 2>&1
is $? 2 "missing input: exit 2"
"$WINNOW" ingest -q /nonexistent/file "$SHARED/warc/resiliparse/LICENSE" >"$TMP/miss.jsonl" 2>/dev/null
is "$?/$(wc -l <"$TMP/miss.jsonl" | tr -d ' ')" 2/1 "missing input before a good one: the good one read, exit 2 still"
"$WINNOW" ingest -q -z -o "$TMP/out.zst" "$R/warcfile.warc.gz"
is "$(zstd -dc "$TMP/out.zst" | wc -l | tr -d ' ')" 16 "-z -o writes zstd"

done_testing
