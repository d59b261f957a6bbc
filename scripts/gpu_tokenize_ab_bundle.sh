#!/bin/sh
# gpu_tokenize_ab_bundle.sh - packs what bench/gpu_tokenize_ab.sh needs into
# DIR (a folder the device tool carries, e.g. /work/main/dist-gpu-NAME): this
# build's winnow, OLD (the build to compare with) as winnow-old, each further
# NAME=PROGRAM as winnow-NAME, and zstd, with their shared libraries
# (bin.tar.xz, see gpu_bundle.sh); tokref en_code and multi as JSONL (zstd
# -19); the cl100k_base vocabulary; the script, and run.sh that runs it.
# Build first: make build/winnow (and build/bench/json_scan to bench the
# JSON scan there too).
#   usage: gpu_tokenize_ab_bundle.sh DIR OLD [NAME=PROGRAM...]   (SHARED=../shared/data)
set -eu
dir=$1
old=$2
shift 2
shared=${SHARED:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir"
scan=; [ -x "$here/build/bench/json_scan" ] && scan="$here/build/bench/json_scan" # make build/bench/json_scan: also bench it
named=
for build in "old=$old" "$@"; do named="$named winnow-$build"; done # every build links the same libraries as this one
bundle_programs "$dir" "$here/build/winnow" "$(command -v zstd)" $scan $named
for c in en_code multi; do bundle_tokref_jsonl "$shared" $c "$dir/$c.jsonl.zst"; done
cp "$shared/vocab/tiktoken/cl100k_base.tiktoken" "$here/bench/gpu_tokenize_ab.sh" "$dir/"
name=$(basename "$dir")
printf '#!/bin/bash\n# run.sh - bench/gpu_tokenize_ab.sh (%s against %s): bash %s/run.sh (one call, timeout 300)\nexec bash "$(dirname "$0")/gpu_tokenize_ab.sh"\n' \
    "$(git -C "$here" rev-parse --short HEAD)" "$old" "$name" > "$dir/run.sh"
du -sh "$dir"
