#!/bin/sh
# dedup - throughput of `winnow dedup` (issue 5 goals: >= 100 MB/s per CPU
# core; on an H100 host, GPU signatures >= 5 GB/s of text for the kernel and
# the whole stage >= 1 GB/s of JSONL on 16 cores). Parts: normalise + shingle
# hashing and MinHash signatures on one core (bench/dedup_sig.c); the GPU
# kernel alone and with transfers when a GPU is usable; the whole streaming
# stage on 1 and all cores, CPU and GPU; the staged mode's three steps.
. bench/lib.sh
set -eu
J=$SHARED/jsonl
REPEAT=${DEDUP_BENCH_REPEAT:-8}
data="$BENCH_TMP/dedup.jsonl"
{ for i in $(seq 1 "$REPEAT"); do
    zcat "$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz"
    zcat "$J"/dolma/tests/data/formats/gz/*.jsonl.gz
    cat "$J/dclm/data/majority_data.jsonl"
  done; } > "$data"
bytes=$(stat -c %s "$data")
"$BUILD/bench/dedup_sig" "$J/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz" "$J"/dolma/tests/data/formats/gz/*.jsonl.gz \
    "$J/dclm/data/majority_data.jsonl" > "$BENCH_TMP/sig"
val() { awk -v k="$1" '$1 == k { print $2 }' "$BENCH_TMP/sig"; }
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)

echo "# dedup throughput"
echo
echo "$(machine_line). GPU: ${gpu_name:-none}."
echo "Input: real C4 + Dolma CC + DCLM documents ($(val text_mb) MB of text in $(val docs) documents), the stage runs on them"
echo "repeated $REPEAT times ($((bytes / 1000000)) MB of JSONL; repeats are exact duplicates, so most documents are dropped"
echo "after their signatures are computed: every document is still normalised, shingled and signed). 14 bands x 8 rows, 5-grams."
echo "MB/s wall is end to end; MB per CPU-second divides by the CPU time of all threads."
echo
echo "| what | threads | MB/s wall | MB per CPU-second |"
echo "|---|---|---|---|"
echo "| normalise + shingle hash (MB of text) | 1 | - | $(val normalise_shingle_mbps) |"
echo "| MinHash signatures, CPU (MB of text) | 1 | - | $(val cpu_signature_mbps) |"
echo "| streaming index lookups and decisions, 2M documents of unique keys ($(val index_bytes_per_doc) bytes each), docs/s | 1 | $(val index_docs_per_s) | - |"
if [ -n "$(val gpu_kernel_mbps)" ]; then
    echo "| MinHash signatures, GPU kernel alone (MB of text) | GPU | $(val gpu_kernel_mbps) | - |"
    echo "| MinHash signatures, GPU with transfers (MB of text) | GPU | $(val gpu_with_transfers_mbps) | - |"
fi
for j in 1 $(nproc); do
    set -- $(cpu_seconds "$WINNOW" dedup -q -j "$j" --device cpu "$data" -o "$BENCH_TMP/out.jsonl")
    echo "| winnow dedup --device cpu (MB of JSONL) | $j | $(mbps $bytes $1) | $(mbps $bytes $2) |"
done
if [ -n "$(val gpu_kernel_mbps)" ]; then
    set -- $(cpu_seconds "$WINNOW" dedup -q -j "$(nproc)" --device gpu "$data" -o "$BENCH_TMP/gpu.jsonl")
    echo "| winnow dedup --device gpu (MB of JSONL) | $(nproc) | $(mbps $bytes $1) | $(mbps $bytes $2) |"
    cmp -s "$BENCH_TMP/out.jsonl" "$BENCH_TMP/gpu.jsonl" || echo "| **GPU output differs from CPU output** | | | |"
fi
# Unique documents: every one adds keys to the index (copies above only look
# keys up). en_code twice with a word prefix per copy, and 200,000 short ones.
SHARED="$SHARED" python3 bench/dedup_unique_inputs.py long "$BENCH_TMP/unique" 2
SHARED="$SHARED" python3 bench/dedup_unique_inputs.py short "$BENCH_TMP/short.jsonl" 200000
ubytes=$(cat "$BENCH_TMP"/unique/*.jsonl | wc -c)
for j in 1 $(nproc); do
    set -- $(cpu_seconds "$WINNOW" dedup -q -j "$j" --device cpu "$BENCH_TMP"/unique/*.jsonl -o /dev/null)
    echo "| winnow dedup --device cpu, unique en_code documents (MB of JSONL) | $j | $(mbps $ubytes $1) | $(mbps $ubytes $2) |"
    set -- $(cpu_seconds "$WINNOW" dedup -q -j "$j" --device cpu "$BENCH_TMP/short.jsonl" -o /dev/null)
    echo "| winnow dedup --device cpu, 200,000 unique 40-word documents (thousand docs/s) | $j | $(mbps 200000000 $1) | $(mbps 200000000 $2) |"
done
rm -rf "$BENCH_TMP/unique" "$BENCH_TMP/short.jsonl"
mkdir -p "$BENCH_TMP/parts"
split -n l/8 -d "$data" "$BENCH_TMP/parts/part"
w="$BENCH_TMP/work"
set -- $(cpu_seconds "$WINNOW" dedup signatures -q -j "$(nproc)" --device cpu --work "$w" "$BENCH_TMP"/parts/part*)
echo "| staged: signatures (8 files, 1 rank) | $(nproc) | $(mbps $bytes $1) | $(mbps $bytes $2) |"
set -- $(cpu_seconds "$WINNOW" dedup buckets -q --work "$w")
echo "| staged: buckets (16 partitions, 1 rank) | 1 | $(mbps $bytes $1) | $(mbps $bytes $2) |"
set -- $(cpu_seconds "$WINNOW" dedup apply -q -j "$(nproc)" --work "$w" -o "$BENCH_TMP/applied")
echo "| staged: apply (8 files, 1 rank) | $(nproc) | $(mbps $bytes $1) | $(mbps $bytes $2) |"
if [ -n "$(val gpu_mismatches)" ]; then
    echo
    echo "GPU signatures differing from the CPU's (must be 0): $(val gpu_mismatches) of $(val docs) documents x 112."
fi
rm -rf "$data" "$BENCH_TMP/parts" "$w" "$BENCH_TMP/applied" "$BENCH_TMP"/out.jsonl "$BENCH_TMP"/gpu.jsonl
