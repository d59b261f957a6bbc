#!/bin/sh
# docstream - the document stream's hot path (issue: well over 1 GB/s per core):
# read a line, scan it, get text and id unescaped, write the kept line back.
# Compared with Debian's simdjson (ondemand) doing the same reads, and cat.
# Each row is the best of 3 runs (wall and CPU taken separately).
. bench/lib.sh
set -eu
data="$BENCH_TMP/docstream.jsonl"
{ for i in $(seq 1 40); do
    zcat "$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz"
    zcat "$SHARED"/jsonl/dolma/tests/data/formats/gz/*.jsonl.gz
    cat "$SHARED/jsonl/dclm/data/majority_data.jsonl"
  done; } > "$data"
bytes=$(stat -c %s "$data")
row() { # row WHAT THREADS CMD...
    what=$1 threads=$2
    shift 2
    set -- $(best_of_3 "$@")
    echo "| $what | $threads | $(mbps $bytes $1) | $(mbps $bytes $2) |"
}
echo "# Document stream throughput"
echo
echo "$(machine_line). Input: real C4 + Dolma CC + DCLM documents repeated to $((bytes / 1000000)) MB of JSONL."
echo "MB/s wall is end to end; MB per CPU-second divides by the CPU time the process used (all threads)."
echo "Best of 3 runs each; \"threads\" counts workers (the engine adds one reader thread)."
echo
echo "| what | threads | MB/s wall | MB per CPU-second |"
echo "|---|---|---|---|"
cat "$data" > /dev/null
row "cat (floor)" 1 cat "$data"
for j in 1 $(nproc); do
    row "winnow scan + unescape text/id + write kept line" $j "$BUILD/bench/docstream_bench" "$data" $j
done
row "the same, SSE4.2 baseline (no AVX2)" 1 "$BUILD/bench/docstream_bench" "$data" 1 baseline
row "simdjson 3.0 ondemand, get text/id (no write)" 1 "$BUILD/bench/simdjson_lines" "$data"
rm -f "$data"
