#!/bin/sh
# gpu_tlz_bundle.sh - the GPU token encoder's device bundle in DIR (a folder
# the device tool carries): the shards group of the GPU tests
# (gpu_tests_bundle.sh) in DIR/tests, the bench program, the test again and
# zstd in DIR/bench, and bench/gpu_tlz.sh, which runs them there.
#   usage: sh scripts/gpu_tlz_bundle.sh DIR [SHARED]
#   (build first: make all build/tests/gpu_tlz build/bench/gpu_tlz_bench)
set -eu
dir=$1
shared=${2:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/bench"
GROUP=shards sh "$here/scripts/gpu_tests_bundle.sh" "$dir/tests" "$shared"
strip_dir=$(mktemp -d)
strip -o "$strip_dir/gpu_tlz_bench" "$here/build/bench/gpu_tlz_bench"
strip -o "$strip_dir/gpu_tlz" "$here/build/tests/gpu_tlz"
bundle_programs "$dir/bench" "$(command -v zstd)" "gpu_tlz_bench=$strip_dir/gpu_tlz_bench" "gpu_tlz=$strip_dir/gpu_tlz"
rm -rf "$strip_dir"
cp "$here/bench/gpu_tlz.sh" "$dir/"
du -sh "$dir"
