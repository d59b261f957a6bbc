#!/bin/sh
# tokenize_random_bundle.sh - packs the made-up-text check of winnow's tokenizers
# against Python tiktoken and Hugging Face tokenizers into DIR (a folder the device
# tool carries; the GPU machine has both libraries, this one neither): winnow with
# its shared libraries and zstd (bin.tar.xz, see gpu_bundle.sh), the four tiktoken
# vocabularies, the *.tokenizer.json.zst of SHARED/vocab/hf, and
# tokenize_random_device.py, which makes the documents and compares there.
# Build first: make all.
#   usage: tokenize_random_bundle.sh DIR SHARED
set -eu
dir=$1
shared=$2
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/files" "$dir/vocab"
bundle_winnow_zstd "$dir"
cp "$shared"/vocab/tiktoken/*.tiktoken "$dir/vocab/"
cp "$shared"/vocab/hf/*.tokenizer.json.zst "$dir/files/"
cp "$here/scripts/tokenize_random_device.py" "$dir/"
du -sh "$dir"
