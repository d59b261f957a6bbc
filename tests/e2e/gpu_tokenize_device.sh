#!/bin/sh
# gpu_tokenize_device - winnow tokenize --device on real web documents (DCLM sample):
# gpu and auto (the GPU where one is usable) give the same bytes as cpu; with
# no usable GPU, gpu exits 1 saying why and the comparison is a TAP skip;
# a bad --device value is a usage error; on a GPU, -o FILE, --stats, -o DIR/
# and a missing input's exit status as with --device cpu.
. tests/lib.sh

VOCAB="$SHARED/vocab/tiktoken/cl100k_base.tiktoken"
IN="$SHARED/jsonl/dclm/data/majority_data.jsonl"
tok() { "$WINNOW" tokenize --encoding cl100k_base --vocab "$VOCAB" -q "$@" "$IN"; }

tok --device cpu > "$TMP/cpu.jsonl"; is "$?" 0 "--device cpu exits 0"
ok "--device cpu writes tokens" grep -q '"tokens":\[' "$TMP/cpu.jsonl"
if tok --device gpu > "$TMP/gpu.jsonl" 2> "$TMP/gpu.err"; then
    ok "--device gpu gives the same lines as --device cpu" cmp "$TMP/cpu.jsonl" "$TMP/gpu.jsonl"
    tok --device cpu --format bin > "$TMP/cpu.bin"
    tok --device gpu --format bin > "$TMP/gpu.bin"
    ok "--device gpu gives the same ids as --device cpu (--format bin)" cmp "$TMP/cpu.bin" "$TMP/gpu.bin"
    tok --device auto > "$TMP/auto.jsonl"; is "$?" 0 "--device auto exits 0"
    ok "--device auto (the GPU here) gives the same lines as --device cpu" cmp "$TMP/cpu.jsonl" "$TMP/auto.jsonl"
    # the named file, the statistics, the shard directory's manifest and the exit
    # status of a GPU run must be those of the CPU
    for d in cpu gpu; do
        tok --device $d --format bin -o "$TMP/$d.file.bin" --stats "$TMP/$d.stats.json" "$TMP/absent.jsonl" 2> /dev/null
        echo $? > "$TMP/$d.rc"
        tok --device $d -o "$TMP/$d.shards/"
    done
    is "$(cat "$TMP/gpu.rc")" "$(cat "$TMP/cpu.rc")" "--device gpu with a missing input: the exit status of --device cpu"
    is "$(cat "$TMP/gpu.rc")" 2 "... which is 2"
    ok "--device gpu -o FILE: the same file as --device cpu" cmp "$TMP/cpu.file.bin" "$TMP/gpu.file.bin"
    grep -v '"seconds"' "$TMP/cpu.stats.json" > "$TMP/cpu.stats"; grep -v '"seconds"' "$TMP/gpu.stats.json" > "$TMP/gpu.stats"
    ok "--device gpu --stats: the same statistics (but seconds) as --device cpu" cmp "$TMP/cpu.stats" "$TMP/gpu.stats"
    ok "--device gpu -o DIR/: the same shard directory (manifest included) as --device cpu" \
        diff -r "$TMP/cpu.shards" "$TMP/gpu.shards"
else
    is "$?" 1 "--device gpu without a usable GPU exits 1"
    ok "--device gpu says why" grep -q -- "--device gpu: " "$TMP/gpu.err"
    why=$(grep -o -- "--device gpu: .*" "$TMP/gpu.err" | head -1)
    # auto is the CPU path here: comparing it with --device cpu would compare the CPU with itself
    tok --device auto > "$TMP/auto.jsonl"; is "$?" 0 "--device auto exits 0 without a usable GPU"
    skip "GPU and CPU ids not compared: no usable GPU ($why)"
fi
tok --device tpu > /dev/null 2> "$TMP/bad.err"; is "$?" 1 "--device tpu is a usage error"
ok "the usage error names --device" grep -q -- "--device must be" "$TMP/bad.err"
done_testing
