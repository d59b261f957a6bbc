#!/bin/sh
# pipeline - end-to-end throughput of `winnow run`: real WARCs in, token
# shards out (ingest -> filter -> staged dedup -> tokenize -> shard), in MB/s
# of uncompressed WARC, per core (one task, one thread per stage) and on all
# cores (one task per core); the same files through the README's shell pipe
# (ingest | filter | dedup | tokenize -o shards/) and through `winnow ingest`
# alone, all cores, beside `winnow run` (issue 20); then the docs step alone
# (ingest and filter of every file) in MB of uncompressed WARC per CPU-second.
# Goal (issue 9): 1.2 GB/s per 16-core + H100 machine.
. bench/lib.sh
set -eu
COPIES=${PIPELINE_COPIES:-4}
FILES=${PIPELINE_FILES:-$((2 * $(nproc)))}
in="$BENCH_TMP/pipeline-in"
mkdir -p "$in"
w=$SHARED/warc
# Each input file: COPIES copies of four real WARCs, gzip members back to back
# (a valid .warc.gz), so files are big enough that per-file start-up is small.
i=0
while [ $i -lt "$FILES" ]; do
    c=0
    while [ $c -lt "$COPIES" ]; do
        cat "$w/resiliparse/tests/data/warcfile.warc.gz" "$w/pywb/sample_archive/warcs/iana.warc.gz" \
            "$w/resiliparse/tests/data/clueweb-quirk.warc.gz" "$w/whirlwind-python/whirlwind.warc.gz"
        c=$((c + 1))
    done > "$in/crawl-$i.warc.gz"
    i=$((i + 1))
done
warc_bytes=$(cat "$in"/* | zcat | wc -c)
nfiles=$(ls "$in" | wc -l)
vocab=$SHARED/vocab/tiktoken/cl100k_base.tiktoken

# pipeline_ini FILE NAME TASKS DEDUP(yes|no)
pipeline_ini() {
    {
        printf 'input = %s/*\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = %s\n[ingest]\n[filter]\n' \
            "$in" "$BENCH_TMP" "$2" "$BENCH_TMP" "$2" "$3"
        if [ "$4" = yes ]; then printf '[dedup]\n'; fi
        printf '[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n' "$vocab"
        printf '[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\neos = 100257\n'
    } > "$1"
}

echo "# Pipeline throughput (winnow run: WARC in, shards out)"
echo
echo "$(machine_line)."
echo "Input: $nfiles files, each $COPIES copies of four real WARCs (Common Crawl 2020 and 2024, ClueWeb09,"
echo "iana.org), $((warc_bytes / 1000000)) MB uncompressed WARC in all. The copies make dedup drop most"
echo "documents after the first copy, so the 'no dedup' rows are the harder case for tokenize."
echo "MB/s wall: uncompressed WARC bytes over elapsed time; per core: over the CPU time of all processes."
echo
echo "| pipeline | tasks x threads | wall s | MB/s wall | MB/s per core |"
echo "|---|---|---|---|---|"
for dedup in yes no; do
    for cores in 1 $(nproc); do
        name="d$dedup-c$cores"
        pipeline_ini "$BENCH_TMP/$name.ini" "$name" "$cores" "$dedup"
        set -- $(cpu_seconds "$WINNOW" run -q --threads 1 -j "$cores" "$BENCH_TMP/$name.ini")
        if [ "$dedup" = yes ]; then label="ingest, filter, dedup, tokenize, shard"; else label="ingest, filter, tokenize, shard"; fi
        echo "| $label | $cores x 1 | $1 | $(mbps "$warc_bytes" "$1") | $(mbps "$warc_bytes" "$2") |"
        if [ "$dedup" = yes ]; then wall_all=$(mbps "$warc_bytes" "$1"); per_core=$(mbps "$warc_bytes" "$2"); run_wall=$1; run_cpu=$2; fi
        rm -rf "$BENCH_TMP/$name-work" "$BENCH_TMP/$name-out"
    done
done

echo
echo "Against the goal of issue 9, 1,200 MB/s of WARC per GPU machine (16 cores + GPU, 100 TB a day):"
projected=$(awk -v c="$per_core" 'BEGIN { printf "%.0f MB/s, %.0f%% of the goal", 16 * c, 16 * c / 12 }')
echo "this machine's $(nproc) cores do $wall_all MB/s with every stage; at $per_core MB/s per core, 16 such cores"
echo "would do $projected."
echo "The GPU machine's own runs (same input files, 64 of them, 16 tasks) are in bench/results/h*-DATE.md."
echo
echo "The same files as one command on all $(nproc) cores: the README's shell pipe and \`winnow ingest\` alone,"
echo "beside \`winnow run\` (every stage, $(nproc) tasks). Cores busy: CPU time of all processes over wall time."
echo
echo "| command | wall s | MB/s wall | MB/s per core | cores busy | of winnow run |"
echo "|---|---|---|---|---|---|"
row() { # label wall cpu
    echo "| $1 | $2 | $(mbps "$warc_bytes" "$2") | $(mbps "$warc_bytes" "$3") | $(awk -v c="$3" -v w="$2" 'BEGIN { printf "%.1f", c / w }') | $(awk -v r="$run_wall" -v w="$2" 'BEGIN { printf "%.0f%%", 100 * r / w }') |"
}
row "\`winnow run\` -j $(nproc) (ingest, filter, dedup, tokenize, shard)" "$run_wall" "$run_cpu"
set -- $(cpu_seconds sh -c "'$WINNOW' ingest -q '$in'/* | '$WINNOW' filter -q | '$WINNOW' dedup -q | '$WINNOW' tokenize -q --encoding cl100k_base --vocab '$vocab' -o '$BENCH_TMP/pipe-shards/'")
row "shell pipe: ingest FILES \\| filter \\| dedup \\| tokenize -o shards/" "$1" "$2"
rm -rf "$BENCH_TMP/pipe-shards"
set -- $(cpu_seconds "$WINNOW" ingest -q "$in"/*)
row "\`winnow ingest\` of the $nfiles files (-j $(nproc))" "$1" "$2"

echo
echo "Docs step alone (\`winnow run --step docs\`: ingest and filter of every file, 1 task, --threads 1);"
echo "MB per CPU-second: uncompressed WARC bytes over the CPU time of all its processes."
echo
echo "| step | CPU s | MB per CPU-second |"
echo "|---|---|---|"
pipeline_ini "$BENCH_TMP/docs.ini" docs 1 no
set -- $(cpu_seconds "$WINNOW" run -q --threads 1 --step docs --rank 0 "$BENCH_TMP/docs.ini")
echo "| docs (ingest, filter) | $2 | $(mbps "$warc_bytes" "$2") |"
rm -rf "$BENCH_TMP/docs-work" "$BENCH_TMP/docs-out" "$in"
