"""Peers for bench/gpu_tokenize.sh: Python tiktoken encode_ordinary_batch
(16 threads) for cl100k_base and o200k_base built from local .tiktoken files,
and HF tokenizers batch encoding (gpt2 from encoder.json + vocab.bpe), on the
same tokref corpus. Prints markdown table rows.

    python3 gpu_tokenize_peers.py SHARED_DIR EN_CODE_TEXT REPEAT THREADS"""
import json
import os
import sys
import time


shared, text_path, repeat, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
os.environ.setdefault("RAYON_NUM_THREADS", str(threads))
raw = open(text_path, "rb").read()
docs = []
for line in open(f"{shared}/tokref/en_code.idx.tsv"):
    off, length = line.split("\t")[:2]
    docs.append(raw[int(off):int(off) + int(length)].decode("utf-8"))
docs = docs * repeat
mb = len(raw) * repeat / 1e6


def best_of(fn, runs=2):
    best = 1e30
    for _ in range(runs):
        t0 = time.perf_counter()
        n = fn()
        best = min(best, time.perf_counter() - t0)
    return best, n


try:
    import tiktoken
    import tiktoken.load
    from tiktoken_ext import openai_public

    for name in ("cl100k_base", "o200k_base", "r50k_base"):
        local = f"{shared}/vocab/tiktoken/{name}.tiktoken"
        # tiktoken's own constructor (pattern, specials), with the vocabulary from the local file
        openai_public.load_tiktoken_bpe = lambda url, expected_hash=None, _p=local: tiktoken.load.load_tiktoken_bpe(_p)
        enc = tiktoken.Encoding(**getattr(openai_public, name)())
        s, n = best_of(lambda: sum(len(x) for x in enc.encode_ordinary_batch(docs, num_threads=threads)))
        print(f"| {name} | Python tiktoken {tiktoken.__version__} encode_ordinary_batch, {threads} threads | {mb / s:.0f} MB/s | {n} tokens |")
except ImportError as e:
    print(f"| - | Python tiktoken | skipped: {e} | |")

try:
    import tokenizers
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders

    bpe = models.BPE.from_file(f"{shared}/vocab/gpt2/encoder.json", f"{shared}/vocab/gpt2/vocab.bpe")
    tok = Tokenizer(bpe)
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    s, n = best_of(lambda: sum(len(e.ids) for e in tok.encode_batch(docs, add_special_tokens=False)))
    print(f"| r50k_base | HF tokenizers {tokenizers.__version__} encode_batch (gpt2), {threads} threads | {mb / s:.0f} MB/s | {n} tokens |")
except ImportError as e:
    print(f"| r50k_base | HF tokenizers | skipped: {e} | |")
