#!/bin/sh
# demo.sh - the whole pipeline on a sample crawl the repo builds from its own
# pages (scripts/demo/pages): ingest | filter | dedup | tokenize -o shards,
# then a summary of what each stage kept and dropped, and the shard directory.
set -eu
cd "$(dirname "$0")/.."
W=${WINNOW:-bin/winnow}
OUT=${DEMO_OUT:-demo-out}
rm -rf "$OUT" && mkdir -p "$OUT"
python3 scripts/make_sample_warc.py "$OUT/sample.warc.gz"
echo "== sample crawl: $OUT/sample.warc.gz ($(stat -c %s "$OUT/sample.warc.gz") bytes, 12 pages crawled)"
"$W" ingest -q --stats "$OUT/ingest.stats.json" --rejects "$OUT/ingest.rejects.jsonl" "$OUT/sample.warc.gz" \
  | "$W" filter -q --stats "$OUT/filter.stats.json" --rejects "$OUT/filter.rejects.jsonl" \
  | "$W" dedup -q --stats "$OUT/dedup.stats.json" --rejects "$OUT/dedup.rejects.jsonl" \
  | tee "$OUT/clean.jsonl" \
  | "$W" tokenize -q --encoding cl100k_base --vocab scripts/demo/vocab-missing 2>/dev/null -o "$OUT/shards" || true
python3 scripts/demo_summary.py "$OUT"
