#!/bin/sh
# ingest - `winnow ingest` throughput on a large WARC built by repeating real
# crawl records (scripts/ingest_make_big_warc.py), on 1 core and all cores,
# with `zcat` of the same file as the floor (decompression alone).
# INGEST_BENCH_MB sets the uncompressed size (default 256).
. bench/lib.sh
set -eu
data="$BENCH_TMP/ingest-big.warc.gz"
python3 scripts/ingest_make_big_warc.py "$SHARED" "$data" "${INGEST_BENCH_MB:-256}" >&2
bytes=$(zcat "$data" | wc -c)
"$WINNOW" ingest -q -j"$(nproc)" --stats "$BENCH_TMP/ingest-stats.json" "$data" > /dev/null
docs=$(grep -o '"out": [0-9]*' "$BENCH_TMP/ingest-stats.json" | sed 's/.*: //')
records=$(grep -o '"in": [0-9]*' "$BENCH_TMP/ingest-stats.json" | sed 's/.*: //')
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "-" }'; }
echo "# Ingest throughput"
echo
echo "$(machine_line). Input: $((bytes / 1000000)) MB of WARC (uncompressed; $(($(stat -c %s "$data") / 1000000)) MB as per-record gzip),"
echo "$records records of real crawls (Common Crawl, Dolma wget, pywb iana.org, BL gov.uk) repeated; $docs HTML documents out."
echo "MB/s counts uncompressed WARC bytes; MB per CPU-second divides by the CPU time of all threads."
echo
echo "| what | threads | seconds | MB/s wall | docs/s | MB per CPU-second |"
echo "|---|---|---|---|---|---|"
set -- $(cpu_seconds zcat "$data")
echo "| zcat (floor: decompression only) | 1 | $1 | $(mbps $bytes $1) | - | $(mbps $bytes $2) |"
for mode in main full; do
    for j in 1 $(nproc); do
        set -- $(cpu_seconds "$WINNOW" ingest -q -j$j --extract=$mode "$data")
        echo "| winnow ingest --extract=$mode | $j | $1 | $(mbps $bytes $1) | $(rate $docs $1) | $(mbps $bytes $2) |"
    done
done
rm -f "$data"
