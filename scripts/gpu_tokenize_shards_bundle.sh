#!/bin/sh
# gpu_tokenize_shards_bundle.sh - packs what bench/gpu_tokenize_shards.sh
# needs into DIR (a folder the device tool carries, e.g.
# /work/main/dist-gpu-NAME): this build's winnow, main's (BASE, to compare
# with) as winnow-base, zstd, bench/zstd_params and bench/shard_writer_bench,
# with their shared libraries (bin.tar.xz, see gpu_bundle.sh); tokref en_code
# and multi as JSONL (zstd -19); the cl100k_base vocabulary; the script, and
# run.sh that runs it. Build first: make build/winnow build/bench/zstd_params
# build/bench/shard_writer_bench.
#   usage: gpu_tokenize_shards_bundle.sh DIR BASE [SHARED]
set -eu
dir=$1
base=$2
shared=${3:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir"
bundle_programs "$dir" "$here/build/winnow" "$here/build/bench/zstd_params" \
    "$here/build/bench/shard_writer_bench" "$(command -v zstd)" "winnow-base=$base"
for c in en_code multi; do bundle_tokref_jsonl "$shared" $c "$dir/$c.jsonl.zst"; done
cp "$shared/vocab/tiktoken/cl100k_base.tiktoken" "$here/bench/gpu_tokenize_shards.sh" "$dir/"
name=$(basename "$dir")
printf '#!/bin/bash\n# run.sh - bench/gpu_tokenize_shards.sh (%s against %s): bash %s/run.sh (one call, timeout 600)\nexec bash "$(dirname "$0")/gpu_tokenize_shards.sh"\n' \
    "$(git -C "$here" rev-parse --short HEAD)" "$base" "$name" > "$dir/run.sh"
du -sh "$dir"
