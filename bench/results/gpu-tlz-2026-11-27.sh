#!/bin/bash
# gpu_tlz.sh - on the GPU machine, from a bundle of scripts/gpu_tlz_bundle.sh:
# the GPU token encoder's test (gpu_tests_device.sh, group shards), then for
# each coding kernel layout of SWEEP (hash tables in shared or global memory
# : threads per CTA) the test again and the bench (bench/gpu_tlz_bench.c) on
# SWEEP_GB of ids, and with the fastest layout the bench on GB of ids: the
# tokref ids (cl100k en_code + multi as uint32, gpt2 multi as uint16)
# repeated, 1 MiB frames, batches of BATCH frames (and twice as many), every
# GPU frame compared with tlz_compress_frame's on the machine's cores.
#   usage: bash DIR/gpu_tlz.sh      (GB=2 BATCH=256 REPEATS=3 SWEEP_GB=1)
set -u
D=$(cd "$(dirname "$0")" && pwd)
GB=${GB:-2}
BATCH=${BATCH:-256}
REPEATS=${REPEATS:-3}
SWEEP_GB=${SWEEP_GB:-1}
SWEEP=${SWEEP-shared:4 shared:8 shared:13 global:1 global:2 global:4 global:8 global:16 global:32}
bash "$D/tests/gpu_tests_device.sh"
B=$(mktemp -d)
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bench/bin.tar.xz" "$B" || exit 1
T=$(mktemp -d)
for f in en_code.cl100k_base multi.cl100k_base multi.gpt2; do
    "$B/zstd" -dcq "$D/tests/shared/tokref/$f.bin.zst" > "$T/$f.bin" || exit 1
done
CL="100277 $T/en_code.cl100k_base.bin $T/multi.cl100k_base.bin"
run() { # NAME GB BATCH VOCAB FILE...
    name=$1 gb=$2 batch=$3; shift 3
    echo "== $name"
    timeout 40 "$B/gpu_tlz_bench" "$1" "$gb" "$batch" "$(nproc)" "$REPEATS" "${@:2}" | tee "$T/last.txt" || echo "(exit $?)"
}
for c in $SWEEP; do
    export GPU_TLZ_TABLE=${c%%:*} GPU_TLZ_CTA_THREADS=${c#*:}
    SHARED=$D/tests/shared timeout 30 "$B/gpu_tlz" > "$T/tap.txt" 2>&1
    echo "-- test gpu_tlz with $c: exit $?, $(grep -c '^ok' "$T/tap.txt") ok, $(grep -c '^not ok' "$T/tap.txt") not ok"
    grep -A3 '^not ok' "$T/tap.txt" | head -8
    run "layout $c, $SWEEP_GB GB" "$SWEEP_GB" "$BATCH" $CL
    echo "$(sed -n 's/^gpu best: \([0-9.]*\) GB.*/\1/p' "$T/last.txt") $c" >> "$T/best.txt"
done
best=$(sort -rn "$T/best.txt" | head -1 | cut -d' ' -f2)
export GPU_TLZ_TABLE=${best%%:*} GPU_TLZ_CTA_THREADS=${best#*:}
run "fastest layout $best, cl100k ids, $GB GB" "$GB" "$BATCH" $CL
run "fastest layout $best, batches of $((2 * BATCH)) frames" "$GB" $((2 * BATCH)) $CL
run "fastest layout $best, gpt2 ids (uint16)" "$GB" "$BATCH" 50257 "$T/multi.gpt2.bin"
rm -rf "$T" "$B"
