#!/bin/sh
# tokenize_gpu_devices - `winnow tokenize`'s block path over several GPUs,
# with the emulated device code pretending to have them
# (GPU_BPE_EMULATE_DEVICES), against the engine path (--device cpu): the
# same bytes with two devices, pinned text buffers made; when one device
# fails (emulated, GPU_BPE_EMULATE_FAIL_DEVICE) the block it was encoding is
# reported once and encoded on the CPU, the later blocks go to the device
# left, and the bytes are still the same; with the only device failed, every
# block is reported and encoded on the CPU. Builds without CUDA: the
# emulation says why.
. tests/lib.sh

VOCAB="$SHARED/vocab/tiktoken/cl100k_base.tiktoken"
python3 scripts/tokenize_tokref.py jsonl "$SHARED/tokref/multi.txt.zst" "$SHARED/tokref/multi.idx.tsv" 0 \
    > "$TMP/multi.jsonl" || exit 1
tok() { "$WINNOW" tokenize -q -j3 --encoding cl100k_base --vocab "$VOCAB" --format bin "$@" "$TMP/multi.jsonl"; }
emu() { WINNOW_TOKENIZE_BLOCKS=emulate WINNOW_TOKENIZE_TIMES=1 GPU_BPE_EMULATE_DEVICES=$1 tok; }
warnings() { grep -c "this block goes to the CPU" "$1"; }
cpu_blocks() { sed -n 's/.*encode-cpu [0-9.]* (\([0-9]*\) blocks.*/\1/p' "$1"; }

tok --device cpu > "$TMP/ref.bin" || exit 1
if ! emu 2 > "$TMP/two.bin" 2> "$TMP/two.err"; then
    ok "without CUDA the emulation says why" grep -q "without CUDA" "$TMP/two.err"
    done_testing
    exit
fi
ok "2 emulated devices: the engine path's bytes" cmp "$TMP/ref.bin" "$TMP/two.bin"
ok "2 emulated devices: both took batches" grep -q "kernels by device 0 [0-9.]* ([1-9][0-9]* batches) device 1 [0-9.]* ([1-9][0-9]* batches)" "$TMP/two.err"
# the pinned text buffers (the texts scanned straight into them) are made
# once the library is up, whatever the input's size
ok "2 emulated devices: pinned text buffers were made" grep -q "pinned text buffers [1-9][0-9]*:" "$TMP/two.err"

GPU_BPE_EMULATE_FAIL_DEVICE=0 emu 2 > "$TMP/fail.bin" 2> "$TMP/fail.err"
is "$?" 0 "device 0 failing, device 1 left: exit 0"
ok "device 0 failing, device 1 left: the engine path's bytes" cmp "$TMP/ref.bin" "$TMP/fail.bin"
is "$(warnings "$TMP/fail.err")" 1 "device 0 failing, device 1 left: one block reported"
ok "device 0 failing: the report names it and the device left" \
    grep -q "emulated failure of device 0 (on CUDA device 0, which this run no longer uses; 1 other device left)" \
    "$TMP/fail.err"
is "$(cpu_blocks "$TMP/fail.err")" 1 "device 0 failing, device 1 left: one block on the CPU"

GPU_BPE_EMULATE_FAIL_DEVICE=0 emu 1 > "$TMP/none.bin" 2> "$TMP/none.err"
is "$?" 0 "the only device failing: exit 0"
ok "the only device failing: the engine path's bytes" cmp "$TMP/ref.bin" "$TMP/none.bin"
n=$(cpu_blocks "$TMP/none.err")
ok "the only device failing: several blocks, all on the CPU ($n)" test "${n:-0}" -gt 2
is "$(warnings "$TMP/none.err")" "$n" "the only device failing: each block reported"
ok "the only device failing: later blocks say no device is left" \
    grep -q "every CUDA device failed earlier in this run; this block goes to the CPU" "$TMP/none.err"
done_testing
