#!/bin/sh
# bench/tokenize_hf.sh - the 12 Hugging Face tokenizer.json files of
# $SHARED/vocab/hf on tokref multi (16.8 MB, 1,865 documents in 500+
# languages), one thread, in MB of document text per CPU-second (user +
# sys), best of $RUNS: the encoder alone ($BUILD/bench/tokenize_encode: text
# in memory to ids, after checking every document's ids against HF
# tokenizers' in tokref/hf) and the whole command (JSONL in, --format bin
# out, loading the tokenizer.json included). In the same run, the tiktoken
# encodings through the same command, to compare with bench/tokenize.sh.
set -e
cd "$(dirname "$0")/.."
WINNOW=${WINNOW:-$(pwd)/bin/winnow}
BUILD=${BUILD:-$(pwd)/build}
ENCODE=$BUILD/bench/tokenize_encode
SHARED=${SHARED:-$(pwd)/../shared/data}
RUNS=${RUNS:-3}
R=$SHARED/tokref
TMP=$(mktemp -d "${TMPDIR:-/tmp}/winnow-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

best_cpu() { # the lowest user + sys seconds of $RUNS runs of a command
    bc=
    for _ in $(seq "$RUNS"); do
        /usr/bin/time -f "%U %S" -o $TMP/time "$@" > /dev/null
        read -r u s < $TMP/time
        bc=$(echo "$u $s $bc" | awk '{c = $1 + $2; print ($3 == "" || c < $3) ? c : $3}')
    done
    echo "$bc"
}
mbps() { echo "$1 $2" | awk '{printf "%.1f", $1 / 1e6 / $2}'; }
python3 scripts/tokenize_tokref.py jsonl $R/multi.txt.zst $R/multi.idx.tsv > $TMP/multi.jsonl
bytes=$(awk -F'\t' '{s += $2} END {print s}' $R/multi.idx.tsv)

echo "## winnow tokenize, Hugging Face tokenizer.json - $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load average $(cut -d' ' -f1 /proc/loadavg) at start"
echo
echo "tokref multi ($(echo $bytes | awk '{printf "%.1f", $1/1e6}') MB), one thread, MB of document text per CPU-second, best of $RUNS."
echo "Every file's ids were first checked equal to HF tokenizers 0.23.2's (encode, add_special_tokens=False)."
echo
echo "| file | encoder alone | winnow tokenize -j1 (load included) | load alone (CPU s) |"
echo "|---|---|---|---|"
echo '{"text":"x"}' > $TMP/one.jsonl
for f in command_r_plus deepseek_v3 gemma2 gemma3 gpt2 gpt4o llama2 llama3 llama3_1 mistral_nemo qwen2_5 qwen3; do
    case $f in llama3_1) ref=llama3;; qwen3) ref=qwen2_5;; *) ref=$f;; esac
    zstd -dcq $SHARED/vocab/hf/$f.tokenizer.json.zst > $TMP/$f.json
    enc=$($ENCODE - $TMP/$f.json $R/multi.txt.zst $R/multi.idx.tsv $R/hf/multi.$ref.bin.zst $RUNS | cut -d' ' -f2)
    args="tokenize -q -j1 --device cpu --vocab $TMP/$f.json --format bin --allow-special --no-eos --no-bos"
    cmd=$(best_cpu $WINNOW $args $TMP/multi.jsonl)
    load=$(best_cpu $WINNOW $args $TMP/one.jsonl)
    echo "| $f | $enc | $(mbps $bytes $cmd) | $load |"
    rm -f $TMP/$f.json
done
echo
echo "Same run, tiktoken encodings (bench/tokenize.sh's rows):"
echo
echo "| encoding | encoder alone | winnow tokenize -j1 |"
echo "|---|---|---|"
for enc in cl100k_base o200k_base gpt2; do
    case $enc in gpt2) v=$SHARED/vocab/tiktoken/r50k_base.tiktoken;; *) v=$SHARED/vocab/tiktoken/$enc.tiktoken;; esac
    e=$($ENCODE $enc $v $R/multi.txt.zst $R/multi.idx.tsv $R/multi.$enc.bin.zst $RUNS | cut -d' ' -f2)
    cmd=$(best_cpu $WINNOW tokenize -q -j1 --device cpu --encoding $enc --vocab $v --format bin --no-eos $TMP/multi.jsonl)
    echo "| $enc | $e | $(mbps $bytes $cmd) |"
done
