#!/bin/sh
# gpu_tests_bundle.sh - packs every test that has a GPU part into DIR (a folder
# the device tool carries, e.g. dist-gpu-tests): winnow and the unit test
# programs that call the GPU (bin.tar.xz, see gpu_bundle.sh; stripped, as the
# carried tree is limited to 64 MiB), zstd (the device image has none), the
# part of ../shared/data they read, and gpu_tests_device.sh, which runs them
# there: the programs directly, the e2e scripts from the repository root (the
# device's copy of the working tree). GROUP (tokenize, hf, hf_e2e, dedup or shards) picks the
# tests (gpu_tests_list.sh). Build first: make all and the group's programs.
#   usage: GROUP=tokenize sh scripts/gpu_tests_bundle.sh DIR [SHARED]
set -eu
dir=$1
shared=${2:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
. "$here/scripts/gpu_tests_list.sh"
rm -rf "$dir"
mkdir -p "$dir/shared"
strip_dir=$(mktemp -d)
strip -o "$strip_dir/winnow" "$here/build/winnow"
for t in $GPU_UNIT_TESTS; do strip -o "$strip_dir/$t" "$here/build/tests/$t"; done
bundle_programs "$dir" "$(command -v zstd)" $(for p in "$strip_dir"/*; do echo "${p##*/}=$p"; done)
rm -rf "$strip_dir"
for pattern in $GPU_TEST_DATA; do
    for f in "$shared"/$pattern; do
        rel=${f#"$shared"/}
        mkdir -p "$dir/shared/$(dirname "$rel")"
        cp -r "$f" "$dir/shared/$rel"
    done
done
cp "$here/scripts/gpu_tests_device.sh" "$here/scripts/gpu_tests_list.sh" "$dir/"
echo "GROUP=$GROUP" > "$dir/group"
du -sh "$dir"
