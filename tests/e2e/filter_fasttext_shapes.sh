#!/bin/sh
# filter_fasttext_shapes.sh - fastText models of the shapes filter_fasttext.sh
# does not train, each checked against Debian's fastText 0.9.2 itself (`fasttext
# predict-prob` on the same lines): a dim that is not a multiple of 16 (fastText's
# default 100 is not) with char n-grams from 1 character, a quantized model whose
# dim is not a multiple of its sub-quantizer size, a file of version 11 (read
# without char n-grams, as fastText reads old models), an hs model whose label
# counts tie with a tree node, and documents holding a literal "</s>", label
# tokens and the other separators fastText splits at. Then `winnow score
# --label` on a model of many labels, against predict-prob's probabilities.
. "$(dirname "$0")/../lib.sh"
UDHR=$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl
require_file "$UDHR"
command -v fasttext >/dev/null || { echo "not ok 1 - the fasttext program is missing (make deps installs it)"; echo "1..1"; exit 1; }
# every label of every document: winnow's scores against predict-prob's (tests/ref/fasttext_compare.py)
COMPARE="$(cd "$(dirname "$0")/../ref" && pwd)/fasttext_compare.py"
cd "$TMP" || exit 1

# UDHR lines of 12 languages (every 5th held out for the test stream), a
# training set whose three labels have 2N, N and N lines (the hs tree's tie),
# and test documents built to hit the tokenizer's edges.
python3 - "$UDHR" <<'EOF'
import json, re, sys
langs = ['eng', 'fra', 'deu', 'spa', 'ita', 'nld', 'pol', 'rus', 'tur', 'fin', 'ell', 'vie']
train, test, by_lang = [], [], {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r['stage'] != '4' or r['iso6393'] not in langs:
        continue
    for i, l in enumerate(x.strip() for x in r['text'].split('\n') if x.strip()):
        if i % 5 == 0:
            test.append(l)
        else:
            train.append('__label__%s %s' % (r['bcp47'], l))
            by_lang.setdefault(r['bcp47'], []).append(l)
open('lid.train', 'w').write('\n'.join(train) + '\n')
# three labels of 2N, N and N lines: buildTree meets a leaf and a node of equal count
(a, b, c), n = sorted(by_lang)[:3], 30
with open('tie.train', 'w') as f:
    for lang, k in ((a, 2 * n), (b, n), (c, n)):
        for l in by_lang[lang][:k]:
            f.write('__label__%s %s\n' % (lang, l))
# fastText reads a line up to its first "</s>" token; an unknown "__label__"
# token is a label (nothing read); \v \f \r and NUL separate words as spaces do
base = test[:40]
edges = []
for i, l in enumerate(base):
    w = l.split()
    h = len(w) // 2
    edges += [' '.join(w[:h]) + ' </s> ' + ' '.join(w[h:]),
              ' '.join(w[:h]) + ' __label__zz ' + ' '.join(w[h:]),
              '__label__' + w[0] + ' ' + ' '.join(w[1:h]) + ' __label__fr ' + ' '.join(w[h:]),
              '\v'.join(w[:h]) + '\f' + '\r'.join(w[h:]) + '\0' + 'x',
              '</s>' + ' ' + l]
with open('test.jsonl', 'w') as f:
    for t in test + edges:
        f.write(json.dumps({'text': t}) + '\n')
# what predict-prob reads: one document a line, newlines as spaces, cut before
# a literal "</s>" token (the line's end gives that token): predict-prob would
# read the rest as a line of its own, where fastText's predict on a string
# (Python's model.predict, datatrove) reads one line only
eos = re.compile(r'(^|[ \n\r\t\v\f\0])</s>([ \n\r\t\v\f\0]|$)')
with open('test.txt', 'w') as f:
    for t in test + edges:
        m = eos.search(t)
        f.write((t[:m.start()] if m else t).replace('\n', ' ') + '\n')
EOF
ndocs=$(wc -l < test.jsonl)
nlid=$(cut -d' ' -f1 lid.train | sort -u | wc -l)

rules_off="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"

# check NAME MODEL NLABELS DESCRIPTION
check() {
    fasttext predict-prob "$2" test.txt "$3" > "ref.$1" 2>/dev/null
    "$WINNOW" filter -q -j2 $rules_off --classifier "$1=$2" --classifier-top-k "$3" test.jsonl > "out.$1" 2> "err.$1"
    is "$(python3 "$COMPARE" "$1" "ref.$1" "out.$1" 2>&1)" "docs=$ndocs worst=ok" "$4: every label's probability equals predict-prob's"
}

# dim 20 (one block of 16 and 4 more columns), char n-grams of 1 to 3 characters
fasttext supervised -input lid.train -output d20 -dim 20 -minn 1 -maxn 3 -epoch 5 -lr 0.5 -bucket 50000 \
    -thread 1 -verbose 0 >/dev/null 2>&1
check d20 d20.bin "$nlid" "dim 20, char n-grams 1-3, softmax"
# quantized, dim 10 in sub-quantizers of 4: the last one holds 2
fasttext supervised -input lid.train -output d10 -dim 10 -minn 2 -maxn 4 -epoch 5 -lr 0.5 -bucket 50000 \
    -thread 1 -verbose 0 >/dev/null 2>&1
fasttext quantize -input lid.train -output d10 -dsub 4 -qnorm -thread 1 -verbose 0 >/dev/null 2>&1
check d10q d10.ftz "$nlid" "quantized .ftz of dim 10 with dsub 4 (last sub-quantizer of 2), quantized norms"
# the same file as version 11: fastText reads it without char n-grams
python3 -c "
import struct
b = bytearray(open('d20.bin', 'rb').read())
assert struct.unpack('<i', b[4:8])[0] == 12
b[4:8] = struct.pack('<i', 11)
open('d20v11.bin', 'wb').write(b)"
check d20v11 d20v11.bin "$nlid" "the dim-20 model as file version 11 (no char n-grams)"
ok "version 11 scores differ from version 12's (char n-grams left out)" sh -c '! cmp -s ref.d20 ref.d20v11'
# hs with label counts 2N, N, N: the leaf of 2N ties the node of N + N
fasttext supervised -input tie.train -output tie -dim 16 -loss hs -epoch 10 -lr 0.5 -minn 2 -maxn 4 \
    -bucket 50000 -thread 1 -verbose 0 >/dev/null 2>&1
check tie tie.bin 3 "hs, label counts tying a tree node"

# winnow score --label on a model of more than 8 labels: the rows of the
# named labels, with predict-prob's mean and nearest-rank quantiles
"$WINNOW" score -q --classifier d=d20.bin < /dev/null > /dev/null 2> many.err
is "$?:$(grep -c "has $nlid labels: name the ones to summarise with --label d:LABEL" many.err)" "1:1" \
    "winnow score refuses to pick among $nlid labels without --label"
"$WINNOW" score -q --classifier d=d20.bin --label d:__label__fr --label d:__label__ru test.jsonl > table.tsv
is "$(python3 -c "
import math
rows = [dict(zip(l.split()[0::2], map(float, l.split()[1::2]))) for l in open('ref.d20', encoding='utf-8', errors='replace')]
table = {l.split('\t')[0]: l.rstrip('\n').split('\t') for l in open('table.tsv')}
bad = []
for label in ('fr', 'ru'):
    p = sorted(r['__label__' + label] for r in rows)
    row = table['d:__label__' + label]
    if int(row[1]) != len(p) or abs(float(row[2]) - sum(p) / len(p)) > 1e-5:
        bad.append(label + ' count/mean')
    for c, q in zip(range(3, 12), (0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99)):
        if abs(float(row[c]) - p[math.ceil(q * len(p)) - 1]) > 1e-6:
            bad.append('%s p%g' % (label, q * 100))
print(sorted(table), bad)")" "['d:__label__fr', 'd:__label__ru', 'label'] []" \
    "winnow score --label d:__label__fr --label d:__label__ru: count, mean and quantiles of predict-prob's"
done_testing
