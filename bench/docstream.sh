#!/bin/sh
# docstream - the document stream's hot path (issue: well over 1 GB/s per core):
# read a line, scan it, get text and id unescaped, write the kept line back.
# Compared with Debian's simdjson (ondemand) doing the same reads, and cat.
. bench/lib.sh
set -eu
data="$BENCH_TMP/docstream.jsonl"
{ for i in $(seq 1 40); do
    zcat "$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz"
    zcat "$SHARED"/jsonl/dolma/tests/data/formats/gz/*.jsonl.gz
    cat "$SHARED/jsonl/dclm/data/majority_data.jsonl"
  done; } > "$data"
bytes=$(stat -c %s "$data")
echo "# Document stream throughput"
echo
echo "$(machine_line). Input: real C4 + Dolma CC + DCLM documents repeated to $((bytes / 1000000)) MB of JSONL."
echo "MB/s wall is end to end; MB per CPU-second divides by the CPU time the process used (all threads)."
echo
echo "| what | threads | MB/s wall | MB per CPU-second |"
echo "|---|---|---|---|"
cat "$data" > /dev/null
set -- $(cpu_seconds cat "$data"); echo "| cat (floor) | 1 | $(mbps $bytes $1) | $(mbps $bytes $2) |"
for j in 1 $(nproc); do
    set -- $(cpu_seconds "$BUILD/bench/docstream_bench" "$data" $j)
    echo "| winnow scan + unescape text/id + write kept line | $j | $(mbps $bytes $1) | $(mbps $bytes $2) |"
done
set -- $(cpu_seconds "$BUILD/bench/simdjson_lines" "$data")
echo "| simdjson 3.0 ondemand, get text/id (no write) | 1 | $(mbps $bytes $1) | $(mbps $bytes $2) |"
rm -f "$data"
