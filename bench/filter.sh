#!/bin/sh
# filter - `winnow filter` throughput on real documents (issue 4: all default
# rules + language ID >= 100 MB/s per core, scaling with -j), with each rule
# alone to show where the time goes.
. bench/lib.sh
set -eu
data="$BENCH_TMP/filter.jsonl"
REPEAT=${REPEAT:-8}
real_docs "$data" "$REPEAT"
bytes=$(stat -c %s "$data")
W="$WINNOW filter -q"
OFF="--no-gopher-quality --no-gopher-repetition --no-c4 --no-fineweb --no-langid"
echo "# winnow filter throughput"
echo
echo "$(machine_line). Input: real DCLM + Dolma CC + C4 documents repeated to $((bytes / 1000000)) MB of JSONL."
echo "MB/s wall is end to end; MB per CPU-second divides by the CPU time the process used (all threads)."
echo
echo "| rules | threads | MB/s wall | MB per CPU-second |"
echo "|---|---|---|---|"
cat "$data" > /dev/null
row() { # name threads flags...
    name=$1; j=$2; shift 2
    set -- $(cpu_seconds $W -j "$j" "$@" "$data")
    echo "| $name | $j | $(mbps $bytes $1) | $(mbps $bytes $2) |"
}
for j in $(printf '1\n2\n4\n%s\n' "$(nproc)" | sort -nu); do
    [ "$j" -le "$(nproc)" ] && row "default (FineWeb rules + language ID)" "$j"
done
row "default without language ID" 1 --no-langid
row "no rules (stream only)" 1 $OFF
row "language ID only" 1 $OFF --langid
row "Gopher repetition only" 1 $OFF --gopher-repetition
row "Gopher quality only" 1 $OFF --gopher-quality
row "C4 only" 1 $OFF --c4
row "FineWeb only" 1 $OFF --fineweb
row "PII only" 1 $OFF --pii
rm -f "$data"
