#!/bin/sh
# gpu_tokenize_bin_bundle.sh - packs the i15n device call's bundle into DIR (run from the worktree after
# make build/winnow build/tests/gpu_bpe_{exact,hf,emulate,overlap,multi}): winnow, the base
# build as winnow-base, zstd, the GPU test programs (bin.tar.xz), the test data they and the
# e2e tests read (with HF=1 the tokenizer.json tests and files, 24 MiB: the carried
# tree is limited to 64 MiB), tokenize_tokref.py, and keeps the run.sh already in DIR (bench/results/gpu-tokenize-bin-*.sh).
# Further builds to time beside them (variants) are packed as NAME.
#   usage: sh scripts/gpu_tokenize_bin_bundle.sh DIR BASE_WINNOW [NAME=BINARY...]
set -eu
dir=$1; base=$2; shift 2; shared=../shared/data; here=$(pwd)
. "$here/scripts/gpu_bundle_lib.sh"
find "$dir" -mindepth 1 -maxdepth 1 ! -name run.sh -exec rm -rf {} +
mkdir -p "$dir/shared/tokref" "$dir/shared/vocab/tiktoken" "$dir/shared/vocab/gpt2" "$dir/shared/vocab/hf" \
    "$dir/shared/jsonl/dclm/data"
strip_dir=$(mktemp -d) # the programs without their debug sections: the bundle's size is limited
for p in winnow tests/gpu_bpe_exact tests/gpu_bpe_emulate tests/gpu_bpe_overlap tests/gpu_bpe_multi ${HF:+tests/gpu_bpe_hf}; do
    strip -o "$strip_dir/${p#tests/}" "$here/build/$p"
done
strip -o "$strip_dir/winnow-base" "$base"
for v in "$@"; do strip -o "$strip_dir/${v%%=*}" "${v#*=}"; done
bundle_programs "$dir" "$(command -v zstd)" $(for p in "$strip_dir"/*; do echo "${p##*/}=$p"; done)
rm -rf "$strip_dir"
for c in edge multi en_code blns; do cp "$shared/tokref/$c.txt.zst" "$shared/tokref/$c.idx.tsv" "$dir/shared/tokref/"; done
for e in r50k_base cl100k_base o200k_base; do cp "$shared/vocab/tiktoken/$e.tiktoken" "$dir/shared/vocab/tiktoken/"; done
cp "$shared/vocab/gpt2/encoder.json" "$shared/vocab/gpt2/vocab.bpe" "$dir/shared/vocab/gpt2/"
if [ -n "${HF:-}" ]; then cp "$shared"/vocab/hf/*.tokenizer.json.zst "$dir/shared/vocab/hf/"; fi
cp "$shared/jsonl/dclm/data/majority_data.jsonl" "$dir/shared/jsonl/dclm/data/"
mkdir -p "$dir/shared/vectors/gpt-tokenizer" "$dir/shared/vectors/blns"
cp "$shared/vectors/gpt-tokenizer/TestPlans.txt" "$dir/shared/vectors/gpt-tokenizer/"
cp "$shared/vectors/blns/blns.txt" "$dir/shared/vectors/blns/"
mkdir -p "$dir/scripts"
cp "$here/scripts/tokenize_tokref.py" "$dir/"; cp "$here/scripts/tokenize_tokref.py" "$dir/scripts/"
cp "$here/tests/lib.sh" "$dir/"
for t in gpu_tokenize_device tokenize_gpu_refused ${HF:+tokenize_hf_gpu}; do cp "$here/tests/e2e/$t.sh" "$dir/e2e_$t.sh"; done
du -sh "$dir"
