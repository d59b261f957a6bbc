#!/usr/bin/python3
"""Writes NLTK's word_tokenize and sent_tokenize results on real documents, for tests/unit/filter_punkt.c.

    /usr/bin/python3 scripts/nltk_words_reference.py SHARED > tests/data/punkt/nltk_words.tsv

Needs Debian's python3-nltk (3.8). The punkt model is NLTK's PunktSentenceTokenizer given
the parameters winnow builds in (read from filter/punkt.c: abbreviations, collocations,
sentence starters) and no orthographic table, as winnow runs it. For each document of the
files below, in order, one line: file index, document index, the number of words, a 64-bit
FNV-1a hash of the words joined by newlines, and the sum over the text's non-blank lines (str.splitlines(), stripped)
of len(sent_tokenize(line)) without blank sentences (C4's sentence count, as datatrove counts it).
"""
import gzip
import json
import os
import re
import sys

from nltk.tokenize import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

FILES = [
    "jsonl/dclm/data/majority_data.jsonl",
    "jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz",
    "jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz",
]


def c_array(source, name):
    body = re.search(r"\b%s\[\](?:\[2\])? = \{(.*?)\n\};" % name, source, re.S).group(1)
    return re.findall(r'"((?:[^"\\]|\\.)*)"', body)


def tokenizer():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "filter", "punkt.c"), encoding="utf-8") as f:
        source = f.read()
    params = PunktParameters()
    params.abbrev_types = set(c_array(source, "abbrev_types"))
    params.sent_starters = set(c_array(source, "sent_starters"))
    pairs = c_array(source, "collocations")
    params.collocations = set(zip(pairs[0::2], pairs[1::2]))
    return PunktSentenceTokenizer(params)


def fnv1a(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    shared = sys.argv[1]
    sentences = tokenizer()
    words = NLTKWordTokenizer()
    for file_index, name in enumerate(FILES):
        path = os.path.join(shared, name)
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            doc_index = 0
            for line in f:
                text = json.loads(line).get("text") if line.strip() else None
                if not isinstance(text, str):
                    continue
                tokens = [w for s in sentences.tokenize(text) for w in words.tokenize(s) if w.strip()]
                count = sum(len([s for s in sentences.tokenize(l.strip()) if s.strip()])
                            for l in text.splitlines() if l.strip())
                digest = fnv1a("\n".join(tokens).encode("utf-8"))
                print(f"{file_index}\t{doc_index}\t{len(tokens)}\t{digest:016x}\t{count}")
                doc_index += 1


if __name__ == "__main__":
    main()
