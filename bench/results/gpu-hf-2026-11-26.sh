#!/bin/sh
# gpu_hf_device.sh - runs on the GPU machine from a bundle made by
# gpu_hf_bundle.sh (FILES: which of the 7; EXACT=0 skips step 1): (1) gpu_bpe_hf with GPU_BPE_HF=device: the 7 eligible
# tokenizer.json files on the GPU against the CPU path on every document of
# tokref edge, blns, multi, en_code (every 10th), the test vectors, each
# token as a document, adversarial and random text; (2) winnow tokenize
# --device gpu against --device cpu (--format bin, 16 threads) on tokref
# multi x 8 as JSONL, each file, with wall times; (3) gpu_tokenize_bench on
# tokref en_code x REPEAT for each file and cl100k_base (GPU end to end and
# kernels vs the CPU path on 16 threads). Writes exact.txt, cli.txt and
# bench.txt under $OUT (or OUT=DIR).
set -u
dir=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$dir/out}
bin=$(mktemp -d)
work=$(mktemp -d)
mkdir -p "$out"
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$dir/bin.tar.xz" "$bin" || exit 1
export SHARED="$dir/shared"
FILES=${FILES:-gpt2 gpt4o llama3 llama3_1 mistral_nemo qwen2_5 qwen3}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
echo "$(nproc) CPU cores: $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1)"
unzst() { "$bin/gpu_tokenize_bench" --dump "$1" "$2"; } # the device image has no zstd command
for f in $FILES; do unzst "$SHARED/vocab/hf/$f.tokenizer.json.zst" "$work/$f.json"; done
now() { date +%s.%N; }

if [ "${EXACT:-1}" = 1 ]; then
    GPU_BPE_HF=device timeout "${EXACT_S:-150}" "$bin/gpu_bpe_hf" > "$out/exact.txt" 2>&1
    echo "gpu_bpe_hf (exit $?): $(grep -c '^ok' "$out/exact.txt") ok, $(grep -c '^not ok' "$out/exact.txt") not ok"
    grep -E "^not ok|^# " "$out/exact.txt" | head -20
fi

unzst "$SHARED/tokref/multi.txt.zst" "$work/multi.txt"
python3 - "$work/multi.txt" "$SHARED/tokref/multi.idx.tsv" > "$work/m1.jsonl" <<'PY'
import json, sys
data = open(sys.argv[1], "rb").read()
for i, line in enumerate(open(sys.argv[2])):
    off, ln = map(int, line.split("\t")[:2])
    print(json.dumps({"id": "tokref-%d" % i, "text": data[off:off + ln].decode("utf-8")}, ensure_ascii=False))
PY
for i in 1 2 3 4 5 6 7 8; do cat "$work/m1.jsonl"; done > "$work/multi8.jsonl"
: > "$out/cli.txt"
for f in $FILES; do
    t0=$(now); "$bin/winnow" tokenize -q -j16 --device cpu --vocab "$work/$f.json" --format bin "$work/multi8.jsonl" > "$work/cpu.bin"
    t1=$(now); WINNOW_TOKENIZE_TIMES=1 "$bin/winnow" tokenize -q -j16 --device gpu --vocab "$work/$f.json" --format bin "$work/multi8.jsonl" > "$work/gpu.bin" 2> "$work/gpu.err"
    rc=$?; t2=$(now)
    same=different; cmp -s "$work/cpu.bin" "$work/gpu.bin" && same=identical
    echo "$f: multi x 8 ($(stat -c %s "$work/multi8.jsonl") bytes JSONL) --device cpu $(awk "BEGIN{print $t1 - $t0}") s, --device gpu $(awk "BEGIN{print $t2 - $t1}") s (exit $rc), bin output $same" | tee -a "$out/cli.txt"
    cat "$work/gpu.err" >> "$out/cli.txt"
done

: > "$out/bench.txt"
for f in $FILES; do
    timeout 60 "$bin/gpu_tokenize_bench" "$work/$f.json" - "$SHARED/tokref/en_code.txt.zst" "$SHARED/tokref/en_code.idx.tsv" \
        16 "${REPEAT:-4}" 64 2>&1 | tee -a "$out/bench.txt"
done
timeout 60 "$bin/gpu_tokenize_bench" "$SHARED/vocab/tiktoken/cl100k_base.tiktoken" cl100k_base "$SHARED/tokref/en_code.txt.zst" \
    "$SHARED/tokref/en_code.idx.tsv" 16 "${REPEAT:-4}" 64 2>&1 | tee -a "$out/bench.txt"
rm -rf "$bin" "$work"
