#!/usr/bin/env python3
"""hf_unicode_classes_device.py - runs where Hugging Face tokenizers is (the
GPU machine): which code points each character class matches in the engines
tokenizers uses, measured through tokenizers itself. For the Oniguruma
classes a Split pre-tokenizer (behavior "isolated") runs over every scalar
value, each between two NULs (which no class below matches): a character
the class matches is a piece of its own. Rust's char::is_numeric is measured
through Digits(individual_digits=True) the same way. Writes one line per
class: its name, then the matching code points as hex ranges (A-B or A), to
$OUT/hf_unicode_classes.txt, which scripts/tokenize_gen_unicode.c reads
(kept as scripts/hf_unicode_classes.txt).
  usage: OUT=DIR python3 hf_unicode_classes_device.py"""
import os

import tokenizers
from tokenizers import Regex, pre_tokenizers

CLASSES = ["\\p{L}", "\\p{N}", "\\p{P}", "\\p{S}", "\\p{M}", "\\p{Lu}", "\\p{Ll}", "\\p{Lt}", "\\p{Lm}", "\\p{Lo}",
           "\\p{Nd}", "\\s", "\\w", "[\\w]", "\\p{Alphabetic}"]
cps = [c for c in range(1, 0x110000) if not 0xD800 <= c <= 0xDFFF]


def ranges(points):
    out, run = [], None
    for c in points:
        if run and c == run[1] + 1:
            run[1] = c
        else:
            if run:
                out.append(run)
            run = [c, c]
    if run:
        out.append(run)
    return " ".join("%X" % a if a == b else "%X-%X" % (a, b) for a, b in out)


def isolated(pt):
    """Code points pt splits off as single-character pieces between NULs."""
    hit = []
    for k in range(0, len(cps), 4096):
        chunk = cps[k:k + 4096]
        s = "\0" + "".join(chr(c) + "\0" for c in chunk)
        pos = 0
        for piece, _ in pt.pre_tokenize_str(s):
            if len(piece) == 1 and pos % 2 == 1:
                hit.append(chunk[pos // 2])
            pos += len(piece)
    return hit


out = open(os.path.join(os.environ.get("OUT", "/tmp"), "hf_unicode_classes.txt"), "w")
out.write("# tokenizers %s\n" % tokenizers.__version__)
for cls in CLASSES:
    got = isolated(pre_tokenizers.Split(Regex(cls), behavior="isolated"))
    out.write("onig %s\t%s\n" % (cls, ranges(got)))
    print(cls, len(got), flush=True)
got = isolated(pre_tokenizers.Digits(individual_digits=True))
out.write("rust is_numeric\t%s\n" % ranges(got))
print("is_numeric", len(got))
