#!/bin/bash
# run.sh - i15w device call (bundle: scripts/gpu_tokenize_bin_bundle.sh): winnow tokenize --device gpu,
# 8.5 GB of JSONL (tokref en_code x72 + multi x144, as bench/gpu_issue15.sh builds it) to --format bin
# on stdout, and one document; builds alternating (winnow-base = main 8e9c188; winnow = this branch:
# bin written from the pinned id ring the device copied the ids into), RUNS runs each after one
# warm-up; the new build's bin compared with --device cpu's, also read late through a pipe (the
# encoder then waits for ring room), and the GPU tests. Prints one line per run and a summary; the
# log goes to $OUT.
#   usage: bash DIR/run.sh    (RUNS=3 TESTS=1 VARIANTS="tag:binary:ENV=1,ENV=2 ...")
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
W=${WORK:-/tmp/i15w-run}; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; S=$D/shared; V=$S/vocab/tiktoken/cl100k_base.tiktoken; export PATH=$B:$PATH
TIMEFORMAT="%R %U %S"; RUNS=${RUNS:-3}
VARIANTS=${VARIANTS:-"base:winnow-base: new:winnow:"}
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 $D/tokenize_tokref.py jsonl $S/tokref/en_code.txt.zst $S/tokref/en_code.idx.tsv 0 > en.jsonl
python3 $D/tokenize_tokref.py jsonl $S/tokref/multi.txt.zst $S/tokref/multi.idx.tsv 0 > multi.jsonl
for i in $(seq 0 15); do for k in $(seq 9); do if [ $i -lt 8 ]; then cat en.jsonl; else cat multi.jsonl multi.jsonl; fi; done; done > in8g.jsonl
head -1 en.jsonl > one.jsonl
GB=$(stat -c %s in8g.jsonl); echo "input: $GB bytes; one document: $(stat -c %s one.jsonl) bytes"; cat in8g.jsonl > /dev/null
export WINNOW_TOKENIZE_TIMES=1

# run1 TAG FILE BINARY ENVS: one run of --device gpu --format bin to stdout (/dev/null):
# wall user sys, then the seconds before and after the run's own span (its `tokenize clock`)
run1() {
    local tag=$1 f=$2 b=$3 envs=${4//,/ } t0 t1 t
    t0=$(date +%s.%N)
    t=$( { time env $envs $B/$b tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - $f > /dev/null 2> err; } 2>&1 | tail -1)
    t1=$(date +%s.%N)
    read -r s e < <(grep -o "run [0-9.]* to [0-9.]*" err | awk '{print $2, $4}')
    echo "RUN $tag $(basename $f .jsonl): wall/user/sys $t | before $(awk -v a=$t0 -v b=$s 'BEGIN{printf "%.3f", b-a}') after $(awk -v a=$e -v b=$t1 'BEGIN{printf "%.3f", b-a}')"
    grep -h "tokenize times\|gpu library\|id ring\|tokenize cpu" err
    grep -v "tokenize \|gpu library\|id ring" err | head -3
    return 0
}
run1 warmup in8g.jsonl winnow ""
for f in in8g.jsonl one.jsonl; do
    for r in $(seq $RUNS); do
        for v in $VARIANTS; do IFS=: read -r tag b envs <<< "$v"; run1 $tag $f $b "$envs"; done
    done
done
echo "== exactness: each variant of the new build against --device cpu (8.5 GB bin)"
unset WINNOW_TOKENIZE_TIMES
$B/winnow tokenize -q --encoding cl100k_base --vocab $V --device cpu --format bin -o cpu.bin in8g.jsonl
for v in $VARIANTS; do
    IFS=: read -r tag b envs <<< "$v"; [ $b = winnow ] || continue
    env ${envs//,/ } $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl | cmp - cpu.bin
    if [ "${PIPESTATUS[0]}${PIPESTATUS[1]}" = 00 ]; then echo "SAME $tag cpu ($(stat -c %s cpu.bin) bytes)"; else echo "DIFFERENT $tag cpu"; fi
done
WINNOW_TOKENIZE_TIMES=1 $B/winnow tokenize -q --encoding cl100k_base --vocab $V --device gpu --format bin -o - in8g.jsonl 2> err |
    { sleep 2; cat; } | cmp - cpu.bin
if [ "${PIPESTATUS[0]}${PIPESTATUS[2]}" = 00 ]; then echo "SAME new, read late, cpu"; else echo "DIFFERENT new, read late, cpu"; fi
grep "id ring" err
rm -f cpu.bin
if [ "${TESTS:-1}" = 1 ]; then
    echo "== GPU tests (env: ${TEST_ENV:-none})"
    export SHARED=$S
    for t in gpu_bpe_exact gpu_bpe_hf gpu_bpe_emulate gpu_bpe_overlap gpu_bpe_multi; do
        [ -x $B/$t ] || continue
        env ${TEST_ENV//,/ } $B/$t > $t.tap 2>&1; rc=$?
        echo "$t: exit $rc, $(grep -c '^ok' $t.tap) ok, $(grep -c '^not ok' $t.tap) not ok"; grep '^not ok' $t.tap | head -5
    done
    mkdir -p e2e/tests && cp $D/lib.sh e2e/tests/lib.sh && cp $D/e2e_*.sh e2e/
    for t in e2e/e2e_*.sh; do
        (cd e2e && env ${TEST_ENV//,/ } WINNOW=$B/winnow BUILD=$B SHARED=$S sh $(basename $t)) > $t.tap 2>&1; rc=$?
        echo "$(basename $t): exit $rc, $(grep -c '^ok' $t.tap) ok, $(grep -c '^not ok' $t.tap) not ok"; grep '^not ok\|skip' $t.tap | head -5
    done
fi
echo "== summary (seconds; runs after the warm-up)"
python3 - "$O/log.txt" <<'PY'
import re, sys, collections
rows = collections.defaultdict(list); cur = None
for line in open(sys.argv[1]):
    m = re.match(r"RUN (\S+) (\S+): wall/user/sys (\S+) (\S+) (\S+) \| before (\S+) after (\S+)", line)
    if m:
        cur = {"wall": float(m[3]), "before": float(m[6]), "after": float(m[7])}
        rows[(m[2], m[1])].append(cur); continue
    if cur is None: continue
    for key, pat in (("total", r"total ([0-9.]+)"), ("start", r"gpu start ([0-9.]+)"), ("check", r"check ([0-9.]+)"),
                     ("faulted", r"faulted in ([0-9.]+)"), ("registered", r"registered in ([0-9.]+)"), ("encgpu", r"encode-gpu ([0-9.]+)"),
                     ("unpack", r"unpack ([0-9.]+)"), ("wait", r"library \(s\): pack [0-9.]+ wait ([0-9.]+)"),
                     ("closed", r"closed in ([0-9.]+)"),
                     ("cpuMB", r"encode-cpu [0-9.]+ \(\d+ blocks, (\d+) MB"), ("scan", r"scan ([0-9.]+) wait"),
                     ("ringwait", r"waited ([0-9.]+) s"), ("copied", r"written from it, (\d+) copied")):
        m = re.search(pat, line)
        if m: cur[key] = float(m[1])
keys = ["wall", "total", "before", "after", "start", "check", "cpuMB", "encgpu", "faulted", "registered", "unpack", "wait", "scan", "closed", "ringwait", "copied"]
print("input variant: " + " | ".join(keys))
for (f, tag), rs in rows.items():
    if tag == "warmup": continue
    cells = []
    for k in keys:
        v = [r[k] for r in rs if k in r]
        cells.append("-" if not v else ("%.3f" % v[0] if len(v) == 1 else "%.3f-%.3f" % (min(v), max(v))))
    print(f"{f} {tag}: " + " | ".join(cells))
PY
echo "== done $(date -u)"
