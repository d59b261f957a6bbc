#!/usr/bin/env python3
"""fasttext_compare.py - winnow's classifier scores against fastText's own.

    python3 tests/ref/fasttext_compare.py MODEL REF OUT [TOLERANCE]

REF is `fasttext predict-prob`'s output (one document a line: label,
probability, ...), OUT winnow filter's JSON lines, whose metadata.scores[MODEL]
holds every label. predict-prob prints 6 significant digits, so a probability
matches when it prints the same or lies within TOLERANCE (default 1e-6) of the
printed value. Prints "docs=N worst=ok", the worst difference, or the first
document whose labels differ (exit 1)."""
import json
import sys

name, ref_path, out_path = sys.argv[1:4]
tolerance = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-6
ref = [l.split() for l in open(ref_path, encoding='utf-8', errors='replace')]
out = [json.loads(l) for l in open(out_path)]
if len(ref) != len(out):
    sys.exit('documents: predict-prob %d, winnow %d' % (len(ref), len(out)))
worst = 0.0
for i, (r, o) in enumerate(zip(ref, out)):
    want = dict(zip(r[0::2], r[1::2]))
    got = o['metadata']['scores'][name]
    if set(want) != set(got):
        sys.exit('document %d: labels differ: %s vs %s' % (i, sorted(want), sorted(got)))
    for label, p in want.items():
        if '%g' % got[label] != p:
            worst = max(worst, abs(got[label] - float(p)))
print('docs=%d worst=%s' % (len(out), 'ok' if worst <= tolerance else worst))
