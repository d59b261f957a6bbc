#!/bin/sh
# gpu_tokenize_device.sh - runs on the GPU machine from a bundle made by
# gpu_tokenize_bundle.sh: the GPU tokenizer's exactness checks
# (gpu_bpe_exact, tests/e2e/gpu_tokenize_device.sh through winnow itself),
# then throughput against its ceilings (gpu_bandwidth, gpu_tokenize_bench on
# tokref en_code x REPEAT for cl100k_base, o200k_base and r50k_base), and
# with PEERS=1 Python tiktoken and HF tokenizers on the same corpus. Writes
# exact.txt, e2e.txt, bandwidth.txt, bench.txt, peers.txt under $OUT (or
# OUT=DIR) and prints a summary.
#   usage: sh DIR/gpu_tokenize_device.sh   (VARIANTS, REPEAT, ENCS, PEERS, BW, EXACT, E2E)
set -u
dir=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$dir/out}
bin=$(mktemp -d)
mkdir -p "$out"
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$dir/bin.tar.xz" "$bin" || exit 1
export SHARED="$dir/shared"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
echo "$(nproc) CPU cores: $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -1)"
if [ "${BW:-1}" = 1 ]; then "$bin/gpu_bandwidth" | tee "$out/bandwidth.txt"; fi
if [ "${EXACT:-1}" = 1 ]; then
    "$bin/gpu_bpe_exact" > "$out/exact.txt" 2>&1
    grep -E "^not ok|^#" "$out/exact.txt"
    echo "gpu_bpe_exact: $(grep -c '^ok' "$out/exact.txt") ok, $(grep -c '^not ok' "$out/exact.txt") not ok"
fi
if [ "${E2E:-1}" = 1 ]; then
    (cd "$dir" && mkdir -p tests && cp lib.sh tests/lib.sh && WINNOW="$bin/winnow" sh e2e_gpu_tokenize_device.sh) > "$out/e2e.txt" 2>&1
    grep -E "^not ok" "$out/e2e.txt"
    echo "gpu_tokenize_device.sh: $(grep -c '^ok' "$out/e2e.txt") ok, $(grep -c '^not ok' "$out/e2e.txt") not ok"
fi
: > "$out/bench.txt"
for enc in ${ENCS:-cl100k_base o200k_base r50k_base}; do
    "$bin/gpu_tokenize_bench" "$SHARED/vocab/tiktoken/$enc.tiktoken" "$enc" "$SHARED/tokref/en_code.txt.zst" \
        "$SHARED/tokref/en_code.idx.tsv" 16 "${REPEAT:-4}" "${VARIANTS:-64}" 2>&1 | tee -a "$out/bench.txt"
done
if [ "${PEERS:-0}" = 1 ]; then
    text=$(mktemp)
    "$bin/gpu_tokenize_bench" --dump "$SHARED/tokref/en_code.txt.zst" "$text"
    PYTHONUNBUFFERED=1 python3 "$dir/gpu_tokenize_peers.py" "$SHARED" "$text" "${REPEAT:-4}" 16 2>&1 | tee "$out/peers.txt"
    rm -f "$text"
fi
rm -rf "$bin"
