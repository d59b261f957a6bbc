#!/bin/sh
# pipeline_demo.sh - the demo through `winnow run`: the sample crawl split into
# a few files, every stage, then the merged stats summary. Tokenizes with
# cl100k_base when its vocabulary is in the cache (winnow vocab fetch
# cl100k_base), else the output is the clean documents as JSONL.
#   scripts/pipeline_demo.sh SAMPLE.warc.gz OUTDIR
set -eu
W=${WINNOW:-bin/winnow}
sample=$1 out=$2
mkdir -p "$out/in"
# The same crawl as three inputs (the copies give dedup something to find).
for i in 1 2 3; do cp "$sample" "$out/in/crawl-$i.warc.gz"; done
vocab=$("$W" vocab path cl100k_base 2> /dev/null || true)
{
    printf 'input = in/*\nwork = work\noutput = result\ntasks = 2\n\n[ingest]\n[filter]\n[dedup]\n'
    if [ -n "$vocab" ] && [ -r "$vocab" ]; then
        printf '[tokenize]\nencoding = cl100k_base\n[shard]\n'
    fi
} > "$out/demo.pipeline"
echo "== winnow run $out/demo.pipeline"
cat "$out/demo.pipeline"
rm -rf "$out/work" "$out/result"
"$W" run "$out/demo.pipeline"
echo "== output: $out/result"
ls -l "$out/result"
