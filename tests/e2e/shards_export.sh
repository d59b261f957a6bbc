#!/bin/sh
# Exports to Megatron-LM, llm.c and datatrove, each read back by a small
# reader written here from the format's description, equal to the input ids.
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
require_file "$REF/multi.gpt2.bin.zst" "$REF/multi.cl100k_base.bin.zst"
PY=
for p in /usr/bin/python3 python3; do
    if $p -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
# numpy comes with `make deps` (python3-numpy): without it the readers cannot run, a failure
[ -n "$PY" ] || { is "none" "python3 with numpy" "a python3 that imports numpy"; done_testing; exit 1; }

zstd -dcq "$REF/multi.gpt2.bin.zst" > "$TMP/gpt2.bin"
zstd -dcq "$REF/multi.cl100k_base.bin.zst" > "$TMP/cl.bin"
$WINNOW shard -q -o "$TMP/g" --vocab-size 50257 --tokenizer gpt2 --eos 50256 --shard-tokens 2M --split-docs "$TMP/gpt2.bin"
$WINNOW shard -q -o "$TMP/c" --vocab-size 100277 --tokenizer cl100k_base --eos 100257 --shard-tokens 2M "$TMP/cl.bin"

mkdir "$TMP/out"
ok "megatron export (uint16)" $WINNOW shards export --format megatron "$TMP/g" "$TMP/out/g_mega"
ok "megatron export (int32)" $WINNOW shards export --format megatron "$TMP/c" "$TMP/out/c_mega"
ok "llmc export" $WINNOW shards export --format llmc --shard-tokens 3M "$TMP/g" "$TMP/out/g_llmc"
ok "datatrove export (uint16)" $WINNOW shards export --format datatrove "$TMP/g" "$TMP/out/g_dt"
ok "datatrove export (uint32)" $WINNOW shards export --format datatrove "$TMP/c" "$TMP/out/c_dt"
$WINNOW shards export --format llmc "$TMP/c" "$TMP/out/c_llmc" 2> "$TMP/err"
is $? 1 "llmc refuses a uint32 vocabulary"
grep -q "uint16 ids" "$TMP/err"; is $? 0 "saying why"
ok "and writes nothing" test ! -e "$TMP/out/c_llmc_000000.bin"
$WINNOW shards export --format parquet "$TMP/g" "$TMP/out/x" 2> /dev/null
is $? 1 "an unknown format is a usage error"

cat > "$TMP/read.py" <<'PYEOF'
import glob, struct, sys
import numpy as np
out, tmp = sys.argv[1], sys.argv[2]
def check(name, cond):
    print(("ok" if cond else "not ok") + " - " + name)
def load_stream(path):
    raw = open(path, "rb").read()
    docs, p = [], 0
    while p < len(raw):
        n = struct.unpack_from("<I", raw, p)[0]
        docs.append(np.frombuffer(raw, "<u4", n, p + 4).astype(np.int64))
        p += 4 + 4 * n
    return docs
ref = {"g": (load_stream(tmp + "/gpt2.bin"), 50256), "c": (load_stream(tmp + "/cl.bin"), 100257)}

# Megatron-LM indexed dataset: .idx = "MMIDIDX\0\0", u64 version, u8 dtype code,
# u64 sequence count, u64 document count, int32 sizes, int64 byte pointers, int64 document indices.
for name, (docs, eos) in ref.items():
    idx = open(f"{out}/{name}_mega.idx", "rb").read()
    check(f"megatron {name}: magic", idx[:9] == b"MMIDIDX\x00\x00")
    version, code, nseq, ndoc = struct.unpack_from("<QBQQ", idx, 9)
    check(f"megatron {name}: version 1", version == 1)
    want_code = 8 if name == "g" else 4
    check(f"megatron {name}: dtype code {want_code}", code == want_code)
    dtype = {8: np.uint16, 4: np.int32}[code]
    check(f"megatron {name}: one sequence per document", nseq == len(docs) and ndoc == len(docs) + 1)
    p = 9 + 8 + 1 + 8 + 8
    sizes = np.frombuffer(idx, np.int32, nseq, p); p += 4 * nseq
    pointers = np.frombuffer(idx, np.int64, nseq, p); p += 8 * nseq
    doc_idx = np.frombuffer(idx, np.int64, ndoc, p); p += 8 * ndoc
    check(f"megatron {name}: index size exact", p == len(idx))
    check(f"megatron {name}: document indices 0..n", np.array_equal(doc_idx, np.arange(len(docs) + 1)))
    bin_ = np.fromfile(f"{out}/{name}_mega.bin", dtype=dtype)
    item = np.dtype(dtype).itemsize
    good = all(sizes[i] == len(d) + 1 and np.array_equal(bin_[pointers[i] // item: pointers[i] // item + sizes[i]], np.append(d, eos))
               for i, d in enumerate(docs))
    check(f"megatron {name}: every sequence is its document + EOS", good)
    check(f"megatron {name}: .bin holds nothing else", len(bin_) == sum(len(d) + 1 for d in docs))

# llm.c: int32 header[256] = {20240520, 1, ntok, ...}, then ntok uint16; EOT before each document.
docs, eot = ref["g"]
files = sorted(glob.glob(f"{out}/g_llmc_*.bin"))
stream, sizes_ok, headers_ok = [], True, True
for i, f in enumerate(files):
    data = open(f, "rb").read()
    header = np.frombuffer(data, np.int32, 256)
    headers_ok &= header[0] == 20240520 and header[1] == 1 and not header[3:].any()
    toks = np.frombuffer(data, np.uint16, offset=1024)
    sizes_ok &= len(toks) == header[2] and (i == len(files) - 1 or header[2] == 3000000)
    stream.append(toks)
expected = np.concatenate([np.append(eot, d) for d in docs])
check(f"llmc: {len(files)} files with valid headers", len(files) >= 2 and headers_ok)
check("llmc: 3M tokens per file but the last, header counts exact", sizes_ok)
check("llmc: EOT + document for every document, nothing else", np.array_equal(np.concatenate(stream), expected))

# datatrove: .ds tokens, .ds.index uint64 document end offsets in tokens, .ds.metadata.
for name, (docs, eos) in ref.items():
    dtype = np.uint16 if name == "g" else np.uint32
    toks = np.fromfile(f"{out}/{name}_dt.ds", dtype=dtype)
    ends = np.fromfile(f"{out}/{name}_dt.ds.index", dtype="<u8").astype(np.int64)
    check(f"datatrove {name}: one end offset per document", len(ends) == len(docs) and ends[-1] == len(toks))
    starts = np.concatenate([[0], ends[:-1]])
    check(f"datatrove {name}: every document + EOS", all(np.array_equal(toks[s:e], np.append(d, eos)) for s, e, d in zip(starts, ends, docs)))
    meta = open(f"{out}/{name}_dt.ds.metadata").read().split("\n")
    check(f"datatrove {name}: metadata names tokenizer and count", meta[0] == ("gpt2" if name == "g" else "cl100k_base") and int(meta[1]) == len(toks))
PYEOF
$PY "$TMP/read.py" "$TMP/out" "$TMP" > "$TMP/py.out" 2>&1
is $? 0 "the format readers ran to the end"
while read -r line; do
    case $line in
        "ok - "*) _n=$((_n+1)); echo "ok $_n - ${line#ok - }" ;;
        "not ok - "*) _n=$((_n+1)); _fail=$((_fail+1)); echo "not ok $_n - ${line#not ok - }" ;;
        *) echo "# $line" ;;
    esac
done < "$TMP/py.out"
done_testing
