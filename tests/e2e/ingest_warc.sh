#!/bin/sh
# winnow ingest on the real WARC/WET files of $SHARED/warc: exact document
# counts, spot checks of url/charset/text, and every file read without a crash.
#
# Expected counts come from scripts/ingest_reference_counts.py, an
# independent reader (Python, records split on "WARC/" lines, not on
# Content-Length): html = 2xx responses + resources whose type is
# text/html or application/xhtml+xml. winnow must emit each of them as a
# document (out) or drop it as empty_text when the page has no text at all.
. tests/lib.sh
W=$SHARED/warc
require_file "$W"

# stat FILE KEY: a number from a --stats JSON file (the last part of a
# dotted key names it: "dropped_by_reason.empty_text"); 0 when absent
stat() {
    v=$(grep -o "\"${2##*.}\": [0-9a-z.]*" "$1" | head -1 | sed 's/.*: //')
    echo "${v:-0}"
}

# count NAME FILE HTML: winnow must account for exactly HTML documents
count() {
    "$WINNOW" ingest -q -j2 --stats "$TMP/s.json" "$2" >"$TMP/out.jsonl" 2>"$TMP/err"
    got=$(( $(stat "$TMP/s.json" out) + $(stat "$TMP/s.json" dropped_by_reason.empty_text) ))
    is "$got" "$3" "$1: $3 HTML documents"
    is "$(wc -l <"$TMP/out.jsonl" | tr -d ' ')" "$(stat "$TMP/s.json" out)" "$1: stats out = lines written"
    is "$(stat "$TMP/s.json" balanced)" "true" "$1: in = out + dropped + failed"
}

R=$W/resiliparse/tests/data
count "resiliparse CC warc"          "$R/warcfile.warc" 16
count "resiliparse CC warc.gz"       "$R/warcfile.warc.gz" 16
count "resiliparse CC warc.lz4"      "$R/warcfile.warc.lz4" 16
count "resiliparse ClueWeb 0.18"     "$R/clueweb-quirk.warc.gz" 29
count "whirlwind CC 2024"            "$W/whirlwind-python/whirlwind.warc.gz" 1
count "whirlwind WET"                "$W/whirlwind-python/whirlwind.warc.wet.gz" 1
count "jwarc cc"                     "$W/jwarc/test-resources/org/netpreserve/jwarc/cc.warc.gz" 1
count "dolma sample-0000"            "$W/dolma/tests/data/warc/sample-0000.warc.gz" 22
count "dolma sample-0001"            "$W/dolma/tests/data/warc/sample-0001.warc.gz" 15
count "pywb iana"                    "$W/pywb/sample_archive/warcs/iana.warc.gz" 16
count "pywb dupes (revisits)"        "$W/pywb/sample_archive/warcs/dupes.warc.gz" 1
# every revisit record is dropped as one, as many as zcat | grep counts in the file
"$WINNOW" ingest -q --stats "$TMP/s.json" "$W/pywb/sample_archive/warcs/dupes.warc.gz" > /dev/null
is "$(stat "$TMP/s.json" dropped_by_reason.revisit_record)" \
   "$(zcat "$W/pywb/sample_archive/warcs/dupes.warc.gz" | grep -a -c '^WARC-Type: revisit')" "pywb dupes: each revisit record dropped as revisit_record"
count "pywb example (bad length)"    "$W/pywb/sample_archive/warcs/example.warc" 1
count "pywb example2 (gzip body)"    "$W/pywb/sample_archive/warcs/example2.warc.gz" 1
count "pywb wget 1.14"               "$W/pywb/sample_archive/warcs/example-wget-1-14.warc.gz" 1
count "ukwa gov.uk 1"                "$W/ukwa-webarchive-discovery/gov.uk-revisit-warcs/BL-20140325121225068-00000-32090~opera~8443.warc.gz" 32
count "ukwa gov.uk 2 (revisits)"     "$W/ukwa-webarchive-discovery/gov.uk-revisit-warcs/BL-20140325122341434-00000-32090~opera~8443.warc.gz" 6
count "ukwa IA 2008 WARC/0.17"       "$W/ukwa-webarchive-test-suite/small-arcs-and-warcs/IAH-20080430204825-00000-blackbook-truncated.warc.gz" 2
count "ukwa wget"                    "$W/ukwa-webarchive-test-suite/small-arcs-and-warcs/IAH-urls-wget.warc.gz" 2
for enc in none gzip brotli; do
    count "ukwa Content-Encoding $enc" "$W/ukwa-webarchive-discovery/compression/transfer_compression_$enc.warc.gz" 1
done
count "node-warc books.toscrape 1.1" "$W/node-warc/test/files/books.toscrape.warc" 1
count "node-warc parseMe"            "$W/node-warc/test/files/parseMe.warc.gz" 1
count "warcio example"               "$W/warcio/test/data/example.warc.gz" 1
count "warcio whole-file gzip"       "$W/warcio/test/data/example-bad-non-chunked.warc.gz" 1
count "warcio gzip not per record"   "$W/warcio/test/data/example-wrong-chunks.warc.gz" 1
count "warcio chunked"               "$W/warcio/test/data/example-iana.org-chunked.warc" 1
count "warcio resource"              "$W/warcio/test/data/example-resource.warc.gz" 1
count "cc_net WET, lengths wrong"    "$W/cc_net/tests/data/sample.warc.txt" 3

# a record cut by a truncated gzip member is reported and counted as failed
"$WINNOW" ingest -q --stats "$TMP/s.json" "$R/clipped.warc.gz" >"$TMP/out.jsonl" 2>"$TMP/err"
is "$(stat "$TMP/s.json" failed_by_kind.truncated_record)" 1 "clipped: truncated record counted"
ok "clipped: message names file, record and offset" grep -q "clipped.warc.gz: record 1 at offset 0: record truncated" "$TMP/err"

# a wrong Content-Length is recovered and reported with the record's offset
"$WINNOW" ingest -q --stats "$TMP/s.json" "$W/pywb/sample_archive/warcs/example.warc" >/dev/null 2>"$TMP/err"
ok "pywb example: bad length reported" grep -q "example.warc: record 5 at offset 4061: Content-Length 320 is wrong: the record is 323 bytes" "$TMP/err"
is "$(stat "$TMP/s.json" extra.content_length_mismatch)" 1 "pywb example: mismatch counted"

# spot checks on the Common Crawl sample: charsets, urls, text
# (full extraction: these check charsets and text, not boilerplate removal)
"$WINNOW" ingest -q --extract=full "$R/warcfile.warc.gz" >"$TMP/cc.jsonl"
RU=http://01spb.ru/company/ ZH=http://0760.jxtdw.com/area/sanxiang/ ZH2=http://037426.cn/
python3 - "$TMP/cc.jsonl" $RU $ZH $ZH2 >"$TMP/checks" <<'PY'
import json, sys
docs = {}
for l in open(sys.argv[1]):
    d = json.loads(l)
    docs[d.get("url")] = d
ru, zh, zh2 = (docs.get(u, {"metadata": {}, "text": ""}) for u in sys.argv[2:5])
m = lambda d, k: d["metadata"].get(k, "")
for v in [m(ru, "charset").lower(), m(ru, "charset_source"), "Огнетушители углекислотные" in ru["text"],
          m(ru, "http_status"), m(zh, "charset").lower() in ("gb2312", "gbk", "gb18030"),
          "中山英才网热线" in zh["text"] and "造价咨询人员" in zh["text"], "三乡招聘" in m(zh, "title"),
          "\ufffd" in zh["text"], "KUNSHAN STANLEY TRADING" in zh2["text"], zh2.get("id"), zh2.get("date"),
          m(zh2, "warc_file").endswith("warcfile.warc.gz")]:
    print(v)
PY
want_id=$(zcat "$R/warcfile.warc.gz" | python3 -c 'import re,sys
for rec in sys.stdin.buffer.read().split(b"\r\n\r\nWARC/1.0\r\n"):
    head=rec.split(b"\r\n\r\n")[0]
    if b"WARC-Type: response" in head and (b"WARC-Target-URI: "+sys.argv[1].encode()+b"\r") in head:
        print(re.search(rb"WARC-Record-ID: (\S+)", head).group(1).decode())' $ZH2)
{
    read v; is "$v" "windows-1251" "windows-1251 page: charset"
    read v; is "$v" "http" "windows-1251 page: charset from HTTP"
    read v; is "$v" "True" "windows-1251 page: Russian text"
    read v; is "$v" "200" "windows-1251 page: http_status"
    read v; is "$v" "True" "gb2312 page: a GB charset"
    read v; is "$v" "True" "gb2312 page: Chinese text"
    read v; is "$v" "True" "gb2312 page: Chinese title (numeric references)"
    read v; is "$v" "False" "gb2312 page: no replacement characters"
    read v; is "$v" "True" "gb2312 page 2: text"
    read v; is "$v" "$want_id" "id is the WARC-Record-ID"
    read v; is "$v" "2020-08-08T18:34:24Z" "date is the WARC-Date"
    read v; is "$v" "True" "warc_file in metadata"
} <"$TMP/checks"

# the uncompressed file: warc_offset points at the record's "WARC/1.0" line
"$WINNOW" ingest -q --extract=full "$R/warcfile.warc" >"$TMP/plain.jsonl"
off=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l)
    if d["url"]==sys.argv[2]: print(d["metadata"]["warc_offset"])' "$TMP/plain.jsonl" $RU)
is "$(dd if="$R/warcfile.warc" bs=1 skip="$off" count=8 2>/dev/null)" "WARC/1.0" "warc_offset points at the record"
is "$(dd if="$R/warcfile.warc" bs=1 skip="$off" count=2000 2>/dev/null | grep -a -c "WARC-Target-URI: $RU")" 1 "warc_offset is that page's record"
is "$(cut -d, -f1 "$TMP/plain.jsonl" | md5sum)" "$(cut -d, -f1 "$TMP/cc.jsonl" | md5sum)" "same documents from .warc and .warc.gz"

# ClueWeb: Content-Encoding gzip over plain HTML, EUC-JP
"$WINNOW" ingest -q --stats "$TMP/s.json" "$R/clueweb-quirk.warc.gz" >"$TMP/cw.jsonl"
is "$(stat "$TMP/s.json" extra.http_encoding_header_ignored)" 29 "ClueWeb: lying gzip header noticed 29 times"
is "$(python3 -c 'import json,sys
print(sum(1 for l in open(sys.argv[1]) if json.loads(l)["metadata"]["charset"].upper() in ("EUC-JP","EUCJP","CP51932")))' "$TMP/cw.jsonl")" 29 "ClueWeb: 29 EUC-JP pages"
is "$(python3 -c 'import json,sys,unicodedata
n=0
for l in open(sys.argv[1]):
    t=json.loads(l)["text"]
    n+=sum(1 for c in t if "\u3040"<=c<="\u30ff")>20
print(n)' "$TMP/cw.jsonl")" 29 "ClueWeb: Japanese kana in every page"

# brotli and gzip bodies decode to the same text as the uncompressed one
for enc in none gzip brotli; do
    "$WINNOW" ingest -q "$W/ukwa-webarchive-discovery/compression/transfer_compression_$enc.warc" |
        python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["text"])' >"$TMP/$enc.txt"
done
ok "brotli body = plain body" cmp "$TMP/none.txt" "$TMP/brotli.txt"
ok "gzip body = plain body" cmp "$TMP/none.txt" "$TMP/gzip.txt"
ok "decoded text is not empty" test -s "$TMP/none.txt"

# rejects lines of pages with no text (empty_text, dropped by the workers):
# "source" is the input's name, nothing after it (it once ran on into the
# batch's later strings: the page's HTML, the next record's id and url)
E=$W/ia-web-commons/src/test/resources/org/archive
for f in "$E/resource/html/html-lang-attribute.warc" "$E/resource/html/link-extraction-test.warc" \
         "$E/format/warc/mutliple-headers.warc"; do
    "$WINNOW" ingest -q --rejects "$TMP/rej.jsonl" "$f" >/dev/null 2>&1
    is "$(python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
e=[x for x in r if x["reject"]["reason"]=="empty_text"]
print(len(e)>0, all(x["source"]==sys.argv[2] for x in r))' "$TMP/rej.jsonl" "$f")" "True True" \
       "$(basename "$f"): empty_text rejects name the file as source, nothing more"
done

# every file under warc/, malformed ones included: no crash, balanced counts
crashed=0; unbalanced=0
for f in $(find "$W" -type f | sort); do
    "$WINNOW" ingest -q -j2 --stats "$TMP/s.json" "$f" >/dev/null 2>&1
    rc=$?
    [ $rc -le 2 ] || { echo "# crash ($rc) on $f"; crashed=$((crashed+1)); }
    [ "$(stat "$TMP/s.json" balanced)" = true ] || { echo "# unbalanced: $f"; unbalanced=$((unbalanced+1)); }
done
is $crashed 0 "every file under warc/ read without a crash"
is $unbalanced 0 "every file under warc/ balanced"

done_testing
