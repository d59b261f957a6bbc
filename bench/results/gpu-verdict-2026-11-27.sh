#!/bin/bash
# gpu-verdict-2026-11-27.sh - the i15chk device call: after tokenize and dedup moved their
# "--device gpu checks the GPU on a thread, the first output waits, no GPU is refused" onto
# core/gpu_verdict.h, their GPU tests and one run of each command on the GPU.
#   here (the worktree, after nice make -j2 build/winnow and the six test programs below):
#     bash bench/results/gpu-verdict-2026-11-27.sh bundle /work/main/dist-gpu-i15chk
#   there (device tool, carry ["dist-gpu-i15chk"]): bash dist-gpu-i15chk/run.sh
# The bundle: winnow, the GPU test programs and zstd (bin.tar.xz, scripts/gpu_bundle_lib.sh),
# the test data they read (tokref edge/multi/en_code/blns, the tiktoken and GPT-2 vocabularies,
# ../shared/data/jsonl, two vector files), tests/lib.sh and the e2e tests, this script as run.sh.
set -u
if [ "${1:-}" = bundle ]; then
    set -e
    dir=$2; here=$(pwd); shared=../shared/data
    rm -rf "$dir"; mkdir -p "$dir/shared/tokref" "$dir/shared/vocab/tiktoken" "$dir/shared/vocab/gpt2" \
        "$dir/shared/vectors/gpt-tokenizer" "$dir/shared/vectors/blns"
    strip_dir=$(mktemp -d) # without debug sections: the carried tree is limited to 64 MiB
    for p in winnow tests/gpu_bpe_exact tests/gpu_bpe_overlap tests/gpu_bpe_multi \
             tests/dedup_gpu tests/dedup_gpu_text tests/dedup_gpu_xxh3; do
        strip -o "$strip_dir/${p#tests/}" "$here/build/$p"
    done
    # (bundle_programs finds gpu_bundle.sh beside $0)
    bash -c '. scripts/gpu_bundle_lib.sh && bundle_programs "$@"' scripts/gpu_bundle_lib.sh \
        "$dir" "$(command -v zstd)" $(for p in "$strip_dir"/*; do echo "${p##*/}=$p"; done)
    rm -rf "$strip_dir"
    for c in edge multi en_code blns; do cp "$shared/tokref/$c.txt.zst" "$shared/tokref/$c.idx.tsv" "$dir/shared/tokref/"; done
    for e in r50k_base cl100k_base o200k_base; do cp "$shared/vocab/tiktoken/$e.tiktoken" "$dir/shared/vocab/tiktoken/"; done
    cp "$shared/vocab/gpt2/encoder.json" "$shared/vocab/gpt2/vocab.bpe" "$dir/shared/vocab/gpt2/"
    cp -rL "$shared/jsonl" "$dir/shared/"
    cp "$shared/vectors/gpt-tokenizer/TestPlans.txt" "$dir/shared/vectors/gpt-tokenizer/"
    cp "$shared/vectors/blns/blns.txt" "$dir/shared/vectors/blns/"
    cp "$here/tests/lib.sh" "$dir/"
    for t in gpu_tokenize_device tokenize_gpu_refused dedup_cli; do cp "$here/tests/e2e/$t.sh" "$dir/e2e_$t.sh"; done
    cp "$0" "$dir/run.sh"
    du -sh "$dir"
    exit 0
fi

D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=/tmp/i15chk-run; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; S=$D/shared; export PATH=$B:$PATH SHARED=$S
V=$S/vocab/tiktoken/cl100k_base.tiktoken
echo "== machine $(date -u)"; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

# the two commands first (seconds), then the tests: what ran comes back if the call runs out
IN=$S/jsonl/dclm/data/majority_data.jsonl
echo "== winnow tokenize --device gpu against --device cpu ($(basename $IN), $(stat -c %s $IN) bytes)"
$B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin $IN > tok-cpu.bin
WINNOW_TOKENIZE_TIMES=1 $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin $IN > tok-gpu.bin 2> tok-gpu.err
echo "exit $?; $(stat -c %s tok-gpu.bin) bytes"; grep "tokenize times" tok-gpu.err
cmp tok-cpu.bin tok-gpu.bin && echo "SAME tokenize gpu cpu"
CUDA_VISIBLE_DEVICES= $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin $IN > tok-none.bin 2> tok-none.err
echo "no GPU visible: exit $?, stdout $(stat -c %s tok-none.bin) bytes: $(cat tok-none.err)"

DIN=$(find $S/jsonl -name '*.jsonl*' | sort)
echo "== winnow dedup --device gpu against --device cpu ($(echo $DIN | wc -w) files, $(cat $DIN | wc -c) bytes)"
$B/winnow dedup -q --device cpu $DIN > dd-cpu.jsonl
WINNOW_DEDUP_TIMES=1 $B/winnow dedup -q --device gpu $DIN > dd-gpu.jsonl 2> dd-gpu.err
echo "exit $?; $(wc -l < dd-gpu.jsonl) lines kept"; grep "dedup times" dd-gpu.err
cmp dd-cpu.jsonl dd-gpu.jsonl && echo "SAME dedup gpu cpu"
CUDA_VISIBLE_DEVICES= $B/winnow dedup -q --device gpu $DIN > dd-none.jsonl 2> dd-none.err
echo "no GPU visible: exit $?, stdout $(stat -c %s dd-none.jsonl) bytes: $(cat dd-none.err)"

echo "== e2e tests (tokenize_gpu_refused hides the GPU itself: CUDA_VISIBLE_DEVICES=)"
mkdir -p e2e/tests && cp $D/lib.sh e2e/tests/lib.sh && cp $D/e2e_*.sh e2e/
for t in e2e/e2e_*.sh; do
    t0=$SECONDS; (cd e2e && WINNOW=$B/winnow BUILD=$B SHARED=$S timeout 60 sh $(basename $t)) > $t.tap 2>&1; rc=$?
    echo "$(basename $t): $((SECONDS - t0)) s, exit $rc, $(grep -c '^ok' $t.tap) ok, $(grep -c '^not ok' $t.tap) not ok, $(grep -c 'SKIP' $t.tap) skip"
    grep '^not ok\|SKIP' $t.tap | head -5
done

echo "== GPU unit tests"
for t in dedup_gpu_xxh3 dedup_gpu dedup_gpu_text gpu_bpe_multi gpu_bpe_exact gpu_bpe_overlap; do
    t0=$SECONDS; timeout 90 $B/$t > $t.tap 2>&1; rc=$?
    echo "$t: $((SECONDS - t0)) s, exit $rc, $(grep -c '^ok' $t.tap) ok, $(grep -c '^not ok' $t.tap) not ok, $(grep -ci 'skip' $t.tap) skip"
    grep '^not ok\|SKIP\|skipped' $t.tap | head -5
done
echo "== done $(date -u), $SECONDS s"
