#!/usr/bin/env python3
"""tokenize_hf_variants.py - scripts/tokenize_hf_variants.js in Python, for
a machine with Python's tokenizers (pip install tokenizers) and no Node:
the reference ids of tests/data/hf/variants.tsv, edge_variants.tsv and
normalizer_variants.tsv, each variant one of the real tokenizer.json files
of SHARED/vocab/hf with the listed edits (PATH=JSON replaces or adds a
member, +PATH=JSON appends to an array, -PATH removes a member: as
scripts/hf_json_edit.js and tests/unit/json_edit.h), encoded by Hugging
Face tokenizers itself (Tokenizer.from_str, encode(text,
add_special_tokens=False)) over the texts tests/unit/tokenize_hf_variants.c
uses: for variants.tsv every blns string, the first 30 edge documents and
every 200th multi document; for edge_variants.tsv the strings of
tests/data/hf/edge_texts.json, for normalizer_variants.tsv those of
tests/data/hf/normalizer_texts.json. Writes tests/data/hf/NAME.bin.zst
(per text: u32 count, then u32 ids, LE). Needs a zstd binary ($ZSTD, else
zstd on PATH).

usage: python3 scripts/tokenize_hf_variants.py SHARED [NAME...]   (NAMEs: only those)
Run from the repository root."""
import json
import os
import struct
import subprocess
import sys

from tokenizers import Tokenizer

EDGE_DOCS, MULTI_STRIDE = 30, 200
ZSTD = os.environ.get("ZSTD", "zstd")


def unzstd(path):
    return subprocess.run([ZSTD, "-dcq", path], check=True, stdout=subprocess.PIPE).stdout


def corpus(shared, name):
    text = unzstd(f"{shared}/tokref/{name}.txt.zst")
    docs = []
    with open(f"{shared}/tokref/{name}.idx.tsv", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            off, length = (int(x) for x in line.split("\t")[:2])
            docs.append(text[off:off + length].decode("utf-8", errors="replace"))
    return docs


def apply(root, edit):
    """One edit of a variant line, as hf_json_edit.js makes it."""
    if edit.startswith("-"):
        *parents, last = edit[1:].split(".")
        o = root
        for p in parents:
            o = o[p]
        o.pop(last, None)
        return
    key, value = edit.split("=", 1)
    value = json.loads(value)
    append = key.startswith("+")
    if append:
        key = key[1:]
    *parents, last = key.split(".")
    o = root
    for p in parents:
        o = o[p]
    if append:
        o[last].append(value)
    else:
        o[last] = value


def main():
    shared, only = sys.argv[1], set(sys.argv[2:])
    lists = [
        ("tests/data/hf/variants.tsv",
         lambda: corpus(shared, "blns") + corpus(shared, "edge")[:EDGE_DOCS] +
         corpus(shared, "multi")[::MULTI_STRIDE]),
        ("tests/data/hf/edge_variants.tsv", lambda: json.load(open("tests/data/hf/edge_texts.json", encoding="utf-8"))),
        ("tests/data/hf/normalizer_variants.tsv",
         lambda: json.load(open("tests/data/hf/normalizer_texts.json", encoding="utf-8"))),
    ]
    done = set()
    for list_path, load_texts in lists:
        texts = None
        with open(list_path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        for line in lines:
            if not line or line.startswith("#"):
                continue
            name, base, *edits = line.split("\t")
            if only and name not in only:
                continue
            if texts is None:
                texts = load_texts()
            root = json.loads(unzstd(f"{shared}/vocab/hf/{base}.tokenizer.json.zst").decode("utf-8"))
            for e in edits:
                apply(root, e)
            tok = Tokenizer.from_str(json.dumps(root))
            words = []
            for t in texts:
                ids = tok.encode(t, add_special_tokens=False).ids
                words.append(len(ids))
                words.extend(ids)
            out = f"tests/data/hf/{name}.bin"
            with open(out, "wb") as f:
                f.write(struct.pack(f"<{len(words)}I", *words))
            subprocess.run([ZSTD, "-19", "-qf", "--rm", out, "-o", out + ".zst"], check=True)
            print(name, len(texts), "texts", len(words) - len(texts), "ids")
            done.add(name)
    missing = only - done
    if missing:
        sys.exit("not in the variant lists: " + " ".join(sorted(missing)))


if __name__ == "__main__":
    main()
