#!/bin/bash
# gpu_tests_device.sh - runs on the GPU machine, from the repository root of
# the device's copy of the working tree, with a bundle made by
# gpu_tests_bundle.sh: every unit test program of gpu_tests_list.sh, then its
# e2e scripts through prove. Prints one summary line per test, the failing
# points and the GPU they ran on; the TAP output goes to $OUT (or /tmp/out).
#   usage: bash DIR/gpu_tests_device.sh
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
B=$(mktemp -d)
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" "$B" || exit 1
. "$D/group"
. "$D/gpu_tests_list.sh"
export SHARED=$D/shared WINNOW=$B/winnow PATH=$B:$PATH ${GPU_TEST_ENV:-}
echo "== $(date -u), $(nproc) cores, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
failed=0
for t in $GPU_UNIT_TESTS; do
    "$B/$t" > "$O/$t.tap" 2>&1; rc=$?
    echo "$t: exit $rc, $(grep -c '^ok' "$O/$t.tap") ok ($(grep -c '# SKIP' "$O/$t.tap") skipped), $(grep -c '^not ok' "$O/$t.tap") not ok"
    grep '^not ok' "$O/$t.tap" | head -5
    [ $rc = 0 ] || failed=$((failed + 1))
done
for t in $GPU_E2E_TESTS; do
    sh "tests/e2e/$t.sh" > "$O/e2e_$t.tap" 2>&1; rc=$?
    echo "e2e $t: exit $rc, $(grep -c '^ok' "$O/e2e_$t.tap") ok ($(grep -c '# SKIP' "$O/e2e_$t.tap") skipped), $(grep -c '^not ok' "$O/e2e_$t.tap") not ok"
    grep '^not ok' "$O/e2e_$t.tap" | head -5
    [ $rc = 0 ] || failed=$((failed + 1))
done
echo "== $failed of the tests failed"
