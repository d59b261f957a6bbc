#!/bin/sh
# classifier - fastText classifiers in `winnow filter` (issue 19): speed on 1
# thread of a DCLM-shaped quality model (dim 256, word bigrams, 2 M buckets)
# and of a lid.176-shaped language model (dim 16, char n-grams 2-4, 2 M
# buckets, hs) on the first 1 KB, next to CLD2 and the rules (the quality
# model also with --classifier-fast); and language-ID
# accuracy of that model and of CLD2 on held-out UDHR lines and on DCLM's
# (English) documents. Models are trained here with Debian's fasttext.
. bench/lib.sh
set -eu
T=$BENCH_TMP/classifier
mkdir -p "$T"
UDHR=$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl
DCLM=$SHARED/jsonl/dclm/data/majority_data.jsonl
python3 - "$UDHR" "$DCLM" "$T" <<'EOF'
import json, sys
udhr, dclm, out = sys.argv[1:]
with open(out + '/lid.train', 'w') as tr, open(out + '/lid.test.jsonl', 'w') as te:
    for line in open(udhr):
        r = json.loads(line)
        if r['stage'] != '4':
            continue
        for i, l in enumerate(x.strip() for x in r['text'].split('\n') if x.strip()):
            if i % 5 == 0:
                te.write(json.dumps({'text': l, 'metadata': {'want': r['bcp47']}}, ensure_ascii=False) + '\n')
            else:
                tr.write('__label__%s %s\n' % (r['bcp47'], l))
with open(out + '/q.train', 'w') as tr:
    for line in open(dclm):
        d = json.loads(line)
        tr.write('__label__%s %s\n' % ('hq' if d['label'] else 'cc', d['text'].replace('\n', ' ')))
EOF
fasttext supervised -input "$T/lid.train" -output "$T/lid" -dim 16 -minn 2 -maxn 4 -loss hs -bucket 2000000 \
    -epoch 5 -lr 0.5 -thread "$(nproc)" -verbose 0 > /dev/null
fasttext supervised -input "$T/q.train" -output "$T/q" -dim 256 -wordNgrams 2 -bucket 2000000 -epoch 5 -lr 0.5 \
    -thread "$(nproc)" -verbose 0 > /dev/null

data=$T/docs.jsonl
REPEAT=${REPEAT:-8}
real_docs "$data" "$REPEAT"
bytes=$(stat -c %s "$data")
: > "$T/empty.jsonl"
W="$WINNOW filter -q -j1"
OFF="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"
echo "# fastText classifiers in winnow filter"
echo
echo "$(machine_line). Input: real DCLM + Dolma CC + C4 documents repeated to $((bytes / 1000000)) MB of JSONL; 1 thread."
echo "Models trained here: quality (DCLM labels) dim 256, word bigrams, 2 M buckets ($(($(stat -c %s "$T/q.bin") / 1000000)) MB);"
echo "language (UDHR, $(cut -d' ' -f1 "$T/lid.train" | sort -u | wc -l) labels) dim 16, char n-grams 2-4, 2 M buckets, hs ($(($(stat -c %s "$T/lid.bin") / 1000000)) MB), the shape of lid.176."
echo "MB per CPU-second leaves out the model's loading (the same command's CPU time on an empty input); winnow rows: best of 3 runs."
echo
echo "| what | MB/s wall | MB per CPU-second | model load, CPU s |"
echo "|---|---|---|---|"
cat "$data" > /dev/null
row() { # name flags... (best of 3: the build VM is shared and loaded)
    name=$1; shift
    set -- $(best_of_3 $W "$@" "$data") $(best_of_3 $W "$@" "$T/empty.jsonl")
    echo "| $name | $(mbps $bytes $1) | $(awk -v b="$bytes" -v c="$2" -v l="$4" 'BEGIN { printf "%.0f", b / 1e6 / (c - l) }') | $4 |"
}
row "stream only (no rules)" $OFF
row "rules only (default without language ID)" --no-langid
row "CLD2 language ID (first 1 KB, the default)" $OFF --langid
row "fastText language ID, lid.176-shaped, first 1 KB" $OFF --langid --classifier "lid=$T/lid.bin" --langid-model lid --classifier-max-bytes 1024
row "fastText language ID, lid.176-shaped, whole text" $OFF --langid --classifier "lid=$T/lid.bin" --langid-model lid
row "fastText quality, dim 256 bigrams 2 M buckets, whole text" $OFF --classifier "q=$T/q.bin"
row "fastText quality, same, --classifier-fast (precomputed logits)" $OFF --classifier-fast --classifier "q=$T/q.bin"
# fastText's own program on the same texts (one a line), the library's ceiling
python3 -c "
import json, sys
for l in open(sys.argv[1]): print(json.loads(l)['text'].replace('\\n', ' '))" "$data" > "$T/docs.txt"
ft_row() { # name model
    set -- "$1" $(cpu_seconds fasttext predict-prob "$2" "$T/docs.txt" 1) $(cpu_seconds fasttext predict-prob "$2" /dev/null 1)
    echo "| $1 | $(mbps $bytes $2) | $(awk -v b="$bytes" -v c="$3" -v l="$5" 'BEGIN { printf "%.0f", b / 1e6 / (c - l) }') | $5 |"
}
ft_row "fasttext predict-prob (Debian 0.9.2), the language model, whole text" "$T/lid.bin"
ft_row "fasttext predict-prob (Debian 0.9.2), the quality model" "$T/q.bin"

# accuracy: the primary language subtag against the UDHR line's own, and the
# share of DCLM's English documents identified as English
echo
echo "| language ID | UDHR held-out lines: right | lines | DCLM documents identified as en |"
echo "|---|---|---|---|"
acc() { # name flags...
    name=$1; shift
    $W $OFF --langid "$@" "$T/lid.test.jsonl" > "$T/u.jsonl"
    $W $OFF --langid "$@" "$DCLM" > "$T/d.jsonl"
    python3 - "$T/u.jsonl" "$T/d.jsonl" "$name" <<'EOF'
import json, sys
def primary(code): return code.split('-')[0].lower()
u = [json.loads(l) for l in open(sys.argv[1])]
right = sum(primary(d['metadata']['lang']) == primary(d['metadata']['want']) for d in u)
d = [json.loads(l) for l in open(sys.argv[2])]
en = sum(x['metadata']['lang'] == 'en' for x in d)
print('| %s | %.1f%% | %d | %.1f%% of %d |' % (sys.argv[3], 100 * right / len(u), len(u), 100 * en / len(d), len(d)))
EOF
}
acc "CLD2 (first 1 KB)"
acc "fastText, lid.176-shaped (first 1 KB)" --classifier "lid=$T/lid.bin" --langid-model lid --classifier-max-bytes 1024
rm -rf "$T"
