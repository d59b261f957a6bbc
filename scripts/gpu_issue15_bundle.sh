#!/bin/sh
# gpu_issue15_bundle.sh - packs what bench/gpu_issue15.sh needs into DIR (a
# folder the device tool carries, e.g. /work/main/dist-gpu-NAME): the built
# winnow, optionally an earlier build (BASE, timed beside it as winnow-base),
# gpu_bandwidth and zstd with their shared libraries (bin.tar.xz, see
# gpu_bundle.sh), tokref multi as JSONL (zstd -19), en_code's
# text and index (made into JSONL on the machine), the vocabularies, the tokenize inputs, peers and dedup input
# scripts, and the script itself. Build first: make all build/bench/gpu_bandwidth.
#   usage: gpu_issue15_bundle.sh DIR [BASE] [SHARED]
set -eu
dir=$1
base=${2:-}
shared=${3:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir"
bundle_programs "$dir" "$here/build/winnow" "$here/build/bench/gpu_bandwidth" "$(command -v zstd)" \
    ${base:+"winnow-base=$base"}
bundle_tokref_jsonl "$shared" multi "$dir/multi.jsonl.zst"
cp "$shared/tokref/en_code.txt.zst" "$shared/tokref/en_code.idx.tsv" "$dir/"
for e in r50k_base cl100k_base o200k_base; do cp "$shared/vocab/tiktoken/$e.tiktoken" "$dir/"; done
cp "$shared/vocab/gpt2/encoder.json" "$shared/vocab/gpt2/vocab.bpe" "$dir/"
cp "$here/bench/gpu_issue15.sh" "$here/bench/gpu_tokenize_inputs.sh" "$here/bench/gpu_tokenize_peers.py" "$here/bench/dedup_unique_inputs.py" \
    "$here/scripts/tokenize_tokref.py" "$dir/"
du -sh "$dir"
