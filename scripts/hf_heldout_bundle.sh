#!/bin/sh
# hf_heldout_bundle.sh - packs a check of winnow's tokenizer.json support on
# files it was not built against into DIR (a folder the device tool carries;
# the GPU machine has Hugging Face tokenizers, this one does not): winnow
# with its shared libraries and zstd (bin.tar.xz, see gpu_bundle.sh), the
# tokenizer.json files FILES_DIR/*.tokenizer.json.zst, tokref multi, edge,
# blns and every 10th en_code document as JSONL, and hf_heldout_device.py,
# which compares the two there. Build first: make all.
#   usage: hf_heldout_bundle.sh DIR FILES_DIR [SHARED]
set -eu
dir=$1
files=$2
shared=${3:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/files" "$dir/corpora"
bundle_winnow_zstd "$dir"
cp "$files"/*.tokenizer.json.zst "$dir/files/"
for c in multi edge blns; do bundle_tokref_jsonl "$shared" "$c" "$dir/corpora/$c.jsonl.zst"; done
python3 "$here/scripts/tokenize_tokref.py" jsonl "$shared/tokref/en_code.txt.zst" "$shared/tokref/en_code.idx.tsv" 0 |
    awk 'NR % 10 == 1' | zstd -q -19 -T2 > "$dir/corpora/en_code10.jsonl.zst"
cp "$here/scripts/hf_heldout_device.py" "$dir/"
du -sh "$dir"
