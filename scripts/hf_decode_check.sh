#!/bin/sh
# hf_decode_check.sh - `winnow tokenize --decode` against Hugging Face
# tokenizers' decode(ids, skip_special_tokens=false) (npm tokenizers@0.23.2)
# on real tokenizer.json files: for each one, the ids of a set of real texts
# (HF's encode, without and with special tokens; winnow's own encode of the
# texts is checked to give the same ids first), every id of the vocab alone
# and random id sequences are decoded by both and compared
# (scripts/hf_decode_check.js does the HF side and the comparison).
# usage: NODE_PATH=DIR/node_modules sh scripts/hf_decode_check.sh OUTDIR TOKENIZER.json[.zst]...
# One summary line (JSON) per tokenizer, then its first differences; a
# tokenizer winnow refuses to load or to decode is named and skipped.
set -u
WINNOW=${WINNOW:-build/winnow}
HERE=$(dirname "$0")
out=$1
shift
mkdir -p "$out"
[ -s "$out/texts.jsonl" ] || node "$HERE/hf_decode_check.js" texts "$out/texts.jsonl" || exit 1
for f in "$@"; do
    name=$(basename "$f" | sed 's/\.zst$//; s/\.json$//; s/\.tokenizer$//')
    d=$out/$name
    mkdir -p "$d"
    case $f in
    *.zst) zstd -dqf "$f" -o "$d/tokenizer.json" ;;
    *) cp "$f" "$d/tokenizer.json" ;;
    esac
    if ! $WINNOW tokenize -q --vocab "$d/tokenizer.json" --decode --ids 0 > /dev/null 2> "$d/refused"; then
        echo "{\"dir\":\"$d\",\"refused\":$(head -1 "$d/refused" | node -e 'process.stdout.write(JSON.stringify(require("fs").readFileSync(0, "utf8").trim()))')}"
        continue
    fi
    node "$HERE/hf_decode_check.js" ids "$d/tokenizer.json" "$out/texts.jsonl" "$d" > /dev/null || { echo "$d: HF failed"; continue; }
    $WINNOW tokenize -q --vocab "$d/tokenizer.json" --allow-special --no-bos --no-eos "$out/texts.jsonl" \
        > "$d/winnow_plain.jsonl" 2> "$d/winnow_plain.err"
    $WINNOW tokenize -q --vocab "$d/tokenizer.json" --decode "$d/cases.bin" > "$d/winnow_decode.jsonl" 2> "$d/winnow_decode.err"
    node "$HERE/hf_decode_check.js" compare "$d"
done
