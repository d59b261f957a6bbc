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


def reference_punkt():
    """punkt with winnow's parameters, as scripts/nltk_words_reference.py builds it."""
    spec = importlib.util.spec_from_file_location("reference", os.path.join(HERE, "nltk_words_reference.py"))
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    return reference.tokenizer()


def nltk_words():
    from nltk.tokenize import NLTKWordTokenizer
    sentences, words = reference_punkt(), NLTKWordTokenizer()
    return lambda text: [w for s in sentences.tokenize(text) for w in words.tokenize(s) if w.strip()]


def nltk_sentences():
    punkt = reference_punkt()

    def starts_and_count(text):
        starts = [len(text[:a].encode("utf-8")) for a, _ in punkt.span_tokenize(text)]
        count = len([x for x in punkt.tokenize(text) if x.strip()])
        return ",".join(map(str, starts)) + " " + str(count)
    return starts_and_count


def made_up(rng, most_pieces, words, marks, word_share):
    """A text of 3 to most_pieces pieces, each a word (with word_share chance) or a mark."""
    pieces = []
    for _ in range(rng.randint(3, most_pieces)):
        pieces.append(rng.choice(words) if rng.random() < word_share else rng.choice(marks))
        pieces.append(rng.choice(SEPARATORS))
    return "".join(pieces).strip()


def compare(texts, ours, theirs, label, show):
    """Prints the first `show` texts where ours (one per text) and theirs(text) differ, and how many."""
    differ = 0
    for text, mine in zip(texts, ours):
        reference = theirs(text)
        if mine != reference:
            differ += 1
            if differ <= show:
                print(repr(text))
                print("  winnow:", mine)
                print("  nltk:  ", reference)
    print(f"differ {differ} of {len(texts)} ({label})")


def main():
    args = sys.argv[1:]
    sentences = bool(args) and args[0] == "--sentences"
    if sentences:
        args = args[1:]
    seed = int(args[0]) if len(args) > 0 else 1
    count = int(args[1]) if len(args) > 1 else 5000
    show = int(os.environ.get("SHOW", "15"))
    rng = random.Random(seed)
    if sentences:
        texts = [t for t in (made_up(rng, 24, SENTENCE_WORDS, SENTENCE_MARKS, 0.7) for _ in range(count)) if t]
        out = subprocess.run([DUMP, "--sentences"], input="\0".join(texts).encode(), capture_output=True, check=True)
        compare(texts, out.stdout.decode().split("\n"), nltk_sentences(), f"sentences, seed {seed}", show)
    else:
        texts = [t for t in (made_up(rng, 18, WORDS, MARKS, 0.6) for _ in range(count)) if t]
        out = subprocess.run([DUMP], input="\0".join(texts).encode(), capture_output=True, check=True)
        ours = [[w for w in dumped.split("\n") if w] for dumped in out.stdout.decode().split("\x1e\n")]
        compare(texts, ours, nltk_words(), f"words, seed {seed}", show)


if __name__ == "__main__":
    main()
