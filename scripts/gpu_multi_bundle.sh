#!/bin/sh
# gpu_multi_bundle.sh - packs what bench/results/multi-gpu-2026-11-27.sh
# needs into DIR (a folder the device tool carries, e.g.
# /work/main/dist-gpu-i15m): the built winnow, the GPU exactness test and
# zstd with their shared libraries (bin.tar.xz, see gpu_bundle.sh), the
# tokref corpora, test vectors and tiktoken vocabularies the test and the
# inputs need (under DIR/shared, laid out as ../shared/data), the input
# generators and the script. Build first: make build/winnow build/tests/gpu_bpe_exact.
#   usage: gpu_multi_bundle.sh DIR [SHARED]
set -eu
dir=$1
shared=${2:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/shared/tokref" "$dir/shared/vocab/tiktoken" "$dir/shared/vectors/gpt-tokenizer" "$dir/shared/vectors/blns"
bundle_programs "$dir" "$here/build/winnow" "$here/build/tests/gpu_bpe_exact" "$(command -v zstd)"
for c in edge multi en_code; do cp "$shared/tokref/$c.txt.zst" "$shared/tokref/$c.idx.tsv" "$dir/shared/tokref/"; done
for e in r50k_base cl100k_base o200k_base; do cp "$shared/vocab/tiktoken/$e.tiktoken" "$dir/shared/vocab/tiktoken/"; done
cp "$shared/vectors/gpt-tokenizer/TestPlans.txt" "$dir/shared/vectors/gpt-tokenizer/"
cp "$shared/vectors/blns/blns.txt" "$dir/shared/vectors/blns/"
cp "$here/scripts/tokenize_tokref.py" "$here/bench/dedup_unique_inputs.py" "$here/bench/results/multi-gpu-2026-11-27.sh" "$dir/"
du -sh "$dir"
