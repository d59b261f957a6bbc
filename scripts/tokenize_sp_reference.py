#!/usr/bin/python3
"""tokenize_sp_reference.py - SentencePiece's own ids and text for the tokenize tests
(Debian's python3-sentencepiece; run with /usr/bin/python3, which has it).

  encode MODEL JSONL [special]   the ids of each document's "text" as a bin stream
                                 (per document a u32 LE count, then the ids) on stdout:
                                 sp.encode(text); with "special", control symbols written
                                 in the text are their ids and the text between them is
                                 encoded part by part (winnow's --allow-special rule)
  decode MODEL BIN JSONL         exit 0 when JSONL (winnow --decode's output) holds, line by
                                 line, the text of each document of BIN: sp.decode of the
                                 runs of ids between control symbols, each control symbol
                                 as its name (winnow's --decode rule); ids past the
                                 vocabulary are left out
"""
import json, re, struct, sys

import sentencepiece


def load(path):
    return sentencepiece.SentencePieceProcessor(model_file=path)


def controls(sp):
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if sp.is_control(i)]


def encode_special(sp, text):
    """Control symbols in text as their ids (leftmost, longest first), the rest through sp.encode."""
    names = sorted(controls(sp), key=len, reverse=True)
    if not names:
        return sp.encode(text)
    ids, start = [], 0
    for m in re.finditer("|".join(re.escape(n) for n in names), text):
        ids += sp.encode(text[start:m.start()]) + [sp.piece_to_id(m.group())]
        start = m.end()
    return ids + sp.encode(text[start:])


def encode(model, jsonl, special):
    sp = load(model)
    out = sys.stdout.buffer
    for line in open(jsonl, encoding="utf-8"):
        text = json.loads(line)["text"]
        ids = encode_special(sp, text) if special else sp.encode(text)
        out.write(struct.pack("<I%dI" % len(ids), len(ids), *ids))


def read_bin(path):
    data = open(path, "rb").read()
    docs, pos = [], 0
    while pos < len(data):
        (count,) = struct.unpack_from("<I", data, pos)
        docs.append(list(struct.unpack_from("<%dI" % count, data, pos + 4)))
        pos += 4 + 4 * count
    return docs


def decode_text(sp, ids):
    size, text, run = sp.get_piece_size(), "", []
    for i in ids:
        if i >= size:
            continue
        if sp.is_control(i):
            text += sp.decode(run) + sp.id_to_piece(i)
            run = []
        else:
            run.append(i)
    return text + sp.decode(run)


def decode(model, binpath, jsonl):
    sp = load(model)
    want = [decode_text(sp, ids) for ids in read_bin(binpath)]
    got = [json.loads(l)["text"] for l in open(jsonl, encoding="utf-8")]
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    if bad or len(got) != len(want):
        sys.exit("%d documents decoded, %d expected; first different: %s" % (len(got), len(want), bad[:5]))


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "encode":
        encode(args[0], args[1], len(args) > 2 and args[2] == "special")
    elif cmd == "decode":
        decode(args[0], args[1], args[2])
    else:
        sys.exit(__doc__)
