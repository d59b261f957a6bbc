#!/usr/bin/env python3
"""article_metric.py - a second implementation of the article-extraction
benchmark's metric (scrapinghub/article-extraction-benchmark, evaluate.py),
written from its definition, to check `winnow score-extraction` against.

Per page: tokens are Python's \\w+ runs; shingles are the 4-grams of tokens
(a text of 1..3 tokens is one shorter shingle); tp/fp/fn are the multiset
intersection and differences of true and predicted shingles.  Precision is
the mean over pages with tp+fp > 0, recall the mean over pages with tp+fn > 0 (so a page
where both texts are empty counts in neither), F1 = 2PR/(P+R).  No bootstrap:
the point estimates only.

usage: article_metric.py ARTICLES_DIR [NAME=TEXT_DIR]...
prints "name precision recall f1" with 3 decimals for each output/*.json,
sorted by name, then for each NAME whose predictions are TEXT_DIR/<id>.txt."""
import collections
import json
import pathlib
import re
import sys

WORD = re.compile(r"\w+")
SHINGLE = 4


def shingles(text):
    tokens = WORD.findall(text or "")
    count = max(1, len(tokens) - SHINGLE + 1)
    return collections.Counter(tuple(tokens[i:i + SHINGLE]) for i in range(count) if tokens[i:i + SHINGLE])


def page_counts(truth, pred):
    t, p = shingles(truth), shingles(pred)
    tp = sum((t & p).values())
    return tp, sum(p.values()) - tp, sum(t.values()) - tp


def scores(truth, pred):
    precisions, recalls = [], []
    for key, body in truth.items():
        tp, fp, fn = page_counts(body.get("articleBody", ""), pred.get(key, {}).get("articleBody", ""))
        if tp + fp > 0:
            precisions.append(tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(tp / (tp + fn))
    p = sum(precisions) / len(precisions)
    r = sum(recalls) / len(recalls)
    return p, r, 2 * p * r / (p + r)


def main():
    root = pathlib.Path(sys.argv[1])
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    for path in sorted((root / "output").glob("*.json")):
        p, r, f1 = scores(truth, json.loads(path.read_text(encoding="utf-8")))
        print(f"{path.stem} {p:.3f} {r:.3f} {f1:.3f}")
    for arg in sys.argv[2:]:
        name, text_dir = arg.split("=", 1)
        pred = {}
        for key in truth:
            text = pathlib.Path(text_dir, key + ".txt")
            pred[key] = {"articleBody": text.read_text(encoding="utf-8") if text.exists() else ""}
        p, r, f1 = scores(truth, pred)
        print(f"{name} {p:.3f} {r:.3f} {f1:.3f}")


if __name__ == "__main__":
    main()
