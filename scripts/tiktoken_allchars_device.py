#!/usr/bin/env python3
"""tiktoken_allchars_device.py - runs where Python tiktoken is (the GPU
machine): every Unicode scalar value U+0001..U+10FFFF but surrogates, each in
a few contexts that put its pre-tokenizer class to work (after a letter,
before a digit, between spaces, after an apostrophe, doubled, after a
capital), as documents of 256 code points; tiktoken's encode_ordinary
against `winnow tokenize --encoding NAME --vocab FILE --format bin --no-eos`
for r50k_base, cl100k_base and o200k_base. Prints per encoding the documents
that differ and, for those, the code points whose own one-character
document differs (U+XXXX and its general category).
  usage: python3 tiktoken_allchars_device.py WINNOW VOCAB_DIR"""
import json, struct, subprocess, sys, tempfile, unicodedata

import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public

winnow, vocab_dir = sys.argv[1], sys.argv[2]
print("tiktoken", tiktoken.__version__, "; Python unicodedata", unicodedata.unidata_version)


def contexts(c):
    return "a%s1 %s b'%s%s%sX%s\n" % (c, c, c, c, c, c)


cps = [c for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]
docs = ["".join(contexts(chr(c)) for c in cps[i:i + 256]) for i in range(0, len(cps), 256)]


def winnow_ids(name, texts):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as f:
        for t in texts:
            f.write(json.dumps({"text": t}, ensure_ascii=False) + "\n")
    out = subprocess.run([winnow, "tokenize", "-q", "-j16", "--device", "cpu", "--encoding", name, "--vocab",
                          "%s/%s.tiktoken" % (vocab_dir, name), "--format", "bin", "--no-eos", f.name],
                         capture_output=True, check=True).stdout
    got, at = [], 0
    while at < len(out):
        (n,) = struct.unpack_from("<I", out, at)
        got.append(list(struct.unpack_from("<%dI" % n, out, at + 4)))
        at += 4 + 4 * n
    return got


for name in ("r50k_base", "cl100k_base", "o200k_base"):
    local = "%s/%s.tiktoken" % (vocab_dir, name)
    openai_public.load_tiktoken_bpe = lambda url, expected_hash=None, _p=local: tiktoken.load.load_tiktoken_bpe(_p)
    enc = tiktoken.Encoding(**getattr(openai_public, name)())
    want = enc.encode_ordinary_batch(docs, num_threads=16)
    got = winnow_ids(name, docs)
    bad = [i for i in range(len(docs)) if got[i] != want[i]]
    print("%s: %d documents (%d code points), %d differ" % (name, len(docs), len(cps), len(bad)))
    if not bad:
        continue
    singles = [c for i in bad for c in cps[i * 256:(i + 1) * 256]]
    texts = [contexts(chr(c)) for c in singles]
    got1, want1 = winnow_ids(name, texts), enc.encode_ordinary_batch(texts, num_threads=16)
    diff = [c for c, g, w in zip(singles, got1, want1) if g != w]
    print("  %d code points differ on their own: %s" % (len(diff), " ".join(
        "U+%04X(%s)" % (c, unicodedata.category(chr(c))) for c in diff[:60])))
