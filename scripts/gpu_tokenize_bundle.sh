#!/bin/sh
# gpu_tokenize_bundle.sh - packs what the GPU tokenizer's checks need into
# DIR (a folder the device tool carries, e.g. dist-gpu-tokenize in the repo
# root): the built winnow, gpu_bpe_exact, gpu_tokenize_bench and
# gpu_bandwidth with their shared libraries (bin.tar.xz, see gpu_bundle.sh),
# the test data they read (tokref corpora, vocabularies, test vectors, the
# DCLM sample), the peers script, and scripts/gpu_tokenize_device.sh, which
# runs them there. Build first: make all build/tests/gpu_bpe_exact
# build/bench/gpu_tokenize_bench build/bench/gpu_bandwidth.
#   usage: gpu_tokenize_bundle.sh DIR [SHARED]
set -eu
dir=$1
shared=${2:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/shared/tokref" "$dir/shared/vocab/tiktoken" "$dir/shared/vocab/gpt2" \
    "$dir/shared/vectors/gpt-tokenizer" "$dir/shared/vectors/blns" "$dir/shared/jsonl/dclm/data"
bundle_programs "$dir" "$here/build/winnow" "$here/build/tests/gpu_bpe_exact" \
    "$here/build/bench/gpu_tokenize_bench" "$here/build/bench/gpu_bandwidth"
for c in edge multi en_code; do cp "$shared/tokref/$c.txt.zst" "$shared/tokref/$c.idx.tsv" "$dir/shared/tokref/"; done
for e in r50k_base cl100k_base o200k_base; do cp "$shared/vocab/tiktoken/$e.tiktoken" "$dir/shared/vocab/tiktoken/"; done
cp "$shared/vocab/gpt2/encoder.json" "$shared/vocab/gpt2/vocab.bpe" "$dir/shared/vocab/gpt2/"
cp "$shared/vectors/gpt-tokenizer/TestPlans.txt" "$dir/shared/vectors/gpt-tokenizer/"
cp "$shared/vectors/blns/blns.txt" "$dir/shared/vectors/blns/"
cp "$shared/jsonl/dclm/data/majority_data.jsonl" "$dir/shared/jsonl/dclm/data/"
cp "$here/scripts/gpu_tokenize_device.sh" "$here/bench/gpu_tokenize_peers.py" "$here/tests/lib.sh" "$dir/"
cp "$here/tests/e2e/gpu_tokenize_device.sh" "$dir/e2e_gpu_tokenize_device.sh"
du -sh "$dir"
