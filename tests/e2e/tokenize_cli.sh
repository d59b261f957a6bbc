#!/bin/sh
# tokenize_cli.sh - winnow tokenize and winnow vocab end to end: exact ids
# through the CLI (bin and jsonl, any -j), decoding back (its counts in --stats,
# cut and missing streams, --ids to -o), BOS/EOS and special tokens, the Llama 3
# vectors, a Hugging Face tokenizer.json made from GPT-2's encoder.json +
# vocab.bpe, the vocabulary cache, bad input accounting.
. tests/lib.sh
command -v python3 >/dev/null || skip_all "python3 missing"
V=$SHARED/vocab
R=$SHARED/tokref
PY="python3 scripts/tokenize_tokref.py"
export WINNOW_CACHE="$TMP/cache"
CL="--encoding cl100k_base --vocab $V/tiktoken/cl100k_base.tiktoken"

# --- exact ids through the CLI, edge corpus, every encoding ---
$PY jsonl $R/edge.txt.zst $R/edge.idx.tsv > $TMP/edge.jsonl
for enc in gpt2:tiktoken/r50k_base.tiktoken cl100k_base:tiktoken/cl100k_base.tiktoken \
           o200k_base:tiktoken/o200k_base.tiktoken llama3:llama3/tokenizer.model; do
    name=${enc%%:*}; file=${enc#*:}
    $WINNOW tokenize -q -j2 --encoding $name --vocab $V/$file --format bin --no-eos $TMP/edge.jsonl > $TMP/$name.bin
    zstd -dc $R/edge.$name.bin.zst > $TMP/$name.want
    ok "edge: $name ids through the CLI equal tiktoken's" cmp $TMP/$name.bin $TMP/$name.want
done

# the same ids as JSONL, with -j1 and -j2 identical
$WINNOW tokenize -q -j1 $CL --no-eos $TMP/edge.jsonl > $TMP/j1.jsonl
$WINNOW tokenize -q -j2 $CL --no-eos $TMP/edge.jsonl > $TMP/j2.jsonl
ok "jsonl output is the same for -j1 and -j2" cmp $TMP/j1.jsonl $TMP/j2.jsonl
ok "jsonl tokens arrays equal the bin stream" $PY binjsonl $TMP/cl100k_base.bin $TMP/j1.jsonl
is "$(wc -l < $TMP/j1.jsonl | tr -d ' ')" 138 "jsonl: one line per document"

# en_code subset (FULL=1: everything) through the CLI, zstd-compressed input;
# 600 documents are about 5 MB, more than one engine batch, so -j2 has batches
# in flight together and the order of the output is tested
N=600; [ -n "$FULL" ] && N=0
$PY jsonl $R/en_code.txt.zst $R/en_code.idx.tsv $N | zstd -q > $TMP/en.jsonl.zst
for name in cl100k_base o200k_base; do
    $WINNOW tokenize -q -j2 --encoding $name --vocab $V/tiktoken/$name.tiktoken --format bin --no-eos $TMP/en.jsonl.zst > $TMP/en.bin
    if [ -n "$FULL" ]; then zstd -dc $R/en_code.$name.bin.zst > $TMP/en.want; else $PY refcut $R/en_code.$name.bin.zst $N > $TMP/en.want; fi
    ok "en_code ($N docs, 0 = all): $name ids equal tiktoken's" cmp $TMP/en.bin $TMP/en.want
done
if [ -n "$FULL" ]; then
    $PY jsonl $R/multi.txt.zst $R/multi.idx.tsv > $TMP/multi.jsonl
    for name in gpt2 cl100k_base o200k_base; do
        f=$name; [ $name = gpt2 ] && f=r50k_base
        $WINNOW tokenize -q --encoding $name --vocab $V/tiktoken/$f.tiktoken --format bin --no-eos $TMP/multi.jsonl > $TMP/m.bin
        zstd -dc $R/multi.$name.bin.zst > $TMP/m.want
        ok "multi: $name ids equal tiktoken's" cmp $TMP/m.bin $TMP/m.want
    done
fi

# --- decode gives the text back ---
$WINNOW tokenize -q --decode $CL $TMP/cl100k_base.bin > $TMP/dec.jsonl
$PY texts $TMP/dec.jsonl > $TMP/dec.txt
$PY texts $TMP/edge.jsonl > $TMP/orig.txt
ok "--decode turns the bin stream back into the documents' text" cmp $TMP/dec.txt $TMP/orig.txt
# a stream cut inside its last document: the documents before it decoded, the cut reported, exit 2
head -c $(($(wc -c < $TMP/cl100k_base.bin) - 2)) $TMP/cl100k_base.bin > $TMP/cut.bin
$WINNOW tokenize -q --decode $CL $TMP/cut.bin > $TMP/cut.jsonl 2> $TMP/cut.err
is "$?" 2 "--decode of a stream cut inside a document exits 2"
docs=$(wc -l < $TMP/edge.jsonl)
ok "and says where the cut document began" grep -q "cut.bin: document $((docs - 1)) at offset [0-9]*: stream ends inside the document" $TMP/cut.err
is "$(python3 -c 'import json, sys
cut = [json.loads(l)["text"] for l in open(sys.argv[1], encoding="utf-8")]
orig = [json.loads(l)["text"] for l in open(sys.argv[2], encoding="utf-8")]
print(len(cut), cut == orig[:len(cut)])' $TMP/cut.jsonl $TMP/edge.jsonl)" "$((docs - 1)) True" "every document before the cut is decoded"
# a stream cut inside the next document's u32 count (2 of its 4 bytes): the same
size=$(wc -c < $TMP/cl100k_base.bin)
{ cat $TMP/cl100k_base.bin; printf '\005\000'; } > $TMP/cutcount.bin
$WINNOW tokenize -q --decode $CL $TMP/cutcount.bin > $TMP/cutcount.jsonl 2> $TMP/cutcount.err
is "$?" 2 "--decode of a stream cut inside a document's count exits 2"
ok "and names the document and its offset" grep -q "cutcount.bin: document $docs at offset $size: stream ends inside the document" $TMP/cutcount.err
ok "every whole document before it is decoded" cmp $TMP/cutcount.jsonl $TMP/dec.jsonl
# --decode --stats: the documents read (in), decoded (out) and cut (failed), counted
# from the stream itself by Python: in = out + failed
statline() { python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
print(s["in"], s["out"], s["failed"], s["failed_by_kind"], s["extra"].get("tokens"), s["bytes_in"], s["bytes_out"], s["balanced"])' "$1"; }
wantstat() { python3 -c 'import os, struct, sys
data = open(sys.argv[1], "rb").read(); out = os.path.getsize(sys.argv[2])
at = docs = cut = ids = 0
while at < len(data):
    if at + 4 > len(data): cut = 1; break
    n = struct.unpack_from("<I", data, at)[0]
    if at + 4 + 4 * n > len(data): cut = 1; break
    docs += 1; ids += n; at += 4 + 4 * n
print(docs + cut, docs, cut, {"truncated_document": cut} if cut else {}, ids, len(data), out, "True")' "$1" "$2"; }
$WINNOW tokenize -q --decode $CL --stats $TMP/dstats.json $TMP/cl100k_base.bin > $TMP/dstats.jsonl
is "$(statline $TMP/dstats.json)" "$(wantstat $TMP/cl100k_base.bin $TMP/dstats.jsonl)" "--decode --stats: in, out, tokens and bytes of a whole stream"
$WINNOW tokenize -q --decode $CL --stats $TMP/dstats.json $TMP/cutcount.bin > $TMP/dstats.jsonl 2> /dev/null
is "$(statline $TMP/dstats.json)" "$(wantstat $TMP/cutcount.bin $TMP/dstats.jsonl)" "--decode --stats: the cut document counted failed (truncated_document)"
# --decode drops nothing: --rejects is refused; --ids decodes no stream: --stats is refused
$WINNOW tokenize -q --decode $CL --rejects $TMP/r.jsonl $TMP/cl100k_base.bin > /dev/null 2> $TMP/e
is "$?" 1 "--decode --rejects: exit 1"
$WINNOW tokenize -q --decode $CL --ids 15339 --stats $TMP/s.json > /dev/null 2> $TMP/e
is "$?" 1 "--decode --ids --stats: exit 1"
# --decode writes JSON lines whatever --format says: a --format with it is refused, not ignored
$WINNOW tokenize -q --decode $CL --format bin $TMP/cl100k_base.bin > $TMP/fmt.out 2> $TMP/e
is "$?" 1 "--decode --format: exit 1"
ok "... naming --format, writing nothing" sh -c "grep -q -- '--format does not go with --decode' $TMP/e && ! test -s $TMP/fmt.out"
# a stream that cannot be opened: named, exit 2, the streams after it decoded
$WINNOW tokenize -q --decode $CL $TMP/nosuch.bin $TMP/cl100k_base.bin > $TMP/nosuch.jsonl 2> $TMP/nosuch.err
is "$?" 2 "--decode of a missing stream exits 2"
ok "and names it" grep -q "nosuch.bin" $TMP/nosuch.err
ok "the stream after it is decoded" cmp $TMP/nosuch.jsonl $TMP/dec.jsonl
# damaged compression: a zstd frame of the stream cut after its header, before
# anything decodes; the reader reports it and --decode exits 2 (as tokenize, filter,
# dedup and shard do), not 0 with no documents
zstd -q -c $TMP/cl100k_base.bin | head -c 20 > $TMP/damaged.bin.zst
$WINNOW tokenize -q --decode $CL $TMP/damaged.bin.zst > $TMP/damaged.jsonl 2> $TMP/damaged.err
is "$?" 2 "--decode of a truncated zstd frame exits 2"
ok "and the reader names the damage" grep -q "damaged.bin.zst: truncated zstd frame at offset 20 (compressed), 0 bytes decoded" $TMP/damaged.err
is "$(wc -c < $TMP/damaged.jsonl | tr -d ' ')" 0 "nothing decoded, nothing written"

is "$($WINNOW tokenize -q --decode $CL --ids 15339,100257)" "hello<|endoftext|>" "--decode --ids writes the ids' text"
$WINNOW tokenize -q --decode $CL --ids 15339,100257 -o $TMP/ids.txt > $TMP/ids.stdout
is "$(cat $TMP/ids.txt)/$(wc -c < $TMP/ids.stdout | tr -d ' ')" "hello<|endoftext|>/0" "--decode --ids -o FILE writes the text to FILE, not stdout"
# cl100k_base has no id 100300 (its last is 100276): reported, counted, left out, exit 2
$WINNOW tokenize -q --decode $CL --ids 15339,100300 > $TMP/unknown.out 2> $TMP/unknown.err
is "$?" 1 "--decode --ids with an unknown id exits 1 (tokenize_decode_unknown.sh has more)"
is "$(wc -c < $TMP/unknown.out | tr -d ' ')" 0 "--decode --ids with an unknown id writes nothing"
ok "and names the id" grep -q -- "--ids: id 100300 (id 2 of 2) is not in the vocabulary" $TMP/unknown.err

# --- EOS/BOS and special tokens ---
printf '{"text":"hello<|endoftext|>"}\n' > $TMP/sp.jsonl
is "$($WINNOW tokenize -q $CL $TMP/sp.jsonl)" '{"text":"hello<|endoftext|>","tokens":[15339,27,91,8862,728,428,91,29,100257]}' \
    "special text is ordinary by default; EOS appended"
is "$($WINNOW tokenize -q $CL --allow-special --no-eos $TMP/sp.jsonl)" '{"text":"hello<|endoftext|>","tokens":[15339,100257]}' \
    "--allow-special recognises <|endoftext|>"
is "$($WINNOW tokenize -q $CL --bos --no-eos $TMP/sp.jsonl | cut -c1-60)" '{"text":"hello<|endoftext|>","tokens":[100257,15339,27,91,88' \
    "--bos puts <|endoftext|> first for cl100k_base"
# every special token of each encoding, ids from tiktoken 0.x (npm tiktoken,
# encode(text, "all")) on the same texts
for c in 'r50k_base:r50k_base:a<|endoftext|>c:64,50256,66' \
         'p50k_base:p50k_base:a<|endoftext|>c:64,50256,66' \
         'p50k_edit:p50k_base:a<|endoftext|>b<|fim_prefix|>b<|fim_middle|>b<|fim_suffix|>c:64,50256,65,50281,65,50282,65,50283,66' \
         'cl100k_base:cl100k_base:a<|endoftext|>b<|fim_prefix|>b<|fim_middle|>b<|fim_suffix|>b<|endofprompt|>c:64,100257,65,100258,65,100259,65,100260,65,100276,66' \
         'o200k_base:o200k_base:a<|endoftext|>b<|endofprompt|>c:64,199999,65,200018,66'; do
    enc=${c%%:*}; rest=${c#*:}; file=${rest%%:*}; rest=${rest#*:}; text=${rest%:*}; want=${rest##*:}
    printf '{"text":"%s"}\n' "$text" > $TMP/specials.jsonl
    is "$($WINNOW tokenize -q --encoding $enc --vocab $V/tiktoken/$file.tiktoken --allow-special --no-eos $TMP/specials.jsonl)" \
        "{\"text\":\"$text\",\"tokens\":[$want]}" "$enc: every special token gets tiktoken's id"
done
# tiktoken reads its files with splitlines(): a copy with CRLF line ends gives the same ids
sed 's/$/\r/' $V/tiktoken/r50k_base.tiktoken > $TMP/crlf.tiktoken
$WINNOW tokenize -q -j2 --pattern gpt2 --vocab $TMP/crlf.tiktoken --format bin --no-eos $TMP/edge.jsonl > $TMP/crlf.bin
ok "a tiktoken file with CRLF line ends gives tiktoken's gpt2 ids on edge" cmp $TMP/crlf.bin $TMP/gpt2.want
# tiktoken skips blank lines (if line); three at the start are three 0x0A bytes, as a SentencePiece
# .model starts (tag 0x0A, a length, tag 0x0A): still read as a tiktoken file
{ printf '\n\n\n'; cat $V/tiktoken/r50k_base.tiktoken; } > $TMP/blank.tiktoken
$WINNOW tokenize -q -j2 --pattern gpt2 --vocab $TMP/blank.tiktoken --format bin --no-eos $TMP/edge.jsonl > $TMP/blank.bin
ok "a tiktoken file starting with three blank lines gives tiktoken's gpt2 ids on edge" cmp $TMP/blank.bin $TMP/gpt2.want

# --- Llama 3 vectors (llama3-tokenizer-js): encode with specials, bos/eos matrix, decode ---
# One JSONL input and one expected output per flag combination, one bin stream for decoding.
python3 - "$SHARED/vectors/llama3/llama3_vectors_extracted.json" "$TMP/l3" <<'PY'
import json, sys
v, base = json.load(open(sys.argv[1])), sys.argv[2]
groups, dec_ids, dec_text = {}, b"", []
for c in v:
    if c["kind"] in ("encode", "encode_and_decode"):
        o = c.get("options") or "{ bos: false, eos: false }"
        flags = ("bos" if "bos: true" in o or "default" in o else "no-bos") + "." + \
                ("eos" if "eos: true" in o or "default" in o else "no-eos")
        line = json.dumps({"text": c["text"]})
        g = groups.setdefault(flags, ([], []))
        g[0].append(line)
        g[1].append(line[:-1] + ',"tokens":' + json.dumps(c["ids"], separators=(",", ":")) + "}")
    if c["kind"] in ("decode", "encode_and_decode"):
        dec_ids += len(c["ids"]).to_bytes(4, "little") + b"".join(x.to_bytes(4, "little") for x in c["ids"])
        dec_text.append(c["text"])
for flags, (inp, want) in groups.items():
    open("%s.%s.jsonl" % (base, flags), "w").write("\n".join(inp) + "\n")
    open("%s.%s.want" % (base, flags), "w").write("\n".join(want) + "\n")
open(base + ".dec.bin", "wb").write(dec_ids)
json.dump(dec_text, open(base + ".dec.want", "w"))
PY
L3="--encoding llama3 --vocab $V/llama3/tokenizer.model"
bad=0; n=0
for f in $TMP/l3.*.jsonl; do
    flags=$(basename $f .jsonl); flags=${flags#l3.}
    $WINNOW tokenize -q $L3 --allow-special --${flags%.*} --${flags#*.} $f > $TMP/l3.got
    n=$((n + $(wc -l < $f)))
    cmp -s $TMP/l3.got $TMP/l3.$flags.want || { bad=$((bad+1)); diff $TMP/l3.got $TMP/l3.$flags.want | sed 's/^/# /' | head -5; }
done
is "$bad groups differ, $n vectors" "0 groups differ, 20 vectors" "llama3: all 20 encode vectors give Meta's ids (with --allow-special, --bos/--eos as each says)"
$WINNOW tokenize -q $L3 --decode $TMP/l3.dec.bin > $TMP/l3.dec.got
ok "llama3: all 20 decode vectors give their text" python3 -c "
import json, sys
got = [json.loads(l)['text'] for l in open('$TMP/l3.dec.got', encoding='utf-8')]
sys.exit(0 if got == json.load(open('$TMP/l3.dec.want')) and len(got) == 20 else 1)"

# --- HF tokenizer.json (ByteLevel; and Split+ByteLevel with [a,b] merges) from GPT-2's files ---
python3 - "$V" "$TMP" <<'PY'
import json, sys
v, tmp = sys.argv[1], sys.argv[2]
enc = json.load(open(v + "/gpt2/encoder.json"))
merges = [l for l in open(v + "/gpt2/vocab.bpe", encoding="utf-8").read().split("\n")[1:] if l]
pat = json.load(open(v + "/encodings.json"))["gpt2"]["pat_str"]
added = [{"id": 50256, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False,
          "normalized": True, "special": True}]
tj = {"version": "1.0", "added_tokens": added, "normalizer": None,
      "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
      "post_processor": None, "decoder": {"type": "ByteLevel"},
      "model": {"type": "BPE", "dropout": None, "unk_token": None, "vocab": enc, "merges": merges}}
json.dump(tj, open(tmp + "/bytelevel.json", "w"), ensure_ascii=False)
tj["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"Regex": pat}, "behavior": "Isolated", "invert": False},
    {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}
tj["model"]["merges"] = [m.split(" ") for m in merges]
json.dump(tj, open(tmp + "/split.json", "w"))
PY
for f in bytelevel split; do
    $WINNOW tokenize -q --vocab $TMP/$f.json --format bin --no-eos $TMP/edge.jsonl > $TMP/hf.bin
    ok "HF tokenizer.json ($f) gives tiktoken's gpt2 ids on edge" cmp $TMP/hf.bin $TMP/gpt2.want
done
is "$($WINNOW tokenize -q --vocab $TMP/split.json $TMP/sp.jsonl)" '{"text":"hello<|endoftext|>","tokens":[31373,27,91,437,1659,5239,91,29,50256]}' \
    "HF: <|endoftext|> from added_tokens is the EOS"

# --- tokenized again: the new "tokens" replace the old, whatever their place or
# escaping (tiktoken's block path and a tokenizer.json's stage path) ---
printf '%s\n' '{"tokens":[1], "text":"hello world","x":1}' '{"text":"a \"q\\\\\" tokens","\u0074okens":3,"y":{"tokens":5}}' > $TMP/again.jsonl
$WINNOW tokenize -q --vocab $V/tiktoken/cl100k_base.tiktoken --encoding cl100k_base $TMP/again.jsonl > $TMP/again1.jsonl
$WINNOW tokenize -q --vocab $TMP/split.json $TMP/again1.jsonl > $TMP/again2.jsonl
cat > $TMP/again.py <<'PY'
import json, sys
def pairs(p):
    names = [k for k, _ in p]
    if len(names) != len(set(names)):
        raise SystemExit("a name twice: %r" % names)
    return dict(p)
for line in open(sys.argv[1]):
    d = json.loads(line, object_pairs_hook=pairs)
    print(len(d["tokens"]), sorted(d))
PY
is "$(python3 $TMP/again.py $TMP/again1.jsonl 2>&1 | tr '\n' ';')" "3 ['text', 'tokens', 'x'];6 ['text', 'tokens', 'y'];" \
    "tokenized once: the old tokens members replaced, the nested one kept"
is "$(python3 $TMP/again.py $TMP/again2.jsonl 2>&1 | tr '\n' ';')" "3 ['text', 'tokens', 'x'];7 ['text', 'tokens', 'y'];" \
    "tokenized twice: one tokens member, the second tokenizer's"

# --- the vocabulary cache ---
ok "vocab fetch --from refuses a file with the wrong hash" sh -c "! $WINNOW vocab fetch -q cl100k_base --from $V/tiktoken/o200k_base.tiktoken"
ok "tokenize without a cached vocabulary says how to get one" sh -c "! $WINNOW tokenize -q --encoding o200k_base $TMP/sp.jsonl"
ok "vocab fetch --from installs a verified file" $WINNOW vocab fetch -q o200k_base --from $V/tiktoken/o200k_base.tiktoken
is "$($WINNOW vocab path o200k_base)" "$WINNOW_CACHE/o200k_base.tiktoken" "vocab path names the cached file"
is "$($WINNOW tokenize -q --encoding o200k_base --no-eos $TMP/sp.jsonl)" '{"text":"hello<|endoftext|>","tokens":[24912,27,91,419,1440,919,91,29]}' \
    "--encoding finds the cached vocabulary"
$WINNOW vocab list > $TMP/list
ok "vocab list: the fetched o200k_base is cached" grep -Eq "^o200k_base +cached +[0-9a-f]{64}  $WINNOW_CACHE/o200k_base.tiktoken\$" $TMP/list
ok "vocab list: cl100k_base, not fetched, is missing" grep -Eq "^cl100k_base +missing " $TMP/list
# a cached file changed after its fetch (a cut copy, an edit) is not "cached": it would fail at load
head -c 1000 $V/tiktoken/r50k_base.tiktoken > $WINNOW_CACHE/r50k_base.tiktoken
$WINNOW vocab list > $TMP/list
ok "vocab list: a cached file whose sha256 differs is corrupt" grep -Eq "^r50k_base +corrupt " $TMP/list
ok "vocab list: ... and o200k_base is still cached" grep -Eq "^o200k_base +cached " $TMP/list
rm -f $WINNOW_CACHE/r50k_base.tiktoken
# a fresh cache whose parent folders do not exist yet (~/.cache on a new machine): made as mkdir -p
WINNOW_CACHE=$TMP/fresh/a/b $WINNOW vocab fetch -q o200k_base --from $V/tiktoken/o200k_base.tiktoken
is "$?" 0 "vocab fetch into a cache folder whose parents do not exist exits 0"
ok "... and installs the file there" cmp $TMP/fresh/a/b/o200k_base.tiktoken $V/tiktoken/o200k_base.tiktoken
# without WINNOW_CACHE the cache is \$XDG_CACHE_HOME/winnow, else ~/.cache/winnow (XDG base directories)
is "$(env -u WINNOW_CACHE XDG_CACHE_HOME=$TMP/xdg $WINNOW vocab path gpt2)" "$TMP/xdg/winnow/r50k_base.tiktoken" \
    "vocab path without WINNOW_CACHE: \$XDG_CACHE_HOME/winnow"
is "$(env -u WINNOW_CACHE -u XDG_CACHE_HOME HOME=$TMP/home $WINNOW vocab path gpt2)" "$TMP/home/.cache/winnow/r50k_base.tiktoken" \
    "vocab path without either: ~/.cache/winnow"
ok "--encoding with a --vocab of another encoding is refused" sh -c "! $WINNOW tokenize -q --encoding o200k_base --vocab $V/tiktoken/cl100k_base.tiktoken $TMP/sp.jsonl"

# --- option values out of range are refused, never ignored ---
$WINNOW tokenize -q $CL --shard-tokens 0 -o $TMP/zero_shards/ $TMP/sp.jsonl 2>$TMP/zero.err; rc=$?
is "$rc" 1 "--shard-tokens 0 is a usage error (exit 1)"
ok "--shard-tokens 0: the message says a positive count is wanted" grep -q -- "--shard-tokens wants a positive count, not '0'" $TMP/zero.err

# --- bad input is counted and reported, never lost ---
printf '{"text":"a b"}\nnot json\n{"id":"x"}\n{"text":"c"}\n' > $TMP/bad.jsonl
$WINNOW tokenize -q $CL --format bin --stats $TMP/stats.json $TMP/bad.jsonl > $TMP/bad.bin 2>$TMP/bad.err
is "$(python3 -c "import json; s=json.load(open('$TMP/stats.json')); print(s['in'], s['out'], s['failed'])")" "4 2 2" \
    "stats: 4 in = 2 out + 2 failed"
is "$(wc -c < $TMP/bad.bin | tr -d ' ')" 28 "bin: only the two good documents are written ((4 + 3*4) + (4 + 2*4) bytes)"
ok "bad line reported with its line number" grep -q "line 2" $TMP/bad.err
ok "bad flag exits 1" sh -c "$WINNOW tokenize --format xml </dev/null; [ \$? -eq 1 ]"
ok "--help lists --allow-special" sh -c "$WINNOW tokenize --help | grep -q -- --allow-special"
done_testing
