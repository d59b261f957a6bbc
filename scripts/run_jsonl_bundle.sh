#!/bin/sh
# run_jsonl_bundle.sh - packs what bench/run_jsonl.sh needs on the GPU machine
# into DIR (a folder the device tool carries, e.g. /work/main/dist-gpu-NAME):
# the built winnow, optionally an earlier build (BASE, timed beside it as
# winnow-base), zstd and their shared libraries (bin.tar.xz, see
# gpu_bundle.sh), tokref en_code (for bench/dedup_unique_inputs.py), the
# cl100k_base vocabulary, the real DCLM / Dolma CC / C4 documents of
# bench/lib.sh real_docs, the two scripts, and DIR/run.sh, which unpacks
# them and runs the bench with the given settings. Build first: make.
#   usage: run_jsonl_bundle.sh DIR [BASE] [SHARED]
#   on the device: [FILES=20 TASKS=16 JOBS=16 RUNS=2] bash DIR/run.sh
set -eu
dir=$1
base=${2:-}
shared=${3:-../shared/data}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/gpu_bundle_lib.sh"
rm -rf "$dir"
mkdir -p "$dir/shared/tokref" "$dir/shared/vocab/tiktoken" "$dir/shared/jsonl/dclm/data" \
    "$dir/shared/jsonl/dolma/tests/data/formats/gz" "$dir/shared/jsonl/olmo/test_fixtures"
bundle_programs "$dir" "$here/build/winnow" "$(command -v zstd)" ${base:+"winnow-base=$base"}
cp "$shared/tokref/en_code.txt.zst" "$shared/tokref/en_code.idx.tsv" "$dir/shared/tokref/"
cp "$shared/vocab/tiktoken/cl100k_base.tiktoken" "$dir/shared/vocab/tiktoken/"
cp "$shared/jsonl/dclm/data/majority_data.jsonl" "$dir/shared/jsonl/dclm/data/"
cp "$shared"/jsonl/dolma/tests/data/formats/gz/*.jsonl.gz "$dir/shared/jsonl/dolma/tests/data/formats/gz/"
cp "$shared/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz" "$dir/shared/jsonl/olmo/test_fixtures/"
cp "$here/bench/run_jsonl.sh" "$here/bench/dedup_unique_inputs.py" "$dir/"
cat > "$dir/run.sh" <<'EOT'
#!/bin/bash
# Unpacks the programs into /tmp/run-jsonl-bin and runs run_jsonl.sh (settings from the environment).
D=$(cd "$(dirname "$0")" && pwd)
B=/tmp/run-jsonl-bin; rm -rf $B; mkdir -p $B
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $B
export PATH=$B:$PATH
base=; [ -x $B/winnow-base ] && base=$B/winnow-base
WINNOW=$B/winnow WINNOW_BASE=$base SHARED=$D/shared FILES=${FILES:-20} TASKS=${TASKS:-16} JOBS=${JOBS:-16} \
    RUNS=${RUNS:-2} bash "$D/run_jsonl.sh" 2>&1 | tee "${OUT:-/tmp}/run_jsonl.log"
EOT
du -sh "$dir"
