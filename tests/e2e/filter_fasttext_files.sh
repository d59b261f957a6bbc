#!/bin/sh
# filter_fasttext_files.sh - fastText model files fastText's own training does
# not write but its loader reads, each against Debian's fastText 0.9.2 itself
# (`fasttext predict-prob` on the same lines), and the ones winnow must refuse.
# Read as fastText reads them: a dictionary holding a string twice (the later
# entry is the word), a pruned index holding a bucket twice (the later pair is
# its row), a quantized output matrix with quantized norms (-qout -qnorm). A
# keep rule naming a prefix of a label is a usage error. Refused, naming the
# file and the field: an output matrix of more rows than labels, a NaN
# weight, a pruned row past the input matrix, bucket 0 with char n-grams.
# The files are edited by tests/ref/fasttext_edit.py (fastText's layout).
. "$(dirname "$0")/../lib.sh"
UDHR=$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl
require_file "$UDHR"
command -v fasttext >/dev/null || { echo "not ok 1 - the fasttext program is missing (make deps installs it)"; echo "1..1"; exit 1; }
REF="$(cd "$(dirname "$0")/../ref" && pwd)"
cd "$TMP" || exit 1

# UDHR lines of 8 languages, every 5th held out for the test stream; and 32
# lines of every language (quantizing an output matrix needs 256 labels)
python3 - "$UDHR" <<'EOF'
import json, sys
langs = ['eng', 'fra', 'deu', 'spa', 'ita', 'nld', 'pol', 'rus']
train, train_all, test = [], [], []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r['stage'] != '4':
        continue
    lines = [x.strip() for x in r['text'].split('\n') if x.strip()]
    train_all += [(r['bcp47'], l) for i, l in enumerate(lines[:40]) if i % 5]
    if r['iso6393'] in langs:
        for i, l in enumerate(lines):
            (test if i % 5 == 0 else train).append((r['bcp47'], l))
open('lid.train', 'w').write(''.join('__label__%s %s\n' % x for x in train))
open('all.train', 'w').write(''.join('__label__%s %s\n' % x for x in train_all))
with open('test.jsonl', 'w') as j, open('test.txt', 'w') as t:
    for _, l in test:
        j.write(json.dumps({'text': l}) + '\n')
        t.write(l + '\n')
EOF
ndocs=$(wc -l < test.jsonl)
nlid=$(cut -d' ' -f1 lid.train | sort -u | wc -l)
nall=$(cut -d' ' -f1 all.train | sort -u | wc -l)
rules_off="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"

# check NAME MODEL NLABELS DESCRIPTION: every label's probability against predict-prob's
check() {
    fasttext predict-prob "$2" test.txt "$3" > "ref.$1" 2>/dev/null
    "$WINNOW" filter -q -j2 $rules_off --classifier "$1=$2" --classifier-top-k "$3" test.jsonl > "out.$1" 2> "err.$1"
    is "$(python3 "$REF/fasttext_compare.py" "$1" "ref.$1" "out.$1" 2>&1)" "docs=$ndocs worst=ok" "$4"
}
# refused NAME MODEL PATTERN DESCRIPTION: exit 1, the message names the file and PATTERN
refused() {
    "$WINNOW" filter -q --classifier "x=$2" < /dev/null > /dev/null 2> "err.$1"
    is "$?:$(grep -c "$2: $3" "err.$1")" "1:1" "$4"
    grep -q "$2: $3" "err.$1" || sed 's/^/# /' "err.$1"
}

fasttext supervised -input lid.train -output lid -dim 16 -minn 2 -maxn 4 -epoch 5 -lr 0.5 -bucket 50000 \
    -thread 1 -verbose 0 >/dev/null 2>&1
fasttext quantize -input lid.train -output lid -qnorm -cutoff 2000 -thread 1 -verbose 0 >/dev/null 2>&1
fasttext supervised -input all.train -output all -dim 16 -minn 2 -maxn 4 -epoch 2 -loss hs -bucket 20000 \
    -thread 1 -verbose 0 >/dev/null 2>&1
fasttext quantize -input all.train -output all -qnorm -qout -dsub 4 -thread 1 -verbose 0 >/dev/null 2>&1

python3 "$REF/fasttext_edit.py" dup-word lid.bin dupword.bin > dupword.log
ok "words of the model renamed to the next word ($(cat dupword.log))" grep -qv '^0 ' dupword.log
check dupword dupword.bin "$nlid" "a string twice in the dictionary: the later entry is the word, as in fastText"
ok "the renamed words change predict-prob's scores" sh -c '! cmp -s ref.dupword "$(fasttext predict-prob lid.bin test.txt '"$nlid"' > ref.plain; echo ref.plain)"'
python3 "$REF/fasttext_edit.py" dup-bucket lid.ftz dupbucket.ftz > /dev/null
check dupbucket dupbucket.ftz "$nlid" "a bucket twice in the pruned index: the later pair gives the row, as in fastText"
check qoutnorm all.ftz "$nall" "$nall labels, a quantized output matrix with quantized norms (-qout -qnorm)"

# a keep rule names a whole label: a prefix of one is no label
"$WINNOW" filter -q --classifier lid=lid.bin --keep 'lid:__label__e >= 0.5' < /dev/null > /dev/null 2> prefix.err
is "$?:$(grep -c '__label__e' prefix.err)" "1:1" "a keep rule on a prefix of a label (__label__e of __label__en) is a usage error"

python3 "$REF/fasttext_edit.py" output-extra lid.bin extra.bin > /dev/null
refused extra extra.bin "output matrix is $((nlid + 1)) x 16, expected $nlid rows of 16 at byte" \
    "an output matrix of one row more than the labels is refused"
python3 "$REF/fasttext_edit.py" nan-weight lid.bin nan.bin > /dev/null
refused nan nan.bin "input matrix holds a weight out of range (nan) at byte" "a NaN weight is refused"
python3 "$REF/fasttext_edit.py" prune-past lid.ftz past.ftz > /dev/null
refused past past.ftz "input matrix is .* expected at least" "a pruned row one past the input matrix is refused"
python3 "$REF/fasttext_edit.py" bucket-zero lid.bin bucket0.bin > /dev/null
refused bucket0 bucket0.bin "bucket 0 with wordNgrams 1 and maxn 4 at byte" \
    "bucket 0 with char n-grams (every n-gram's hash modulo 0) is refused"
done_testing
