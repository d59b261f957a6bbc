#!/bin/sh
# tokenize_blocks - the GPU-shaped block path of `winnow tokenize`
# (tokenize/tokenize_blocks.c: mapped and parallel-decoded input, parallel
# scan, formatting on a writer thread) run with the CPU encoder
# (WINNOW_TOKENIZE_BLOCKS=cpu, 1 MiB blocks, so every input below crosses
# block boundaries) gives the bytes, warnings and --stats of the reference
# engine path (--device cpu): tokref multi and edge, real web documents
# (DCLM), short documents, a file with two bad lines, CRLF, blank lines (spaces and tabs only too:
# not documents), a document without text,
# escapes and no final newline, gzip and zstd copies, several files, stdin, damaged members that gave
# no output (counted failed, one or two in a file), bad lines past a file's first block and in its second
# input, "text" a number or null;
# --format bin, jsonl (--bos) and shards. Where the build has CUDA, the same
# through the emulated GPU code (WINNOW_TOKENIZE_BLOCKS=emulate) on a subset.
. tests/lib.sh

VOCAB="$SHARED/vocab/tiktoken/cl100k_base.tiktoken"
PY="python3 scripts/tokenize_tokref.py"
$PY jsonl "$SHARED/tokref/multi.txt.zst" "$SHARED/tokref/multi.idx.tsv" 0 > "$TMP/multi.jsonl" || exit 1
$PY jsonl "$SHARED/tokref/edge.txt.zst" "$SHARED/tokref/edge.idx.tsv" 0 > "$TMP/edge.jsonl" || exit 1
DCLM="$SHARED/jsonl/dclm/data/majority_data.jsonl"
[ -s "$DCLM" ] || { echo "missing $DCLM"; exit 1; }
{ head -n 20 "$TMP/multi.jsonl"; echo 'not json'; printf '\r\n\n \n\t \r\n'; echo '{"id":1}'
  printf '%s\n' '{"text":"caf\u00e9 \"quoted\"\n\ttab \ud83d\ude00 pair"}'; head -n 5 "$DCLM" | sed 's/$/\r/'
  printf '{"text":"last line without newline"}'; } > "$TMP/odd.jsonl"
gzip -c "$TMP/multi.jsonl" > "$TMP/multi.jsonl.gz"
# short documents (7 words of multi's first 40 each): their bin is formatted, not written as pieces
head -n 40 "$TMP/multi.jsonl" | python3 -c 'import json, sys
for line in sys.stdin:
    w = json.loads(line)["text"].split(" ")
    for i in range(0, len(w), 7): print(json.dumps({"text": " ".join(w[i:i + 7])}, ensure_ascii=False))' > "$TMP/short.jsonl" || exit 1
zstd -q -c "$DCLM" > "$TMP/dclm.jsonl.zst"
INPUTS="$TMP/odd.jsonl $TMP/multi.jsonl.gz $TMP/dclm.jsonl.zst $TMP/edge.jsonl $TMP/short.jsonl $DCLM"
tok() { "$WINNOW" tokenize -q -j3 --encoding cl100k_base --vocab "$VOCAB" "$@"; }
blocks() { WINNOW_TOKENIZE_BLOCKS=$MODE tok "$@"; }

MODE=cpu
for fmt in bin jsonl; do
    tok --device cpu --format $fmt --bos --stats "$TMP/ref.stats" $INPUTS > "$TMP/ref.$fmt" 2> "$TMP/ref.err"
    is "$?" 0 "--device cpu --format $fmt exits 0"
    blocks --format $fmt --bos --stats "$TMP/blk.stats" $INPUTS > "$TMP/blk.$fmt" 2> "$TMP/blk.err"
    is "$?" 0 "block path --format $fmt exits 0"
    ok "block path --format $fmt: same bytes as the engine path" cmp "$TMP/ref.$fmt" "$TMP/blk.$fmt"
    ok "block path --format $fmt: same warnings, same order" cmp "$TMP/ref.err" "$TMP/blk.err"
    grep -v '"seconds"' "$TMP/ref.stats" > "$TMP/ref.s"; grep -v '"seconds"' "$TMP/blk.stats" > "$TMP/blk.s"
    ok "block path --format $fmt: same --stats" cmp "$TMP/ref.s" "$TMP/blk.s"
done
is "$(grep -c 'bad JSON\|no "text"' "$TMP/blk.err")" 2 "the two bad lines of odd.jsonl are reported"
ok "a bad line is named by file and line" grep -q "odd.jsonl: line 21: bad JSON at byte 1" "$TMP/blk.err"
blocks --format bin < "$TMP/odd.jsonl" > "$TMP/stdin.bin" 2> /dev/null
tok --device cpu --format bin "$TMP/odd.jsonl" > "$TMP/ref-odd.bin" 2> /dev/null
ok "block path from stdin: same bytes" cmp "$TMP/ref-odd.bin" "$TMP/stdin.bin"
tok --device cpu --shard-tokens 300k -o "$TMP/ref-shards/" $INPUTS 2> /dev/null
blocks --shard-tokens 300k -o "$TMP/blk-shards/" $INPUTS 2> /dev/null
is "$?" 0 "block path -o shards/ exits 0"
ok "block path -o shards/: the same shard directory" diff -r "$TMP/ref-shards" "$TMP/blk-shards"
ok "block path -o shards/: several shards were written" test -e "$TMP/blk-shards/shard_00002.tok.zst"

MODE=emulate
if blocks --format bin "$TMP/edge.jsonl" > "$TMP/emu.bin" 2> "$TMP/emu.err"; then
    tok --device cpu --format bin "$TMP/edge.jsonl" > "$TMP/ref-edge.bin"
    ok "emulated GPU code in the block path: same ids (edge)" cmp "$TMP/ref-edge.bin" "$TMP/emu.bin"
    blocks --format bin "$TMP/odd.jsonl" "$DCLM" > "$TMP/emu2.bin" 2> /dev/null
    tok --device cpu --format bin "$TMP/odd.jsonl" "$DCLM" > "$TMP/ref2.bin" 2> /dev/null
    ok "emulated GPU code in the block path: same ids (odd lines, DCLM)" cmp "$TMP/ref2.bin" "$TMP/emu2.bin"
    blocks --format bin --bos --eos "$TMP/short.jsonl" "$TMP/edge.jsonl" > "$TMP/emu3.bin" 2> /dev/null
    tok --device cpu --format bin --bos --eos "$TMP/short.jsonl" "$TMP/edge.jsonl" > "$TMP/ref3.bin" 2> /dev/null
    ok "emulated GPU code in the block path: same bin with BOS and EOS (short documents, then long)" cmp "$TMP/ref3.bin" "$TMP/emu3.bin"
    # --format bin is written from the id ring the device copied the ids into where there was room (1 MiB
    # in this mode: odd.jsonl's block fits, a 1 MiB block of multi, ~1.4 MB of ids, does not), else from
    # the block's own array; the output read late, so the writer gives ring room back late
    WINNOW_TOKENIZE_TIMES=1 blocks --format bin --eos --stats "$TMP/emu4.stats" "$TMP/multi.jsonl" "$TMP/odd.jsonl" \
        2> "$TMP/emu4.err" | { sleep 1; cat; } > "$TMP/emu4.bin"
    tok --device cpu --format bin --eos --stats "$TMP/ref4.stats" "$TMP/multi.jsonl" "$TMP/odd.jsonl" > "$TMP/ref4.bin" 2> "$TMP/ref4.err"
    ok "emulated GPU code, bin through the id ring and read late: same bytes (multi, odd lines)" cmp "$TMP/ref4.bin" "$TMP/emu4.bin"
    grep -v '"seconds"' "$TMP/ref4.stats" > "$TMP/ref4.s"; grep -v '"seconds"' "$TMP/emu4.stats" > "$TMP/emu4.s"
    ok "... same --stats" cmp "$TMP/ref4.s" "$TMP/emu4.s"
    grep -Ev '^(tokenize (times|cpu|clock)|gpu library|id ring)' "$TMP/emu4.err" > "$TMP/emu4.warn"
    ok "... same warnings, same order" cmp "$TMP/ref4.err" "$TMP/emu4.warn"
    ok "... ids were written from the ring, and copied where it had no room" \
        grep -Eq 'id ring \(1 MB\): [1-9][0-9]* ids written from it, [1-9][0-9]* copied' "$TMP/emu4.err"
    # DCLM twice, read late: its blocks' ids (231k, then 59k) all go through the ring, each block waiting for
    # the writer to give back the room of the ones before; the second 59k block's bin fills the 1 MiB pipe
    # (core/util.c's PIPE_BYTES) while the reader sleeps, so the writer is held mid-block with its ids still
    # in the ring: room given back before a block is written would be overwritten by the next block's ids
    WINNOW_TOKENIZE_TIMES=1 blocks --format bin "$DCLM" "$DCLM" 2> "$TMP/emu6.err" | { sleep 2; cat; } > "$TMP/emu6.bin"
    tok --device cpu --format bin "$DCLM" "$DCLM" > "$TMP/ref6.bin" 2> /dev/null
    ok "emulated GPU code, bin through the id ring, the writer held mid-block: same bytes (DCLM twice)" \
        cmp "$TMP/ref6.bin" "$TMP/emu6.bin"
    ok "... every id was written from the ring" grep -Eq 'id ring \(1 MB\): [1-9][0-9]* ids written from it, 0 copied' "$TMP/emu6.err"
    # documents of long letter runs (over 128 bytes: pieces the device leaves to the host, as a data URI's
    # or a hash's) between short words: a block's long-piece ids (~0.4 a byte) need more than the ring, so
    # they are copied into the block's array, each between two ring runs (the short words' ids)
    python3 -c 'import json, random, string
rng = random.Random(19)
for d in range(300):
    print(json.dumps({"text": "".join("".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(150, 400))) +
                                      " and the " + str(w) + " " for w in range(12))}))' > "$TMP/longp.jsonl"
    WINNOW_TOKENIZE_TIMES=1 blocks --format bin "$TMP/longp.jsonl" 2> "$TMP/emu5.err" > "$TMP/emu5.bin"
    tok --device cpu --format bin "$TMP/longp.jsonl" > "$TMP/ref5.bin" 2> /dev/null
    ok "emulated GPU code, bin of long pieces copied between ring runs: same bytes" cmp "$TMP/ref5.bin" "$TMP/emu5.bin"
    ok "... ids were written from the ring, and copied where it had no room" \
        grep -Eq 'id ring \(1 MB\): [1-9][0-9]* ids written from it, [1-9][0-9]* copied' "$TMP/emu5.err"
else
    ok "without CUDA the emulation says why" grep -q "without CUDA" "$TMP/emu.err"
fi
tok --device cpu --format bin "$TMP/edge.jsonl" "$TMP/absent.jsonl" "$TMP/odd.jsonl" > "$TMP/ref-absent.bin" 2> "$TMP/ref-absent.err"
MODE=cpu blocks --format bin "$TMP/edge.jsonl" "$TMP/absent.jsonl" "$TMP/odd.jsonl" > "$TMP/blk-absent.bin" 2> "$TMP/blk-absent.err"
is "$?" 2 "block path: an input that cannot be opened exits 2"
ok "block path: ... says which" grep -q "absent.jsonl: cannot open" "$TMP/blk-absent.err"
ok "block path: ... and the other inputs are written as by the engine path" cmp "$TMP/ref-absent.bin" "$TMP/blk-absent.bin"
# a damaged member that gave no output (a gzip member cut after its header between two whole ones, read
# by units then serially; a zstd frame cut inside its first block) lost documents no line shows: one
# failed damaged_member each, as the engine path counts them (in = out + failed)
{ head -n 150 "$DCLM" | gzip -c; sed -n 151,300p "$DCLM" | gzip -c | head -c 30; sed -n 301,450p "$DCLM" | gzip -c; } \
    > "$TMP/lost.jsonl.gz"
head -c 1500 "$TMP/dclm.jsonl.zst" > "$TMP/lost.jsonl.zst"
for f in lost.jsonl.gz lost.jsonl.zst; do
    tok --device cpu --format bin --stats "$TMP/ref-lost.stats" "$TMP/$f" > "$TMP/ref-lost.bin" 2> "$TMP/ref-lost.err"
    MODE=cpu blocks --format bin --stats "$TMP/blk-lost.stats" "$TMP/$f" > "$TMP/blk-lost.bin" 2> "$TMP/blk-lost.err"
    is "$?" 2 "block path, $f: a damaged input exits 2"
    ok "... the same bytes as the engine path" cmp "$TMP/ref-lost.bin" "$TMP/blk-lost.bin"
    ok "... the same warnings" cmp "$TMP/ref-lost.err" "$TMP/blk-lost.err"
    grep -v '"seconds"' "$TMP/ref-lost.stats" > "$TMP/ref-lost.s"; grep -v '"seconds"' "$TMP/blk-lost.stats" > "$TMP/blk-lost.s"
    ok "... the same --stats" cmp "$TMP/ref-lost.s" "$TMP/blk-lost.s"
    ok "... one damaged_member counted failed" grep -q '"damaged_member": 1' "$TMP/blk-lost.stats"
done
# two members that gave no output in one file: one failed damaged_member each, as the engine path counts them
{ head -n 150 "$DCLM" | gzip -c; sed -n 151,300p "$DCLM" | gzip -c | head -c 30; sed -n 301,400p "$DCLM" | gzip -c
  sed -n 401,450p "$DCLM" | gzip -c | head -c 30; sed -n 451,499p "$DCLM" | gzip -c; } > "$TMP/lost2.jsonl.gz"
tok --device cpu --format bin --stats "$TMP/ref-lost2.stats" "$TMP/lost2.jsonl.gz" > "$TMP/ref-lost2.bin" 2> /dev/null
MODE=cpu blocks --format bin --stats "$TMP/blk-lost2.stats" "$TMP/lost2.jsonl.gz" > "$TMP/blk-lost2.bin" 2> /dev/null
ok "two damaged members: the same bytes as the engine path" cmp "$TMP/ref-lost2.bin" "$TMP/blk-lost2.bin"
grep -v '"seconds"' "$TMP/ref-lost2.stats" > "$TMP/ref-lost2.s"; grep -v '"seconds"' "$TMP/blk-lost2.stats" > "$TMP/blk-lost2.s"
ok "... the same --stats" cmp "$TMP/ref-lost2.s" "$TMP/blk-lost2.s"
ok "... two damaged_member counted failed" grep -q '"damaged_member": 2' "$TMP/blk-lost2.stats"
# bad lines past the first 1 MiB block of their file (line numbers run on over blocks) in the second input
# (they start again at each file); "text" a number or null: no "text" string (missing_text), as the engine path
{ cat "$TMP/multi.jsonl"; echo '{"text":5}'; echo 'not json'; echo '{"id":2,"text":null}'; } > "$TMP/late.jsonl"
n=$(wc -l < "$TMP/multi.jsonl")
tok --device cpu --format jsonl --stats "$TMP/ref-late.stats" "$TMP/edge.jsonl" "$TMP/late.jsonl" > "$TMP/ref-late.out" 2> "$TMP/ref-late.err"
MODE=cpu blocks --format jsonl --stats "$TMP/blk-late.stats" "$TMP/edge.jsonl" "$TMP/late.jsonl" > "$TMP/blk-late.out" 2> "$TMP/blk-late.err"
ok "bad lines late in a second file: the same bytes as the engine path" cmp "$TMP/ref-late.out" "$TMP/blk-late.out"
ok "... the same warnings" cmp "$TMP/ref-late.err" "$TMP/blk-late.err"
grep -v '"seconds"' "$TMP/ref-late.stats" > "$TMP/ref-late.s"; grep -v '"seconds"' "$TMP/blk-late.stats" > "$TMP/blk-late.s"
ok "... the same --stats" cmp "$TMP/ref-late.s" "$TMP/blk-late.s"
ok "... the bad line named at its line of its file" grep -q "late.jsonl: line $((n + 2)): bad JSON at byte 1" "$TMP/blk-late.err"
ok "... a number for text has no \"text\" string" grep -q "late.jsonl: line $((n + 1)): document has no \"text\" string" "$TMP/blk-late.err"
ok "... nor has null" grep -q "late.jsonl: line $((n + 3)): document has no \"text\" string" "$TMP/blk-late.err"
ok "... three failed, none written" grep -q '"failed": 3' "$TMP/blk-late.stats"
# winnow run's shards step (the tokenizer handing ids straight to the shard writer, its stats counted)
# through the block path: the same shard directory, per-rank stats and report as through the engine path
mkdir -p "$TMP/pin"
cp "$SHARED/jsonl/dolma/tests/data/multiple_files/cc_en_head-0091.jsonl.gz" "$TMP/pin/a.jsonl.gz"
cp "$SHARED/jsonl/olmo/test_fixtures/c4-sample.01.json.gz" "$TMP/pin/b.jsonl.gz"
for m in ref blk; do
    printf 'input = pin/*\nwork = w-%s\noutput = o-%s\ntasks = 2\n[tokenize]\nencoding = cl100k_base\nvocab = %s\nno-eos\n[shard]\nvocab-size = 100277\ntokenizer = cl100k_base\nvocab = %s\neos = 100257\n' \
        $m $m "$VOCAB" "$VOCAB" > "$TMP/$m.pipeline"
done
"$WINNOW" run -q "$TMP/ref.pipeline"; is "$?" 0 "winnow run, engine path: exit 0"
WINNOW_TOKENIZE_BLOCKS=cpu "$WINNOW" run -q "$TMP/blk.pipeline"; is "$?" 0 "winnow run, block path: exit 0"
ok "winnow run through the block path: the same shard directory" diff -r "$TMP/o-ref" "$TMP/o-blk"
for f in shard/00000 shard/00001 tokenize/00000 tokenize/00001; do
    grep -v '"seconds"' "$TMP/w-ref/stats/$f.json" > "$TMP/ref.rs"; grep -v '"seconds"' "$TMP/w-blk/stats/$f.json" > "$TMP/blk.rs"
    ok "... the same WORK/stats/$f.json" cmp "$TMP/ref.rs" "$TMP/blk.rs"
done
ok "... its shard stage counted the documents in" grep -q '"in": [1-9]' "$TMP/w-blk/stats/shard/00000.json"
grep -v '"seconds"\|"pipeline"' "$TMP/w-ref/report.json" > "$TMP/ref.rr"; grep -v '"seconds"\|"pipeline"' "$TMP/w-blk/report.json" > "$TMP/blk.rr"
ok "... the same report" cmp "$TMP/ref.rr" "$TMP/blk.rr"
WINNOW_TOKENIZE_BLOCKS=tpu tok --format bin "$TMP/edge.jsonl" > /dev/null 2> "$TMP/bad.err"
is "$?" 1 "an unknown WINNOW_TOKENIZE_BLOCKS is a usage error"
done_testing
