#!/bin/sh
# zstd files in pzstd's layout: a skippable frame (RFC 8878 3.1.2, magic
# 0x184D2A50, holding the next frame's size) before every frame, so the file
# starts with one. `zstd -d` reads them; so does every stage, from a file and
# (ingest) from inside a tar archive, where the member is found compressed by
# its content. Real documents: OLMo's C4 sample.
. "$(dirname "$0")/../lib.sh"
C4=$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz
[ -r "$C4" ] || { ok "shared data $C4" false; done_testing; exit 1; }

zcat "$C4" | head -300 > "$TMP/docs.jsonl"
python3 - "$TMP/docs.jsonl" "$TMP/docs.jsonl.zst" <<'PY'
import struct, subprocess, sys
data = open(sys.argv[1], "rb").read()
out = open(sys.argv[2], "wb")
for at in range(0, len(data), 200000):  # pzstd's layout: [skippable frame: size of the next frame][frame]...
    frame = subprocess.run(["zstd", "-q", "-c"], input=data[at:at + 200000], capture_output=True, check=True).stdout
    out.write(struct.pack("<III", 0x184D2A50, 4, len(frame)) + frame)
PY
zstd -q -d -c "$TMP/docs.jsonl.zst" | cmp -s - "$TMP/docs.jsonl"
is "$?" 0 "zstd -d reads the pzstd-layout file as the 300 documents"
NORULES="--no-langid --no-gopher-repetition --no-gopher-quality --no-c4 --no-fineweb"
"$WINNOW" filter -q $NORULES "$TMP/docs.jsonl.zst" > "$TMP/out" 2> "$TMP/err"
is "$?" 0 "filter: exit status 0"
ok "filter: the 300 documents, byte for byte" cmp -s "$TMP/out" "$TMP/docs.jsonl"
mkdir "$TMP/t" && cp "$TMP/docs.jsonl.zst" "$TMP/t/" && tar cf "$TMP/docs.tar" -C "$TMP/t" docs.jsonl.zst
for input in docs.jsonl.zst docs.tar; do
    "$WINNOW" ingest -q --stats "$TMP/s.json" "$TMP/$input" > "$TMP/ing" 2> "$TMP/err"
    is "$(grep -o '"out": [0-9]*' "$TMP/s.json")" '"out": 300' "ingest $input: 300 documents"
    python3 -c 'import json,sys
a=[json.loads(l)["text"] for l in open(sys.argv[1])]; b=[json.loads(l)["text"] for l in open(sys.argv[2])]
sys.exit(a != b)' "$TMP/ing" "$TMP/docs.jsonl"
    is "$?" 0 "ingest $input: their texts, in order"
done

done_testing
