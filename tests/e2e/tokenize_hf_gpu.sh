#!/bin/sh
# tokenize_hf_gpu.sh - tokenizer.json files and --device: the block path
# with the emulated GPU code (WINNOW_TOKENIZE_BLOCKS=emulate) gives the bytes
# of the CPU engine path for the byte-level BPE files the GPU encodes
# (Qwen 3: NFC and single digits; Mistral Nemo: Tekken's pattern; GPT-2:
# merges by pair rank), --format bin and jsonl; --device gpu with a file the
# GPU does not encode (Llama 2, Gemma 3) says why and encodes on the CPU,
# with the same bytes; --device gpu with an eligible file exits 1 without a
# GPU, or gives the CPU's bytes on one.
. tests/lib.sh
command -v python3 >/dev/null || skip_all "python3 missing"
R=$SHARED/tokref
H=$SHARED/vocab/hf
python3 scripts/tokenize_tokref.py jsonl $R/edge.txt.zst $R/edge.idx.tsv > $TMP/edge.jsonl || exit 1
python3 scripts/tokenize_tokref.py jsonl $R/blns.txt.zst $R/blns.idx.tsv > $TMP/blns.jsonl || exit 1
for f in qwen3 mistral_nemo gpt2 llama2 gemma3; do zstd -dcq $H/$f.tokenizer.json.zst > $TMP/$f.json || exit 1; done
tok() { v=$1; shift; "$WINNOW" tokenize -q -j2 --vocab "$TMP/$v.json" --no-bos "$@"; }

for vf in qwen3 mistral_nemo gpt2; do
    for fmt in bin jsonl; do
        tok $vf --device cpu --format $fmt $TMP/edge.jsonl $TMP/blns.jsonl > $TMP/cpu.$fmt 2> /dev/null
        WINNOW_TOKENIZE_TIMES=1 WINNOW_TOKENIZE_BLOCKS=emulate "$WINNOW" tokenize -q -j2 --vocab "$TMP/$vf.json" --no-bos --format $fmt \
            $TMP/edge.jsonl $TMP/blns.jsonl > $TMP/emu.$fmt 2> $TMP/emu.err
        rc=$?
        if [ $rc -ne 0 ] && grep -q "without CUDA" $TMP/emu.err; then
            skip "$vf: no emulated GPU code in a build without CUDA"
            continue
        fi
        is "$rc" 0 "$vf --format $fmt: the emulated GPU code exits 0"
        ok "$vf --format $fmt: every block went through the GPU code" sh -c "grep -q 'encode-cpu [0-9.]* (0 blocks' $TMP/emu.err && ! grep -q 'encode-gpu [0-9.]* (0 blocks' $TMP/emu.err"
        ok "$vf --format $fmt: the emulated GPU code gives the CPU's bytes (edge, blns)" cmp $TMP/cpu.$fmt $TMP/emu.$fmt
    done
done

for vf in llama2 gemma3; do
    tok $vf --device cpu --format bin $TMP/blns.jsonl > $TMP/cpu.bin
    tok $vf --device gpu --format bin $TMP/blns.jsonl > $TMP/gpu.bin 2> $TMP/gpu.err
    is "$?" 0 "$vf: --device gpu exits 0 (it encodes on the CPU)"
    ok "$vf: --device gpu says why it encodes on the CPU" grep -q -- "--device gpu: $vf.json: normalizer: .*; encoding on the CPU" $TMP/gpu.err
    ok "$vf: --device gpu gives the CPU's bytes" cmp $TMP/cpu.bin $TMP/gpu.bin
done

tok qwen3 --device cpu --format bin $TMP/blns.jsonl > $TMP/cpu.bin
if tok qwen3 --device gpu --format bin $TMP/blns.jsonl > $TMP/gpu.bin 2> $TMP/gpu.err; then
    ok "qwen3: --device gpu gives the CPU's bytes" cmp $TMP/cpu.bin $TMP/gpu.bin
else
    is "$?" 1 "qwen3: --device gpu without a usable GPU exits 1"
    ok "qwen3: ... saying why (not a refusal of the file)" sh -c "grep -q -- '--device gpu: ' $TMP/gpu.err && ! grep -q 'encoding on the CPU' $TMP/gpu.err"
fi
done_testing
