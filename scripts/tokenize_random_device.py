#!/usr/bin/env python3
"""tokenize_random_device.py - runs on the GPU machine (it has Python tiktoken and
Hugging Face tokenizers) from a bundle made by tokenize_random_bundle.sh: made-up
documents that join, at random, the pieces where pre-tokenizer rules meet (letters of
many scripts and cases, combining marks, emoji sequences, digit runs, whitespace of
every kind and length, contractions in both cases, punctuation runs, code, special
token text), and compares winnow's ids with the reference's, document by document:
  - tiktoken's encode_ordinary_batch against `winnow tokenize --encoding NAME
    --vocab FILE --format bin --no-eos`, --device cpu and --device gpu, for
    r50k_base, p50k_base, cl100k_base and o200k_base;
  - for each tokenizer.json of files/, Hugging Face's encode_batch(texts,
    add_special_tokens=False) against winnow with --no-bos --no-eos --allow-special
    (HF finds added tokens in any text).
Prints and writes to $OUT/tokenize_random.txt, per tokenizer, how many documents
differ and the first few (the text, the first differing position, both ids there).
  usage: OUT=DIR python3 DIR/tokenize_random_device.py [DOCS [SEED]]"""
import glob, json, os, random, struct, subprocess, sys, tarfile, tempfile, time

import tiktoken
import tiktoken.load
import tokenizers
from tiktoken_ext import openai_public
from tokenizers import Tokenizer

here = os.path.dirname(os.path.abspath(__file__))
out_dir = os.environ.get("OUT", "/tmp/out")
os.makedirs(out_dir, exist_ok=True)
report = open(os.path.join(out_dir, "tokenize_random.txt"), "w")
work = tempfile.mkdtemp()
bin_dir = os.path.join(work, "bin")
tarfile.open(os.path.join(here, "bin.tar.xz")).extractall(bin_dir)
winnow, zstd = os.path.join(bin_dir, "winnow"), os.path.join(bin_dir, "zstd")
count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1

PIECES = [
    # words in cases and scripts
    "hello", "Hello", "HELLO", "hELLo", "iPhone", "McDonald", "naïve", "Ærø", "straße", "İstanbul", "ǅemal",
    "Ελληνικά", "ΣΊΣΥΦΟΣ", "Москва", "日本語", "中文字符", "한국어", "ไทย", "العربية", "עברית", "हिन्दी", "தமிழ்",
    "ᏣᎳᎩ", "𝐁𝐨𝐥𝐝", "ﬁne", "Ⅻ", "ʼn",
    # combining marks, joiners, variation selectors, emoji
    "e\u0301", "\u0301", "a\u0308\u0323", "\u200d", "\u200b", "\ufe0f", "\U0001F600", "\U0001F44D\U0001F3FD",
    "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F1FA\U0001F1F8", "\u2764\ufe0f", "\U000E0067",
    # digits
    "1", "12", "123", "1234", "12345678901", "3.14", "1,000", "٣٤٥", "１２３", "²", "½", "0x1F",
    # whitespace
    " ", " ", " ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n", "\n ", "\u00a0", "\u3000", "\u2028", "\u0085",
    "    ", "\t\t", " \t",
    # contractions
    "'s", "'S", "'t", "'T", "'re", "'RE", "'ve", "'ll", "'LL", "'d", "'D", "'m", "'M", "n't", "'", "’s", "''",
    # punctuation and symbols
    ".", ",", "...", "!!!", "?!", "—", "--", "-", "(", ")", "[]", "{}", "<", ">", "/", "\\", "@", "#", "$", "%",
    "&&", "||", "**", "```", "~~", "=>", "::", ";", "\"", "«", "»", "¿", "…", "€", "©", "™", "\u00ad",
    # code and special token text
    "def f(x):", "return x**2", "<div class=\"a\">", "http://example.com/a?b=1", "foo_bar", "CamelCase",
    "<|endoftext|>", "<|fim_prefix|>", "<s>", "</s>", "[CLS]", "<unk>", "<|im_start|>",
]


def made_up(rng):
    parts = []
    for _ in range(rng.randint(1, 40)):
        piece = rng.choice(PIECES)
        if rng.random() < 0.05:
            piece *= rng.randint(2, 40)
        parts.append(piece)
        if rng.random() < 0.4:
            parts.append(" ")
    return "".join(parts)


def say(line):
    print(line, flush=True)
    report.write(line + "\n")
    report.flush()


def winnow_ids(args, texts):
    """winnow tokenize's ids of texts with args, or (None, its message) when it refuses."""
    path = os.path.join(work, "docs.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"text": t}, ensure_ascii=False) + "\n")
    p = subprocess.run([winnow, "tokenize", "-q", "-j16", "--format", "bin", "--no-eos"] + args + [path],
                       capture_output=True, timeout=600)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()[:300]
    got, at, out = [], 0, p.stdout
    while at < len(out):
        (n,) = struct.unpack_from("<I", out, at)
        got.append(list(struct.unpack_from("<%dI" % n, out, at + 4)))
        at += 4 + 4 * n
    return got, None


def compare(name, texts, got, want):
    bad = [i for i in range(len(texts)) if got[i] != want[i]]
    say("%s: %d documents, %d differ" % (name, len(texts), len(bad)))
    for i in bad[:3]:
        k = next((j for j, (a, b) in enumerate(zip(got[i], want[i])) if a != b), min(len(got[i]), len(want[i])))
        say("  %r\n    at id %d: winnow %s, reference %s" % (texts[i][:300], k, got[i][k:k + 6], want[i][k:k + 6]))
    return len(bad)


rng = random.Random(seed)
texts = [made_up(rng) for _ in range(count)]
say("== %s, tiktoken %s, tokenizers %s; %d made-up documents, seed %d, %d bytes"
    % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), tiktoken.__version__, tokenizers.__version__,
       len(texts), seed, sum(len(t.encode()) for t in texts)))
differing = 0
for name in ("r50k_base", "p50k_base", "cl100k_base", "o200k_base"):
    local = os.path.join(here, "vocab", name + ".tiktoken")
    openai_public.load_tiktoken_bpe = lambda url, expected_hash=None, _p=local: tiktoken.load.load_tiktoken_bpe(_p)
    enc = tiktoken.Encoding(**getattr(openai_public, name)())
    want = enc.encode_ordinary_batch(texts, num_threads=16)
    for device in ("cpu", "gpu"):
        got, err = winnow_ids(["--device", device, "--encoding", name, "--vocab", local], texts)
        if got is None:
            say("%s --device %s: refused: %s" % (name, device, err))
            continue
        differing += compare("%s --device %s" % (name, device), texts, got, want)
for path in sorted(glob.glob(os.path.join(here, "files", "*.tokenizer.json.zst"))):
    name = os.path.basename(path).split(".")[0]
    tj = os.path.join(work, name + ".json")
    subprocess.run([zstd, "-dqf", path, "-o", tj], check=True)
    tok = Tokenizer.from_file(tj)
    tok.no_truncation()
    tok.no_padding()
    want = [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)]
    got, err = winnow_ids(["--device", "cpu", "--vocab", tj, "--no-bos", "--allow-special"], texts)
    if got is None:
        say("%s: refused: %s" % (name, err))
        continue
    differing += compare(name, texts, got, want)
say("== documents that differ, all tokenizers: %d" % differing)
