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
RUNS=${RUNS:-7}
rm -rf "$T"; mkdir -p "$T"
V=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
for c in en_code multi; do
    for e in cl100k_base o200k_base; do zstd -dcq "$SHARED/tokref/$c.$e.bin.zst" > "$T/$c.$e.bin"; done
done
# the tokref en_code and multi documents as JSONL
for c in en_code multi; do
    python3 scripts/tokenize_tokref.py jsonl "$SHARED/tokref/$c.txt.zst" "$SHARED/tokref/$c.idx.tsv" 0
done > "$T/in.jsonl"
jsonl_bytes=$(stat -c %s "$T/in.jsonl")
"$W" tokenize -q --device cpu --encoding cl100k_base --vocab "$V" --format bin -o "$T/ids.bin" "$T/in.jsonl"

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
ids_bytes=$(( $(stat -c %s "$T/ids.bin") ))
echo
echo "## Writing shards on top of tokenizing: cl100k_base, $(awk -v b=$jsonl_bytes 'BEGIN{printf "%.1f", b/1e6}') MB of JSONL (tokref en_code + multi)"
echo
echo "CPU = user + system of the whole process, the median of $RUNS rounds; in each round every"
echo "configuration runs once, one after another, so that the machine's load (other jobs) falls on all"
echo "alike. 'winnow shard' reads the --format bin id stream of the same JSONL ($(awk -v b=$ids_bytes 'BEGIN{printf "%.1f", b/1e6}') MB: 4 bytes per"
echo "id and per document) and writes shards; 'tokenize, shards' is 'winnow tokenize -o DIR/' less the same"
echo "binary's 'winnow tokenize --format bin -o FILE' in the same round. Per GB of JSONL text."
echo
# configurations: "label|binary|command and options" (the input is appended)
configs=""
add() { configs="$configs$1|$2|$3
"; }
for j in 1 2; do
    [ -n "${BASE_WINNOW:-}" ] && add "before, winnow shard (its default: level 3), -j$j" "$BASE_WINNOW" "shard -q -j$j -o $T/out --vocab-size 100277 --eos 100257 $T/ids.bin"
    add "this, winnow shard (default: level 1), -j$j" "$W" "shard -q -j$j -o $T/out --vocab-size 100277 --eos 100257 $T/ids.bin"
    add "this, winnow shard --level 3, -j$j" "$W" "shard -q -j$j --level 3 -o $T/out --vocab-size 100277 --eos 100257 $T/ids.bin"
    add "this, winnow shard --level -3, -j$j" "$W" "shard -q -j$j --level -3 -o $T/out --vocab-size 100277 --eos 100257 $T/ids.bin"
done
tok="tokenize -q --device cpu --encoding cl100k_base --vocab $V -j2"
if [ -n "${BASE_WINNOW:-}" ]; then
    add "before, tokenize --format bin, -j2" "$BASE_WINNOW" "$tok --format bin -o $T/ids2.bin $T/in.jsonl"
    add "before, tokenize -o DIR/ (its default: level 3), -j2" "$BASE_WINNOW" "$tok -o $T/out/ $T/in.jsonl"
fi
add "this, tokenize --format bin, -j2" "$W" "$tok --format bin -o $T/ids2.bin $T/in.jsonl"
add "this, tokenize -o DIR/ (default: level 1), -j2" "$W" "$tok -o $T/out/ $T/in.jsonl"
add "this, tokenize -o DIR/ --level -3, -j2" "$W" "$tok --level -3 -o $T/out/ $T/in.jsonl"
for round in $(seq $RUNS); do
    echo "$configs" | while IFS='|' read -r label bin cmd; do
        [ -n "$label" ] || continue
        rm -rf "$T/out"
        set -- $(cpu_seconds $bin $cmd)
        echo "$round|$label|$2|$(cat "$T"/out/shard_*.tok.zst 2>/dev/null | wc -c)"
    done
done > "$T/rounds"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "| configuration | CPU s (median) | CPU-s per GB of ids | CPU-s per GB of JSONL | shard bytes |"
echo "|---|---|---|---|---|"
echo "$configs" | while IFS='|' read -r label bin cmd; do
    [ -n "$label" ] || continue
    cpu=$(awk -F'|' -v l="$label" '$2 == l { print $3 }' "$T/rounds" | median)
    size=$(awk -F'|' -v l="$label" '$2 == l { print $4 }' "$T/rounds" | tail -1)
    [ "$size" = 0 ] && size=-
    echo "| $label | $cpu | $(per_gb $cpu $ids_bytes) | $(per_gb $cpu $jsonl_bytes) | $size |"
done
echo
echo "| what writing shards adds to tokenize, -j2 (per-round difference, median) | CPU s | CPU-s per GB of JSONL |"
echo "|---|---|---|"
for who in before this; do
    [ $who = before ] && [ -z "${BASE_WINNOW:-}" ] && continue
    awk -F'|' -v w="$who" '$2 == w ", tokenize --format bin, -j2" { bin[$1] = $3 }
        index($2, w ", tokenize -o DIR/") == 1 { d[$2] = d[$2] " " ($3 - bin[$1]) }
        END { for (k in d) print k "|" d[k] }' "$T/rounds" | while IFS='|' read -r label diffs; do
        m=$(for x in $diffs; do echo $x; done | median)
        echo "| ${label#*tokenize } | $m | $(per_gb $m $jsonl_bytes) |"
    done
done
rm -rf "$T"
