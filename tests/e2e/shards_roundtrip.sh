#!/bin/sh
# Real tiktoken ids through `winnow shard`, back out through cat, zstd -d,
# the Python reader; byte-identical output for any -j.
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
require_file "$REF/multi.cl100k_base.bin.zst" "$REF/multi.gpt2.bin.zst"
# numpy and zstandard come with `make deps` (python3-numpy, python3-zstandard)
PY=
for p in /usr/bin/python3 python3; do
    if $p -c 'import numpy, zstandard' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { is "none" "python3 with numpy and zstandard" "a python3 that imports numpy and zstandard"; done_testing; exit 1; }
PYDIR=$(cd "$(dirname "$0")/../../shards/python" && pwd)

zstd -dcq "$REF/multi.cl100k_base.bin.zst" > "$TMP/cl100k.bin"
zstd -dcq "$REF/multi.gpt2.bin.zst" > "$TMP/gpt2.bin"

# cl100k_base: uint32, whole documents, EOS appended
ok "shard cl100k (-j2)" $WINNOW shard -q -j2 -o "$TMP/cl" --vocab-size 100277 --tokenizer cl100k_base \
    --eos 100257 --shard-tokens 1500k --stats "$TMP/cl.stats" "$TMP/cl100k.bin"
ok "shard cl100k again (-j1)" $WINNOW shard -q -j1 -o "$TMP/cl1" --vocab-size 100277 --tokenizer cl100k_base \
    --eos 100257 --shard-tokens 1500k "$TMP/cl100k.bin"
same=yes
for f in "$TMP"/cl/*; do cmp -s "$f" "$TMP/cl1/$(basename "$f")" || same=no; done
is "$same" yes "-j1 and -j2 write byte-identical files"
is "$(ls "$TMP/cl" | wc -l | tr -d ' ')" "$(ls "$TMP/cl1" | wc -l | tr -d ' ')" "same number of files"
is "$(grep -o '"out": *[0-9]*' "$TMP/cl.stats" | tr -d ' ')" '"out":1865' "stats: 1865 documents out"
ok "verify passes" $WINNOW shards verify "$TMP/cl"
$WINNOW shards cat "$TMP/cl" --format bin --strip > "$TMP/cl.back"
ok "cat --format bin --strip gives back the input stream" cmp "$TMP/cl100k.bin" "$TMP/cl.back"
grep -q '"dtype": "uint32"' "$TMP/cl/manifest.json"; is $? 0 "cl100k stored as uint32"
nshards=$(ls "$TMP"/cl/*.tok.zst | wc -l | tr -d ' ')
ok "several shards ($nshards)" test "$nshards" -gt 2
grep -q '"zstd_level": 1,' "$TMP/cl/manifest.json"; is $? 0 "default zstd level 1, recorded in the manifest"

# a negative (fast) zstd level: standard frames all the same, the level recorded as it is
ok "shard cl100k --level -5" $WINNOW shard -q -j2 --level -5 -o "$TMP/cln" --vocab-size 100277 --tokenizer cl100k_base \
    --eos 100257 --shard-tokens 1500k "$TMP/cl100k.bin"
grep -q '"zstd_level": -5,' "$TMP/cln/manifest.json"; is $? 0 "level -5 recorded in the manifest"
ok "verify passes (level -5)" $WINNOW shards verify "$TMP/cln"
$WINNOW shards cat "$TMP/cln" --format bin --strip > "$TMP/cln.back"
ok "level -5: cat gives back the input stream" cmp "$TMP/cl100k.bin" "$TMP/cln.back"
ok "level -5 frames are larger than level 1's" test "$(cat "$TMP"/cln/*.tok.zst | wc -c)" -gt "$(cat "$TMP"/cl/*.tok.zst | wc -c)"
for level in 0 23 x -1x; do
    $WINNOW shard -q --level=$level -o "$TMP/bad" --vocab-size 100277 "$TMP/cl100k.bin" 2> "$TMP/level.err"
    is $? 1 "--level $level is a usage error (exit 1)"
    grep -q -- "--level wants tlz, 1..22, or a negative level" "$TMP/level.err"; is $? 0 "--level $level: the message says what is wanted"
done

# gpt2: uint16, documents split across shards
ok "shard gpt2 --split-docs" $WINNOW shard -q -o "$TMP/g" --vocab-size 50257 --tokenizer gpt2 --eos 50256 \
    --split-docs --shard-tokens 777k "$TMP/gpt2.bin"
grep -q '"dtype": "uint16"' "$TMP/g/manifest.json"; is $? 0 "gpt2 stored as uint16"
$WINNOW shards cat "$TMP/g" --format bin --strip > "$TMP/g.back"
ok "split shards give back the input stream" cmp "$TMP/gpt2.bin" "$TMP/g.back"
ok "verify passes (split)" $WINNOW shards verify "$TMP/g"

# counts take k = 1000 (README: "k/M/G suffixes", the SI prefixes)
grep -q '"shard_tokens": 777000,' "$TMP/g/manifest.json"; is $? 0 "--shard-tokens 777k is 777000 tokens"
# --bos ID goes to the bos field, --eos ID to the eos field: each document
# begins with the bos and ends with the eos, and --strip gives the input back
ok "shard gpt2 --eos 50256 --bos 50255 --prepend-bos" $WINNOW shard -q -o "$TMP/be" --vocab-size 50257 \
    --eos 50256 --bos 50255 --prepend-bos "$TMP/gpt2.bin"
is "$($WINNOW shards cat "$TMP/be" --count 2 | awk '{printf "%s %s;", $1, $NF}')" "50255 50256;50255 50256;" \
    "the first two documents begin with bos 50255 and end with eos 50256"
grep -q '"eos": 50256, "bos": 50255' "$TMP/be/manifest.json"; is $? 0 "the manifest names eos 50256 and bos 50255"
$WINNOW shards cat "$TMP/be" --format bin --strip > "$TMP/be.back"
ok "--strip leaves out both and gives back the input stream" cmp "$TMP/gpt2.bin" "$TMP/be.back"

# --eos ID --no-append-eos: the eos is recorded, not appended; cat gives the input back unstripped
ok "shard gpt2 --eos 50256 --no-append-eos" $WINNOW shard -q -o "$TMP/ne" --vocab-size 50257 --eos 50256 \
    --no-append-eos "$TMP/gpt2.bin"
grep -q '"eos": 50256, "bos": null},' "$TMP/ne/manifest.json" && grep -q '"eos_appended": false,' "$TMP/ne/manifest.json"
is $? 0 "the manifest records eos 50256, not appended"
$WINNOW shards cat "$TMP/ne" --format bin > "$TMP/ne.back"
ok "--no-append-eos: cat without --strip gives back the input stream" cmp "$TMP/gpt2.bin" "$TMP/ne.back"

# --first/--count, the ids text format
$WINNOW shards cat "$TMP/g" --first 1864 --count 5 > "$TMP/last.txt"
is "$(wc -l < "$TMP/last.txt" | tr -d ' ')" 1 "cat --first 1864 of 1865 documents gives one line"
is "$(awk '{print $NF}' "$TMP/last.txt")" 50256 "ids format keeps the appended EOS"

# a damaged stream: the last document cut short is counted as failed
head -c 1000000 "$TMP/gpt2.bin" > "$TMP/cut.bin"
$WINNOW shard -q -o "$TMP/cut" --vocab-size 50257 --stats "$TMP/cut.stats" "$TMP/cut.bin" 2> "$TMP/cut.err"
is $? 2 "a truncated stream exits 2"
grep -q '"truncated": *1' "$TMP/cut.stats"; is $? 0 "truncated document counted in stats"
grep -q 'stream ends inside the document' "$TMP/cut.err"; is $? 0 "truncation reported with its position"
# every document whose header begins in the cut stream is counted in: the whole ones out, the cut one failed
stat_of() { grep -o "\"$1\": *[0-9]*" "$2" | head -1 | grep -o '[0-9]*$'; }
heads=$($PY -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
p = n = 0
while p < len(d):
    n += 1
    p += 4 + 4 * struct.unpack_from("<I", d, p)[0] if p + 4 <= len(d) else len(d)
print(n)' "$TMP/cut.bin")
is "$(stat_of in "$TMP/cut.stats") $(stat_of out "$TMP/cut.stats") $(stat_of failed "$TMP/cut.stats")" "$heads $((heads - 1)) 1" \
    "truncated stream: in = the $heads document headers, out = the whole ones, 1 failed"
# ids outside the vocabulary: reported, counted, skipped
$WINNOW shard -q -o "$TMP/small" --vocab-size 50000 --stats "$TMP/small.stats" "$TMP/gpt2.bin" 2> "$TMP/small.err"
in=$(grep -o '"in": *[0-9]*' "$TMP/small.stats" | grep -o '[0-9]*$')
out=$(grep -o '"out": *[0-9]*' "$TMP/small.stats" | grep -o '[0-9]*$')
bad=$(grep -o '"bad_id": *[0-9]*' "$TMP/small.stats" | grep -o '[0-9]*$')
is "$in" 1865 "bad ids: every document counted in"
is "$((out + bad))" 1865 "bad ids: in == out + failed"
ok "bad ids: some documents refused ($bad)" test "${bad:-0}" -gt 0
grep -q 'not below the vocabulary size 50000' "$TMP/small.err"; is $? 0 "bad id reported"

# zstd -d of each shard is exactly the raw little-endian id array; the Python reader agrees.
cat > "$TMP/check.py" <<'PYEOF'
import struct, subprocess, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from winnow_shards import ShardReader
stream, directory, dtype, eos = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
raw = open(stream, "rb").read()
docs, p = [], 0
while p < len(raw):
    n = struct.unpack_from("<I", raw, p)[0]
    docs.append(np.frombuffer(raw, "<u4", n, p + 4))
    p += 4 + 4 * n
def check(name, cond):
    print(("ok" if cond else "not ok") + " - " + name)
expected = np.concatenate([np.append(d, eos) for d in docs]).astype(dtype)
r = ShardReader(directory)
shards = [s["file"] for s in r.manifest["shards"]]
dec = b"".join(subprocess.run(["zstd", "-dcq", directory + "/" + f], check=True, capture_output=True).stdout for f in shards)
check("zstd -d of the shards is the raw %s id array" % dtype, dec == expected.tobytes())
check("python: token count", r.num_tokens == len(expected) and r.num_documents == len(docs))
check("python: every document", all(np.array_equal(r.document(i)[:-1], d) and r.document(i)[-1] == eos for i, d in enumerate(docs)))
rng = np.random.default_rng(7)
check("python: 500 random documents", all(np.array_equal(r.document(int(i))[:-1], docs[int(i)]) for i in rng.integers(0, len(docs), 500)))
ok = True
for _ in range(200):
    a = int(rng.integers(0, len(expected))); b = min(len(expected), a + int(rng.integers(0, 3000000)))
    ok &= np.array_equal(r.tokens(a, b), expected[a:b])
check("python: 200 random token ranges", ok)
seq = 4096
order = r.window_order(seq, seed=5)
check("python: window order is a permutation", sorted(order.tolist()) == list(range(r.num_windows(seq))))
check("python: same seed, same order", np.array_equal(order, r.window_order(seq, seed=5)))
check("python: other seed, other order", not np.array_equal(order, r.window_order(seq, seed=6)))
ws = list(r.windows(seq, seed=5))
check("python: windows hold seq_len + 1 tokens", all(len(w) == seq + 1 for w in ws))
check("python: windows are the token stream", all(np.array_equal(w, expected[k * seq:k * seq + seq + 1]) for k, w in zip(order[:50], ws[:50])))
parts = [r.window_order(seq, 5, rank=k, world_size=3) for k in range(3)]
check("python: ranks split the windows", sorted(np.concatenate(parts).tolist()) == sorted(order.tolist()))
PYEOF
for run in "cl uint32 100257 cl100k" "cln uint32 100257 cl100k" "g uint16 50256 gpt2"; do
    set -- $run
    points 11 "$1" $PY "$TMP/check.py" "$PYDIR" "$TMP/$4.bin" "$TMP/$1" "$2" "$3"
done
done_testing
