#!/bin/sh
# pipeline_inproc - `winnow run` runs each input file's stages in one process
# (ingest -> filter, no JSON between them) and tokenize -> shard writer in
# each shards rank: its documents, rejects and stats counts are byte-identical
# to the stage commands piped by hand with the same options, and its shards
# hold the same documents and ids;
# a file whose process crashes is reported and counted and the run goes on;
# a killed writer's temporary in the output never survives a resumed run.
. tests/lib.sh
. tests/e2e/pipeline_lib.inc
pipeline_need_stages
V=$SHARED/vocab/tiktoken/cl100k_base.tiktoken

pipeline_inputs "$TMP/in"
# single-document HTML files have no URL: the URL block list looks in their metadata
for f in $(ls "$SHARED"/extraction/articles/html/*.html.gz | head -3); do cp "$f" "$TMP/in/page-$(basename "$f" | cut -c1-8).html.gz"; done
# real DCLM documents as JSON lines of every shape ingest hands on scanned or
# rewritten: ids that are numbers, null or missing (ingest rewrites the line),
# the text escaped to ASCII with lone surrogates, two "text" members (the last
# counts), the text after the metadata, blanks around tokens, bad lines
python3 - "$SHARED/jsonl/dclm/data/majority_data.jsonl" > "$TMP/in/shapes.jsonl" <<'EOT'
import json, sys
for i, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    if i == 240: break
    t = json.loads(line)["text"]
    meta = {"url": "http://example.com/%d" % i}
    shape = [
        lambda: json.dumps({"id": i, "text": t}),
        lambda: json.dumps({"id": None, "text": t, "metadata": meta}),
        lambda: json.dumps({"text": t, "url": "http://x.org/%d" % i}),
        lambda: json.dumps({"id": "a%d" % i, "text": t}, ensure_ascii=True),
        lambda: '{"id":"b%d","text":"\\ud800 lone \\udc00 %s"}' % (i, json.dumps(t)[1:-1]),
        lambda: '{"id":"c%d","text":"the first","text":%s}' % (i, json.dumps(t)),
        lambda: json.dumps({"id": "d%d" % i, "metadata": meta, "text": t}, ensure_ascii=False),
        lambda: ' { "id" : "e%d" ,\t"text" : %s }  ' % (i, json.dumps(t)),
        lambda: '{"id":"f%d","text":%s' % (i, json.dumps(t)),
        lambda: json.dumps({"id": "g%d" % i, "text": t + " Mail john.doe@example.com or 10.0.0.1"}),
    ][i % 10]()
    print(shape)
EOT
chmod u+w "$TMP/in"/*
nfiles=$(ls "$TMP/in" | wc -l)
# block the hosts of two real pages of the data
"$WINNOW" ingest -q "$TMP/in/cc-2020-b.warc" | python3 -c '
import json, sys, urllib.parse
hosts = [urllib.parse.urlsplit(json.loads(l)["url"]).hostname for l in sys.stdin]
print("\n".join(hosts[:2]))' > "$TMP/blocked.txt"
echo "iana.org" >> "$TMP/blocked.txt"

cat > "$TMP/p.ini" <<EOT
input = $TMP/in/*
work = $TMP/work
output = $TMP/out
tasks = 2
rejects = true
[ingest]
extract = main
[filter]
pii
c4_terminal_punct = false
url-blocklist = $TMP/blocked.txt
fw_new_line_ratio = 0.4
no-c4-policy
[tokenize]
encoding = cl100k_base
vocab = $V
no_eos
[shard]
vocab_size = 100277
tokenizer = cl100k_base
vocab = $V
eos = 100257
shard-tokens = 20k
EOT
/usr/bin/time -f '%U %S' -o "$TMP/time" "$WINNOW" run -q "$TMP/p.ini" 2> "$TMP/run.err"
is "$?" 0 "the run exits 0"

# The same stages piped by hand, file by file, with the same options.
mkdir -p "$TMP/ref"
i=0
for f in $(ls "$TMP/in" | sort); do
    n=$(printf '%06d' $i)
    "$WINNOW" ingest -q -j2 --extract=main --stats "$TMP/ref/$n.ingest.json" --rejects "$TMP/ref/$n.ingest.jsonl" \
        "$TMP/in/$f" 2>/dev/null |
    "$WINNOW" filter -q -j2 --pii --c4-terminal-punct=false --url-blocklist="$TMP/blocked.txt" --fw-new-line-ratio 0.4 \
        --no-c4-policy -z -o "$TMP/ref/$n.jsonl.zst" --stats "$TMP/ref/$n.filter.json" --rejects "$TMP/ref/$n.filter.jsonl"
    i=$((i + 1))
done
"$WINNOW" tokenize -q --format bin --encoding cl100k_base --vocab "$V" --no-eos --stats "$TMP/ref/tokenize.json" \
    "$TMP/ref"/*.jsonl.zst |
"$WINNOW" shard -q -o "$TMP/ref-out" --vocab-size 100277 --tokenizer cl100k_base --vocab "$V" --eos 100257 \
    --shard-tokens 20k --stats "$TMP/ref/shard.json"

same_docs=0 same_rejects=0 same_stats=0
# compared decompressed: WORK keeps its documents at PL_WORK_ZSTD_LEVEL, filter -z at level 3
for f in "$TMP"/ref/*.jsonl.zst; do
    zstd -dcq "$f" > "$TMP/ref.jsonl" && zstd -dcq "$TMP/work/docs/$(basename "$f")" > "$TMP/work.jsonl" &&
        cmp -s "$TMP/ref.jsonl" "$TMP/work.jsonl" && same_docs=$((same_docs + 1))
done
for f in "$TMP"/ref/*.*.jsonl; do cmp -s "$f" "$TMP/work/rejects/$(basename "$f")" && same_rejects=$((same_rejects + 1)); done
counts() { grep -v '"seconds"' "$1"; }
for f in "$TMP"/ref/[0-9]*.json; do
    [ "$(counts "$f")" = "$(counts "$TMP/work/stats/$(basename "$f")")" ] && same_stats=$((same_stats + 1))
done
is "$same_docs" "$nfiles" "every file's documents are byte-identical to ingest | filter -z's (decompressed)"
is "$same_rejects" "$((2 * nfiles))" "every file's ingest and filter rejects are byte-identical"
is "$same_stats" "$((2 * nfiles))" "every stats file counts the same (in, out, drops by reason, bytes)"
# tokenize and shard ran in 2 ranks: their counts summed, and the documents, are those of one process
for k in in out dropped failed bytes_in bytes_out; do
    for st in tokenize shard; do
        [ "$(json_number "$TMP/work/report.json" $st $k)" = "$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$TMP/ref/$st.json" $k)" ] ||
            echo "# $st $k differs" >> "$TMP/stat-diffs"
    done
done
ok "tokenize and shard counts of the ranks add up to one process's" test ! -s "$TMP/stat-diffs"
"$WINNOW" shards cat --format ids "$TMP/ref-out" > "$TMP/ref.ids"
"$WINNOW" shards cat --format ids "$TMP/out" > "$TMP/out.ids"
ok "the shards hold the documents and ids of tokenize --format bin | shard" cmp "$TMP/ref.ids" "$TMP/out.ids"
ok "more than one shard (shard-tokens = 20k)" test -e "$TMP/out/shard_00001.tok.zst"
is "$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["stages"]["shard"]["extra"]["tokens"]))' "$TMP/work/report.json")" \
   "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["tokens"])' "$TMP/out/manifest.json")" \
   "the report's shard tokens, summed over the ranks, are the manifest's"
r=$TMP/work/report.json
blocked=$(cat "$TMP"/ref/*.filter.json | python3 -c '
import json, sys
text = sys.stdin.read().replace("}\n{", "}\x00{")
print(sum(json.loads(t)["dropped_by_reason"].get("url_blocklist", 0) for t in text.split("\x00")))')
ok "the URL block list dropped documents ($blocked)" test "$blocked" -ge 2
is "$(json_number "$r" filter in)" "$(json_number "$r" ingest out)" "filter got every document ingest made"
stage_cpu=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["stages"]; print(sum(s[k]["seconds"] for k in ("ingest","filter","tokenize","shard")))' "$r")
ok "per-stage seconds are CPU seconds: together at most the run's CPU time ($stage_cpu <= $(cat "$TMP/time"))" \
    awk -v s="$stage_cpu" -v u="$(cut -d' ' -f1 "$TMP/time")" -v y="$(cut -d' ' -f2 "$TMP/time")" 'BEGIN { exit !(s > 0 && s <= u + y + 0.01) }'
ok "per-file logs in the work directory" test -e "$TMP/work/logs/000000.log"

# Without [filter] and [tokenize]: ingest alone, the documents concatenated.
printf 'input = %s/*\nwork = %s\noutput = %s\ntasks = 2\ncompress = false\n[ingest]\nextract = full\n' "$TMP/in" "$TMP/iwork" "$TMP/iout" > "$TMP/i.ini"
"$WINNOW" run -q "$TMP/i.ini"; is "$?" 0 "a pipeline of ingest alone runs"
for f in $(ls "$TMP/in" | sort); do "$WINNOW" ingest -q --extract=full "$TMP/in/$f" 2> /dev/null; done > "$TMP/ingest-ref.jsonl"
ok "its documents are those of winnow ingest, file by file" cmp "$TMP/ingest-ref.jsonl" "$TMP/iout/documents.jsonl"

# A killed writer's temporaries in the output: removed, the output unchanged.
cp -r "$TMP/out" "$TMP/out.first"
touch "$TMP/out/shard_00000.tok.zst.tmp.999999" "$TMP/out/manifest.json.tmp.1" "$TMP/work/docs/000001.jsonl.zst.tmp.7"
rm "$TMP/work/done/shards.0"
"$WINNOW" run -q "$TMP/p.ini"; is "$?" 0 "the shards step runs again"
ok "no temporary left in the output" sh -c "! ls '$TMP/out' | grep -q tmp"
ok "nor in the work directory" sh -c "! ls '$TMP/work/docs' | grep -q tmp"
diff -r "$TMP/out.first" "$TMP/out" > /dev/null 2>&1; is "$?" 0 "and the shards are the same"

# A file whose process crashes: reported, counted, the run goes on.
mkdir -p "$TMP/big"
w=$SHARED/warc
for k in 1 2 3; do
    for c in $(seq 12); do cat "$w/resiliparse/tests/data/warcfile.warc.gz" "$w/resiliparse/tests/data/clueweb-quirk.warc.gz"; done > "$TMP/big/crawl-$k.warc.gz"
done
printf 'input = %s/*\nwork = %s\noutput = %s\ntasks = 1\n[ingest]\n[filter]\n' "$TMP/big" "$TMP/cwork" "$TMP/cout" > "$TMP/c.ini"
"$WINNOW" run -q --threads 1 "$TMP/c.ini" 2> "$TMP/c.err" &
pid=$!
children() { ps -o pid= --ppid "$1" 2> /dev/null; }
crashed=
for t in $(seq 300); do
    for r in $(children "$pid"); do
        for u in $(children "$r"); do kill -SEGV "$u" 2> /dev/null && crashed=$u && break 3; done
    done
    sleep 0.02
done
wait "$pid"
is "$?" 0 "a crashing file does not stop the run"
ok "one file's process was made to crash" test -n "$crashed"
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["failed_files"])' "$TMP/cwork/report.json")" 1 "the report counts it failed"
# (under AddressSanitizer its handler reports the SEGV in the file's log and exits 1)
ok "its failure names the signal" sh -c "grep -q 'killed by signal 11' '$TMP'/cwork/failed/* || grep -q SEGV '$TMP'/cwork/logs/*"
ok "and the message names the file" grep -q 'input file failed: .*crawl-' "$TMP/c.err"
is "$(ls "$TMP/cwork/docs" | grep -c 'jsonl.zst$')" 2 "the other files made their documents"
done_testing
