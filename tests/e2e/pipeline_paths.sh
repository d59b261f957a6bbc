#!/bin/sh
# pipeline_paths - a pipeline file means the same from any working directory:
# its relative paths, those of the stage options that name files too ([filter]
# config and url_blocklist, [tokenize] and [shard] vocab), start at its own
# directory (docs/pipeline.md). Run from / against the same file with absolute
# paths: the same shards.
. tests/lib.sh
V="$SHARED/vocab/tiktoken/cl100k_base.tiktoken"
require_file "$V" "$SHARED/jsonl/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz"
mkdir -p "$TMP/p/in" "$TMP/p/conf"
cp "$SHARED/jsonl/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz" "$TMP/p/in/a.jsonl.gz"
cp "$V" "$TMP/p/conf/v.tiktoken"
printf 'gopher_min_words = 5\nurl_blocklist = %s\n' "$TMP/p/conf/block.txt" > "$TMP/p/conf/f.conf"
# the first document's domain: blocked, so the filter's lists are read (a list not read would keep it)
host=$(zcat "$TMP/p/in/a.jsonl.gz" | head -n 1 | python3 -c 'import json, sys, urllib.parse
print(urllib.parse.urlparse(json.loads(sys.stdin.readline())["metadata"]["url"]).hostname)')
echo "$host" > "$TMP/p/conf/block.txt"
pipeline() { # NAME CONF VOCAB: NAME.pipeline, work w-NAME, output o-NAME
    printf 'input = in/*\nwork = w-%s\noutput = o-%s\n[filter]\nconfig = %s\n[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\nvocab = %s\neos = 100257\n' \
        "$1" "$1" "$2" "$3" "$3" > "$TMP/p/$1.pipeline"
}
pipeline rel conf/f.conf conf/v.tiktoken
pipeline abs "$TMP/p/conf/f.conf" "$TMP/p/conf/v.tiktoken"
(cd "$TMP/p" && "$WINNOW" run -q abs.pipeline); is "$?" 0 "the pipeline with absolute paths runs"
(cd / && "$WINNOW" run -q "$TMP/p/rel.pipeline" 2> "$TMP/e"); is "$?" 0 "the one with relative paths runs from another directory"
ok "... the same shards" diff -r "$TMP/p/o-abs" "$TMP/p/o-rel"
ok "... the filter read its config and blocklist (the blocked host's documents dropped)" \
    grep -q '"url_blocklist": [1-9]' "$TMP/p/w-rel/report.json"
done_testing
