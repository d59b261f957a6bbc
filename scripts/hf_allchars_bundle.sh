#!/bin/sh
# hf_allchars_bundle.sh - packs a check of winnow's tokenizer.json support on
# every Unicode character into DIR (a folder the device tool carries; the GPU
# machine has Hugging Face tokenizers, this one does not): winnow with its
# shared libraries and zstd (bin.tar.xz, see gpu_bundle.sh), the
# *.tokenizer.json.zst of each FILES_DIR, and hf_allchars_device.py, which
# makes the documents and compares the two there. Build first: make all.
#   usage: hf_allchars_bundle.sh DIR FILES_DIR...
set -eu
dir=$1
shift
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/files"
bundle_winnow_zstd "$dir"
for files in "$@"; do cp "$files"/*.tokenizer.json.zst "$dir/files/"; done
cp "$here/scripts/hf_allchars_device.py" "$dir/"
du -sh "$dir"
