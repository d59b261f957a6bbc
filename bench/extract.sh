#!/bin/sh
# extract - HTML to text on 1 core and all cores: main-content extraction
# (the default) next to --extract=full, on the article benchmark pages
# (real news/blog HTML), through `winnow ingest` on a directory of .html files.
. bench/lib.sh
set -eu
ART="$SHARED/extraction/articles/html"
dir="$BENCH_TMP/extract-pages"
copies=4
mkdir -p "$dir"
for c in $(seq 1 $copies); do
    for f in "$ART"/*.html.gz; do
        zcat "$f" > "$dir/$c-$(basename "$f" .gz)"
    done
done
pages=$(ls "$dir" | wc -l)
bytes=$(cat "$dir"/* | wc -c)
echo "# HTML extraction throughput"
echo
echo "$(machine_line). Input: the $((pages / copies)) article benchmark pages (uncompressed HTML) $copies times over,"
echo "$pages pages, $((bytes / 1000000)) MB, read by \`winnow ingest\` from a directory; output discarded."
echo "MB/s wall is end to end; MB per CPU-second divides by the CPU time the process used (all threads)."
echo
echo "| mode | threads | MB/s wall | MB per CPU-second | pages/s wall | pages per CPU-second |"
echo "|---|---|---|---|---|---|"
cat "$dir"/* > /dev/null
if ! "$WINNOW" ingest --help > /dev/null 2>&1; then
    echo "| (winnow ingest not built in this tree) | | | | | |"
else
    for mode in main full; do
        for j in 1 $(nproc); do
            set -- $(cpu_seconds "$WINNOW" ingest -q -j "$j" --extract=$mode "$dir")
            pps_wall=$(awk -v n="$pages" -v s="$1" 'BEGIN { printf "%.0f", n / s }')
            pps_cpu=$(awk -v n="$pages" -v s="$2" 'BEGIN { printf "%.0f", n / s }')
            echo "| --extract=$mode | $j | $(mbps $bytes $1) | $(mbps $bytes $2) | $pps_wall | $pps_cpu |"
        done
    done
fi
# the extraction alone (charset + parse + select + compose), timed around html_extract in one thread
for mode in main full; do
    rate=$("$WINNOW" score-extraction --only-winnow --extract=$mode "$SHARED/extraction/articles" 2>&1 >/dev/null |
           sed -n 's/.*(\([0-9.]*\) MB per CPU-second, 1 thread).*/\1/p')
    echo "| html_extract() alone (in process), $mode | 1 | | $rate | | |"
done
rm -rf "$dir"
