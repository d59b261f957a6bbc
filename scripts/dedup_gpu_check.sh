#!/bin/sh
# dedup_gpu_check.sh - the dedup GPU checks and numbers on a GPU machine that
# has no build tools: run from a bundle made here with
#     make all build/bench/dedup_sig build/tests/dedup_gpu
#     sh scripts/gpu_bundle.sh dist-gpu bin/winnow build/tests/dedup_gpu build/bench/dedup_sig
# then, there:  sh scripts/dedup_gpu_check.sh dist-gpu SHARED_DATA_DIR [OUT.md]
# It runs the GPU-vs-CPU signature test on all real JSONL, the signature
# throughput bench (kernel and with transfers), and the whole stage with
# --device gpu and --device cpu on all cores (outputs must be identical).
set -eu
bundle=$1 shared=$2 out=${3:-dedup-gpu-$(date -u +%Y-%m-%d).md}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
J=$shared/jsonl
corpus="$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz $(ls "$J"/dolma/tests/data/formats/gz/*.jsonl.gz) $J/dclm/data/majority_data.jsonl"
for i in $(seq 1 40); do for f in $corpus; do gzip -dcf "$f"; done; done > "$tmp/data.jsonl"
bytes=$(stat -c %s "$tmp/data.jsonl")
secs() { s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$s $e" | awk '{printf "%.3f", $2 - $1}'; }
{
    echo "# dedup on the GPU"
    echo
    echo "$(date -u +%Y-%m-%d), $(nproc) cores, GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)."
    echo
    echo '```'
    SHARED=$shared "$bundle/dedup_gpu" 2>&1
    "$bundle/dedup_sig" $corpus 2>&1
    echo '```'
    echo
    echo "| whole stage, $((bytes / 1000000)) MB of JSONL, $(nproc) threads | seconds | MB/s |"
    echo "|---|---|---|"
    for d in gpu cpu; do
        if t=$(secs "$bundle/winnow" dedup -q -j "$(nproc)" --device $d "$tmp/data.jsonl" -o "$tmp/$d.jsonl" 2>&1); then
            echo "| --device $d | $t | $(awk -v b="$bytes" -v t="$t" 'BEGIN { printf "%.0f", b / 1e6 / t }') |"
        else
            echo "| --device $d | failed | - |"
        fi
    done
    if cmp -s "$tmp/gpu.jsonl" "$tmp/cpu.jsonl"; then echo; echo "GPU and CPU outputs identical."
    else echo; echo "**GPU and CPU outputs differ.**"; fi
} | tee "$out"
