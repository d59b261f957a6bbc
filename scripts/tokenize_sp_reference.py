#!/usr/bin/python3
"""tokenize_sp_reference.py - SentencePiece's own ids and text for the tokenize tests
(Debian's python3-sentencepiece; run with /usr/bin/python3, which has it).

  encode MODEL JSONL [special]   the ids of each document's "text" as a bin stream
                                 (per document a u32 LE count, then the ids) on stdout:
                                 sp.encode(text); with "special", control symbols written
                                 in the text are their ids and the text between them is
                                 encoded part by part (winnow's --allow-special rule)
  from-hf TOKENIZER.json OUT     writes the SentencePiece BPE model that a tokenizer.json converted
                                 from one stands for (Llama 2's: byte-fallback BPE, Prepend and
                                 Replace normalizers): its vocab as pieces in id order, <unk> as the
                                 unknown piece, the other added tokens as control symbols, <0xXX> as
                                 byte pieces, each piece scored by the rank of the first merge that
                                 makes it (SentencePiece merges the adjacent pair whose result
                                 scores highest; HF the pair of lowest rank: the same order when a
                                 file's merges come grouped by result, which is checked)
  sameids BIN REF.bin.zst JSONL [STEP]
                                 exit 0 when BIN equals the reference ids (HF's encode) on every
                                 document whose text holds no added token string; prints the count;
                                 with STEP, JSONL and BIN hold every STEP-th document of REF
  decode MODEL BIN JSONL         exit 0 when JSONL (winnow --decode's output) holds, line by
                                 line, the text of each document of BIN: sp.decode of the
                                 runs of ids between control symbols, each control symbol
                                 as its name (winnow's --decode rule); ids past the
                                 vocabulary are left out
"""
import json, re, struct, subprocess, sys

import sentencepiece

from tokenize_tokref import read_bin, read_bin_bytes  # the bin format's reader (same folder)

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


def varint(v):
    v &= (1 << 64) - 1  # negative int32 values are 10-byte varints
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7F | 0x80])
        v >>= 7
    return out + bytes([v])


def field(number, wire_type, payload):
    key = varint(number << 3 | wire_type)
    if wire_type == 2:
        return key + varint(len(payload)) + payload
    return key + payload


NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6
BPE = 2


def from_hf(path, out):
    t = json.load(open(path, encoding="utf-8"))
    model = t["model"]
    merges = [m.split(" ") if isinstance(m, str) else m for m in model["merges"]]
    first = {}
    results = [a + b for a, b in merges]
    for rank, r in enumerate(results):
        first.setdefault(r, rank)
    if any(first[results[i]] > first[results[i + 1]] for i in range(len(results) - 1)):
        sys.exit("the merges do not come grouped by result: SentencePiece's order would differ")
    added = {a["content"] for a in t["added_tokens"]}
    by_id = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    if [i for _, i in by_id] != list(range(len(by_id))):
        sys.exit("the vocab ids are not 0..n-1")
    pieces = b""
    for s, i in by_id:
        kind = (UNKNOWN if s == model["unk_token"] else CONTROL if s in added
                else BYTE if re.fullmatch("<0x[0-9A-F]{2}>", s) else NORMAL)
        score = -first[s] if s in first else -(len(merges) + i) if kind == NORMAL else 0.0
        pieces += field(1, 2, field(1, 2, s.encode("utf-8")) + field(2, 5, struct.pack("<f", score))
                        + field(3, 0, varint(kind)))
    ids = {s: i for s, i in model["vocab"].items()}
    trainer = (field(3, 0, varint(BPE)) + field(4, 0, varint(len(by_id))) + field(35, 0, varint(1))
               + field(40, 0, varint(ids[model["unk_token"]])) + field(41, 0, varint(ids.get("<s>", -1)))
               + field(42, 0, varint(ids.get("</s>", -1))) + field(43, 0, varint(-1)))
    normalizer = field(1, 2, b"identity") + field(3, 0, varint(1)) + field(4, 0, varint(0)) + field(5, 0, varint(1))
    open(out, "wb").write(pieces + field(2, 2, trainer) + field(3, 2, normalizer))


def sameids(binpath, refpath, jsonl, step, added=("<unk>", "<s>", "</s>")):
    got = read_bin(binpath)
    want = read_bin_bytes(subprocess.run(["zstd", "-dc", refpath], check=True, capture_output=True).stdout)[::step]
    texts = [json.loads(l)["text"] for l in open(jsonl, encoding="utf-8")]
    if not (len(got) == len(want) == len(texts)):
        sys.exit("%d, %d and %d documents" % (len(got), len(want), len(texts)))
    kept = [i for i, t in enumerate(texts) if not any(a in t for a in added)]
    bad = [i for i in kept if got[i] != want[i]]
    print("%d of %d documents compared (the rest hold an added token string), %d differ %s"
          % (len(kept), len(texts), len(bad), bad[:5]))
    sys.exit(1 if bad or not kept else 0)


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
    elif cmd == "from-hf":
        from_hf(args[0], args[1])
    elif cmd == "sameids":
        sameids(args[0], args[1], args[2], int(args[3]) if len(args) > 3 else 1)
    elif cmd == "decode":
        decode(args[0], args[1], args[2])
    else:
        sys.exit(__doc__)
