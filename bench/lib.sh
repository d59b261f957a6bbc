# lib.sh - helpers for the bench scripts.
#   cpu_seconds CMD...   runs CMD (stdout to /dev/null), prints "WALL CPU" seconds
#   best_of_3 CMD...     "WALL CPU", each the smallest of three runs of CMD
#   machine_line         one line naming the machine, for the results header
#   real_docs FILE N     N copies of the real DCLM + Dolma CC + C4 documents (6.9 MB) into FILE
cpu_seconds() {
    /usr/bin/time -f "%e %U %S" -o "$BENCH_TMP/time" "$@" > /dev/null
    awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$BENCH_TMP/time"
}
# best_of_3 CMD...: "WALL CPU", each the smallest of three runs
best_of_3() {
    for run in 1 2 3; do cpu_seconds "$@"; done |
        awk 'NR == 1 || $1 < w { w = $1 } NR == 1 || $2 < c { c = $2 } END { print w, c }'
}
real_docs() {
    for i in $(seq 1 "$2"); do
        cat "$SHARED/jsonl/dclm/data/majority_data.jsonl"
        zcat "$SHARED"/jsonl/dolma/tests/data/formats/gz/*.jsonl.gz
        zcat "$SHARED/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz"
    done > "$1"
}
machine_line() {
    echo "$(date -u +%Y-%m-%d), $(nproc) cores $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load average $(cut -d' ' -f1 /proc/loadavg) at start"
}
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", b / 1e6 / s; else print "-" }'; }
