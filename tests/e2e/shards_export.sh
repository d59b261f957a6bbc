#!/bin/sh
# Exports to Megatron-LM, llm.c and datatrove, each read back the way the
# consumer's own code reads it, field by field from that code (not from our docs):
#   Megatron-LM  megatron/core/datasets/indexed_dataset.py, _IndexReader.__init__ and
#                IndexedDatasetBuilder.add_document as tools/preprocess_data.py --append-eod
#                drives it (Encoder.encode: an empty document gives no sequence, no EOD);
#                DType.optimal_dtype (uint16 below 65500 ids, else int32)
#   llm.c        llmc/dataloader.h (int header[256]: magic 20240520, version 1, ntok; uint16),
#                train_llama3.py _load_data_shard (magic 20240801, version 7; uint32),
#                dev/data/fineweb.py shard names (NAME_val_000000.bin, NAME_train_%06d.bin)
#   datatrove    pipeline/tokens/merger.py DocumentTokenizerMerger.run (metadata first line
#                "name|token_size"), tokenizer.py TokenizedFile.write_final_metadata (three
#                lines, no final newline; the third humanize.metric(count, "T")),
#                utils/dataset.py DatatroveFileDataset (uint16 or uint32 by token_size)
# on the tokref corpus plus empty and one-token documents, gpt2 (uint16) and cl100k (uint32).
. "$(dirname "$0")/../lib.sh"
REF=$SHARED/tokref
require_file "$REF/multi.gpt2.bin.zst" "$REF/multi.cl100k_base.bin.zst"
PY=
for p in /usr/bin/python3 python3; do
    if $p -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
# numpy comes with `make deps` (python3-numpy): without it the readers cannot run, a failure
[ -n "$PY" ] || { is "none" "python3 with numpy" "a python3 that imports numpy"; done_testing; exit 1; }

# The token streams: an empty and a one-token document first, the tokref documents,
# then more empty and one-token documents (the last document is empty).
cat > "$TMP/make.py" <<'PYEOF'
import struct, sys
import numpy as np
src, dst, one = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(src, "rb").read()
docs, p = [], 0
while p < len(raw):
    n = struct.unpack_from("<I", raw, p)[0]
    docs.append(list(np.frombuffer(raw, "<u4", n, p + 4)))
    p += 4 + 4 * n
docs = [[], [one]] + docs + [[one], [], [], [7], []]
with open(dst, "wb") as f:
    for d in docs:
        f.write(struct.pack("<I", len(d)) + struct.pack("<%dI" % len(d), *d))
PYEOF
zstd -dcq "$REF/multi.gpt2.bin.zst" > "$TMP/gpt2.ref" || { ok "tokref data in $SHARED" false; done_testing; exit 1; }
zstd -dcq "$REF/multi.cl100k_base.bin.zst" > "$TMP/cl.ref"
$PY "$TMP/make.py" "$TMP/gpt2.ref" "$TMP/gpt2.bin" 50000
$PY "$TMP/make.py" "$TMP/cl.ref" "$TMP/cl.bin" 100000
$WINNOW shard -q -o "$TMP/g" --vocab-size 50257 --tokenizer gpt2 --eos 50256 --shard-tokens 2M --split-docs "$TMP/gpt2.bin"
$WINNOW shard -q -o "$TMP/c" --vocab-size 100277 --tokenizer cl100k_base --eos 100257 --shard-tokens 2M "$TMP/cl.bin"

mkdir "$TMP/out"
ok "megatron export (uint16)" $WINNOW shards export --format megatron "$TMP/g" "$TMP/out/g_mega"
ok "megatron export (int32)" $WINNOW shards export --format megatron "$TMP/c" "$TMP/out/c_mega"
ok "llmc export (uint16, version 1)" $WINNOW shards export --format llmc --shard-tokens 3M "$TMP/g" "$TMP/out/g_llmc"
ok "llmc export (uint32, version 7)" $WINNOW shards export --format llmc --shard-tokens 3M --val-tokens 1M "$TMP/c" "$TMP/out/c_llmc"
ok "llmc export without a validation file" $WINNOW shards export --format llmc --shard-tokens 4M --val-tokens 0 "$TMP/g" "$TMP/out/n_llmc"
ok "llmc export with --eot 50255 (not the manifest's eos)" $WINNOW shards export --format llmc --shard-tokens 3M --eot 50255 "$TMP/g" "$TMP/out/e_llmc"
ok "datatrove export (uint16)" $WINNOW shards export --format datatrove "$TMP/g" "$TMP/out/g_dt"
ok "datatrove export (uint32)" $WINNOW shards export --format datatrove "$TMP/c" "$TMP/out/c_dt"
# DType.optimal_dtype(cardinality) (megatron/core/datasets/indexed_dataset.py):
# "if cardinality is not None and cardinality < 65500: return numpy.uint16", else
# numpy.int32: a vocabulary of 65499 gives uint16 (code 8), one of exactly 65500 int32 (code 4)
for v in 65499 65500; do
    $WINNOW shard -q -o "$TMP/v$v" --vocab-size $v --tokenizer gpt2 --eos 50256 "$TMP/gpt2.bin"
    $WINNOW shards export --format megatron "$TMP/v$v" "$TMP/out/v${v}_mega"
done
dtype_code() { od -An -tu1 -j17 -N1 "$1" | tr -d ' '; }
is "$(dtype_code "$TMP/out/v65499_mega.idx"):$(dtype_code "$TMP/out/v65500_mega.idx")" "8:4" \
    "megatron: vocabulary 65499 gives dtype code 8 (uint16), 65500 code 4 (int32), as optimal_dtype"
ok "megatron: vocabulary 65499 writes the same uint16 .bin as gpt2's 50257" cmp "$TMP/out/v65499_mega.bin" "$TMP/out/g_mega.bin"
is "$(wc -c < "$TMP/out/v65500_mega.bin")" "$(($(wc -c < "$TMP/out/g_mega.bin") * 2))" \
    "megatron: vocabulary 65500 writes 4-byte ids (twice the uint16 .bin)"
$WINNOW shards export --format parquet "$TMP/g" "$TMP/out/x" 2> /dev/null
is $? 1 "an unknown format is a usage error"

cat > "$TMP/read.py" <<'PYEOF'
import glob, math, os, struct, sys
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
# name -> (documents as tokenized, eos, vocabulary size, tokenizer name)
ref = {"g": (load_stream(tmp + "/gpt2.bin"), 50256, 50257, "gpt2"),
       "c": (load_stream(tmp + "/cl.bin"), 100257, 100277, "cl100k_base")}
for name, (docs, _, _, _) in ref.items():
    check(f"{name}: the input has empty and one-token documents, the last one empty",
          len(docs[0]) == 0 and len(docs[1]) == 1 and len(docs[-1]) == 0 and len(docs) > 1000)

# --- Megatron-LM: what preprocess_data.py --append-eod writes through IndexedDatasetBuilder.
# Encoder.encode: doc_ids = tokens; if len(doc_ids) > 0 and append_eod: append eod; sentence_lens[-1] += 1
# add_document(doc_ids, sentence_lens): data_file.write; sequence_lengths.extend(lens);
#   document_indices.append(len(sequence_lengths))   (document_indices starts as [0])
# _IndexReader: header "MMIDIDX\x00\x00", <Q version, <B dtype code, <Q sequence_count,
#   <Q document_count, int32 sequence_lengths[sequence_count], int64 sequence_pointers[sequence_count],
#   int64 document_indices[document_count]. DType codes: 4 int32, 8 uint16.
for name, (docs, eos, vocab, _) in ref.items():
    seq_lens, doc_indices, data = [], [0], []
    for d in docs:
        ids = list(d)
        lens = [len(ids)] if ids else []
        if ids:
            ids.append(eos)
            lens[-1] += 1
        data.extend(ids)
        seq_lens.extend(lens)
        doc_indices.append(len(seq_lens))
    want_dtype = np.uint16 if vocab < 65500 else np.int32   # DType.optimal_dtype(vocab_size)
    want_code = {np.uint16: 8, np.int32: 4}[want_dtype]
    want_ptrs = np.concatenate([[0], np.cumsum(seq_lens)[:-1]]) * np.dtype(want_dtype).itemsize
    idx = open(f"{out}/{name}_mega.idx", "rb").read()
    check(f"megatron {name}: header", idx[:9] == b"MMIDIDX\x00\x00")
    version = struct.unpack("<Q", idx[9:17])[0]
    code = struct.unpack("<B", idx[17:18])[0]
    seq_count = struct.unpack("<Q", idx[18:26])[0]
    doc_count = struct.unpack("<Q", idx[26:34])[0]
    off = 34
    lengths = np.frombuffer(idx, np.int32, seq_count, off); off += lengths.nbytes
    pointers = np.frombuffer(idx, np.int64, seq_count, off); off += pointers.nbytes
    indices = np.frombuffer(idx, np.int64, doc_count, off); off += indices.nbytes
    check(f"megatron {name}: version 1, dtype code {want_code}", version == 1 and code == want_code)
    check(f"megatron {name}: no sequence for an empty document",
          seq_count == sum(1 for d in docs if len(d)) and doc_count == len(docs) + 1)
    check(f"megatron {name}: .idx is exactly the builder's", off == len(idx) and
          np.array_equal(lengths, seq_lens) and np.array_equal(pointers, want_ptrs) and np.array_equal(indices, doc_indices))
    binary = open(f"{out}/{name}_mega.bin", "rb").read()
    check(f"megatron {name}: .bin is exactly the builder's", binary == np.array(data, dtype=want_dtype).tobytes())

# --- llm.c: dev/data/fineweb.py: tokens = [eot] + encode(doc) per document, shards of shard_size
# tokens (a document cut where a shard fills), split = "val" if shard_index == 0 else "train",
# f"{name}_{split}_{shard_index:06d}.bin"; write_datafile: int32 header[256], header[0] magic,
# header[1] version, header[2] = len(toks); gpt-2 (20240520, 1, uint16), llama-3 (20240801, 7, uint32).
def llmc_read_v1(path):       # llmc/dataloader.h: fread(header, sizeof(int), 256); checks; uint16 tokens
    data = open(path, "rb").read()
    header = struct.unpack("<256i", data[:1024])
    ok = header[0] == 20240520 and header[1] == 1 and len(data) == 1024 + 2 * header[2]
    return ok, np.frombuffer(data, np.uint16, offset=1024), header
def llmc_read_v7(path):       # train_llama3.py _peek_data_shard / _load_data_shard
    with open(path, "rb") as f:
        header = np.frombuffer(f.read(256 * 4), dtype=np.int32)
        ok = header[0] == 20240801 and header[1] == 7
        tokens = np.frombuffer(f.read(), dtype=np.uint32)
    return ok and len(tokens) == header[2], tokens, header
def llmc_check(prefix, docs, eot, shard_size, val_size, reader, label):
    want = np.concatenate([np.append(eot, d) for d in docs])
    files = sorted(glob.glob(f"{out}/{prefix}_*.bin"), key=lambda f: f[-10:])  # by shard index
    names = [os.path.basename(f) for f in files]
    want_names, got, headers_ok, zero_ok = [], [], True, True
    for f in files:
        ok, toks, header = reader(f)
        headers_ok &= ok
        zero_ok &= not any(header[3:])
        got.append(toks)
    pos, k = 0, (0 if val_size else 1)
    while pos < len(want):
        size = val_size if k == 0 else shard_size
        want_names.append(f"{prefix}_{'val' if k == 0 else 'train'}_{k:06d}.bin")
        pos += size
        k += 1
    check(f"llmc {label}: file names {want_names[0]}, {want_names[1]}, ... as fineweb.py's", names == want_names)
    check(f"llmc {label}: magic, version and token count of every header", headers_ok and zero_ok)
    lens_ok = all(len(g) == (val_size if i == 0 and val_size else shard_size) for i, g in enumerate(got[:-1]))
    check(f"llmc {label}: every file full but the last", lens_ok)
    check(f"llmc {label}: EOT + document for every document, nothing else", np.array_equal(np.concatenate(got) if got else [], want))
docs, eot, _, _ = ref["g"]
llmc_check("g_llmc", docs, eot, 3000000, 3000000, llmc_read_v1, "gpt2 v1")
llmc_check("n_llmc", docs, eot, 4000000, 0, llmc_read_v1, "gpt2 v1 --val-tokens 0")
llmc_check("e_llmc", docs, 50255, 3000000, 3000000, llmc_read_v1, "gpt2 v1 --eot 50255")
docs, eot, _, _ = ref["c"]
llmc_check("c_llmc", docs, eot, 3000000, 1000000, llmc_read_v7, "cl100k v7")

# --- datatrove: DocumentTokenizerMerger reads f.read().splitlines()[0] and splits it at "|" for
# the token size; DatatroveFileDataset reads np.uint16 if token_size == 2 else np.uint32;
# .ds.index is uint64 document ends in tokens (load_doc_ends). write_final_metadata writes
# "\n".join([name + "|" + str(token_size), str(count), humanize.metric(count, unit="T")]).
def humanize_metric(value, unit, precision=3):   # humanize.number.metric
    exponent = int(math.floor(math.log10(abs(value)))) if value != 0 else 0
    value /= 10 ** (exponent // 3 * 3)
    ordinal = "kMGTPEZYRQ"[exponent // 3 - 1] if exponent >= 3 else ""
    value_ = format(value, f".{int(max(0, precision - exponent % 3 - 1))}f")
    return f"{value_} {ordinal}{unit}"
check("humanize.metric as its docs say", humanize_metric(1500, "V") == "1.50 kV" and humanize_metric(2e8, "W") == "200 MW")
for name, (docs, eos, vocab, tok) in ref.items():
    text = open(f"{out}/{name}_dt.ds.metadata", "rt").read()
    first = text.splitlines()[0]
    check(f"datatrove {name}: metadata first line has '|token_size'", "|" in first)
    tokenizer_name, token_size = first.split("|") if "|" in first else (first, "2")
    token_size = int(token_size)
    want_size = 2 if vocab <= 65536 else 4
    toks = np.fromfile(f"{out}/{name}_dt.ds", np.uint16 if token_size == 2 else np.uint32)
    ends = np.frombuffer(open(f"{out}/{name}_dt.ds.index", "rb").read(), dtype=np.uint64).astype(int)
    check(f"datatrove {name}: name {tok}, token size {want_size}", tokenizer_name == tok and token_size == want_size)
    check(f"datatrove {name}: metadata is exactly the three lines", text == "\n".join(
        [f"{tok}|{want_size}", str(len(toks)), humanize_metric(len(toks), "T")]))
    check(f"datatrove {name}: one end offset per document", len(ends) == len(docs) and ends[-1] == len(toks))
    starts = np.concatenate([[0], ends[:-1]])
    check(f"datatrove {name}: every document + EOS", all(np.array_equal(toks[s:e], np.append(d, eos)) for s, e, d in zip(starts, ends, docs)))
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
