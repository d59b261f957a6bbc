#!/bin/sh
# shards - writing and reading token shards: throughput (tokens/s, MB/s of raw
# ids per CPU-second), compression against the raw id array and plain zstd,
# sequential read and random-document latency through the C reader.
. bench/lib.sh
set -eu
W=${WINNOW:-bin/winnow}
T=$BENCH_TMP/shards
rm -rf "$T"; mkdir -p "$T"
zstd -dcq "$SHARED/tokref/en_code.cl100k_base.bin.zst" > "$T/cl.bin"   # real ids, uint32 vocabulary
zstd -dcq "$SHARED/tokref/multi.gpt2.bin.zst" > "$T/gpt2.bin"          # real ids, uint16 vocabulary
ncpu=$(nproc)

field() { grep -o "\"$2\": [0-9]*" "$1/manifest.json" | head -1 | grep -o '[0-9]*$'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.1f", n / 1e6 / s; else print "-" }'; }

echo "# Token shards"
echo
echo "$(machine_line)."
echo "Inputs: tiktoken reference ids of the tokref corpora (en_code with cl100k_base, stored uint32;"
echo "multi with gpt2, stored uint16), the --format bin stream. Raw MB = tokens x dtype bytes."
echo "CPU-second rates divide by the user + system time of the process (all threads)."
echo
echo "## Writing (winnow shard)"
echo
echo "| input | level | threads | tokens | M tokens/s wall | raw MB/s wall | raw MB per CPU-second | ratio vs raw ids | bits/token |"
echo "|---|---|---|---|---|---|---|---|---|"
for input in cl gpt2; do
    if [ $input = cl ]; then vocab=100277; eos=100257; width=4; else vocab=50257; eos=50256; width=2; fi
    cat "$T/$input.bin" > /dev/null
    for level in 1 3 9; do
        for j in 1 $ncpu; do
            [ $level != 1 ] && [ $j != 1 ] && continue # all threads at the default level only
            set -- $(cpu_seconds "$W" shard -q -j$j --level $level -o "$T/$input-$level" --vocab-size $vocab --eos $eos "$T/$input.bin")
            tokens=$(field "$T/$input-$level" tokens); bytes=$(field "$T/$input-$level" compressed_bytes)
            raw=$((tokens * width))
            echo "| $input | $level | $j | $tokens | $(rate $tokens $1) | $(rate $raw $1) | $(rate $raw $2) | $(ratio $raw $bytes) | $(awk -v b=$bytes -v t=$tokens 'BEGIN{printf "%.2f", 8*b/t}') |"
        done
    done
done
echo
echo "## Compression against plain zstd of the same raw id array (one stream, no seek table)"
echo
echo "| input | raw MB | winnow shards -3 (1 MiB frames) | zstd -3 whole array | zstd -19 whole array |"
echo "|---|---|---|---|---|"
for input in cl gpt2; do
    if [ $input = cl ]; then width=4; else width=2; fi
    for f in "$T/$input-3"/shard_*.tok.zst; do zstd -dcq "$f"; done > "$T/$input.raw"
    raw=$(stat -c %s "$T/$input.raw")
    mine=$(field "$T/$input-3" compressed_bytes)
    z3=$(zstd -3 -T1 -c -q "$T/$input.raw" | wc -c)
    z19=$(zstd -19 -T0 -c -q "$T/$input.raw" | wc -c)
    echo "| $input | $(rate $raw 1) | $(ratio $raw $mine) x | $(ratio $raw $z3) x | $(ratio $raw $z19) x |"
done
echo
echo "## Reading"
echo
echo "| input | what | wall s | M tokens/s | raw MB/s | raw MB per CPU-second |"
echo "|---|---|---|---|---|---|"
for input in cl gpt2; do
    if [ $input = cl ]; then width=4; else width=2; fi
    d="$T/$input-3"; tokens=$(field "$d" tokens); raw=$((tokens * width))
    set -- $(cpu_seconds sh -c "for f in $d/shard_*.tok.zst; do zstd -dcq \$f; done")
    echo "| $input | zstd -d of every shard (floor) | $1 | $(rate $tokens $1) | $(rate $raw $1) | $(rate $raw $2) |"
    set -- $(cpu_seconds "$W" shards verify "$d")
    echo "| $input | winnow shards verify (every checksum) | $1 | $(rate $tokens $1) | $(rate $raw $1) | $(rate $raw $2) |"
    set -- $(cpu_seconds "$W" shards cat "$d" --format bin)
    echo "| $input | winnow shards cat --format bin (C reader, documents in order) | $1 | $(rate $tokens $1) | $(rate $raw $1) | $(rate $raw $2) |"
done
echo
echo "## Random documents (C reader, winnow shards bench: a cold reader per document, so each read decompresses its frame)"
echo
for input in cl gpt2; do
    echo "- $input: $("$W" shards bench "$T/$input-3" --random 2000 --seed 7 | tail -1)"
done
rm -rf "$T"
