#!/bin/bash
# run_jsonl.sh - `winnow run` on a JSONL dataset (filter -> dedup -> tokenize
# cl100k_base -> shards, no ingest work but the JSON check) beside the
# README's shell pipe and `winnow filter` alone, in wall / user / sys seconds
# and CPU-seconds per GB of input (issue 15's last "Done when" point). With
# WINNOW_BASE the three commands run for it too, alternating with WINNOW, and
# the two builds' shards, per-file documents and reports (times left out) are
# compared. Files in the page cache.
#
# Inputs, made in $TMPDIR: FILES files of tokref en_code with per-copy word
# prefixes (bench/dedup_unique_inputs.py long: ~104 MB each, unique
# documents; the filter keeps ~1%), and where $SHARED/jsonl exists, 3 files
# of real DCLM + Dolma CC + C4 documents (bench/lib.sh real_docs, 6.9 MB a
# copy; the filter keeps about half; copies are exact duplicates for dedup).
#
#   usage: [WINNOW=build/winnow] [WINNOW_BASE=...] [FILES=3] [TASKS=2] [JOBS=2]
#          [RUNS=3] [REAL_COPIES=8] [SHARED=../shared/data] [VOCAB=...] bash bench/run_jsonl.sh
# On the 16-core GPU machine: FILES=20 TASKS=16 JOBS=16 (issue 15's input, 2.075 GB).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
WINNOW=$(realpath "${WINNOW:-$HERE/../build/winnow}")
BASE=${WINNOW_BASE:+$(realpath "$WINNOW_BASE")}
FILES=${FILES:-3}; TASKS=${TASKS:-2}; JOBS=${JOBS:-2}; RUNS=${RUNS:-3}; REAL_COPIES=${REAL_COPIES:-8}
SHARED=$(realpath "${SHARED:-$HERE/../../shared/data}")
VOCAB=$(realpath "${VOCAB:-$SHARED/vocab/tiktoken/cl100k_base.tiktoken}")
T=$(mktemp -d "${TMPDIR:-/tmp}/run_jsonl.XXXXXX")
trap 'rm -rf "$T"' EXIT
TIMEFORMAT='%R %U %S'

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
echo "new: $WINNOW${BASE:+; base: $BASE}; $FILES long files, tasks $TASKS, jobs $JOBS, $RUNS runs"

SHARED=$SHARED python3 "$HERE/dedup_unique_inputs.py" long "$T/long" "$FILES" > /dev/null || exit 1
DATASETS="long"
if [ -d "$SHARED/jsonl" ]; then
    mkdir -p "$T/real"
    for part in 0 1 2; do
        for i in $(seq 1 "$REAL_COPIES"); do
            cat "$SHARED/jsonl/dclm/data/majority_data.jsonl"
            zcat "$SHARED"/jsonl/dolma/tests/data/formats/gz/*.jsonl.gz
            zcat "$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz"
        done > "$T/real/part-$part.jsonl"
    done
    DATASETS="long real"
fi

# pipeline NAME DATASET: the pipeline file of a run of one build
pipeline() {
    printf 'input = %s/%s/*.jsonl\nwork = %s/%s/work\noutput = %s/%s/shards\ntasks = %s\n' \
        "$T" "$2" "$T" "$1" "$T" "$1" "$TASKS"
    printf '[filter]\n[dedup]\n[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n' "$VOCAB"
    printf '[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n'
}
# timed TAG BYTES CMD...: one run: "TAG: wall user sys s, CPU-s per GB, GB/s"
timed() {
    local tag=$1 bytes=$2 t; shift 2
    t=$( { time "$@" > /dev/null 2> "$T/err"; } 2>&1 | tail -1)
    echo "$t" | awk -v b="$bytes" -v tag="$tag" '{ printf "%s: %s %s %s s, %.2f CPU-s per GB, %.2f GB/s\n", tag, $1, $2, $3, ($2 + $3) / (b / 1e9), b / 1e9 / $1 }'
    grep -v '^$' "$T/err" | head -3
}
# one BUILD-TAG WINNOW DATASET BYTES: run, pipe and filter once
one() {
    local tag=$1 w=$2 ds=$3 bytes=$4
    rm -rf "${T:?}/$tag-$ds"; mkdir -p "$T/$tag-$ds"
    pipeline "$tag-$ds" "$ds" > "$T/$tag-$ds/p.ini"
    timed "$ds $tag run -j$JOBS" "$bytes" "$w" run -q -j"$JOBS" "$T/$tag-$ds/p.ini"
    rm -rf "$T/$tag-$ds/pipe"
    timed "$ds $tag pipe" "$bytes" sh -c "'$w' filter -q $T/$ds/*.jsonl | '$w' dedup -q | '$w' tokenize -q --encoding cl100k_base --vocab '$VOCAB' --no-eos -o '$T/$tag-$ds/pipe/'"
    timed "$ds $tag filter" "$bytes" "$w" filter -q "$T/$ds"/*.jsonl -o /dev/null
}

for ds in $DATASETS; do
    bytes=$(cat "$T/$ds"/*.jsonl | wc -c)
    echo "== $ds: $bytes bytes in $(ls "$T/$ds" | wc -l) files"
    for r in $(seq "$RUNS"); do
        one new "$WINNOW" $ds "$bytes"
        [ -n "$BASE" ] && one base "$BASE" $ds "$bytes"
    done
    "$WINNOW" shards verify "$T/new-$ds/shards" | tail -1
    sed -E 's/ +[0-9.]+ s$//' "$T/new-$ds/work/report.txt" | sed -n '2,5p'
    if [ -n "$BASE" ]; then
        diff -r "$T/new-$ds/shards" "$T/base-$ds/shards" > /dev/null && echo "$ds shards: SAME" || echo "$ds shards: DIFFERENT"
        same=SAME # compared decompressed: builds may keep them at different zstd levels
        for f in "$T/new-$ds/work/docs"/*; do
            cmp -s <(zstd -dcqf "$f") <(zstd -dcqf "$T/base-$ds/work/docs/$(basename "$f")") || same=DIFFERENT
        done
        echo "$ds per-file documents: $same"
        diff <(sed -E 's/ +[0-9.]+ s$//; 1d' "$T/new-$ds/work/report.txt") \
             <(sed -E 's/ +[0-9.]+ s$//; 1d' "$T/base-$ds/work/report.txt") > /dev/null \
            && echo "$ds report counts: SAME" || echo "$ds report counts: DIFFERENT"
    fi
done
