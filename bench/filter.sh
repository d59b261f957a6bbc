#!/bin/sh
# filter - `winnow filter` throughput on real documents (issue 4: all default
# rules + language ID >= 100 MB/s per core, scaling with -j), with each rule
# alone to show where the time goes; the default rules on code and prose (the
# input of issue 15's JSONL pipeline); and with WINNOW_BEFORE=<another
# winnow binary>, MB per CPU-second of that build and this one on the same
# inputs, runs alternating, best of 5 (for a shared, noisy machine).
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
# Code and prose: tokref en_code with each word given a prefix, as
# bench/dedup_unique_inputs.py makes the pipeline's input (one copy, 104 MB);
# most documents are dropped by the Gopher rules.
code="$BENCH_TMP/filter-code"
SHARED=$SHARED python3 bench/dedup_unique_inputs.py long "$code" 1 > /dev/null
mv "$code/part-000.jsonl" "$code.jsonl"
rm -rf "$code"
code_bytes=$(stat -c %s "$code.jsonl")
set -- $(cpu_seconds $W -j 1 "$code.jsonl")
echo "| default, code and prose ($((code_bytes / 1000000)) MB, en_code) | 1 | $(mbps $code_bytes $1) | $(mbps $code_bytes $2) |"

# The word splitter's share: the texts held in memory, no JSON, best of 3
echo
echo "CPU seconds per GB of text, one thread, texts in memory (bench/filter_parts.c, best of 3):"
echo
echo "| input | word splitter alone | filter_document (default rules, no language ID) |"
echo "|---|---|---|"
for input in "real documents:$data" "code and prose:$code.jsonl"; do
    "$BUILD/bench/filter_parts" 3 "${input#*:}" |
        awk -v name="${input%%:*}" '/^words_tokenize/ { w = $2 } /^filter_document/ { f = $4 } END { printf "| %s | %s | %s |\n", name, w, f }'
done

if [ -n "${WINNOW_BEFORE:-}" ]; then
    echo
    echo "Before -> after, MB per CPU-second, one thread, best of 5 with the runs of the two builds alternating:"
    echo "before = $WINNOW_BEFORE, after = $WINNOW."
    echo
    echo "| input | rules | before | after | CPU time after / before |"
    echo "|---|---|---|---|---|"
    compare() { # label file bytes flags...
        label=$1 file=$2 size=$3; shift 3
        before=999999 after=999999
        for run in 1 2 3 4 5; do
            b=$(cpu_seconds $WINNOW_BEFORE filter -q -j 1 "$@" "$file" | cut -d' ' -f2)
            a=$(cpu_seconds $W -j 1 "$@" "$file" | cut -d' ' -f2)
            before=$(awk -v x="$before" -v y="$b" 'BEGIN { print (y < x) ? y : x }')
            after=$(awk -v x="$after" -v y="$a" 'BEGIN { print (y < x) ? y : x }')
        done
        echo "| $label | ${*:-default} | $(mbps $size $before) | $(mbps $size $after) | $(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.2f", a / b }') |"
    }
    compare "real documents ($((bytes / 1000000)) MB)" "$data" "$bytes"
    compare "real documents ($((bytes / 1000000)) MB)" "$data" "$bytes" --no-langid
    compare "code and prose ($((code_bytes / 1000000)) MB)" "$code.jsonl" "$code_bytes"
fi
rm -f "$data" "$code.jsonl"
