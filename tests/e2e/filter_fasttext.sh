#!/bin/sh
# filter_fasttext.sh - fastText classifiers in `winnow filter` and `winnow
# score`, against Debian's fastText 0.9.2 itself: models trained here (language
# ID on UDHR lines, quality on DCLM's human labels) with every loss, quantized
# (.ftz, with and without pruning and a quantized output), and one of dim 256,
# word bigrams and 2 M buckets; every label's probability for every test
# document must equal `fasttext predict-prob`'s to 1e-6. Keep rules and the
# language classifier keep exactly the documents those probabilities say;
# truncated and corrupted models are refused with the file and byte offset.
. "$(dirname "$0")/../lib.sh"
DCLM_TRAIN=$SHARED/jsonl/dclm/data/majority_data.jsonl
DCLM_TEST=$SHARED/jsonl/dclm/data/agreement_data.jsonl
UDHR=$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl
for f in "$DCLM_TRAIN" "$DCLM_TEST" "$UDHR"; do
    [ -f "$f" ] || { echo "not ok 1 - missing test data $f"; echo "1..1"; exit 1; }
done
command -v fasttext >/dev/null || { echo "not ok 1 - the fasttext program is missing (make deps installs it)"; echo "1..1"; exit 1; }
# every label of every document: winnow's scores against predict-prob's (tests/ref/fasttext_compare.py)
COMPARE="$(cd "$(dirname "$0")/../ref" && pwd)/fasttext_compare.py"
cd "$TMP" || exit 1

# Training and test sets: UDHR lines of 24 languages (every 5th line held out)
# and DCLM documents labelled hq (1) or cc (0); the test stream mixes the
# held-out lines with DCLM's agreement documents (many lines each).
python3 - "$UDHR" "$DCLM_TRAIN" "$DCLM_TEST" <<'EOF'
import json, sys
udhr, dclm_train, dclm_test = sys.argv[1:]
langs = {'eng','fra','deu','spa','ita','por','nld','pol','rus','ukr','tur','swe','fin','hun','ces',
         'ell','arb','heb','hin','ben','jpn','kor','vie','ind'}
with open('lid.train', 'w') as tr, open('lid_all.train', 'w') as tr_all, open('test.jsonl', 'w') as te:
    for line in open(udhr):
        r = json.loads(line)
        if r['stage'] != '4':
            continue
        for i, l in enumerate(x.strip() for x in r['text'].split('\n') if x.strip()):
            if i % 5 == 0 and r['iso6393'] in langs:
                te.write(json.dumps({'id': '%s-%d' % (r['code'], i), 'text': l}) + '\n')
            elif i % 5:
                tr_all.write('__label__%s %s\n' % (r['bcp47'], l))
                if r['iso6393'] in langs:
                    tr.write('__label__%s %s\n' % (r['bcp47'], l))
    for line in open(dclm_test):
        te.write(json.dumps({'text': json.loads(line)['text']}) + '\n')
with open('q.train', 'w') as tr:
    for line in open(dclm_train):
        d = json.loads(line)
        tr.write('__label__%s %s\n' % ('hq' if d['label'] else 'cc', d['text'].replace('\n', ' ')))
# what predict-prob reads: one document a line, newlines as spaces
with open('test.txt', 'w') as f:
    for line in open('test.jsonl'):
        f.write(json.loads(line)['text'].replace('\n', ' ') + '\n')
EOF
ndocs=$(wc -l < test.jsonl)

rules_off="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"
nlid=$(cut -d' ' -f1 lid.train | sort -u | wc -l)

# check NAME MODEL NLABELS DESCRIPTION
check() {
    fasttext predict-prob "$2" test.txt "$3" > "ref.$1" 2>/dev/null
    "$WINNOW" filter -q -j2 $rules_off --classifier "$1=$2" --classifier-top-k "$3" test.jsonl > "out.$1" 2> "err.$1"
    is "$(python3 "$COMPARE" "$1" "ref.$1" "out.$1" 2>&1)" "docs=$ndocs worst=ok" "$4: every label's probability equals predict-prob's"
}

for loss in softmax hs ns ova; do
    fasttext supervised -input lid.train -output "lid_$loss" -dim 16 -minn 2 -maxn 4 -loss "$loss" \
        -epoch 10 -lr 0.5 -bucket 100000 -thread 1 -verbose 0 >/dev/null 2>&1
    check "lid_$loss" "lid_$loss.bin" "$nlid" "language ID, loss $loss, char n-grams 2-4"
done
fasttext quantize -input lid.train -output lid_softmax -qnorm -retrain -cutoff 2000 -epoch 2 -thread 1 -verbose 0 >/dev/null 2>&1
check lid_softmax_ftz lid_softmax.ftz "$nlid" "quantized .ftz, pruned to 2000 rows, quantized norms"
# a quantized output needs 256 labels or more: every UDHR language
fasttext supervised -input lid_all.train -output lid_all -dim 16 -minn 2 -maxn 4 -loss hs \
    -epoch 5 -lr 0.5 -bucket 100000 -thread 2 -verbose 0 >/dev/null 2>&1
fasttext quantize -input lid_all.train -output lid_all -qout -dsub 4 -thread 2 -verbose 0 >/dev/null 2>&1
check lid_all_ftz lid_all.ftz "$(cut -d' ' -f1 lid_all.train | sort -u | wc -l)" \
    "quantized .ftz with a quantized output matrix (all UDHR languages), loss hs"
fasttext supervised -input q.train -output q -dim 256 -wordNgrams 2 -bucket 2000000 -epoch 10 -lr 0.5 \
    -thread 2 -verbose 0 >/dev/null 2>&1
check q q.bin 2 "quality, dim 256, word bigrams, 2 M buckets"
# --classifier-fast sums each row's precomputed logits in double: within
# fastText's own float rounding of predict-prob (up to ~2e-6 measured on the
# longest documents), and a different computation from the exact float path
"$WINNOW" filter -q -j2 $rules_off --classifier-fast --classifier q=q.bin test.jsonl > out.q_fast
is "$(python3 "$COMPARE" q ref.q out.q_fast 5e-6 2>&1)" "docs=$ndocs worst=ok" \
    "--classifier-fast: every probability within 5e-6 of predict-prob's"
ok "--classifier-fast sums in double (output differs from the exact float path)" sh -c '! cmp -s out.q out.q_fast'
"$WINNOW" filter -q -j2 $rules_off --classifier-fast --classifier lid_hs=lid_hs.bin --classifier-top-k "$nlid" test.jsonl > out.lid_hs_fast
ok "--classifier-fast leaves a model of many labels (24, dim 16) on the exact path" cmp out.lid_hs out.lid_hs_fast

# keep rules keep exactly the documents whose probability passes
"$WINNOW" filter -q $rules_off --classifier q=q.bin --keep 'q:__label__hq >= 0.5' \
    --rejects rej.jsonl test.jsonl > kept.jsonl
want=$(python3 -c "
import sys
n = 0
for l in open('ref.q'):
    r = l.split(); d = dict(zip(r[0::2], map(float, r[1::2]))); n += d['__label__hq'] >= 0.5
print(n)")
is "$(wc -l < kept.jsonl)" "$want" "--keep 'q:__label__hq >= 0.5' keeps the $want documents predict-prob scores >= 0.5"
is "$(grep -c '"reason":"classifier:q:__label__hq"' rej.jsonl)" "$((ndocs - want))" "the others are rejected with the rule as reason"
# '>=' keeps a probability equal to the threshold, '>' drops it: the
# threshold is one document's hq probability written out exactly (the
# float's value as a double: strtod gives back that very number)
thr=$(python3 -c "
import json, struct
p = sorted(json.loads(l)['metadata']['scores']['q']['__label__hq'] for l in open('out.q'))
print(repr(struct.unpack('f', struct.pack('f', p[len(p) // 2]))[0]))")
count() { python3 -c "
import json, struct, sys
t = float(sys.argv[2])
f = lambda v: struct.unpack('f', struct.pack('f', v))[0]
p = [f(json.loads(l)['metadata']['scores']['q']['__label__hq']) for l in open('out.q')]
print(sum(x >= t if sys.argv[1] == 'ge' else x > t for x in p))" "$1" "$thr"; }
"$WINNOW" filter -q $rules_off --classifier q=q.bin --keep "q:__label__hq >= $thr" test.jsonl > ge.jsonl
"$WINNOW" filter -q $rules_off --classifier q=q.bin --keep "q:__label__hq > $thr" test.jsonl > gt.jsonl
is "$(wc -l < ge.jsonl):$(wc -l < gt.jsonl)" "$(count ge):$(count gt)" \
    "--keep at a document's exact probability $thr: '>=' keeps it, '>' drops it"
# a rule on a label outside the top k written (2 by default) reads that
# label's probability, not 0: French in the language model, threshold
# between two of predict-prob's values near the median of the documents
# where fr is not among the best two
read thr want <<EOT
$(python3 -c "
rows = [l.split() for l in open('ref.lid_softmax')]
prob = [dict(zip(r[0::2], map(float, r[1::2]))) for r in rows]
low = sorted({d['__label__fr'] for r, d in zip(rows, prob) if '__label__fr' not in (r[0], r[2])})
m = len(low) // 2
t = (low[m - 1] + low[m]) / 2
print(t, sum(d['__label__fr'] >= t for d in prob))")
EOT
"$WINNOW" filter -q $rules_off --classifier lf=lid_softmax.bin --keep "lf:__label__fr >= $thr" test.jsonl > fr.jsonl
is "$(wc -l < fr.jsonl)" "$want" "--keep 'lf:__label__fr >= $thr' (fr mostly outside the top 2) keeps the $want documents predict-prob scores so"

# a rule on a label that is also among the top k written: that label once
# (no duplicate key), the object holding predict-prob's best two and it
"$WINNOW" filter -q $rules_off --classifier lf=lid_softmax.bin --keep "lf:__label__en >= 0" test.jsonl > en_rule.jsonl
is "$(python3 - en_rule.jsonl ref.lid_softmax <<'EOF'
import json, sys
def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key %s" % keys)
    return dict(pairs)
out = [json.loads(l, object_pairs_hook=no_dups)["metadata"]["scores"]["lf"] for l in open(sys.argv[1])]
ref = [l.split() for l in open(sys.argv[2])]
bad = [i for i, (o, r) in enumerate(zip(out, ref)) if set(o) != set(r[0:4:2]) | {"__label__en"}]
print(len(out), sum("__label__en" in r[0:4:2] for r in ref) > 100, bad[:3])
EOF
)" "$ndocs True []" "a rule on a label among the top 2: written once, beside the best two (every document)"

# --classifier-max-bytes N: the classifier reads the text's first N bytes,
# cut back to a character boundary: every label's probability equals
# predict-prob's on the texts cut so (UTF-8 in Python), where byte 50 falls
# inside a character in 98 of the 622 UDHR lines
python3 - <<'EOF'
import json
cut = 0
with open('test50.txt', 'w') as f:
    for l in open('test.jsonl'):
        b = json.loads(l)['text'].encode()
        cut += len(b) > 50 and (b[50] & 0xC0) == 0x80
        f.write(b[:50].decode('utf-8', 'ignore').replace('\n', ' ') + '\n')
print(cut, file=open('cut50', 'w'))
EOF
fasttext predict-prob lid_softmax.bin test50.txt "$nlid" > ref.cut50 2>/dev/null
"$WINNOW" filter -q -j2 $rules_off --classifier cut50=lid_softmax.bin --classifier-top-k "$nlid" --classifier-max-bytes 50 test.jsonl > out.cut50
is "$(python3 "$COMPARE" cut50 ref.cut50 out.cut50 2>&1) $(test "$(cat cut50)" -gt 50 && echo many-cut-inside)" "docs=$ndocs worst=ok many-cut-inside" \
    "--classifier-max-bytes 50: every label's probability equals predict-prob's on the texts cut at a character boundary"

# a classifier as the language identifier (FineWeb's recipe: English >= 0.65)
"$WINNOW" filter -q --no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb \
    --classifier lid=lid_softmax.bin --langid-model lid --lang en --min-lang-score 0.65 test.jsonl > en.jsonl
want=$(python3 -c "
n = 0
for l in open('ref.lid_softmax'):
    r = l.split(); n += r[0] == '__label__en' and float(r[1]) > 0.65
print(n)")
is "$(wc -l < en.jsonl)" "$want" "--langid-model lid --lang en --min-lang-score 0.65 keeps the $want documents predict-prob puts first as en above 0.65 (datatrove's LanguageFilter keeps score > threshold)"
is "$(grep -c '"lang":"en","lang_score":' en.jsonl)" "$want" "kept documents carry lang en and its score"

# output does not depend on threads; the config file and flags agree
"$WINNOW" filter -q -j1 $rules_off --classifier q=q.bin test.jsonl > j1.jsonl
"$WINNOW" filter -q -j2 $rules_off --classifier q=q.bin test.jsonl > j2.jsonl
ok "classifier output does not depend on -j" cmp j1.jsonl j2.jsonl
printf 'classifier = q=q.bin\nclassifier = lid=lid_hs.bin\nkeep = q:__label__hq >= 0.5\n' > conf
"$WINNOW" filter --config conf --print-config > eff
is "$(grep -E '^(classifier|keep) ' eff | tr '\n' '|')" "classifier = q=q.bin|classifier = lid=lid_hs.bin|keep = q:__label__hq >= 0.5|" \
    "--print-config lists every classifier and keep rule"
"$WINNOW" filter -q --config eff $rules_off test.jsonl > c1.jsonl
"$WINNOW" filter -q $rules_off --classifier q=q.bin --classifier lid=lid_hs.bin --keep 'q:__label__hq >= 0.5' test.jsonl > c2.jsonl
ok "a printed config reads back to the same run" cmp c1.jsonl c2.jsonl

# winnow score: the nearest-rank quantiles of predict-prob's probabilities
"$WINNOW" score -q --classifier q=q.bin test.jsonl > table.tsv
is "$(python3 -c "
import math
p = sorted(dict(zip(l.split()[0::2], map(float, l.split()[1::2])))['__label__hq'] for l in open('ref.q'))
row = [l.split('\t') for l in open('table.tsv') if l.startswith('q:__label__hq')][0]
q = {0.1: 5, 0.5: 7, 0.9: 9}
bad = [x for x, c in q.items() if abs(float(row[c]) - p[math.ceil(x * len(p)) - 1]) > 1e-6]
print('docs', row[1], 'bad', bad)")" "docs $ndocs bad []" "winnow score: p10, p50 and p90 are predict-prob's nearest-rank quantiles"

# broken models: refused with the file and the byte, never a crash
size=$(wc -c < lid_all.ftz)
for cut in 3 40 200 $((size / 2)) $((size - 1)); do
    head -c "$cut" lid_all.ftz > cut.ftz
    "$WINNOW" filter -q --classifier x=cut.ftz < /dev/null > /dev/null 2> cut.err
    is "$?:$(grep -c 'cut.ftz: .*at byte [0-9]' cut.err)" "1:1" "a model cut to $cut bytes is refused naming the file and byte"
done
python3 -c "
import struct
b = bytearray(open('lid_softmax.bin', 'rb').read())
b[64:68] = struct.pack('<i', 0x7fffffff)   # the dictionary's size
open('big.bin', 'wb').write(b)"
"$WINNOW" filter -q --classifier x=big.bin < /dev/null > /dev/null 2> big.err
is "$?:$(grep -c 'big.bin: dictionary of 2147483647 entries.*at byte 64' big.err)" "1:1" "a dictionary size past the file is refused at its byte"
python3 -c "
import struct
b = bytearray(open('lid_softmax.bin', 'rb').read())
b[84:92] = struct.pack('<q', 0)   # pruneidx_size: pruned, but the input matrix is dense
open('pruned.bin', 'wb').write(b)"
"$WINNOW" filter -q --classifier x=pruned.bin < /dev/null > /dev/null 2> pruned.err
is "$?:$(grep -c 'pruned.bin: pruned n-gram index with a dense input matrix.*at byte 64' pruned.err)" "1:1" \
    "a pruned dictionary with a dense input matrix is refused, as fastText refuses it"
printf 'not a model' > junk.bin
"$WINNOW" filter -q --classifier x=junk.bin < /dev/null > /dev/null 2> junk.err
is "$?:$(grep -c 'junk.bin: not a fastText model' junk.err)" "1:1" "a file that is not a model is refused"
"$WINNOW" filter -q --keep 'q:__label__hq >= 0.5' < /dev/null > /dev/null 2>&1; is "$?" 1 "a keep rule without its classifier is a usage error"
"$WINNOW" filter -q --classifier q=q.bin --keep 'q:__label__nope >= 0.5' < /dev/null > /dev/null 2>&1; is "$?" 1 "a keep rule on an unknown label is a usage error"
done_testing
