#!/usr/bin/python3
"""tokenize_hf_spm.py - test data for tokenizer.json files converted from
SentencePiece unigram models (T5, mT5, XLM-R, ALBERT: a Precompiled
normalizer, Metaspace, Unigram). No such file can be downloaded here, so
this trains small unigram models with Debian's spm_train on UDHR text and
writes what transformers' convert_slow_tokenizer.py (T5Converter) makes of
them; tests/data/hf/spm/variants.tsv then edits those into the other
converters' shapes, and scripts/tokenize_hf_spm.js records HF tokenizers'
ids. Run with /usr/bin/python3 (Debian's python3-sentencepiece).

  build SHARED OUTDIR   trains the models (nmt_nfkc: T5's, nmt_nfkc_cf) and writes
                        OUTDIR/RULE.charsmap.zst (the raw precompiled_charsmap),
                        OUTDIR/RULE.json.zst (the T5-shaped tokenizer.json with
                        "precompiled_charsmap":"@RULE", filled in by the test and the
                        .js script), OUTDIR/texts.bin.zst (per text a u32 LE byte
                        count and the UTF-8 bytes: the first 200 characters of each
                        UDHR translation, the hand-made corners below (the newer
                        ones last), then 2000
                        random short strings of characters from the blocks below)
  texts SHARED OUTDIR   only OUTDIR/texts.bin.zst
  wordlevel SHARED OUTDIR
                        only OUTDIR/wordlevel.json.zst: a WordLevel file as HF's
                        WordLevelTrainer makes one (the most frequent words of the
                        UDHR split at white space and punctuation, "[UNK]" first;
                        normalizer Nmt, pre-tokenizer WhitespaceSplit + Punctuation)
"""
import json, os, random, re, struct, subprocess, sys, tempfile

import sentencepiece

VOCAB_SIZE = 3000
UDHR_CHARS = 200
EXTRA_IDS = 10  # T5's <extra_id_N> sentinels (100 in T5; 10 keep the file small)

# texts where HF's grapheme-cluster walk and the charsmap meet: marks after
# characters the charsmap rewrites, clusters just under and at 6 bytes,
# Hangul jamo, emoji sequences, Indic conjuncts, CR LF, controls NMT drops
CORNERS = [
    "\ufb01\u0301 \ufb01 \ufb01\u0301\u0301", "\u00a0\u0301x\u00a0\u0301\u0301", "a\u0301 e\u0301\u0302 A\u030a \u00c5",
    "\u2460\u2461 \u337f \uff76\uff9e \uff76\u3099 \u30ab\u3099", "\u1100\u1161\u11a8 \ud55c\uad6d\uc5b4 \u1100\u1161",
    "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 \u2764\ufe0f \u00a9\ufe0f \u00a9\u200d \u00ae\u0301",
    "\U0001f1fa\U0001f1f8\U0001f1eb\U0001f1f7\U0001f1e9 \U0001f3f3\ufe0f\u200d\U0001f308 \U0001f44d\U0001f3fd",
    "\u0915\u094d\u0937\u0924\u094d\u0930\u093f\u092f \u0915\u094d\u095b\u0301 \u095b\u0301 \u0958 \u0995\u09cd\u09b7",
    "\u0a16\u0a3c \u0a59\u0301 \u0b21\u0b3c \u0bb8\u0bcd\u0bb0\u0bc0 \u0e01\u0e33 \u0eb3 \u1019\u103c\u1014\u103a\u1019\u102c",
    "a\r\nb\r\n\r\nc\rd\n\u0301\r\nx\u0301\r\n", "\x01x\x1f\x7fy\x0b\x0c\u0085\u008f\u009f z",
    "a\u200bb\u200cc\u200dd\u200ee\u200ff\ufeffg\ufffdh\u2581i\u1680j\u2028k\u2029l",
    "\uff21\uff22\uff23\uff11\uff12\uff13 \uff48\uff45\uff4c\uff4c\uff4f\u3000\uff57\uff4f\uff52\uff4c\uff44",
    "\u216b \u00bd \u2122 \u2026 \ufdfa \ufdfb \u0133\u0301 \u01c4 \u017f\u0301 \u00b5",
    "\u0628\u0650\u0633\u0652\u0645\u0650 \u05e9\u05b8\u05c1\u05dc\u05d5\u05b9\u05dd Ti\u1ebfng Vi\u1ec7t Tie\u0302\u0301ng",
    "a  b   c\t\td    ", "  x  ", "\u0130stanbul \u00df \ufb00 \u01c4 \u1e9e",
    "\u0600\u0661 \u0600a \U000110bd1 \u0d4e\u0d15", "\u00a8\u0301 \u02b0\u0301 \u00aa\u0308 \u00b2\u0301",
    "\u3131\u314f \u1161\u1161 \u11a8\u11a8 \uac00\u11a8 \uac01\u11a8", "<pad></s><unk> <extra_id_0>x<extra_id_9>",
    "", " ", "\u3000\u3000", "\u2581\u2581x",
    "\u2122\u200d\u2122\u0301 \u2139\ufe0f\u200d\u2139\u0301",
]

# marks added in Unicode 15.0 and later (U+0897, U+1ACF, U+1E5EE...): one cluster
# with the keyed character before them (the test compares these and the random
# strings only where no NFKC/NFKD/StripAccents step, with HF's Unicode 9 tables, runs)
NEWER_CORNERS = [
    "\u00a0\u0897 x\u00a0\u0897y \u00a0\u1acf \u00a0\U0001e5ee \u00bd\U00011f00 \u2122\U00016d70",
]

# random short strings of characters from these blocks: ASCII, characters the
# charsmap rewrites, marks of many scripts, Indic consonants and viramas,
# Hangul jamo and syllables, regional indicators, emoji and modifiers,
# characters added since Unicode 15.0
RANDOM_TEXTS = 2000
RANDOM_SEED = 23
RANDOM_MAX_CHARS = 12
POOLS = [
    range(0x20, 0x7F),
    [0xA0, 0xA8, 0xAA, 0xAD, 0xB2, 0xB5, 0xBD, 0x17F, 0x132, 0x1C4, 0x2B0, 0x3D0, 0x1E9B, 0x2122, 0x2139, 0x203C,
     0x2049, 0x24C2, 0x3297, 0xFB01, 0xFDFA, 0xFF76, 0xFF9E, 0x3000, 0x2000, 0x200B, 0x200D, 0xFE0F, 0xFEFF, 0x2581,
     0x85, 0x9F, 0x1, 0xD, 0xA, 0x9],
    range(0x300, 0x370), range(0x483, 0x48A), range(0x591, 0x5C8), range(0x610, 0x61B), range(0x64B, 0x660),
    [0x600, 0x601, 0x602, 0x6DD, 0x70F, 0x890, 0x8E2, 0x110BD, 0x110CD, 0xD4E, 0x111C2],
    range(0x900, 0x980), range(0x980, 0xA00), range(0xA00, 0xA80), range(0xB00, 0xB80), range(0xC00, 0xC80),
    range(0xCC0, 0xCD0), range(0xD00, 0xD80), range(0x1000, 0x1060), range(0x1780, 0x17E0), range(0x1A20, 0x1A60),
    range(0x1B00, 0x1B50), range(0x1100, 0x1200), range(0x3131, 0x318F), range(0xAC00, 0xAC40), range(0xD7B0, 0xD7C8),
    range(0x1F1E6, 0x1F200), range(0x1F300, 0x1F320), range(0x1F3FB, 0x1F400), range(0x1F600, 0x1F610),
    range(0x2600, 0x2700),
    [0x897, 0x1ACF, 0x1AD0, 0x1AE0, 0x1E5EE, 0x16D70, 0x11F00, 0x113D0, 0x113B8, 0x11F42, 0x1E4EC],
    range(0xE01, 0xE3B), range(0xE40, 0xE4F), range(0xEB0, 0xEBD), range(0x20D0, 0x20F1), range(0xFE00, 0xFE10),
    range(0xE0100, 0xE0110), range(0x1F00, 0x1F20),
]


def random_texts():
    rng = random.Random(RANDOM_SEED)
    return ["".join(chr(rng.choice(rng.choice(POOLS))) for _ in range(rng.randint(1, RANDOM_MAX_CHARS)))
            for _ in range(RANDOM_TEXTS)]


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def varint(b, i):
    v, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(number, value) of each field of a protobuf message (bytes for length-delimited ones)."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            n = 4 if wire == 5 else 8
            v, i = b[i:i + n], i + n
        yield num, v


def charsmap(model_bytes):
    """ModelProto.normalizer_spec (3).precompiled_charsmap (2)."""
    for num, v in fields(model_bytes):
        if num == 3:
            for n2, v2 in fields(v):
                if n2 == 2:
                    return v2
    raise SystemExit("no precompiled_charsmap")


def added(i, content):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def t5_json(sp, rule):
    """What T5Converter writes: Precompiled + Replace(' {2,}', ' '), WhitespaceSplit + Metaspace,
    Unigram with the pieces' scores, '$A </s>', the control pieces and <extra_id_N> as added tokens."""
    n = sp.get_piece_size()
    vocab = [[sp.id_to_piece(i), sp.get_score(i)] for i in range(n)]
    vocab += [["<extra_id_%d>" % k, 0.0] for k in reversed(range(EXTRA_IDS))]
    tokens = [added(i, sp.id_to_piece(i)) for i in range(n) if sp.is_control(i) or sp.is_unknown(i)]
    tokens += [added(n + EXTRA_IDS - 1 - k, "<extra_id_%d>" % k) for k in reversed(range(EXTRA_IDS))]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True, "prepend_scheme": "always"}
    eos = sp.eos_id()
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": tokens,
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": "@" + rule},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {"</s>": {"id": "</s>", "ids": [eos], "tokens": ["</s>"]}}},
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": sp.unk_id(), "vocab": vocab, "byte_fallback": False},
    }


WORDLEVEL_WORDS = 4000


def write_wordlevel(shared, outdir):
    counts = {}
    for line in open(os.path.join(shared, "multilingual/udhr/udhr_text_DERIVED.jsonl"), encoding="utf-8"):
        for word in re.findall(r"\w+|[^\w\s]", json.loads(line)["text"]):
            counts[word] = counts.get(word, 0) + 1
    words = sorted(counts, key=lambda w: (-counts[w], w))[:WORDLEVEL_WORDS]
    vocab = {"[UNK]": 0}
    for w in words:
        vocab.setdefault(w, len(vocab))
    root = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added(0, "[UNK]")],
        "normalizer": {"type": "Nmt"},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"}, {"type": "Punctuation", "behavior": "Isolated"}]},
        "post_processor": None, "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }
    text = json.dumps(root, ensure_ascii=False, separators=(",", ":"))
    zstd_write(os.path.join(outdir, "wordlevel.json.zst"), text.encode("utf-8"))


def udhr_texts(shared):
    out = []
    for line in open(os.path.join(shared, "multilingual/udhr/udhr_text_DERIVED.jsonl"), encoding="utf-8"):
        out.append(json.loads(line)["text"][:UDHR_CHARS])
    return out


def zstd_write(path, data):
    subprocess.run(["zstd", "-19", "-qf", "-o", path], input=data, check=True)


def build(shared, outdir):
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        train = os.path.join(tmp, "train.txt")
        lines = [l for t in open(os.path.join(shared, "multilingual/udhr/udhr_text_DERIVED.jsonl"), encoding="utf-8")
                 for l in json.loads(t)["text"].split("\n") if l.strip()]
        with open(train, "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in lines[29::15]))
        for rule in ("nmt_nfkc", "nmt_nfkc_cf"):
            prefix = os.path.join(tmp, rule)
            run("spm_train", "--input=" + train, "--model_prefix=" + prefix, "--vocab_size=%d" % VOCAB_SIZE,
                "--character_coverage=0.9995", "--num_threads=1", "--minloglevel=2", "--model_type=unigram",
                "--normalization_rule_name=" + rule, "--pad_id=0", "--eos_id=1", "--unk_id=2", "--bos_id=-1")
            model = open(prefix + ".model", "rb").read()
            zstd_write(os.path.join(outdir, rule + ".charsmap.zst"), charsmap(model))
            sp = sentencepiece.SentencePieceProcessor(model_file=prefix + ".model")
            text = json.dumps(t5_json(sp, rule), ensure_ascii=False, separators=(",", ":"))
            zstd_write(os.path.join(outdir, rule + ".json.zst"), text.encode("utf-8"))
    write_texts(shared, outdir)
    write_wordlevel(shared, outdir)


def write_texts(shared, outdir):
    udhr = udhr_texts(shared)
    texts = udhr + CORNERS + NEWER_CORNERS + random_texts()
    zstd_write(os.path.join(outdir, "texts.bin.zst"),
               b"".join(struct.pack("<I", len(t.encode("utf-8"))) + t.encode("utf-8") for t in texts))
    print(len(udhr), "UDHR texts,", len(CORNERS) + len(NEWER_CORNERS), "corners,", RANDOM_TEXTS, "random")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "texts":
        write_texts(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "wordlevel":
        write_wordlevel(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
