#!/bin/sh
# gpu_tokenize_path_bundle.sh - packs what bench/gpu_tokenize_path.sh needs
# into DIR (a folder the device tool carries, e.g. /work/main/dist-gpu-NAME):
# the built winnow, main's winnow (BASE, to compare with), gpu_bandwidth
# and zstd with their shared libraries (bin.tar.xz, see gpu_bundle.sh), the
# tokref en_code and multi corpora as JSONL (zstd -19), the vocabularies,
# the peers script, and the script itself. Build first: make all
# build/bench/gpu_bandwidth.
#   usage: gpu_tokenize_path_bundle.sh DIR BASE [SHARED]
set -eu
dir=$1
base=$2
shared=${3:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir"
bundle_programs "$dir" "$here/build/winnow" "$here/build/bench/gpu_bandwidth" "$(command -v zstd)" "winnow-base=$base"
for c in en_code multi; do bundle_tokref_jsonl "$shared" $c "$dir/$c.jsonl.zst"; done
cp "$shared/tokref/en_code.txt.zst" "$shared/tokref/en_code.idx.tsv" "$dir/"
for e in r50k_base cl100k_base o200k_base; do cp "$shared/vocab/tiktoken/$e.tiktoken" "$dir/"; done
cp "$shared/vocab/gpt2/encoder.json" "$shared/vocab/gpt2/vocab.bpe" "$dir/"
cp "$here/bench/gpu_tokenize_path.sh" "$here/bench/gpu_tokenize_peers.py" "$dir/"
du -sh "$dir"
