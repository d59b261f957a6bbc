#!/bin/sh
# bench/tokenize_hf.sh - the 12 Hugging Face tokenizer.json files of
# $SHARED/vocab/hf on tokref multi (16.8 MB, 1,865 documents in 500+
# languages), one thread, in MB of document text per CPU-second (user +
# sys), best of $RUNS: the encoder alone ($BUILD/bench/tokenize_encode: text
# in memory to ids, after checking every document's ids against HF
# tokenizers' in tokref/hf) and the whole command (JSONL in, --format bin
# out, loading the tokenizer.json included). In the same run, the tiktoken
# encodings through the same command, to compare with bench/tokenize.sh.
# FILES="gemma2 llama2 ..." measures only those of the 12.
# With BASE_WINNOW and BASE_ENCODE (a winnow and a tokenize_encode built
# from an earlier commit) every number is measured for both too, their runs
# alternating, and a cell reads "before -> after".
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

cpu_of() { # user + sys seconds of one run of a command
    /usr/bin/time -f "%U %S" -o $TMP/time "$@" > /dev/null
    awk '{print $1 + $2}' $TMP/time
}
lowest() { echo "$1 $2" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}'; }
highest() { echo "$1 $2" | awk '{print ($2 == "" || $1 > $2) ? $1 : $2}'; }
# best_cpu ARGS...: the lowest user + sys seconds of $RUNS runs of winnow
# ARGS, as "before after" ("after" alone without BASE_WINNOW)
best_cpu() {
    bb= bn=
    for _ in $(seq "$RUNS"); do
        if [ -n "$BASE_WINNOW" ]; then bb=$(lowest "$(cpu_of $BASE_WINNOW "$@")" "$bb"); fi
        bn=$(lowest "$(cpu_of $WINNOW "$@")" "$bn")
    done
    echo $bb $bn
}
# encode ARGS...: the encoder's MB per CPU-second, the best of $RUNS runs of
# one pass, as "before after" (the two alternating run by run)
encode() {
    eb= en=
    for _ in $(seq "$RUNS"); do
        if [ -n "$BASE_ENCODE" ]; then eb=$(highest "$($BASE_ENCODE "$@" 1 | cut -d' ' -f2)" "$eb"); fi
        en=$(highest "$($ENCODE "$@" 1 | cut -d' ' -f2)" "$en")
    done
    echo $eb $en
}
mbps() { echo "$1 $2" | awk '{printf "%.1f", $1 / 1e6 / $2}'; }
# cell [BEFORE] AFTER: a table cell
cell() { if [ $# = 2 ]; then echo "$1 -> $2"; else echo "$1"; fi; }
# rate [BEFORE] AFTER: CPU seconds over the corpus as a cell of MB per CPU-second
rate() { if [ $# = 2 ]; then cell "$(mbps $bytes $1)" "$(mbps $bytes $2)"; else mbps $bytes $1; fi; }
python3 scripts/tokenize_tokref.py jsonl $R/multi.txt.zst $R/multi.idx.tsv > $TMP/multi.jsonl
bytes=$(awk -F'\t' '{s += $2} END {print s}' $R/multi.idx.tsv)

echo "## winnow tokenize, Hugging Face tokenizer.json - $(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), load average $(cut -d' ' -f1 /proc/loadavg) at start${BASE_WINNOW:+; before -> after}"
echo
echo "tokref multi ($(echo $bytes | awk '{printf "%.1f", $1/1e6}') MB), one thread, MB of document text per CPU-second, best of $RUNS."
echo "Every file's ids were first checked equal to HF tokenizers 0.23.2's (encode, add_special_tokens=False)."
echo
echo "| file | encoder alone | winnow tokenize -j1 (load included) | load alone (CPU s) |"
echo "|---|---|---|---|"
echo '{"text":"x"}' > $TMP/one.jsonl
for f in ${FILES:-command_r_plus deepseek_v3 gemma2 gemma3 gpt2 gpt4o llama2 llama3 llama3_1 mistral_nemo qwen2_5 qwen3}; do
    case $f in llama3_1) ref=llama3;; qwen3) ref=qwen2_5;; *) ref=$f;; esac
    zstd -dcq $SHARED/vocab/hf/$f.tokenizer.json.zst > $TMP/$f.json
    enc=$(encode - $TMP/$f.json $R/multi.txt.zst $R/multi.idx.tsv $R/hf/multi.$ref.bin.zst)
    args="tokenize -q -j1 --device cpu --vocab $TMP/$f.json --format bin --allow-special --no-eos --no-bos"
    cmd=$(best_cpu $args $TMP/multi.jsonl)
    load=$(best_cpu $args $TMP/one.jsonl)
    echo "| $f | $(cell $enc) | $(rate $cmd) | $(cell $load) |"
    rm -f $TMP/$f.json
done
echo
echo "Same run, tiktoken encodings (bench/tokenize.sh's rows):"
echo
echo "| encoding | encoder alone | winnow tokenize -j1 |"
echo "|---|---|---|"
for enc in cl100k_base o200k_base gpt2; do
    case $enc in gpt2) v=$SHARED/vocab/tiktoken/r50k_base.tiktoken;; *) v=$SHARED/vocab/tiktoken/$enc.tiktoken;; esac
    e=$(encode $enc $v $R/multi.txt.zst $R/multi.idx.tsv $R/multi.$enc.bin.zst)
    cmd=$(best_cpu tokenize -q -j1 --device cpu --encoding $enc --vocab $v --format bin --no-eos $TMP/multi.jsonl)
    echo "| $enc | $(cell $e) | $(rate $cmd) |"
done
echo
echo "Load average $(cut -d' ' -f1 /proc/loadavg) at the end."
