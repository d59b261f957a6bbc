#!/bin/sh
# shards-fast - what writing token shards costs per token: the zstd level
# (and a byte-plane transform the format does not use) on real ids, the
# writer's other per-token passes, and `winnow tokenize -o DIR` against
# `--format bin` per GB of JSONL. BASE_WINNOW=path adds an older binary's
# rows (run with its default level) for a before/after.
. bench/lib.sh
set -eu
W=${WINNOW:-bin/winnow}
F=${BUILD:-build}/bench/shard_frames
T=$BENCH_TMP/shards-fast
RUNS=5
rm -rf "$T"; mkdir -p "$T"
V=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
for c in en_code multi; do
    for e in cl100k_base o200k_base; do zstd -dcq "$SHARED/tokref/$c.$e.bin.zst" > "$T/$c.$e.bin"; done
done
# the tokref en_code and multi documents as JSONL ({"text": ...} per line)
python3 - "$SHARED/tokref" "$T/in.jsonl" <<'EOF'
import json, subprocess, sys
src, out = sys.argv[1], open(sys.argv[2], "w")
for corpus in ["en_code", "multi"]:
    text = subprocess.run(["zstd", "-dcq", f"{src}/{corpus}.txt.zst"], capture_output=True, check=True).stdout
    for line in open(f"{src}/{corpus}.idx.tsv"):
        offset, length = map(int, line.split("\t")[:2])
        out.write(json.dumps({"text": text[offset:offset + length].decode()}, ensure_ascii=False) + "\n")
EOF
jsonl_bytes=$(stat -c %s "$T/in.jsonl")

# best of RUNS: "WALL CPU", each the smallest
best() {
    for run in $(seq $RUNS); do rm -rf "$T/out"; cpu_seconds "$@"; done |
        awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } END { print w, c }'
}
per_gb() { awk -v s="$1" -v b="$2" 'BEGIN { printf "%.2f", s * 1e9 / b }'; }

echo "# Shard writing: CPU per token"
echo
echo "$(machine_line)."
echo
echo "## zstd level and transform, one thread, 1 MiB frames (bench/shard_frames)"
echo
echo "Real ids: the tiktoken references of tokref en_code (80.8 MB of text) and multi (16.8 MB),"
echo "stored uint32 as the shard writer stores them. 'byte planes' = byte 0 of every id, then byte 1,"
echo "... (a reversible transform the format does not use). Decompression on one thread."
for c in en_code multi; do
    for e in cl100k_base o200k_base; do
        vocab=100277; [ $e = o200k_base ] && vocab=200019
        echo
        echo "### $c, $e"
        echo
        "$F" $vocab "$T/$c.$e.bin"
    done
done
echo
echo "## winnow tokenize -o DIR (cl100k_base, --device cpu), $(awk -v b=$jsonl_bytes 'BEGIN{printf "%.1f", b/1e6}') MB of JSONL (tokref en_code + multi)"
echo
echo "Best of $RUNS runs each; CPU = user + system of the whole process. 'shards' = the run's CPU less"
echo "the same binary's --format bin run (what writing shards adds over writing the id stream)."
echo
echo "| binary | -j | output | wall s | CPU s | CPU-s per GB of JSONL | shards' CPU-s per GB of JSONL | shard bytes |"
echo "|---|---|---|---|---|---|---|---|"
row() { # binary label, jobs, label, args...
    b=$1 label=$2 j=$3 what=$4; shift 4
    set -- $(best "$b" tokenize -q --device cpu --encoding cl100k_base --vocab "$V" -j"$j" "$@" "$T/in.jsonl")
    wall=$1 cpu=$2
    if [ "$what" = bin ]; then bin_cpu=$cpu; extra=-; size=-; else
        extra=$(per_gb $(awk -v a=$cpu -v b=$bin_cpu 'BEGIN{print a - b}') $jsonl_bytes)
        size=$(cat "$T"/out/shard_*.tok.zst | wc -c); fi # the last run's
    echo "| $label | $j | $what | $wall | $cpu | $(per_gb $cpu $jsonl_bytes) | $extra | $size |"
}
for j in 1 2; do
    if [ -n "${BASE_WINNOW:-}" ]; then
        row "$BASE_WINNOW" before "$j" bin --format bin -o "$T/ids.bin"
        row "$BASE_WINNOW" before "$j" "shards (its default, level 3)" -o "$T/out/"
    fi
    row "$W" this "$j" bin --format bin -o "$T/ids.bin"
    row "$W" this "$j" "shards (default, level 1)" -o "$T/out/"
    for level in 3 -3; do row "$W" this "$j" "shards --level $level" --level $level -o "$T/out/"; done
done
rm -rf "$T"
