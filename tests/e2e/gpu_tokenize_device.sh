#!/bin/sh
# gpu_tokenize_device - winnow tokenize --device on real web documents (DCLM sample):
# auto gives the same bytes as cpu (auto is the GPU where one is usable);
# gpu gives the same bytes too, or exits 1 saying why when no GPU is usable;
# a bad --device value is a usage error.
. tests/lib.sh

VOCAB="$SHARED/vocab/tiktoken/cl100k_base.tiktoken"
IN="$SHARED/jsonl/dclm/data/majority_data.jsonl"
tok() { "$WINNOW" tokenize --encoding cl100k_base --vocab "$VOCAB" -q "$@" "$IN"; }

tok --device cpu > "$TMP/cpu.jsonl"; is "$?" 0 "--device cpu exits 0"
ok "--device cpu writes tokens" grep -q '"tokens":\[' "$TMP/cpu.jsonl"
tok --device auto > "$TMP/auto.jsonl"; is "$?" 0 "--device auto exits 0"
ok "--device auto gives the same lines as --device cpu" cmp "$TMP/cpu.jsonl" "$TMP/auto.jsonl"
if tok --device gpu > "$TMP/gpu.jsonl" 2> "$TMP/gpu.err"; then
    ok "--device gpu gives the same lines as --device cpu" cmp "$TMP/cpu.jsonl" "$TMP/gpu.jsonl"
    tok --device cpu --format bin > "$TMP/cpu.bin"
    tok --device gpu --format bin > "$TMP/gpu.bin"
    ok "--device gpu gives the same ids as --device cpu (--format bin)" cmp "$TMP/cpu.bin" "$TMP/gpu.bin"
else
    is "$?" 1 "--device gpu without a usable GPU exits 1"
    ok "--device gpu says why" grep -q -- "--device gpu: " "$TMP/gpu.err"
fi
tok --device tpu > /dev/null 2> "$TMP/bad.err"; is "$?" 1 "--device tpu is a usage error"
ok "the usage error names --device" grep -q -- "--device must be" "$TMP/bad.err"
done_testing
