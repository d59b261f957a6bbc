#!/usr/bin/python3
"""Differential check of the filter's words (and punkt's sentences) against NLTK on made-up text.

    make build/bench/words_dump
    /usr/bin/python3 scripts/nltk_words_diffcheck.py [--sentences] [SEED [TEXTS]]

Needs Debian's python3-nltk (3.8); a developer's check, not run by `make test` (which
pins the cases it found in tests/unit/filter_words.c). Each text is 3-18 pieces drawn
from contractions (CONTRACTIONS2/3, n't, 's), abbreviations, numbers, quotes of every
kind and other marks, joined by spaces, nothing, line breaks or tabs: the places where
NLTK's regular expressions interact. NLTK's side is word_tokenize as datatrove runs it
(punkt's sentences, then NLTKWordTokenizer on each) with punkt given the parameters
winnow builds in, as scripts/nltk_words_reference.py makes it. With --sentences the
texts are sentences of words, model abbreviations and others, initials, numbers,
ellipses, terminators, quotes and brackets, and what is compared is where punkt's
sentences start (span_tokenize, in bytes) and how many are not blank. Prints the
first differing texts (SHOW, default 15) and the number that differ.
"""
import importlib.util
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = os.path.join(HERE, "..", "build", "bench", "words_dump")

WORDS = ("hello world The It cannot Cannot CANNOT gonna Gonna wanna gimme lemme gotta d'ye D'ye "
         "more'n 'tis 'twas can't won't it's I'm they'll o'clock rock'n'roll don't DON'T y'all ma'am "
         "Mr. Dr. U.S. e.g. etc. i.e. No. St. Inc. a.m. p.m. Jan. vs. "
         "3.14 1,000 5. 10% $5 #tag @user a-b well-known cannot-do gonna-be x/y").split()
MARKS = list(".,;:!?") + ["...", "--", "-", "'", '"', "`", "``", "''", "(", ")", "[", "]", "{", "}",
                          "<", ">", "&", "/", "\u2026", "\u201c", "\u201d", "\u2018", "\u2019"]
SEPARATORS = [" "] * 12 + ["", "", "\n", "\n\n", "  ", "\t"]
SENTENCE_WORDS = ("the house was big and old he said that The He However In It This But Sales "
                  "Smith London John Mr. Dr. Mrs. Inc. Corp. U.S. Jan. St. Ltd. Prof. etc. e.g. "
                  "i.e. Apr. fig. vs. a.m. p.m. J. A. B. K. 5. 1987. 3.14 No. 1st. 2nd. ok").split()
SENTENCE_MARKS = [".", ".", ".", "?", "!", "?!", "...", "\u2026", ". .", '."', ".'", ".)", '".', ".\u201d",
                  ".]", ",", ";", ":", "(", '"', "\u201c", "'", "-", "--"]


def nltk_tokenizer():
    spec = importlib.util.spec_from_file_location("reference", os.path.join(HERE, "nltk_words_reference.py"))
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    from nltk.tokenize import NLTKWordTokenizer
    sentences, words = reference.tokenizer(), NLTKWordTokenizer()
    return lambda text: [w for s in sentences.tokenize(text) for w in words.tokenize(s) if w.strip()]


def made_up_text(rng):
    pieces = []
    for _ in range(rng.randint(3, 18)):
        pieces.append(rng.choice(WORDS) if rng.random() < 0.6 else rng.choice(MARKS))
        pieces.append(rng.choice(SEPARATORS))
    return "".join(pieces).strip()


def made_up_sentences(rng):
    pieces = []
    for _ in range(rng.randint(3, 24)):
        pieces.append(rng.choice(SENTENCE_WORDS) if rng.random() < 0.7 else rng.choice(SENTENCE_MARKS))
        pieces.append(rng.choice(SEPARATORS))
    return "".join(pieces).strip()


def nltk_sentences():
    spec = importlib.util.spec_from_file_location("reference", os.path.join(HERE, "nltk_words_reference.py"))
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    punkt = reference.tokenizer()

    def starts_and_count(text):
        starts = [len(text[:a].encode("utf-8")) for a, _ in punkt.span_tokenize(text)]
        count = len([x for x in punkt.tokenize(text) if x.strip()])
        return ",".join(map(str, starts)) + " " + str(count)
    return starts_and_count


def check_sentences(seed, count, show):
    rng = random.Random(seed)
    texts = [t for t in (made_up_sentences(rng) for _ in range(count)) if t]
    ours = subprocess.run([DUMP, "--sentences"], input="\0".join(texts).encode(), capture_output=True, check=True)
    ours = ours.stdout.decode().split("\n")
    nltk = nltk_sentences()
    differ = 0
    for text, line in zip(texts, ours):
        theirs = nltk(text)
        if line != theirs:
            differ += 1
            if differ <= show:
                print(repr(text))
                print("  winnow:", line)
                print("  nltk:  ", theirs)
    print(f"differ {differ} of {len(texts)} (sentences, seed {seed})")


def main():
    args = sys.argv[1:]
    sentences = bool(args) and args[0] == "--sentences"
    if sentences:
        args = args[1:]
    seed = int(args[0]) if len(args) > 0 else 1
    count = int(args[1]) if len(args) > 1 else 5000
    if sentences:
        check_sentences(seed, count, int(os.environ.get("SHOW", "15")))
        return
    show = int(os.environ.get("SHOW", "15"))
    rng = random.Random(seed)
    texts = [t for t in (made_up_text(rng) for _ in range(count)) if t]
    ours = subprocess.run([DUMP], input="\0".join(texts).encode(), capture_output=True, check=True)
    ours = ours.stdout.decode().split("\x1e\n")
    nltk_words = nltk_tokenizer()
    differ = 0
    for text, dumped in zip(texts, ours):
        winnow, nltk = [w for w in dumped.split("\n") if w], nltk_words(text)
        if winnow != nltk:
            differ += 1
            if differ <= show:
                print(repr(text))
                print("  winnow:", winnow)
                print("  nltk:  ", nltk)
    print(f"differ {differ} of {len(texts)} (seed {seed})")


if __name__ == "__main__":
    main()
