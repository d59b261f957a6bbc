#!/bin/sh
# bench/tokenize.sh - winnow tokenize throughput on the tokref corpora
# ($SHARED/tokref): for cl100k_base and o200k_base (and gpt2), the BPE encoder
# alone ($BUILD/bench/tokenize_encode: text in memory to ids) and the whole
# command (JSONL in, --format bin ids out), one thread, in MB per CPU-second
# (text bytes / (user + sys)), the scaling with -j, and side by side the npm
# peers this machine has (tiktoken = OpenAI's Rust core as WASM, tokenizers =
# HF's Rust core as a native Node module), installed with npm into a scratch
# dir outside the repo ($WINNOW_BENCH_NPM, default ~/.cache/winnow-bench/npm).
# Also checks that the ids equal tiktoken's reference before timing anything.
#
# MB counts the documents' text bytes (not JSON), as the peers see them;
# the command's time includes loading the vocabulary, reading and parsing the
# JSONL and writing --format bin. The peers time their encode loop (wall).
set -e
cd "$(dirname "$0")/.."
WINNOW=${WINNOW:-$(pwd)/bin/winnow}
BUILD=${BUILD:-$(pwd)/build}
ENCODE=$BUILD/bench/tokenize_encode
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

# best (lowest) wall and CPU (user + sys) seconds of $RUNS runs of a command: "WALL CPU"
best_of() {
    bw=; bc=
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%e %U %S" -o $TMP/time "$@" > /dev/null
        read -r w u s < $TMP/time
        bw=$(echo "$w $bw" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
        bc=$(echo "$u $s $bc" | awk '{c = $1 + $2; print ($3 == "" || c < $3) ? c : $3}')
    done
    echo "$bw $bc"
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
for j in $JOBS; do [ $j = 1 ] && continue; jcols="$jcols -j$j MB/s (MB/CPU-s) |"; jsep="$jsep---|"; done
{
echo "## winnow tokenize - $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load average $(cut -d' ' -f1 /proc/loadavg) at start"
echo
echo "MB of document text per CPU-second (user + sys), best of $RUNS runs, one thread unless noted; the"
echo "-j columns give wall MB/s with MB per CPU-second in brackets. Every winnow run's ids were first"
echo "checked equal to tiktoken's reference ids for the corpus."
echo
echo "| corpus | encoding | encoder alone | winnow tokenize -j1 |$jcols tiktoken (npm, WASM) | HF tokenizers (npm) | -j1 / tiktoken |"
echo "|---|---|---|---|$jsep---|---|---|"
} > $OUT
for corpus in en_code multi; do
    bytes=$(text_bytes $corpus)
    for enc in cl100k_base o200k_base gpt2; do
        [ $corpus = en_code ] && [ $enc = gpt2 ] && continue
        args="tokenize -q --device cpu --encoding $enc --vocab $(vocab_of $enc) --format bin --no-eos"
        $WINNOW $args -j$NCPU $TMP/$corpus.jsonl > $TMP/got.bin
        zstd -dc $R/$corpus.$enc.bin.zst > $TMP/want.bin
        cmp -s $TMP/want.bin $TMP/got.bin || { echo "bench: $corpus/$enc ids differ from tiktoken" >&2; exit 1; }
        encoder=$($ENCODE $enc $(vocab_of $enc) $R/$corpus.txt.zst $R/$corpus.idx.tsv $TMP/want.bin $RUNS | cut -d' ' -f2)
        row=
        for j in $JOBS; do
            set -- $(best_of $WINNOW $args -j$j $TMP/$corpus.jsonl)
            if [ $j = 1 ]; then w1=$(mbps $bytes $2); row="$row $w1 |"
            else row="$row $(mbps $bytes $1) ($(mbps $bytes $2)) |"; fi
        done
        tk=-; hf=-; ratio=-
        if [ $have_peers = 1 ]; then
            tk=$(node scripts/tokenize_peers.js "$NPM_DIR/node_modules" tiktoken $enc $TMP/$corpus.jsonl | cut -d' ' -f1)
            ratio=$(echo "$w1 $tk" | awk '{printf "%.1fx", $1 / $2}')
            if [ $enc = gpt2 ] && [ -d "$NPM_DIR/node_modules/tokenizers" ]; then
                hf=$(node scripts/tokenize_peers.js "$NPM_DIR/node_modules" tokenizers $TMP/gpt2.json $TMP/$corpus.jsonl | cut -d' ' -f1) || hf=failed
            fi
        fi
        echo "| $corpus ($(echo $bytes | awk '{printf "%.1f", $1/1e6}') MB) | $enc | $encoder |$row $tk | $hf | $ratio |" >> $OUT
    done
done
{
echo
echo "Pathological single pieces (1 MB each), winnow, cl100k_base:"
python3 -c "import json; print(json.dumps({'text': 'a' * (1 << 20)}))" > $TMP/a.jsonl
python3 -c "import json, base64, random; random.seed(1); print(json.dumps({'text': base64.b64encode(random.randbytes(786432)).decode()}))" > $TMP/b64.jsonl
for f in a b64; do
    s=$(best_of $WINNOW tokenize -q -j1 --device cpu --encoding cl100k_base --vocab $V/tiktoken/cl100k_base.tiktoken --format bin $TMP/$f.jsonl | cut -d' ' -f2)
    echo "- $f: $s CPU-seconds (including loading the vocabulary)"
done
} >> $OUT
cat $OUT
if [ -z "${BENCH_DATE:-}" ]; then
    mkdir -p bench/results
    cp $OUT bench/results/tokenize-$(date -u +%Y-%m-%d).md
fi
