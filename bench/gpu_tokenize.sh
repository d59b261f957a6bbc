#!/bin/sh
# gpu_tokenize.sh - GPU tokenizer throughput against its ceilings and peers,
# all in one run: PCIe and HBM copy bandwidth; winnow GPU end-to-end (text in
# host memory to ids in host memory) and kernel-only; winnow's CPU path on
# $THREADS threads; Python tiktoken encode_ordinary_batch and HF tokenizers
# on the same corpus (tokref en_code repeated $REPEAT times). Writes the table
# to bench/results/gpu_tokenize-DATE.md (or $RESULT).
#
# Environment: SHARED (test data, default ../shared/data), GPU_BENCH_BIN (a
# folder with prebuilt gpu_tokenize_bench and gpu_bandwidth; default: build
# them into build/bench), THREADS (16), REPEAT (4), VARIANTS (GPU settings to
# try, comma-separated CHUNK_BYTES or CHUNK_BYTES:BATCH_MB, default 64).
set -e
SHARED=${SHARED:-../shared/data}
THREADS=${THREADS:-16}
REPEAT=${REPEAT:-4}
BIN=${GPU_BENCH_BIN:-build/bench}
HERE=$(dirname "$0")
if [ -z "$GPU_BENCH_BIN" ]; then
    make -s build/bench/gpu_tokenize_bench build/bench/gpu_bandwidth
fi
DAY=$(date -u +%F)
RESULT=${RESULT:-bench/results/gpu_tokenize-$DAY.md}
mkdir -p "$(dirname "$RESULT")"
{
    echo "## GPU tokenizer, $(date -u '+%F %H:%M UTC')"
    echo
    echo "Machine: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo no GPU)," \
         "$(nproc) CPU cores ($(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1))."
    echo "Corpus: tokref en_code (English prose and code) x $REPEAT. Best of runs."
    echo
    echo "| encoding | what | throughput | notes |"
    echo "|---|---|---|---|"
    [ -x "$BIN/gpu_bandwidth" ] && "$BIN/gpu_bandwidth"
    for enc in cl100k_base o200k_base r50k_base; do
        "$BIN/gpu_tokenize_bench" "$SHARED/vocab/tiktoken/$enc.tiktoken" "$enc" \
            "$SHARED/tokref/en_code.txt.zst" "$SHARED/tokref/en_code.idx.tsv" "$THREADS" "$REPEAT" "${VARIANTS:-64}" || true
    done
    TEXT=${TMPDIR:-/tmp}/gpu_tokenize_en_code.$$.txt
    "$BIN/gpu_tokenize_bench" --dump "$SHARED/tokref/en_code.txt.zst" "$TEXT"
    python3 "$HERE/gpu_tokenize_peers.py" "$SHARED" "$TEXT" "$REPEAT" "$THREADS" || true
    rm -f "$TEXT"
} | tee "$RESULT.tmp.$$"
mv "$RESULT.tmp.$$" "$RESULT"
