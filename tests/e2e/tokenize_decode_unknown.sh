#!/bin/sh
# tokenize_decode_unknown.sh - `winnow tokenize --decode` of ids the
# vocabulary lacks: a --format bin document holding one is counted failed
# (unknown_id), named (file, document, offset, the first bad id) and not
# written, rather than written as its text without those ids; the documents
# around it are decoded; --ids with one is refused (exit 1) and writes
# nothing. For a .tiktoken vocabulary (cl100k_base: ids past it, and 100256,
# a hole inside it) and for a tokenizer.json (its decoder path);
# tokenize_sp.sh checks a SentencePiece .model's.
. tests/lib.sh
V=$SHARED/vocab
require_file $V/tiktoken/cl100k_base.tiktoken
CL="--encoding cl100k_base --vocab $V/tiktoken/cl100k_base.tiktoken"
# u32 little-endian words, written as bytes: le32 N...
le32() { for n in "$@"; do printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255)))"; done; }
counts() { python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
print(s['in'], s['out'], s['failed'], json.dumps(s['failed_by_kind']), s['extra'].get('tokens'))" "$1"; }

# --- cl100k_base: hello | hello + an id past the vocabulary | " world" + the hole 100256 | world ---
# (15339 "hello", 1917 " world", 14957 "world"; 100256 lies between <|endoftext|> 100257's
# ordinary neighbours and is no token)
{ le32 1 15339; le32 2 15339 16777215; le32 2 1917 100256; le32 1 14957; } > $TMP/cl.bin
$WINNOW tokenize -q --decode $CL --stats $TMP/cl.json $TMP/cl.bin > $TMP/cl.jsonl 2> $TMP/cl.err
is "$?" 0 "cl100k: documents with unknown ids are counted failures, not a fatal error: exit 0"
is "$(cat $TMP/cl.jsonl | tr '\n' '|')" '{"text":"hello"}|{"text":"world"}|' \
    "cl100k: only the documents whose ids are all known are written, whole"
is "$(counts $TMP/cl.json)" '4 2 2 {"unknown_id": 2} 2' "cl100k: in 4 = out 2 + failed 2 (unknown_id); tokens of the written ones"
ok "cl100k: the first failure names file, document, offset and the id" \
    grep -q "cl.bin: document 1 at offset 8: id 16777215 (id 2 of 2) is not in the vocabulary of cl100k_base; document skipped" $TMP/cl.err
ok "cl100k: the hole 100256 is unknown too" \
    grep -q "cl.bin: document 2 at offset 20: id 100256 (id 2 of 2) is not in the vocabulary" $TMP/cl.err

# --- --ids: refused whole, nothing written ---
$WINNOW tokenize -q --decode $CL --ids 15339,100300,1917 > $TMP/ids.out 2> $TMP/ids.err
is "$?" 1 "--ids with an unknown id: exit 1 (the list given is wrong)"
is "$(wc -c < $TMP/ids.out | tr -d ' ')" 0 "--ids with an unknown id: nothing written to stdout"
ok "--ids: the message names the id and its place" \
    grep -q -- "--ids: id 100300 (id 2 of 3) is not in the vocabulary of cl100k_base; nothing written" $TMP/ids.err
$WINNOW tokenize -q --decode $CL --ids 15339,100256 -o $TMP/ids.txt 2> /dev/null
ok "--ids -o FILE with an unknown id: no FILE" test ! -e $TMP/ids.txt
is "$($WINNOW tokenize -q --decode $CL --ids 15339,1917)" "hello world" "--ids of known ids: their text"

# --- a tokenizer.json (WordLevel; decoded through its decoder, Fuse: the pieces joined) ---
cat > $TMP/wl.json <<'EOF'
{"version": "1.0", "normalizer": null, "pre_tokenizer": {"type": "WhitespaceSplit"},
 "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "ab": 1, "cd": 2}, "unk_token": "[UNK]"},
 "added_tokens": [], "post_processor": null,
 "decoder": {"type": "Fuse"}}
EOF
{ le32 2 1 2; le32 3 1 3 2; le32 1 2; } > $TMP/wl.bin
$WINNOW tokenize -q --vocab $TMP/wl.json --decode --stats $TMP/wl.stats $TMP/wl.bin > $TMP/wl.jsonl 2> $TMP/wl.err
is "$?" 0 "tokenizer.json: exit 0"
is "$(cat $TMP/wl.jsonl | tr '\n' '|')" '{"text":"abcd"}|{"text":"cd"}|' "tokenizer.json: the document with id 3 is not written"
is "$(counts $TMP/wl.stats)" '3 2 1 {"unknown_id": 1} 3' "tokenizer.json: in 3 = out 2 + failed 1 (unknown_id)"
ok "tokenizer.json: named" grep -q "wl.bin: document 1 at offset 12: id 3 (id 2 of 3) is not in the vocabulary of wl.json" $TMP/wl.err
$WINNOW tokenize -q --vocab $TMP/wl.json --decode --ids 1,7 > $TMP/wl.out 2> /dev/null
is "$?/$(wc -c < $TMP/wl.out | tr -d ' ')" "1/0" "tokenizer.json --ids with an unknown id: exit 1, nothing written"
done_testing
