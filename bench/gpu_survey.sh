#!/bin/bash
# gpu_survey.sh - `winnow tokenize --device gpu` against `--device cpu` on inputs
# shaped unlike issue 15's measured one (tokref en_code x72 + multi x144), to find
# where the GPU path loses its lead: multilingual text only, short documents,
# very long documents, and other encodings. Runs on the GPU machine from a bundle
# made by scripts/gpu_issue15_bundle.sh (this script is copied next to it).
# Every GPU output is compared with the CPU's (cmp of the two bin streams).
#   usage: bash DIR/gpu_survey.sh   (RUNS=2 GPU runs per row; COPIES=1 for a quick
#          try: the inputs are then 1/3 to 1/96 of their size)
set -u
D=$(cd "$(dirname "$0")" && pwd)
O=${OUT:-/tmp/out}; mkdir -p "$O"
RUNS=${RUNS:-2}; COPIES=${COPIES:-}
W=/tmp/survey; rm -rf $W; mkdir -p $W/bin && cd $W
exec > >(tee "$O/log-survey.txt") 2>&1
python3 -c "import tarfile, sys; tarfile.open(sys.argv[1]).extractall(sys.argv[2])" "$D/bin.tar.xz" $W/bin
B=$W/bin; export PATH=$B:$PATH
TIMEFORMAT='%R %U %S'
echo "== machine $(date -u)"; nproc; grep -m1 'model name' /proc/cpuinfo
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader

# timed TAG CMD...: one run to /dev/null, "TAG: wall user sys"
timed() { local tag=$1 t; shift; t=$( { time "$@" > /dev/null 2> $W/err; } 2>&1 | tail -1); echo "$tag: $t"; head -2 $W/err; }
# row INPUT ENCODING: GPU runs, one CPU run, and the outputs compared
row() {
    local in=$1 enc=$2 r v=$D/$2.tiktoken
    echo "-- $in ($(stat -c %s $in) bytes), $enc"
    for r in $(seq $RUNS); do
        timed "gpu" $B/winnow tokenize -q --encoding $enc --vocab $v --device gpu --format bin -o - $in
    done
    timed "cpu" $B/winnow tokenize -q --encoding $enc --vocab $v --device cpu --format bin -o - $in
    if cmp <($B/winnow tokenize -q --encoding $enc --vocab $v --device gpu --format bin -o - $in) \
           <($B/winnow tokenize -q --encoding $enc --vocab $v --device cpu --format bin -o - $in); then
        echo "SAME gpu cpu"
    else
        echo "DIFFERENT gpu cpu"
    fi
}

. $D/gpu_tokenize_inputs.sh
tokenize_inputs $D ${COPIES:-3}
cat parts/p*.jsonl > mix.jsonl
for k in $(seq ${COPIES:-96}); do cat multi.jsonl; done > multi96.jsonl
# short: every en_code document cut at line ends into pieces of about 256 bytes;
# long: the en_code documents joined into documents of 4 MiB
python3 - <<'EOF'
import json
docs = [json.loads(l)["text"] for l in open("en.jsonl", encoding="utf-8")]
with open("short1.jsonl", "w", encoding="utf-8") as f:
    for t in docs:
        piece = ""
        for line in t.splitlines(keepends=True):
            piece += line
            if len(piece) >= 256:
                f.write(json.dumps({"text": piece}) + "\n"); piece = ""
        if piece: f.write(json.dumps({"text": piece}) + "\n")
with open("long1.jsonl", "w", encoding="utf-8") as f:
    cur = []
    size = 0
    for t in docs:
        cur.append(t); size += len(t)
        if size >= 4 << 20:
            f.write(json.dumps({"text": "\n".join(cur)}) + "\n"); cur = []; size = 0
    if cur: f.write(json.dumps({"text": "\n".join(cur)}) + "\n")
EOF
for k in $(seq ${COPIES:-16}); do cat short1.jsonl; done > short.jsonl
for k in $(seq ${COPIES:-16}); do cat long1.jsonl; done > long.jsonl
rm -rf parts zst gz short1.jsonl long1.jsonl
ls -l *.jsonl | awk '{print $5, $9}'; wc -l short.jsonl long.jsonl; date -u
cat *.jsonl > /dev/null

row mix.jsonl cl100k_base
row mix.jsonl o200k_base
row mix.jsonl r50k_base
row multi96.jsonl cl100k_base
row multi96.jsonl o200k_base
row short.jsonl cl100k_base
row long.jsonl cl100k_base
echo "== done $(date -u)"
