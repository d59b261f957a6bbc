#!/usr/bin/env python3
"""dedup_unique_inputs.py - inputs of UNIQUE documents for dedup benches.

Copies of one corpus would be exact duplicates, which dedup drops after a
lookup and never adds to its index; a fair bench of the index needs documents
that are all new. Each copy here gets its own two-letter prefix on every word
that follows a space ("foo bar" -> "foo qabar" in copy 0, "foo qbbar" in
copy 1), so no 5-word shingle, exact hash or band key repeats across copies.

  long DIR COPIES      DIR/part-NNN.jsonl: the tokref en_code corpus (real code
                       and prose, 8,855 documents, ~9 KB each) once per copy
  short FILE DOCS      FILE: DOCS documents of 40 words drawn from en_code's
                       words by frequency (base documents repeated with a prefix per copy)

Reads $SHARED/tokref/en_code.txt.zst (or en_code.txt.gz) and .idx.tsv
(SHARED defaults to ../shared/data). Copies are written by a process pool.
"""
import gzip
import json
import multiprocessing
import os
import random
import re
import subprocess
import sys

SHARED = os.environ.get("SHARED", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
SHORT_WORDS = 40
SHORT_BASE_DOCS = 50000
SPACE_BEFORE_WORD = re.compile(rb" (?=[A-Za-z])")


def en_code_texts():
    gz = os.path.join(SHARED, "tokref", "en_code.txt.gz")  # where no zstd program is at hand
    if os.path.exists(gz):
        data = gzip.open(gz).read()
    else:
        data = subprocess.run(["zstd", "-dc", os.path.join(SHARED, "tokref", "en_code.txt.zst")],
                              check=True, capture_output=True).stdout
    for line in open(os.path.join(SHARED, "tokref", "en_code.idx.tsv")):
        off, n = map(int, line.split("\t")[:2])
        yield data[off:off + n].decode("utf-8")


def jsonl(texts, tag):
    """Compact JSON lines ending in the id: no space outside the text."""
    return "".join(json.dumps({"text": t, "id": "%s-%d@" % (tag, i)}, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for i, t in enumerate(texts)).encode("utf-8")


def prefix(copy):
    return b"q" + bytes([97 + copy // 26 % 26, 97 + copy % 26])


PIECES = []  # the base split before each word that follows a space; set before the pool forks


def write_copy(args):
    copy, path = args
    data = (b" " + prefix(copy)).join(PIECES).replace(b'@"}\n', b"@" + str(copy).encode() + b'"}\n')
    with open(path, "wb") as f:
        f.write(data)


def main():
    global PIECES
    kind, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if kind == "long":
        base = jsonl(en_code_texts(), "en")
        os.makedirs(out, exist_ok=True)
        jobs = [(c, os.path.join(out, "part-%03d.jsonl" % c)) for c in range(n)]
    elif kind == "short":
        rng = random.Random(1)
        words = re.findall(r"[A-Za-z]+", "".join(en_code_texts()))  # with repeats: real word frequencies
        ndocs = min(n, SHORT_BASE_DOCS)
        base = jsonl((" ".join(rng.choices(words, k=SHORT_WORDS)) for _ in range(ndocs)), "short")
        copies = (n + ndocs - 1) // ndocs
        parts = [out + ".%03d" % c for c in range(copies)]
        jobs = [(c, parts[c]) for c in range(copies)]
    else:
        sys.exit("usage: dedup_unique_inputs.py long DIR COPIES | short FILE DOCS")
    PIECES = SPACE_BEFORE_WORD.split(base)
    with multiprocessing.Pool(min(len(jobs), os.cpu_count() or 1)) as pool:
        pool.map(write_copy, jobs)
    if kind == "short":
        with open(out, "wb") as f:
            for p in parts:
                with open(p, "rb") as part:
                    f.write(part.read())
                os.unlink(p)


if __name__ == "__main__":
    main()
