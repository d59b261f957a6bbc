#!/usr/bin/env python3
"""Compare `winnow filter`'s default rules with datatrove's own FineWeb filters, document by document.

datatrove is not packaged by Debian, so this is a developer's check, not a test:
    /usr/bin/python3 scripts/datatrove_filter_check.py --datatrove SRC --punkt DIR \
        --winnow build/winnow --out OUTDIR FILE.jsonl...
SRC is datatrove's `src` directory (a checkout of github.com/huggingface/datatrove);
DIR holds NLTK's punkt_tab `english/` parameters (abbrev_types.txt, collocations.tab,
sent_starters.txt, ortho_context.tab). Needs Debian's python3-nltk, python3-regex,
python3-loguru, python3-numpy, python3-humanize, python3-dill, python3-multiprocess;
huggingface_hub is stubbed (no network is used).

English words are split by NLTK's word_tokenize, as for FineWeb (see use_nltk_words).
The reference is FineWeb's pipeline order and settings: GopherRepetitionFilter(),
GopherQualityFilter(), C4QualityFilter(filter_no_terminal_punct=False),
FineWebQualityFilter(). winnow runs `filter -j1 --no-langid` (language ID is a
separate step in FineWeb). Every document is compared on its fate (kept, or the
first rule that dropped it) and, when both keep it, on its text (C4 removes lines).
Writes OUTDIR/summary.md and OUTDIR/differ.jsonl (one line per differing document).
"""
import argparse
import importlib.metadata  # noqa: F401 (datatrove reads it without importing it)
import collections
import json
import os
import subprocess
import sys
import types


def stub_hub():
    """datatrove imports huggingface_hub at module level; no name of it is used here."""
    for name in ("huggingface_hub", "huggingface_hub.utils"):
        mod = types.ModuleType(name)
        mod.__getattr__ = lambda attr: type(attr, (), {})
        sys.modules[name] = mod


def punkt_tokenizer(directory):
    """NLTK's English punkt model from its punkt_tab text files (NLTK 3.9's format)."""
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    def lines(name):
        with open(os.path.join(directory, "english", name), encoding="utf-8") as f:
            return [line.rstrip("\n") for line in f if line.rstrip("\n")]

    params = PunktParameters()
    params.abbrev_types = set(lines("abbrev_types.txt"))
    params.collocations = set(tuple(line.split("\t")) for line in lines("collocations.tab"))
    params.sent_starters = set(lines("sent_starters.txt"))
    for line in lines("ortho_context.tab"):
        word, flags = line.split("\t")
        params.ortho_context[word] = int(flags)
    return PunktSentenceTokenizer(params)


def install_punkt(tokenizer):
    """Route NLTK's loads of tokenizers/punkt/english.pickle to the tokenizer given."""
    import nltk
    import nltk.data
    import nltk.tokenize

    real_load = nltk.data.load

    def load(resource, *args, **kwargs):
        if "punkt" in resource:
            if "english" not in resource:
                raise LookupError(resource)
            return tokenizer
        return real_load(resource, *args, **kwargs)

    nltk.load = nltk.data.load = nltk.tokenize.load = load


DATATROVE_QUALITY_NAMES = {
    "gopher_below_avg_threshold": "below_avg_word_len",
    "gopher_above_avg_threshold": "above_avg_word_len",
    "gopher_enough_stop_words": "few_stop_words",
}


def use_nltk_words():
    """English words as FineWeb split them: NLTK's word_tokenize (datatrove's NLTKTokenizer).
    datatrove itself moved English to spaCy's blank tokenizer in December 2024 (its
    tokenizer_assignment.csv); spaCy is not packaged by Debian, so that is not compared."""
    import datatrove.utils.word_tokenizers as wt

    english = wt.NLTKTokenizer("english")
    wt.load_word_tokenizer = lambda language: english


def reference_filters():
    from datatrove.pipeline.filters.c4_filters import C4QualityFilter
    from datatrove.pipeline.filters.fineweb_quality_filter import FineWebQualityFilter
    from datatrove.pipeline.filters.gopher_quality_filter import GopherQualityFilter
    from datatrove.pipeline.filters.gopher_repetition_filter import GopherRepetitionFilter

    return [
        ("gopher_repetition", GopherRepetitionFilter()),
        ("gopher_quality", GopherQualityFilter()),
        ("c4", C4QualityFilter(filter_no_terminal_punct=False)),
        ("fineweb", FineWebQualityFilter()),
    ]


def reference_fate(filters, text, doc_id):
    """(reason or None, final text) of one document under datatrove's filters."""
    from datatrove.data import Document

    doc = Document(text=text, id=doc_id)
    for prefix, f in filters:
        try:
            verdict = f.filter(doc)
        except ZeroDivisionError:
            return f"{prefix}:ZeroDivisionError", None
        if verdict is True:
            continue
        reason = verdict[1] if isinstance(verdict, tuple) else "dropped"
        if prefix == "gopher_quality":
            reason = DATATROVE_QUALITY_NAMES.get(reason, reason.removeprefix("gopher_"))
        return f"{prefix}:{reason}", None
    return None, doc.text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datatrove", required=True)
    ap.add_argument("--punkt", required=True)
    ap.add_argument("--winnow", default="build/winnow")
    ap.add_argument("--out", required=True)
    ap.add_argument("inputs", nargs="+")
    args = ap.parse_args()

    stub_hub()
    sys.path.insert(0, args.datatrove)
    install_punkt(punkt_tokenizer(args.punkt))
    use_nltk_words()
    filters = reference_filters()

    os.makedirs(args.out, exist_ok=True)
    docs_path = os.path.join(args.out, "docs.jsonl")
    texts = []
    with open(docs_path, "w", encoding="utf-8") as out:
        for path in args.inputs:
            opener = open
            if path.endswith(".gz"):
                import gzip

                opener = gzip.open
            with opener(path, "rt", encoding="utf-8") as f:
                for line in f:
                    if not line.strip():
                        continue
                    text = json.loads(line).get("text")
                    if not isinstance(text, str):
                        continue
                    doc_id = f"{len(texts)}"
                    texts.append((doc_id, os.path.basename(path), text))
                    out.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n")

    kept_path = os.path.join(args.out, "winnow_kept.jsonl")
    rejects_path = os.path.join(args.out, "winnow_rejects.jsonl")
    subprocess.run([args.winnow, "filter", "-q", "-j1", "--no-langid", "--rejects", rejects_path,
                    "-o", kept_path, docs_path], check=True)
    winnow = {}
    with open(kept_path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            winnow[d["id"]] = (None, d["text"])
    with open(rejects_path, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            winnow[d["id"]] = (d["reject"]["reason"], None)

    counts = collections.Counter()
    pairs = collections.Counter()
    with open(os.path.join(args.out, "differ.jsonl"), "w", encoding="utf-8") as out:
        for doc_id, source, text in texts:
            ref_reason, ref_text = reference_fate(filters, text, doc_id)
            w_reason, w_text = winnow.get(doc_id, ("missing", None))
            same_fate = ref_reason == w_reason
            same_text = same_fate and ref_text == w_text
            counts["documents"] += 1
            counts["same fate"] += same_fate
            counts["same fate and text"] += same_text
            counts["kept by datatrove"] += ref_reason is None
            counts["kept by winnow"] += w_reason is None
            if (ref_reason is None) != (w_reason is None):
                counts["kept by one only"] += 1
            if not same_text:
                pairs[(ref_reason or "kept", w_reason or "kept")] += 1
                out.write(json.dumps({"id": doc_id, "source": source, "datatrove": ref_reason or "kept",
                                      "winnow": w_reason or "kept", "text": text,
                                      "datatrove_text": ref_text, "winnow_text": w_text},
                                     ensure_ascii=False) + "\n")

    with open(os.path.join(args.out, "summary.md"), "w", encoding="utf-8") as out:
        out.write("| count | documents |\n|---|---|\n")
        for key in ("documents", "same fate", "same fate and text", "kept by datatrove", "kept by winnow",
                    "kept by one only"):
            out.write(f"| {key} | {counts[key]} |\n")
        out.write("\n| datatrove | winnow | documents |\n|---|---|---|\n")
        for (a, b), n in pairs.most_common():
            out.write(f"| {a} | {b} | {n} |\n")
    sys.stdout.write(open(os.path.join(args.out, "summary.md"), encoding="utf-8").read())


if __name__ == "__main__":
    main()
