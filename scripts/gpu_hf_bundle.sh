#!/bin/sh
# gpu_hf_bundle.sh - packs what the GPU checks of tokenizer.json files need
# into DIR (a folder the device tool carries): winnow, gpu_bpe_hf and
# gpu_tokenize_bench with their shared libraries (bin.tar.xz, see
# gpu_bundle.sh), the 7 tokenizer.json files the GPU encodes, cl100k_base
# (the tiktoken baseline), the tokref corpora and test vectors, and
# scripts/gpu_hf_device.sh, which runs them there. Build first:
# make all build/tests/gpu_bpe_hf build/bench/gpu_tokenize_bench.
#   usage: gpu_hf_bundle.sh DIR [SHARED]
set -eu
dir=$1
shared=${2:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/shared/tokref" "$dir/shared/vocab/hf" "$dir/shared/vocab/tiktoken" \
    "$dir/shared/vectors/gpt-tokenizer" "$dir/shared/vectors/blns"
bundle_programs "$dir" "$here/build/winnow" "$here/build/tests/gpu_bpe_hf" "$here/build/bench/gpu_tokenize_bench"
for c in edge multi blns en_code; do cp "$shared/tokref/$c.txt.zst" "$shared/tokref/$c.idx.tsv" "$dir/shared/tokref/"; done
for f in gpt2 gpt4o llama3 llama3_1 mistral_nemo qwen2_5 qwen3; do cp "$shared/vocab/hf/$f.tokenizer.json.zst" "$dir/shared/vocab/hf/"; done
cp "$shared/vocab/tiktoken/cl100k_base.tiktoken" "$dir/shared/vocab/tiktoken/"
cp "$shared/vectors/gpt-tokenizer/TestPlans.txt" "$dir/shared/vectors/gpt-tokenizer/"
cp "$shared/vectors/blns/blns.txt" "$dir/shared/vectors/blns/"
cp "$here/scripts/gpu_hf_device.sh" "$dir/"
du -sh "$dir"
