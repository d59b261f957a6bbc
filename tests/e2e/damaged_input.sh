#!/bin/sh
# Damaged compressed input (issue 16, points 2, 4-6): a damaged gzip member loses
# only its own record, that record is counted, and every stage exits 2 on a
# damaged or truncated stream after writing what decoded; an archive member
# over the size limit is skipped and the members after it are read.
. "$(dirname "$0")/../lib.sh"

# stat FILE KEY: a number from a --stats JSON file; 0 when absent
stat() {
    v=$(grep -o "\"$2\": [0-9a-z.]*" "$1" | head -1 | sed 's/.*: //')
    echo "${v:-0}"
}

# JSONL, each line its own gzip member, and member 5 of 10 damaged (flipped
# deflate bytes) from its first deflate byte (nothing of it decodes: one
# failed damaged_member) or a little later (a partial line: failed bad_json):
# the 9 intact lines come out
NORULES="--no-langid --no-gopher-repetition --no-gopher-quality --no-c4 --no-fineweb"
for from in 10 12; do
    python3 - "$TMP/lines.jsonl.gz" $from <<'PY'
import gzip, sys
out = open(sys.argv[1], "wb")
for i in range(1, 11):
    m = bytearray(gzip.compress(b'{"id":"d%d","text":"line number %d of ten"}\n' % (i, i)))
    if i == 5:
        for k in range(int(sys.argv[2]), len(m) - 8): m[k] ^= 0x55
    out.write(m)
PY
    kind=bad_json; [ $from = 10 ] && kind=damaged_member
    for stage in ingest filter; do
        opts=; [ $stage = filter ] && opts=$NORULES
        "$WINNOW" $stage -q $opts --stats "$TMP/s.json" "$TMP/lines.jsonl.gz" >"$TMP/out" 2>"$TMP/err" </dev/null
        is "$(grep -o '"id":"d[0-9]*"' "$TMP/out" | tr -d '"' | sed 's/id://' | tr '\n' ' ')" "d1 d2 d3 d4 d6 d7 d8 d9 d10 " \
            "$stage: per-line gzip, member 5 damaged from byte $from: the 9 intact lines come out"
        is "$(stat "$TMP/s.json" in)/$(stat "$TMP/s.json" failed)/$(stat "$TMP/s.json" $kind)" "10/1/1" \
            "$stage: damage from byte $from: in 10, failed 1 ($kind)"
    done
done

# per-record-gzip WARC, record 3 of 5 damaged early (nothing of it decodes)
# and late (its header or block is cut): the other 4 come out, 1 failed
cat >"$TMP/mkwarc.py" <<'PY'
import gzip, sys
def rec(i):
    body = ("<html><head><title>Page %d</title></head><body><p>This is page number %d with enough words to be a document.</p></body></html>" % (i, i)).encode()
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    head = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%08d>\r\nWARC-Target-URI: http://example.com/%d\r\n"
            "WARC-Date: 2020-01-01T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
            % (i, i, len(http))).encode()
    return head + http + b"\r\n\r\n"
out = open(sys.argv[1], "wb")
for i in range(1, 6):
    m = bytearray(gzip.compress(rec(i)))
    if i == 3:
        for k in range(int(sys.argv[2]), len(m) - 8): m[k] ^= 0x55
    out.write(m)
PY
for from in 40 150 230; do
    python3 "$TMP/mkwarc.py" "$TMP/d.warc.gz" $from
    "$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/d.warc.gz" >"$TMP/out" 2>"$TMP/err"
    is "$(grep -o 'uuid:0000000[0-9]' "$TMP/out" | tr '\n' ' ')" "uuid:00000001 uuid:00000002 uuid:00000004 uuid:00000005 " \
        "WARC, record 3 damaged from byte $from of its member: the other 4 come out"
    is "$(stat "$TMP/s.json" in)/$(stat "$TMP/s.json" failed)/$(stat "$TMP/s.json" balanced)" "5/1/true" \
        "WARC, damage from byte $from: in 5, failed 1, balanced"
done

# a truncated .gz: every stage writes what decoded and exits 2 (one rule)
python3 -c 'import sys
for i in range(2000): sys.stdout.write("{\"id\":\"t%d\",\"text\":\"The cat sat on the mat number %d and it was happy there.\"}\n" % (i, i))' |
    gzip -c >"$TMP/full.jsonl.gz"
head -c 4000 "$TMP/full.jsonl.gz" >"$TMP/cut.jsonl.gz"
GPT2="--encoding gpt2 --vocab $SHARED/vocab/tiktoken/r50k_base.tiktoken"
for stage in ingest filter dedup tokenize; do
    case $stage in filter) opts=$NORULES ;; tokenize) opts=$GPT2 ;; *) opts= ;; esac
    "$WINNOW" $stage -q $opts "$TMP/cut.jsonl.gz" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    is "$rc" 2 "truncated .gz: $stage exits 2"
    ok "truncated .gz: $stage says where" grep -q "cut.jsonl.gz: truncated gzip member at offset" "$TMP/err"
    ok "truncated .gz: $stage wrote what decoded" test -s "$TMP/out"
done

# an archive whose first member is over the 1 GiB member limit: that member
# is reported and counted, the members after it are read (a sparse file of
# zeros: tar and zstd make the 1.1 GB into a few KB in about a second)
mkdir "$TMP/ar"
truncate -s 1100M "$TMP/ar/a_big.bin"
echo '{"id":"after1","text":"member after the big one"}' >"$TMP/ar/b.jsonl"
echo '<html><body><p>second member after the big one</p></body></html>' >"$TMP/ar/c.html"
(cd "$TMP/ar" && tar cf - a_big.bin b.jsonl c.html) | zstd -q -c >"$TMP/big.tar.zst"
rm -rf "$TMP/ar"
"$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/big.tar.zst" >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "archive with a member over 1 GiB: exit 0"
is "$(grep -o '"id":"[^"]*"' "$TMP/out" | tr '\n' ' ')" '"id":"after1" "id":"'"$TMP"'/big.tar.zst/c.html" ' \
    "archive with a member over 1 GiB: the members after it are read"
is "$(stat "$TMP/s.json" in)/$(stat "$TMP/s.json" failed)" "3/1" "archive: the big member counted failed"
ok "archive: the big member named" grep -q "member a_big.bin: over 1073741824 bytes; skipped" "$TMP/err"

done_testing
