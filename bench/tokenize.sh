#!/bin/sh
# bench/tokenize.sh - winnow tokenize throughput on the tokref corpora
# ($SHARED/tokref): single thread MB/s for cl100k_base and o200k_base (and
# gpt2), the scaling with -j, and side by side the npm peers this machine has
# (tiktoken = OpenAI's Rust core as WASM, tokenizers = HF's Rust core as a
# native Node module), installed with npm into a scratch dir outside the repo
# ($WINNOW_BENCH_NPM, default ~/.cache/winnow-bench/npm). Also checks that the
# ids equal tiktoken's reference before timing anything.
#
# MB/s counts the documents' text bytes (not JSON), as the peers see them;
# winnow's time includes reading and parsing the JSONL and writing --format bin.
set -e
cd "$(dirname "$0")/.."
WINNOW=${WINNOW:-$(pwd)/bin/winnow}
SHARED=${SHARED:-$(pwd)/../shared/data}
NPM_DIR=${WINNOW_BENCH_NPM:-$HOME/.cache/winnow-bench/npm}
RUNS=${RUNS:-3}
R=$SHARED/tokref
V=$SHARED/vocab
TMP=$(mktemp -d "${TMPDIR:-/tmp}/winnow-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
PY="python3 scripts/tokenize_tokref.py"
# bench/run.sh saves stdout as the results file; run alone, this script saves it
OUT=$TMP/table.md

# best (lowest) wall seconds of $RUNS runs of a command
best_of() {
    best=
    for _ in $(seq "$RUNS"); do
        t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
        best=$(echo "$t0 $t1 $best" | awk '{d=$2-$1; if ($3 == "" || d < $3) print d; else print $3}')
    done
    echo "$best"
}
mbps() { echo "$1 $2" | awk '{printf "%.1f", $1 / 1e6 / $2}'; }

for c in en_code multi; do $PY jsonl $R/$c.txt.zst $R/$c.idx.tsv > $TMP/$c.jsonl; done
text_bytes() { awk -F'\t' '{s += $2} END {print s}' $R/$1.idx.tsv; }

have_peers=0
if command -v node >/dev/null && command -v npm >/dev/null; then
    if [ ! -d "$NPM_DIR/node_modules/tiktoken" ] || [ ! -d "$NPM_DIR/node_modules/tokenizers" ]; then
        mkdir -p "$NPM_DIR"
        (cd "$NPM_DIR" && npm install --silent --no-audit --no-fund --prefix . tiktoken@1.0.22 tokenizers@0.23.2 >/dev/null 2>&1) || true
    fi
    [ -d "$NPM_DIR/node_modules/tiktoken" ] && have_peers=1
fi
# HF tokenizer.json for GPT-2 from encoder.json + vocab.bpe (HF has no cl100k/o200k file here)
python3 - "$V" "$TMP/gpt2.json" <<'PY'
import json, sys
v = sys.argv[1]
enc = json.load(open(v + "/gpt2/encoder.json"))
merges = [l for l in open(v + "/gpt2/vocab.bpe", encoding="utf-8").read().split("\n")[1:] if l]
json.dump({"version": "1.0", "added_tokens": [{"id": 50256, "content": "<|endoftext|>", "special": True,
           "single_word": False, "lstrip": False, "rstrip": False, "normalized": False}],
           "normalizer": None, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
           "trim_offsets": True, "use_regex": True}, "post_processor": None, "decoder": {"type": "ByteLevel", "add_prefix_space": False,
           "trim_offsets": True, "use_regex": True},
           "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": enc, "merges": merges}},
          open(sys.argv[2], "w"), ensure_ascii=False)
PY

vocab_of() { case $1 in gpt2) echo "$V/tiktoken/r50k_base.tiktoken";; *) echo "$V/tiktoken/$1.tiktoken";; esac; }
NCPU=$(nproc)
JOBS=$(printf '1\n2\n4\n%s\n' "$NCPU" | awk -v n="$NCPU" '$1 <= n' | sort -nu | tr '\n' ' ')
jcols=; jsep=
for j in $JOBS; do jcols="$jcols winnow -j$j |"; jsep="$jsep---|"; done
{
echo "## winnow tokenize - $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load average $(cut -d' ' -f1 /proc/loadavg) at start"
echo
echo "Single thread unless noted; MB/s of document text; best of $RUNS runs. Every winnow run's ids were first"
echo "checked equal to tiktoken's reference ids for the corpus."
echo
echo "| corpus | encoding |$jcols tiktoken (npm, WASM) | HF tokenizers (npm) | winnow -j1 / tiktoken |"
echo "|---|---|$jsep---|---|---|"
} > $OUT
for corpus in en_code multi; do
    bytes=$(text_bytes $corpus)
    for enc in cl100k_base o200k_base gpt2; do
        [ $corpus = en_code ] && [ $enc = gpt2 ] && continue
        args="tokenize -q --encoding $enc --vocab $(vocab_of $enc) --format bin --no-eos"
        $WINNOW $args -j$NCPU $TMP/$corpus.jsonl > $TMP/got.bin
        zstd -dc $R/$corpus.$enc.bin.zst | cmp -s - $TMP/got.bin || { echo "bench: $corpus/$enc ids differ from tiktoken" >&2; exit 1; }
        row=
        for j in $JOBS; do
            w=$(mbps $bytes $(best_of $WINNOW $args -j$j $TMP/$corpus.jsonl))
            [ $j = 1 ] && w1=$w
            row="$row $w |"
        done
        tk=-; hf=-; ratio=-
        if [ $have_peers = 1 ]; then
            tk=$(node scripts/tokenize_peers.js "$NPM_DIR/node_modules" tiktoken $enc $TMP/$corpus.jsonl | cut -d' ' -f1)
            ratio=$(echo "$w1 $tk" | awk '{printf "%.1fx", $1 / $2}')
            if [ $enc = gpt2 ] && [ -d "$NPM_DIR/node_modules/tokenizers" ]; then
                hf=$(node scripts/tokenize_peers.js "$NPM_DIR/node_modules" tokenizers $TMP/gpt2.json $TMP/$corpus.jsonl | cut -d' ' -f1) || hf=failed
            fi
        fi
        echo "| $corpus ($(echo $bytes | awk '{printf "%.1f", $1/1e6}') MB) | $enc |$row $tk | $hf | $ratio |" >> $OUT
    done
done
{
echo
echo "Pathological single pieces (1 MB each), winnow, cl100k_base:"
python3 -c "import json; print(json.dumps({'text': 'a' * (1 << 20)}))" > $TMP/a.jsonl
python3 -c "import json, base64, random; random.seed(1); print(json.dumps({'text': base64.b64encode(random.randbytes(786432)).decode()}))" > $TMP/b64.jsonl
for f in a b64; do
    s=$(best_of $WINNOW tokenize -q -j1 --encoding cl100k_base --vocab $V/tiktoken/cl100k_base.tiktoken --format bin $TMP/$f.jsonl)
    echo "- $f: $s s (including loading the vocabulary)"
done
} >> $OUT
cat $OUT
if [ -z "${BENCH_DATE:-}" ]; then
    mkdir -p bench/results
    cp $OUT bench/results/tokenize-$(date -u +%Y-%m-%d).md
fi
