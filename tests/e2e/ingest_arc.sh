#!/bin/sh
# winnow ingest on ARC files (the Internet Archive's format before WARC):
# their records are read and judged as WARC records, so the same crawl
# stored as ARC and as WARC gives the same documents. Before, an ARC file
# was one plain-text document: headers, HTTP headers and image bytes as text.
. tests/lib.sh
W=$SHARED/warc
U=$W/ukwa-webarchive-test-suite/small-arcs-and-warcs
require_file "$U" "$W/pywb/sample_archive/warcs/example.arc" "$W/warcio/test/data/bad.arc"

# docs FILE: url, date and text of each document, one JSON list a line
docs() {
    "$WINNOW" ingest -q --extract=full "$1" | python3 -c 'import json,sys
for l in sys.stdin:
    d=json.loads(l); print(json.dumps([d["url"], d.get("date"), d["text"]]))'
}

# The Internet Archive's 2008 test crawl, as ARC (plain and per-record
# gzip) and as the WARC/0.17 file of the same captures
B=IAH-20080430204825-00000-blackbook-truncated
docs "$U/$B.warc.gz" >"$TMP/warc.docs"
for f in "$U/$B.arc" "$U/$B.arc.gz"; do
    "$WINNOW" ingest -q --stats "$TMP/s.json" "$f" >/dev/null
    is "$(stats_value "$TMP/s.json" in)" 9 "$(basename "$f"): 9 records (filedesc + 8)"
    is "$(stats_value "$TMP/s.json" out)" 2 "$(basename "$f"): 2 HTML documents"
    is "$(stats_value "$TMP/s.json" dropped_by_reason.warcinfo_record)" 1 "$(basename "$f"): the version block is a warcinfo record"
    is "$(stats_value "$TMP/s.json" dropped_by_reason.not_html)" 6 "$(basename "$f"): dns, robots.txt, images: not_html"
    is "$(stats_value "$TMP/s.json" balanced)" true "$(basename "$f"): in = out + dropped + failed"
    docs "$f" >"$TMP/arc.docs"
    ok "$(basename "$f"): the same urls, dates and texts as the WARC of the same crawl" cmp "$TMP/arc.docs" "$TMP/warc.docs"
done
ok "the documents are there" test "$(wc -l <"$TMP/warc.docs")" -eq 2
"$WINNOW" ingest -q "$U/$B.arc" | python3 -c 'import json,sys
d=json.loads(sys.stdin.readline()); m=d["metadata"]
print(d["id"], d["date"], m["http_status"], m["warc_offset"], m["charset"])' >"$TMP/first"
off=$(cut -d' ' -f4 "$TMP/first")
is "$(cut -d' ' -f1-3,5 "$TMP/first")" "$U/$B.arc#4 2008-04-30T20:48:26Z 200 UTF-8" \
   "first document: id file#record, ISO date from the 14 digits, HTTP status, charset"
is "$(dd if="$U/$B.arc" bs=1 skip="$off" count=24 2>/dev/null)" "http://www.archive.org/ " "warc_offset points at its ARC line"

# example.com captures (Webrecorder's): plain and gzip'd
for f in "$W/pywb/sample_archive/warcs/example.arc" "$W/pywb/sample_archive/warcs/example.arc.gz"; do
    docs "$f" >"$TMP/ex.docs"
    is "$(python3 -c 'import json,sys
u,d,t=json.loads(open(sys.argv[1]).readline()); print(u, d, "Example Domain" in t and "HTTP/1.1" not in t)' "$TMP/ex.docs")" \
       "http://example.com/ 2014-02-16T05:02:21Z True" "$(basename "$f"): the page's text, not its headers"
done

# hand-made from that capture: a version 2 file (ten fields a line, Alexa's
# layout), a URL with spaces, and a wrong length in the middle
python3 - "$W/pywb/sample_archive/warcs/example.arc" "$TMP" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
head_end = data.index(b'\n', data.index(b'\nhttp://example.com/') + 1) + 1
body = data[head_end:head_end + int(data[data.index(b'\nhttp://example.com/') + 1:head_end - 1].split()[-1])]
meta = b'2 0 Alexa\nURL IP-address Archive-date Content-type Result-code Checksum Location Offset Filename Archive-length\n'
def line(url, n, v2):
    extra = b' 200 - - 0 x.arc' if v2 else b''
    return url + b' 93.184.216.119 20140216050221 text/html' + extra + b' %d\n' % n
v2 = b'filedesc://x.arc 0.0.0.0 20140216050221 text/plain 200 - - 0 x.arc %d\n' % len(meta) + meta + b'\n'
for u in (b'http://example.com/a', b'http://example.com/b'):
    v2 += line(u, len(body), True) + body + b'\n'
open(sys.argv[2] + '/v2.arc', 'wb').write(v2)
meta1 = b'1 0 test\nURL IP-address Archive-date Content-type Archive-length\n'
v1 = b'filedesc://y.arc 0.0.0.0 20140216050221 text/plain %d\n' % len(meta1) + meta1 + b'\n'
v1 += line(b'http://example.com/a page with spaces.html', len(body), False) + body + b'\n'
v1 += line(b'http://example.com/short', len(body) - 40, False) + body + b'\n'   # length too short
v1 += line(b'http://example.com/long', len(body) + 300, False) + body + b'\n'   # too long
v1 += line(b'http://example.com/last', len(body), False) + body + b'\n'
open(sys.argv[2] + '/v1.arc', 'wb').write(v1)
PY
docs "$TMP/v2.arc" >"$TMP/v2.docs"
is "$(python3 -c 'import json,sys
print(" ".join(json.loads(l)[0] for l in open(sys.argv[1])))' "$TMP/v2.docs")" "http://example.com/a http://example.com/b" \
   "version 2 ARC: both records, urls from the ten-field lines"
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/v1.arc" >"$TMP/v1.jsonl" 2>"$TMP/err"
is "$(python3 -c 'import json,sys
print("|".join(json.loads(l)["url"] for l in open(sys.argv[1])))' "$TMP/v1.jsonl")" \
   "http://example.com/a page with spaces.html|http://example.com/short|http://example.com/long|http://example.com/last" \
   "version 1 ARC: a URL with spaces, and each record around two wrong lengths"
is "$(stats_value "$TMP/s.json" extra.content_length_mismatch)" 2 "two wrong lengths counted"
ok "a wrong length is reported with file, record and offset" \
   grep -q "v1.arc: record 3 at offset [0-9]*: length [0-9]* on its ARC line is wrong: the record is [0-9]* bytes" "$TMP/err"
is "$(python3 -c 'import json,sys
t=[json.loads(l)["text"] for l in open(sys.argv[1])]; print(t[0]==t[2]==t[3], "HTTP/1.1" in "".join(t))' "$TMP/v1.jsonl")" \
   "True False" "the records around the wrong lengths keep the page's text"

# a damaged ARC (warcio's bad.arc: lengths -1 and abc): counted, never a crash
"$WINNOW" ingest -q --stats "$TMP/s.json" "$W/warcio/test/data/bad.arc" >/dev/null 2>"$TMP/err"
is "$?" 0 "bad.arc: read to the end"
is "$(stats_value "$TMP/s.json" failed_by_kind.no_arc_header)" 1 "bad.arc: the bad version block is one failed no_arc_header"
is "$(stats_value "$TMP/s.json" balanced)" true "bad.arc: in = out + dropped + failed"
ok "bad.arc: the message names file, record and offset" \
   grep -q "bad.arc: record 1 at offset 0: no ARC record line here" "$TMP/err"

done_testing
