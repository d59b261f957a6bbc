#!/bin/sh
# pipeline_shard_defaults - a pipeline's shard writer knows its tokenizer as
# `winnow tokenize -o DIR/` does (docs/pipeline.md, "[shard] from
# [tokenize]"): with an empty [shard] section the run writes the ids and the
# manifest identity (tokenizer name, vocabulary size and SHA-256, eos/bos ids,
# what was appended) of `winnow tokenize -o DIR/` on the same documents, for
# a tiktoken encoding and for tokenizer.json files with and without a BOS
# template; and a document never ends in two EOS when [tokenize] appends it
# (its default) and [shard] gives `eos` too; [tokenize] alone writes the same
# shards, [shard] alone is refused at load. A vocabulary that cannot be
# loaded, or [shard] settings the writer refuses, stop `winnow run` and
# `winnow slurm` before any step runs or any job is submitted.
. tests/lib.sh
. tests/e2e/pipeline_lib.inc
pipeline_need_stages
V=$SHARED/vocab/tiktoken/cl100k_base.tiktoken
require_file "$SHARED/jsonl/dclm/data/majority_data.jsonl" "$SHARED/vocab/hf/llama2.tokenizer.json.zst" \
    "$SHARED/vocab/hf/qwen2_5.tokenizer.json.zst"
mkdir -p "$TMP/in"
head -n 60 "$SHARED/jsonl/dclm/data/majority_data.jsonl" > "$TMP/in/a.jsonl"
tail -n 40 "$SHARED/jsonl/dclm/data/majority_data.jsonl" > "$TMP/in/b.jsonl"
zstd -dcq "$SHARED/vocab/hf/llama2.tokenizer.json.zst" > "$TMP/llama2.json"
zstd -dcq "$SHARED/vocab/hf/qwen2_5.tokenizer.json.zst" > "$TMP/qwen2_5.json"

# identity DIR: the manifest's tokenizer and special-token fields, one line
# ("no manifest" when there is none)
identity() {
    [ -e "$1/manifest.json" ] || { echo "no manifest"; return; }
    python3 -c 'import json,sys; m=json.load(open(sys.argv[1] + "/manifest.json"))
print(json.dumps([m["tokenizer"], m["special"], m["eos_appended"], m["bos_prepended"], m["dtype"]]))' "$1"
}

# same_as_tokenize NAME TOKENIZE-LINES: a run with [tokenize] TOKENIZE-LINES
# and an empty [shard], against winnow tokenize with the same options
same_as_tokenize() {
    tag=$1 lines=$2
    printf 'input = %s/in/*.jsonl\nwork = %s/%s-work\noutput = %s/%s-run\ntasks = 2\n[tokenize]\n%s\n[shard]\n' \
        "$TMP" "$TMP" "$tag" "$TMP" "$tag" "$lines" > "$TMP/$tag.ini"
    "$WINNOW" run -q "$TMP/$tag.ini" 2> "$TMP/$tag.err"
    is "$?" 0 "$tag: a run whose [shard] section is empty exits 0"
    flags=$(printf '%s\n' "$lines" | sed 's/ = /=/; s/^/--/' | tr '\n' ' ')
    # shellcheck disable=SC2086 # flags are words
    "$WINNOW" tokenize -q $flags "$TMP"/in/a.jsonl "$TMP"/in/b.jsonl -o "$TMP/$tag-ref/"
    "$WINNOW" shards cat --format ids "$TMP/$tag-run" > "$TMP/$tag-run.ids"
    "$WINNOW" shards cat --format ids "$TMP/$tag-ref" > "$TMP/$tag-ref.ids"
    ok "$tag: the run's documents and ids are winnow tokenize -o DIR/'s" cmp "$TMP/$tag-run.ids" "$TMP/$tag-ref.ids"
    is "$(identity "$TMP/$tag-run")" "$(identity "$TMP/$tag-ref")" "$tag: and so is the manifest's tokenizer identity"
}

same_as_tokenize cl100k "encoding = cl100k_base
vocab = $V"
same_as_tokenize llama2 "vocab = $TMP/llama2.json"
same_as_tokenize qwen2_5 "vocab = $TMP/qwen2_5.json"
grep -q '"vocab_sha256": "[0-9a-f]\{64\}"' "$TMP/cl100k-run/manifest.json"
is "$?" 0 "the manifest records the vocabulary's SHA-256"
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bos_prepended"])' "$TMP/llama2-run/manifest.json")" \
    True "llama2's template puts its BOS first, and the manifest says so"
[ -s "$TMP/llama2-run.ids" ] && awk '$1 != 1 { bad++ } END { exit bad > 0 }' "$TMP/llama2-run.ids"
is "$?" 0 "every llama2 document starts with BOS (id 1)"

# [tokenize] appends EOS by default and [shard] gives eos: one EOS per document, not two
printf 'input = %s/in/*.jsonl\nwork = %s/both-work\noutput = %s/both-run\ntasks = 1\n[tokenize]\nencoding = cl100k_base\nvocab = %s\n[shard]\nvocab-size = 100277\neos = 100257\n' \
    "$TMP" "$TMP" "$TMP" "$V" > "$TMP/both.ini"
"$WINNOW" run -q "$TMP/both.ini"
is "$?" 0 "a run with EOS from both [tokenize] and [shard] exits 0"
"$WINNOW" shards cat --format ids "$TMP/both-run" > "$TMP/both.ids"
is "$(awk '$NF == 100257 && $(NF-1) == 100257' "$TMP/both.ids" | wc -l | tr -d ' ')" 0 "no document ends in two EOS"
ok "its documents and ids are tokenize -o DIR/'s" cmp "$TMP/both.ids" "$TMP/cl100k-ref.ids"

# [tokenize] without [shard]: the same shards; [shard] without [tokenize]: refused at load
printf 'input = %s/in/*.jsonl\nwork = %s/alone-work\noutput = %s/alone-run\ntasks = 2\n[tokenize]\nencoding = cl100k_base\nvocab = %s\n' \
    "$TMP" "$TMP" "$TMP" "$V" > "$TMP/alone.ini"
"$WINNOW" run -q "$TMP/alone.ini"
is "$?" 0 "[tokenize] without [shard]: the run exits 0"
"$WINNOW" shards cat --format ids "$TMP/alone-run" > "$TMP/alone.ids"
ok "and writes the shards of an empty [shard]" cmp "$TMP/alone.ids" "$TMP/cl100k-run.ids"
printf 'input = %s/in/*.jsonl\nwork = %s/shard-work\noutput = %s/shard-run\n[shard]\nvocab-size = 100277\n' \
    "$TMP" "$TMP" "$TMP" > "$TMP/shard-only.ini"
"$WINNOW" run -q "$TMP/shard-only.ini" 2> "$TMP/shard-only.err"
is "$?" 1 "[shard] without [tokenize]: exit 1"
ok "naming what is missing" grep -q 'needs \[tokenize\]' "$TMP/shard-only.err"

# late_failure NAME TOKENIZE-AND-SHARD WANT: nothing runs, the message says WANT
late_failure() {
    printf 'input = %s/in/*.jsonl\nwork = %s/%s-work\noutput = %s/%s-out\ntasks = 2\n[filter]\n[dedup]\n%s\n' \
        "$TMP" "$TMP" "$1" "$TMP" "$1" "$2" > "$TMP/$1.ini"
    "$WINNOW" run -q "$TMP/$1.ini" 2> "$TMP/$1.err"
    is "$?" 1 "$1: winnow run exits 1"
    is "$(find "$TMP/$1-work/docs" "$TMP/$1-work/done" -type f 2>/dev/null | wc -l | tr -d ' ')" 0 "$1: before the docs step (no documents, no marker)"
    ok "$1: it says why: $3" grep -q "$3" "$TMP/$1.err"
    "$WINNOW" slurm --dry-run "$TMP/$1.ini" > "$TMP/$1.slurm" 2>&1
    is "$?" 1 "$1: winnow slurm --dry-run exits 1 too"
}
late_failure missing-vocab "[tokenize]
vocab = $TMP/no-such.tokenizer.json
[shard]" "no-such.tokenizer.json: No such file"
late_failure wrong-vocab "[tokenize]
encoding = o200k_base
vocab = $V
[shard]" "is not o200k_base's"
late_failure small-vocab-size "[tokenize]
encoding = cl100k_base
vocab = $V
[shard]
vocab-size = 50000" "eos id below the vocabulary size"
late_failure shard-vocab "[tokenize]
encoding = cl100k_base
vocab = $V
[shard]
vocab = $TMP/no-such.tiktoken" "no-such.tiktoken"
done_testing
