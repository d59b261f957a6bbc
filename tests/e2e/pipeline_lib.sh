# pipeline_lib.sh - shared set-up for the pipeline tests (sourced after tests/lib.sh).
#   pipeline_missing          prints why the stages cannot run (nothing when they can)
#   pipeline_need_stages      TAP-skips the whole test when a stage command is missing
#   pipeline_inputs DIR [N]   copies real WARCs and JSONL from $SHARED into DIR as many files (the first N by name)
#   pipeline_file FILE IN WORK OUT TASKS   writes a pipeline file with every stage
pipeline_missing() {
    "$WINNOW" help > "$TMP/commands" 2>&1
    for c in ingest filter dedup tokenize shard; do
        grep -q "^  $c " "$TMP/commands" || { echo "winnow $c is not in this build yet"; return; }
    done
    [ -r "$SHARED/vocab/tiktoken/cl100k_base.tiktoken" ] || echo "no cl100k_base vocabulary under $SHARED"
}
pipeline_need_stages() {
    why=$(pipeline_missing)
    [ -z "$why" ] || skip_all "$why"
}

pipeline_inputs() {
    mkdir -p "$1"
    w=$SHARED/warc; j=$SHARED/jsonl
    cp "$w/resiliparse/tests/data/warcfile.warc.gz" "$1/cc-2020-a.warc.gz"
    cp "$w/resiliparse/tests/data/warcfile.warc" "$1/cc-2020-b.warc"
    cp "$w/resiliparse/tests/data/clipped.warc.gz" "$1/cc-clipped.warc.gz"
    cp "$w/whirlwind-python/whirlwind.warc.gz" "$1/cc-2024.warc.gz"
    cp "$w/pywb/sample_archive/warcs/iana.warc.gz" "$1/iana.warc.gz"
    cp "$w/warcio/test/data/example.warc.gz" "$1/example.warc.gz"
    cp "$j/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz" "$1/dolma-0091.jsonl.gz"
    cp "$j/dolma/tests/data/multiple_files/cc_en_head-0174.jsonl.gz" "$1/dolma-0174.jsonl.gz"
    cp "$j/dolma/tests/data/multiple_files/cc_en_head-0174.jsonl" "$1/dolma-0174-copy.jsonl"
    cp "$j/olmo/test_fixtures/c4-sample.01.json.gz" "$1/c4-01.jsonl.gz"
    cp "$j/olmo/test_fixtures/c4-sample.02.json.gz" "$1/c4-02.jsonl.gz"
    cp "$j/olmo/test_fixtures/c4-sample.03.json.gz" "$1/c4-03.jsonl.gz"
    chmod u+w "$1"/*
    if [ -n "${2:-}" ]; then ls "$1" | sort | tail -n +$(($2 + 1)) | while read -r f; do rm "$1/$f"; done; fi
}

pipeline_file() {
    cat > "$1" <<EOT
# pipeline test: every stage
input = $2/*
work = $3
output = $4
tasks = $5

[ingest]
[filter]
[dedup]
[tokenize]
encoding = cl100k_base
vocab = $SHARED/vocab/tiktoken/cl100k_base.tiktoken
no-eos
[shard]
vocab-size = 100277
tokenizer = cl100k_base
vocab = $SHARED/vocab/tiktoken/cl100k_base.tiktoken
eos = 100257
EOT
}

# json_number FILE STAGE KEY: a stage's number from report.json.
json_number() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(int(r["stages"][sys.argv[2]][sys.argv[3]]))' "$@"
}
