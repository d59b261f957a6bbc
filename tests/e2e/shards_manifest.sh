#!/bin/sh
# The manifest's own integrity (issue 16, point 12): a shard list edited
# consistently (a shard twice, two swapped, one dropped with the totals
# fixed) is refused by verify, cat, export and the Python reader through
# manifest_sha256; both readers refuse file names outside the directory,
# ids not below vocab_size and duplicated keys alike.
. "$(dirname "$0")/../lib.sh"
PY=
for p in /usr/bin/python3 python3; do
    if $p -c 'import numpy, zstandard' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "not ok 1 - no python3 with numpy and zstandard for the Python reader"; echo "1..1"; exit 1; }
export PYTHONPATH="$(cd "$(dirname "$0")/../.." && pwd)/shards/python"

# 60 documents of ids below 100 in several shards (vocabulary 1000: uint16)
$PY -c 'import struct, sys
out = open(sys.argv[1], "wb")
for d in range(60):
    ids = [(d * 7 + k) % 100 for k in range(20 + d)]
    out.write(struct.pack("<I", len(ids)) + struct.pack("<%dI" % len(ids), *ids))' "$TMP/t.bin"
"$WINNOW" shard -q -o "$TMP/clean" --vocab-size 1000 --shard-tokens 500 "$TMP/t.bin"
ok "clean directory verifies" "$WINNOW" shards verify "$TMP/clean"
ok "the Python reader opens it (its manifest_sha256 agrees with the C writer's)" \
    $PY -c 'import sys; from winnow_shards import ShardReader; ShardReader(sys.argv[1])' "$TMP/clean"
ok "several shards" test "$(grep -c '"file"' "$TMP/clean/manifest.json")" -ge 4

# edit NAME PYTHON: a copy of the clean directory whose manifest the Python
# statement changes (m is the manifest; fix=True recomputes manifest_sha256,
# as a tool rewriting the manifest on purpose would)
edit() {
    rm -rf "$TMP/bad"; cp -r "$TMP/clean" "$TMP/bad"
    $PY - "$TMP/bad/manifest.json" "$2" <<'PY'
import json, sys
import winnow_shards
path, code = sys.argv[1], sys.argv[2]
m = json.load(open(path))
fix = False
def totals():
    m["totals"]["shards"] = len(m["shards"])
    m["totals"]["tokens"] = sum(s["tokens"] for s in m["shards"])
    m["totals"]["documents"] = sum(s["documents"] for s in m["shards"])
    m["totals"]["compressed_bytes"] = sum(s["compressed_bytes"] for s in m["shards"])
exec(code)
if fix: m["manifest_sha256"] = winnow_shards._manifest_digest(m)
text = json.dumps(m, indent=1)
if "DUPKEY" in code: text = text.replace('"dtype"', '"dtype": "uint32",\n "dtype"', 1)
if "post" in globals(): text = post(text)  # an edit of the text itself (json.dumps would not write it)
open(path, "w").write(text)
PY
}
# refused NAME PATTERN: verify, cat, export and the Python reader all refuse
refused() {
    "$WINNOW" shards verify "$TMP/bad" >/dev/null 2>"$TMP/err"; rv=$?
    "$WINNOW" shards cat "$TMP/bad" >/dev/null 2>>"$TMP/err"; rc=$?
    "$WINNOW" shards export --format megatron "$TMP/bad" "$TMP/exp" >/dev/null 2>>"$TMP/err"; re=$?
    $PY -c 'import sys
from winnow_shards import ShardReader, ShardError
try:
    r = ShardReader(sys.argv[1])
    for d in r.documents(): pass
except ShardError as e:
    print(e, file=sys.stderr); sys.exit(2)' "$TMP/bad" 2>>"$TMP/err"; rp=$?
    is "$rv $rc $re $rp" "2 2 2 2" "$1: verify, cat, export, Python reader refuse"
    if grep -q "$2" "$TMP/err"; then echo "ok $((_n+1)) - $1: says '$2'"; else
        echo "not ok $((_n+1)) - $1: says '$2'"; sed 's/^/#   /' "$TMP/err"; _fail=$((_fail+1)); fi
    _n=$((_n+1))
}

edit "twice" 'm["shards"].insert(1, dict(m["shards"][0])); totals()'
refused "a shard listed twice, totals fixed" "manifest_sha256"
edit "swap" 'm["shards"][1], m["shards"][2] = m["shards"][2], m["shards"][1]'
refused "two shards swapped" "manifest_sha256"
edit "drop" 'del m["shards"][3]; totals()'
refused "a shard dropped, totals fixed" "manifest_sha256"
edit "parent" 'm["shards"][0]["file"] = "../x/shard.tok.zst"; fix = True'
refused "a file name with ../ (checksum made to match)" "not a plain name"
edit "absolute" 'm["shards"][0]["index"] = "/etc/passwd"; fix = True'
refused "an absolute file name (checksum made to match)" "not a plain name"
for v in True 1.0; do # equal to 1 in Python, not the integer 1 the format names
    edit "version $v" "m['version'] = $v; fix = True"
    refused "version $v (checksum made to match)" "version 1"
done
edit "vocab" 'm["tokenizer"]["vocab_size"] = 50; fix = True'
refused "vocab_size below the stored ids (checksum made to match)" "not below the vocabulary size"
edit "vocab-top" 'm["tokenizer"]["vocab_size"] = 99; fix = True'
refused "vocab_size equal to the largest stored id, 99 (checksum made to match)" "holds id 99, not below the vocabulary size 99"
edit "dupkey" 'fix = True  # DUPKEY'
refused "a key given twice" "duplicate key"
# a name starting with '.' is not plain either (a hidden file; "..", the parent directory)
edit "hidden" 'import os; d = os.path.dirname(path); os.rename(d + "/shard_00001.tok.zst", d + "/.shard_00001.tok.zst")
m["shards"][1]["file"] = ".shard_00001.tok.zst"; fix = True'
refused "a file name starting with '.' (checksum made to match)" "not a plain name"
# hashes are 16 lowercase hex digits: upper case is the same number, so the
# canonical text (which prints the number) would not notice it, but the Python
# reader hashes the text as written and refuses it; the C readers must agree
edit "upper" 'for e in m["shards"]: e["xxh3_64"] = e["xxh3_64"].upper()'
refused "an xxh3_64 in upper case" "16 lowercase hex digits"
# manifest_sha256's text counts the shard list, so totals.shards is checked against it on its own
edit "count" 'm["totals"]["shards"] += 1'
refused "totals.shards one more than the shard list" "totals.shards does not match the shard list"

# the manifest's dtype is uint16 or uint32, nothing else (the Python reader once read any other name as uint32)
edit "dtype" 'm["dtype"] = "int32"; fix = True'
refused "dtype int32 (checksum made to match)" "not uint16 or uint32"
# a manifest that is not JSON at all is refused with a message, not a parser's traceback
edit "cut" 'pass'
head -c 100 "$TMP/clean/manifest.json" > "$TMP/bad/manifest.json"
refused "a manifest cut short" "manifest.json"
# the seek table's descriptor has reserved bits 2..6 zero (zstd's seekable format)
edit "reserved" 'import os; f = os.path.dirname(path) + "/shard_00001.tok.zst"
b = bytearray(open(f, "rb").read()); b[-5] |= 0x04; open(f, "wb").write(bytes(b))'
refused "a seek table descriptor with a reserved bit set" "reserved bits"

# a shard that continues a document holds that document's end, so it lists one at least
edit "continues" 'm["shards"][1]["continues_document"] = True; m["shards"][1]["documents"] = 0; fix = True'
is "$("$WINNOW" shards verify "$TMP/bad" 2>&1 | grep -c 'continues a document but lists no documents')" 1 \
    "a continuing shard with no documents: verify says so (once, no totals from an underflow)"
refused "a continuing shard with no documents (checksum made to match)" "continues a document but lists no documents"

# JSON as the Python reader's json.load takes it (RFC 8259), with the checksum
# made to match what the C reader would read: a number cut to an int, a
# negative count, an invalid escape, a raw control character, bytes after the
# object and a key given twice inside an object are refused by all readers.
edit "version" 'fix = True
def post(t): return t.replace("\"version\": 1,", "\"version\": 4294967297,", 1)'
refused "version 2^32 + 1 (checksum of version 1)" "version"
edit "level" 'fix = True
def post(t): return t.replace("\"zstd_level\": 1,", "\"zstd_level\": 4294967297,", 1)'
refused "zstd_level 2^32 + 1 (checksum of level 1)" "zstd_level"
edit "negative" 'm["shard_tokens"] = 2**64 - 1; fix = True
def post(t): return t.replace("18446744073709551615", "-1", 1)'
refused "shard_tokens -1 (checksum of 2^64 - 1)" "shard_tokens"
edit "escape" 'm["tokenizer"]["name"] = "x41"; fix = True
def post(t): return t.replace("\"x41\"", "\"\\x41\"", 1)'
ok "the manifest holds the escape \\x41" grep -q '"name": "\\x41"' "$TMP/bad/manifest.json"
refused "a tokenizer name with the invalid escape \\x41 (checksum of x41)" "invalid escape"
edit "tab" 'm["tokenizer"]["name"] = "a\tb"; fix = True
def post(t): return t.replace("a\\tb", "a\tb", 1)'
refused "a raw tab in the tokenizer name" "control character"
edit "trailing" 'fix = True
def post(t): return t + "\n{}"'
refused "a second JSON value after the manifest" "trailing bytes"
edit "nested-dup" 'fix = True
def post(t): return t.replace("\"vocab_size\": 1000", "\"vocab_size\": 1000, \"vocab_size\": 50", 1)'
refused "a key given twice inside \"tokenizer\"" "duplicate key"
# a lone surrogate escape is JSON Python reads, but no UTF-8 the checksum can hash
edit "surrogate" 'm["tokenizer"]["name"] = "s"; fix = True
def post(t): return t.replace("\"s\"", "\"\\ud800\"", 1)'
ok "the manifest holds the escape \ud800" grep -q '"name": "\\ud800"' "$TMP/bad/manifest.json"
refused "a tokenizer name with a lone surrogate escape" "surrogate"
# what JSON allows is read: \u0041 and \/ in a name are "A/"
edit "unicode" 'm["tokenizer"]["name"] = "A/"; fix = True
def post(t): return t.replace("\"A/\"", "\"\\u0041\\/\"", 1)'
ok "the manifest holds the escapes \\u0041\\/" grep -q '"name": "\\u0041\\/"' "$TMP/bad/manifest.json"
ok "a name written \\u0041\\/ verifies" "$WINNOW" shards verify "$TMP/bad"
ok "... and the Python reader reads it as A/" $PY -c 'import sys; from winnow_shards import ShardReader
assert ShardReader(sys.argv[1]).manifest["tokenizer"]["name"] == "A/"' "$TMP/bad"

done_testing
