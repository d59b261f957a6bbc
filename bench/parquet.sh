#!/bin/sh
# parquet - reading a FineWeb-shaped Parquet file (issue 17: >= 500 MB of text
# column per CPU-second): the text column decoded alone (snappy, PLAIN and
# dictionary pages), and every row as a JSON line (all 9 columns), what every
# stage reads. The file: tests/parquet/fixtures/fineweb.parquet's 400 real
# documents repeated, written by parquet-wasm (arrow-rs) with snappy and
# 20,000-row row groups (needs node and `npm ci` in tests/parquet).
# Best of 3 runs each (wall and CPU taken separately); MB are MB of text column.
. bench/lib.sh
set -eu
data="$BENCH_TMP/fineweb-big.parquet"
(cd tests/parquet && [ -d node_modules ] || npm ci --silent) >&2
node tests/parquet/make_bench_file.mjs "$data" ${PARQUET_COPIES:-150} 20000 >&2
text=$("$BUILD/bench/parquet_read" "$data" text)
row() { # row WHAT THREADS CMD...
    what=$1 threads=$2
    shift 2
    set -- $(best_of_3 "$@")
    echo "| $what | $threads | $(mbps $text $1) | $(mbps $text $2) |"
}
echo "# Parquet input"
echo
echo "$(machine_line). Input: $(($(stat -c %s "$data") / 1000000)) MB Parquet file (snappy, $((text / 1000000)) MB of text column)."
echo
echo "| what | threads | MB of text/s wall | MB of text per CPU-second |"
echo "|---|---|---|---|"
cat "$data" > /dev/null
row "decode the text column (pq_read_column)" 1 "$BUILD/bench/parquet_read" "$data" text
for j in 1 $(nproc); do
    row "every row as a JSON line (core/input: what stages read)" $j "$BUILD/bench/parquet_read" "$data" jsonl $j
done
rm -f "$data"
