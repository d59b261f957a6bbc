#!/usr/bin/env python3
"""html_unescape_cases.py - random text full of character references, with
what Python's html.unescape makes of it: an independent reference for how
winnow decodes references in text (html.unescape follows the HTML Living
Standard's table and its longest-match rule for legacy names without ';').

    python3 tests/ref/html_unescape_cases.py SEED COUNT > cases.txt

Writes tests/unit/html_charref.c's case format (text<TAB>input<TAB>expected,
\\\\, \\t, \\n and \\xHH escaped). One known difference is kept out of the
inputs: a numeric reference to a control character or a noncharacter
(&#1;, &#x7F;, &#xFDD0;, &#xFFFE;) is dropped by html.unescape but kept by
the standard (a parse error only), so no such number is generated; C1 numbers
(&#128;-&#159;, mapped through windows-1252 by both) are, and a case whose
pieces join into such a number ("&#" then "5") is drawn again."""
import html
import html.entities
import json
import os
import random
import re
import sys

NAMES = sorted(html.entities.html5)
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
PIECES_PER_CASE = (1, 12)
NUMERIC_REF = re.compile(r"&#(?:[xX]([0-9a-fA-F]+)|([0-9]+))")


def dropped_by_python(cp: int) -> bool:
    """The numbers html.unescape drops: controls other than whitespace and
    the C1 range it maps, and noncharacters."""
    if 0x80 <= cp <= 0x9F or cp == 0 or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
        return False  # mapped to windows-1252 or U+FFFD by both
    if cp < 0x20 and cp not in (0x09, 0x0A, 0x0C, 0x0D):
        return True
    return cp == 0x7F or 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE


def has_dropped_number(text: str) -> bool:
    for m in NUMERIC_REF.finditer(text):
        if dropped_by_python(int(m.group(1), 16) if m.group(1) else int(m.group(2))):
            return True
    return False


def numeric(rng: random.Random) -> str:
    while True:
        cp = rng.choice([rng.randrange(0x20, 0x80), rng.randrange(0x80, 0xA0), rng.randrange(0xA0, 0x3000),
                         rng.randrange(0xD800, 0xE000), rng.randrange(0x10000, 0x110000),
                         rng.randrange(0x110000, 1 << 40), 0])
        if not dropped_by_python(cp):
            break
    digits = ("x%x" % cp if rng.random() < 0.7 else "X%X" % cp) if rng.random() < 0.5 else "%d" % cp
    return "&#" + "0" * rng.randrange(3) + digits + rng.choice(["", ";"])


def named(rng: random.Random) -> str:
    name = rng.choice(NAMES)
    r = rng.random()
    if r < 0.3:
        name = name.rstrip(";")                          # without its ';'
    elif r < 0.5:
        name = name[:rng.randrange(1, len(name) + 1)]    # a prefix of a name
    elif r < 0.6:
        name = name.rstrip(";") + rng.choice(LETTERS)    # one letter too many
    return "&" + name


def piece(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return named(rng)
    if r < 0.55:
        return numeric(rng)
    if r < 0.75:
        return "".join(rng.choice(LETTERS + "0123456789") for _ in range(rng.randrange(1, 6)))
    return rng.choice(["&", ";", "=", " ", "#", "&#", "&#x", "\t", "\n", ".", "é", "中", "&;", "&&", "x;"])


def escape(s: str) -> str:
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def print_tokenizer_cases(root, commit, about, script, columns, case_of, fields):
    """Prints, as a case file, the distinct cases case_of(test) keeps from
    html5lib-tests' tokenizer tests in root (tokenizer/*.test), one a line:
    fields(case) joined by tabs, under a header naming the commit, what the
    cases are about, the script that wrote them and the columns."""
    files = sorted(f for f in os.listdir(root) if f.endswith(".test"))
    print("# html5lib-tests %s, tokenizer/*.test: %s" % (commit, about))
    print("# (https://github.com/html5lib/html5lib-tests, MIT licence: see LICENSE here)")
    print("# written by scripts/%s; %s" % (script, columns))
    seen = set()
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8") as fh:
            data = json.load(fh)
        for test in data.get("tests", []):
            case = case_of(test)
            if case and case not in seen:
                seen.add(case)
                print("\t".join(fields(case)))


def main() -> None:
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    print("# html.unescape of random text (Python %s, seed %d)" % (sys.version.split()[0], seed))
    for _ in range(count):
        text = "&#1;"
        while has_dropped_number(text):
            text = "".join(piece(rng) for _ in range(rng.randrange(*PIECES_PER_CASE)))
        print("text\t%s\t%s" % (escape(text), escape(html.unescape(text))))


if __name__ == "__main__":
    main()
