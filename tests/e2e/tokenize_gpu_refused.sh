#!/bin/sh
# tokenize_gpu_refused - `winnow tokenize --device gpu` with no usable GPU
# (CUDA_VISIBLE_DEVICES= hides every device; a build without CUDA has none):
# the CPU starts encoding while the GPU is checked on a thread, but the run
# must still exit 1 saying why, before any output: nothing on stdout, no -o
# file and no shard directory left, also for empty input; --device cpu on
# the same input writes its ids (the refusal is not the input's fault).
. tests/lib.sh

VOCAB="$SHARED/vocab/tiktoken/cl100k_base.tiktoken"
IN="$SHARED/jsonl/dclm/data/majority_data.jsonl"
require_file "$VOCAB" "$IN"
tok() { CUDA_VISIBLE_DEVICES= "$WINNOW" tokenize --encoding cl100k_base --vocab "$VOCAB" -q "$@"; }
: > "$TMP/empty.jsonl"
# the input three times over: several blocks, so the CPU would have ids to write
cat "$IN" "$IN" "$IN" > "$TMP/in.jsonl"

for input in in empty; do
    for format in bin jsonl; do
        tok --device gpu --format $format "$TMP/$input.jsonl" > "$TMP/out" 2> "$TMP/err"
        is "$?" 1 "$input input, --format $format: --device gpu without a usable GPU exits 1"
        is "$(wc -c < "$TMP/out" | tr -d ' ')" 0 "$input input, --format $format: ... with nothing on stdout"
        ok "$input input, --format $format: ... saying why" grep -q -- "--device gpu: " "$TMP/err"
    done
    tok --device gpu --format bin -o "$TMP/$input.bin" "$TMP/$input.jsonl" 2> /dev/null
    is "$?" 1 "$input input, -o FILE: exits 1"
    is "$(ls "$TMP" | grep -c "^$input\.bin")" 0 "$input input, -o FILE: no file left (nor its temporary)"
    tok --device gpu -o "$TMP/$input.shards/" "$TMP/$input.jsonl" 2> /dev/null
    is "$?" 1 "$input input, -o DIR/: exits 1"
    is "$(ls -A "$TMP/$input.shards" 2> /dev/null)" "" "$input input, -o DIR/: no shard, index or manifest left"
done
tok --device cpu --format bin "$TMP/in.jsonl" > "$TMP/cpu.bin"; is "$?" 0 "--device cpu on the same input exits 0"
ok "--device cpu writes the ids" test -s "$TMP/cpu.bin"
done_testing
