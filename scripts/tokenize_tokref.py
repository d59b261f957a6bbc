#!/usr/bin/env python3
"""tokenize_tokref.py - helpers for the tokenize tests and bench on $SHARED/tokref.

  jsonl CORPUS.txt.zst CORPUS.idx.tsv [N]   the first N documents (all: 0) as JSONL {"id","text"}
  refcut REF.bin.zst N                      the reference ids of the first N documents (bin, stdout)
  binjsonl OUT.bin JSONL                    exit 0 when the "tokens" arrays of JSONL equal the bin stream
  texts JSONL                               the "text" of each line, NUL-separated (for comparisons)
"""
import json, struct, subprocess, sys


def zstd_cat(path, limit=None):
    """The decompressed bytes of path; with limit, only the first limit bytes."""
    if limit is None:
        return subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    p = subprocess.Popen(["zstd", "-dc", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    data = p.stdout.read(limit)
    p.kill()
    p.wait()
    return data


def jsonl(txt, idx, n):
    docs = [tuple(map(int, line.split("\t")[:2])) for line in open(idx)]
    if n:
        docs = docs[:n]
    data = zstd_cat(txt, max(off + ln for off, ln in docs) if n else None)
    out = sys.stdout
    for i, (off, ln) in enumerate(docs):
        text = data[off:off + ln].decode("utf-8")
        out.write(json.dumps({"id": "tokref-%d" % i, "text": text}, ensure_ascii=False) + "\n")


def refcut(ref, n):
    p = subprocess.Popen(["zstd", "-dc", ref], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = sys.stdout.buffer
    for _ in range(n):
        head = p.stdout.read(4)
        (count,) = struct.unpack("<I", head)
        out.write(head + p.stdout.read(4 * count))
    p.kill()
    p.wait()


def read_bin(path):
    return read_bin_bytes(open(path, "rb").read())


def read_bin_bytes(data):
    """The documents of a --format bin stream (u32 count, then the ids), as lists of ids."""
    docs, pos = [], 0
    while pos < len(data):
        (count,) = struct.unpack_from("<I", data, pos)
        docs.append(list(struct.unpack_from("<%dI" % count, data, pos + 4)))
        pos += 4 + 4 * count
    return docs


def binjsonl(binpath, jsonlpath):
    want = read_bin(binpath)
    got = [json.loads(l)["tokens"] for l in open(jsonlpath, encoding="utf-8")]
    sys.exit(0 if got == want else 1)


def texts(path):
    for l in open(path, encoding="utf-8"):
        sys.stdout.write(json.loads(l)["text"] + "\0")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "jsonl":
        jsonl(args[0], args[1], int(args[2]) if len(args) > 2 else 0)
    elif cmd == "refcut":
        refcut(args[0], int(args[1]))
    elif cmd == "binjsonl":
        binjsonl(args[0], args[1])
    elif cmd == "texts":
        texts(args[0])
    else:
        sys.exit(__doc__)
