#!/bin/sh
# `winnow shard`'s output checked field by field against docs/shards.md by an
# independent reader: the manifest, the canonical text of manifest_sha256
# (hashlib), the seek table of zstd's contrib/seekable_format (struct), every
# frame (python-zstandard, which checks zstd's content checksum; libzstd's
# ZSTD_findFrameCompressedSize), the XXH64 and XXH3-64 checksums (libxxhash
# through ctypes), the document index, and where shards and frames end: the
# layout the spec's rules give for the input's document lengths (a frame is
# closed when full, at a shard's end, and before a document that fits in a
# frame but not in what is left of the current one; shards end at document
# boundaries unless --split-docs). Real tiktoken ids (gpt2 uint16, cl100k
# uint32 with --split-docs, bos and eos) and a synthetic stream built to land
# on those boundaries exactly (vocabulary 65536: uint16).
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
VOCAB=$SHARED/vocab
require_file "$REF/multi.cl100k_base.bin.zst" "$REF/multi.gpt2.bin.zst" "$VOCAB/gpt2/encoder.json" \
    "$VOCAB/tiktoken/cl100k_base.tiktoken"
PY=
for p in /usr/bin/python3 python3; do
    if $p -c 'import numpy, zstandard' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "not ok 1 - no python3 with numpy and zstandard"; echo "1..1"; exit 1; }

zstd -dcq "$REF/multi.gpt2.bin.zst" > "$TMP/gpt2.bin"
zstd -dcq "$REF/multi.cl100k_base.bin.zst" > "$TMP/cl.bin"

cat > "$TMP/spec.py" <<'PYEOF'
"""spec.py DIR OPTIONS_JSON STREAM...: checks a shard directory against docs/shards.md."""
import ctypes, ctypes.util, hashlib, json, os, struct, sys
import numpy as np
import zstandard

d, opt, streams = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
xxh = ctypes.CDLL("libxxhash.so.0")
xxh.XXH3_64bits.restype = ctypes.c_uint64
xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
xxh.XXH64.restype = ctypes.c_uint64
xxh.XXH64.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
zstd = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
zstd.ZSTD_findFrameCompressedSize.restype = ctypes.c_size_t
zstd.ZSTD_findFrameCompressedSize.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
xxh3 = lambda b: xxh.XXH3_64bits(b, len(b))

def check(name, cond):
    print(("ok" if cond else "not ok") + " - " + name, flush=True)

# the documents as the writer must store them: bos, ids, eos
docs = []
for path in streams:
    raw = open(path, "rb").read()
    p = 0
    while p < len(raw):
        n = struct.unpack_from("<I", raw, p)[0]
        ids = np.frombuffer(raw, "<u4", n, p + 4)
        docs.append(np.concatenate([[opt["bos"]] if opt["prepend_bos"] else [], ids,
                                    [opt["eos"]] if opt["append_eos"] else []]).astype(np.uint32))
        p += 4 + 4 * n
dtype = np.dtype("<u2") if opt["vocab_size"] <= 65536 else np.dtype("<u4")
stream = np.concatenate(docs).astype(dtype)
F = (1 << 20) // dtype.itemsize          # tokens per full frame
N, split = opt["shard_tokens"], opt["split_docs"]

# where shards and frames end, by the spec's rules
shards, cur = [], None
def open_shard(continues):
    s = {"ends": [], "frames": [], "tokens": 0, "continues": continues, "fill": 0}
    shards.append(s)
    return s
def close_frame(s):
    if s["fill"]:
        s["frames"].append(s["fill"])
        s["fill"] = 0
for doc in docs:
    L = len(doc)
    if cur is not None and cur["tokens"] > 0 and (cur["tokens"] == N if split else cur["tokens"] + L > N):
        close_frame(cur)
        cur = None
    if cur is None:
        cur = open_shard(False)
    piece = min(L, N - cur["tokens"]) if split else L   # what goes into this shard
    if cur["fill"] and cur["fill"] + piece > F and piece <= F:
        close_frame(cur)
    left = L
    while left:
        if split and cur["tokens"] == N:                 # the document goes on in the next shard
            cur["ends"].append(cur["tokens"])
            close_frame(cur)
            cur = open_shard(True)
        k = min(left, F - cur["fill"], N - cur["tokens"] if split else left)
        cur["fill"] += k
        cur["tokens"] += k
        left -= k
        if cur["fill"] == F:
            close_frame(cur)
    cur["ends"].append(cur["tokens"])
if cur is not None:
    close_frame(cur)

m = json.load(open(os.path.join(d, "manifest.json")))
keys = {"format", "version", "tokenizer", "dtype", "special", "eos_appended", "bos_prepended", "split_docs",
        "frame_bytes", "zstd_level", "shard_tokens", "totals", "shards", "manifest_sha256"}
shard_keys = {"file", "index", "tokens", "documents", "compressed_bytes", "xxh3_64", "file_xxh3_64", "continues_document"}
check("manifest: exactly the spec's keys", set(m) == keys and set(m["tokenizer"]) == {"name", "vocab_sha256", "vocab_size"}
      and set(m["special"]) == {"eos", "bos"} and set(m["totals"]) == {"shards", "tokens", "documents", "compressed_bytes"}
      and all(set(s) == shard_keys for s in m["shards"]))
sha = hashlib.sha256(open(opt["vocab"], "rb").read()).hexdigest() if opt.get("vocab") else None
want_head = {"format": "winnow-shards", "version": 1,
             "tokenizer": {"name": opt.get("tokenizer", ""), "vocab_sha256": sha, "vocab_size": opt["vocab_size"]},
             "dtype": "uint16" if dtype.itemsize == 2 else "uint32", "special": {"eos": opt["eos"], "bos": opt["bos"]},
             "eos_appended": opt["append_eos"], "bos_prepended": opt["prepend_bos"], "split_docs": split,
             "frame_bytes": 1 << 20, "zstd_level": opt["level"], "shard_tokens": N}
got_head = {k: m.get(k) for k in want_head}
check("manifest: header fields as given (vocab_sha256 = hashlib's SHA-256 of the vocabulary file)", got_head == want_head)
if got_head != want_head:
    print("got  %s\nwant %s" % (got_head, want_head))
names = ["shard_%05d" % i for i in range(len(shards))]
got_list = [(s["file"], s["index"], s["tokens"], s["documents"], s["continues_document"]) for s in m["shards"]]
want_list = [(n + ".tok.zst", n + ".idx", s["tokens"], len(s["ends"]), s["continues"]) for n, s in zip(names, shards)]
check("manifest: %d shards ending where the spec's rules put them" % len(shards), got_list == want_list)
if got_list != want_list:
    print("got  %s\nwant %s" % (got_list[:6], want_list[:6]))
check("directory: the manifest and exactly the listed files",
      sorted(os.listdir(d)) == sorted(["manifest.json"] + [n + x for n in names for x in (".tok.zst", ".idx")]))

sizes, ok_seek, ok_tile, ok_frames, ok_sums, ok_sizes, ok_tokens, ok_hash, ok_idx, ok_one = [], True, True, True, True, True, True, True, True, True
frames_got, frames_want = [], [s["frames"] for s in shards]
offset = 0
for i, s in enumerate(shards):
    if i >= len(m["shards"]):
        ok_seek = ok_tile = ok_frames = ok_sums = ok_sizes = ok_tokens = ok_hash = ok_idx = False
        break
    e = m["shards"][i]
    data = open(os.path.join(d, names[i] + ".tok.zst"), "rb").read()
    sizes.append(len(data))
    ok_sizes &= e["compressed_bytes"] == len(data)
    # the seek table: a skippable frame at the end (contrib/seekable_format)
    nframes, desc, magic = struct.unpack("<IBI", data[-9:])
    table = 8 + 12 * nframes + 9
    skip_magic, frame_size = struct.unpack_from("<II", data, len(data) - table)
    ok_seek &= magic == 0x8F92EAB1 and desc == 0x80 and skip_magic == 0x184D2A5E and frame_size == 12 * nframes + 9
    entries = [struct.unpack_from("<III", data, len(data) - table + 8 + 12 * k) for k in range(nframes)]
    ok_tile &= sum(c for c, _, _ in entries) == len(data) - table
    content, at = b"", 0
    for c, u, sum32 in entries:
        frame = data[at:at + c]
        ok_one &= zstd.ZSTD_findFrameCompressedSize(frame, len(frame)) == c   # exactly one zstd frame
        params = zstandard.get_frame_parameters(frame)
        ok_frames &= params.content_size == u and params.has_checksum
        plain = zstandard.ZstdDecompressor().decompress(frame)  # checks zstd's content checksum
        ok_frames &= len(plain) == u
        ok_sums &= sum32 == struct.unpack("<I", frame[-4:])[0] == xxh.XXH64(plain, len(plain), 0) & 0xFFFFFFFF
        content += plain
        at += c
    frames_got.append([u // dtype.itemsize for _, u, _ in entries])
    want_tokens = stream[offset:offset + s["tokens"]].tobytes()
    offset += s["tokens"]
    ok_tokens &= content == want_tokens
    ok_hash &= e["xxh3_64"] == "%016x" % xxh3(content) and e["file_xxh3_64"] == "%016x" % xxh3(data)
    # the document index
    idx = open(os.path.join(d, names[i] + ".idx"), "rb").read()
    D = len(s["ends"])
    head = struct.unpack_from("<8sIIQQ", idx, 0)
    ends = list(struct.unpack_from("<%dQ" % D, idx, 32)) if len(idx) == 40 + 8 * D else None
    ok_idx &= (head == (b"WNWDOCS1", 1, 1 if s["continues"] else 0, D, s["tokens"]) and ends == s["ends"]
               and struct.unpack_from("<Q", idx, 32 + 8 * D)[0] == xxh3(idx[:32 + 8 * D]))
check("every shard's compressed_bytes is its file's size", ok_sizes)
check("seek tables: skippable magic, frame size 12 x frames + 9, descriptor 0x80, seekable magic", ok_seek)
check("frames tile each file up to its seek table", ok_tile)
check("each frame is exactly one zstd frame of the table's compressed size", ok_one)
check("each frame records its content size and a checksum, and decompresses to the table's size", ok_frames)
check("seek-table checksums = the frame's own = low 32 bits of XXH64 (libxxhash) of its content", ok_sums)
check("frames close where the spec's rules close them", frames_got == frames_want)
if frames_got != frames_want:
    print("got  %s\nwant %s" % ([f[:6] for f in frames_got[:3]], [f[:6] for f in frames_want[:3]]))
check("the frames hold exactly the input's ids in the manifest's dtype", ok_tokens and offset == len(stream))
check("xxh3_64 / file_xxh3_64 are libxxhash's XXH3-64 of the tokens / of the file", ok_hash)
check("document indexes: magic, version 1, flags, counts, end offsets, XXH3-64 trailer", ok_idx)
check("totals: shards, tokens, whole documents, compressed bytes",
      m["totals"] == {"shards": len(shards), "tokens": len(stream), "documents": len(docs), "compressed_bytes": sum(sizes)})
# manifest_sha256 from the spec's canonical text, built from what the input and the files give
ident = lambda v: "null" if v is None else str(v)
truth = lambda b: "true" if b else "false"
lines = ["winnow-shards 1", "tokenizer " + opt.get("tokenizer", ""), "vocab_sha256 " + ident(sha),
         "vocab_size %d" % opt["vocab_size"], "dtype " + want_head["dtype"],
         "special %s %s" % (ident(opt["eos"]), ident(opt["bos"])),
         "flags %s %s %s" % (truth(opt["append_eos"]), truth(opt["prepend_bos"]), truth(split)),
         "frames %d %d %d" % (1 << 20, opt["level"], N),
         "totals %d %d %d %d" % (len(shards), len(stream), len(docs), sum(sizes))]
offset = 0
for i, s in enumerate(shards):
    data = open(os.path.join(d, names[i] + ".tok.zst"), "rb").read()
    lines.append("shard %s.tok.zst %s.idx %d %d %d %016x %016x %s" % (
        names[i], names[i], s["tokens"], len(s["ends"]), len(data),
        xxh3(stream[offset:offset + s["tokens"]].tobytes()), xxh3(data), truth(s["continues"])))
    offset += s["tokens"]
check("manifest_sha256 is hashlib's SHA-256 of the spec's canonical text",
      m["manifest_sha256"] == hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest())
PYEOF
CHECKS=16
# spec DIR OPTIONS_JSON STREAM...: the checker's points, named after DIR
spec() { name=$(basename "$1"); points $CHECKS "$name" $PY "$TMP/spec.py" "$@"; }

# gpt2 (uint16), whole documents, eos, the vocabulary's hash; written into a
# directory an earlier run with more, smaller shards left behind: its extra
# shards must go
ok "gpt2: an earlier run of 200k-token shards" $WINNOW shard -q -o "$TMP/gpt2" --vocab-size 50257 --eos 50256 \
    --shard-tokens 200k "$TMP/gpt2.bin"
ok "gpt2: shards of 500k tokens into the same directory" $WINNOW shard -q -j2 -o "$TMP/gpt2" --vocab-size 50257 \
    --tokenizer gpt2 --vocab "$VOCAB/gpt2/encoder.json" --eos 50256 --shard-tokens 500k "$TMP/gpt2.bin"
spec "$TMP/gpt2" '{"vocab_size": 50257, "tokenizer": "gpt2", "vocab": "'"$VOCAB/gpt2/encoder.json"'", "eos": 50256,
    "bos": null, "append_eos": true, "prepend_bos": false, "shard_tokens": 500000, "split_docs": false, "level": 1}' \
    "$TMP/gpt2.bin"

# cl100k (uint32), --split-docs, bos and eos, a fast level
ok "cl100k: --split-docs, bos and eos, level -3" $WINNOW shard -q -j2 -o "$TMP/cl100k" --vocab-size 100277 \
    --tokenizer cl100k_base --vocab "$VOCAB/tiktoken/cl100k_base.tiktoken" --eos 100257 --bos 100256 --prepend-bos \
    --split-docs --shard-tokens 777k --level -3 "$TMP/cl.bin"
spec "$TMP/cl100k" '{"vocab_size": 100277, "tokenizer": "cl100k_base", "vocab": "'"$VOCAB/tiktoken/cl100k_base.tiktoken"'",
    "eos": 100257, "bos": 100256, "append_eos": true, "prepend_bos": true, "shard_tokens": 777000, "split_docs": true,
    "level": -3}' "$TMP/cl.bin"

# Synthetic documents on the boundaries (vocabulary 65536: uint16, F = 524288
# tokens a frame; eos id 0), in two files: a document that fills exactly the
# rest of a frame, one of exactly F tokens after a partial frame, one of F + 1,
# one that fills the shard to exactly --shard-tokens, then small ones.
$PY -c 'import struct, sys
F = 1 << 19
def doc(out, total, seed):   # total tokens with the eos
    n = total - 1
    ids = [(seed * 7919 + k * 31) % 65536 for k in range(n)]
    if n: ids[-1] = 65535
    out.write(struct.pack("<I", n) + struct.pack("<%dI" % n, *ids))
with open(sys.argv[1], "wb") as a:
    for i, total in enumerate([300001, F - 300001, 11, F]): doc(a, total, i)
with open(sys.argv[2], "wb") as b:
    for i, total in enumerate([F + 1, 1000] + [5, 1, 77, 3000] * 3): doc(b, total, 10 + i)' "$TMP/edge_a.bin" "$TMP/edge_b.bin"
# shard 0: F (two documents) + 11 + F + (F + 1) + 1000 = --shard-tokens
edge_n=$((3 * 524288 + 11 + 1 + 1000))
ok "edge: vocabulary 65536, eos 0, two input files" $WINNOW shard -q -o "$TMP/edge" --vocab-size 65536 --eos 0 \
    --shard-tokens $edge_n "$TMP/edge_a.bin" "$TMP/edge_b.bin"
spec "$TMP/edge" '{"vocab_size": 65536, "eos": 0, "bos": null, "append_eos": true, "prepend_bos": false,
    "shard_tokens": '$edge_n', "split_docs": false, "level": 1}' "$TMP/edge_a.bin" "$TMP/edge_b.bin"
is "$(grep -c '"file"' "$TMP/edge/manifest.json")" 2 "edge: two shards, the first filled exactly"

# an input that cannot be opened: named, and the run exits 2 (the others are still written)
$WINNOW shard -q -o "$TMP/missing" --vocab-size 65536 --eos 0 "$TMP/edge_a.bin" "$TMP/nothere.bin" \
    "$TMP/edge_b.bin" 2> "$TMP/missing.err"
is $? 2 "a missing input file exits 2"
grep -q "nothere.bin" "$TMP/missing.err"; is $? 0 "the message names the missing file"
grep -q '"totals": {"shards": 1, "tokens": [0-9]*, "documents": 18,' "$TMP/missing/manifest.json"
is $? 0 "the other two files' 18 documents are written"
# a vocabulary that cannot be read is refused, not hashed as far as it was read
$WINNOW shard -q -o "$TMP/vocdir" --vocab-size 65536 --vocab "$TMP" "$TMP/edge_a.bin" 2> "$TMP/vocdir.err"
is $? 1 "--vocab naming a directory is a usage error"
grep -q "cannot take the vocabulary's SHA-256" "$TMP/vocdir.err"; is $? 0 "saying the vocabulary cannot be hashed"
ok "no manifest written for it" test ! -e "$TMP/vocdir/manifest.json"
# --vocab-sha256 is exactly 64 lowercase hex digits: not more, not fewer, not upper case
sha=$($PY -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$VOCAB/gpt2/encoder.json")
upper=$(echo "$sha" | tr a-f A-F)
for bad in "${sha}zz" "${sha}0" "${sha%?}" "$upper"; do
    $WINNOW shard -q -o "$TMP/badsha" --vocab-size 65536 --vocab-sha256 "$bad" "$TMP/edge_a.bin" 2> "$TMP/badsha.err"
    is "$? $(grep -c '64 lowercase hex digits' "$TMP/badsha.err")" "1 1" "--vocab-sha256 '$bad' refused"
done
ok "--vocab-sha256 of the 64 digits is taken" $WINNOW shard -q -o "$TMP/goodsha" --vocab-size 65536 --vocab-sha256 "$sha" \
    "$TMP/edge_a.bin"
grep -q "\"vocab_sha256\": \"$sha\"" "$TMP/goodsha/manifest.json"; is $? 0 "and recorded as given"
done_testing
