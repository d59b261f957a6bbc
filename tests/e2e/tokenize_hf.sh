#!/bin/sh
# tokenize_hf.sh - Hugging Face tokenizer.json files through the CLI: exact
# ids (bin, -j2, --allow-special as HF's encode) for the real files, the
# BOS/EOS defaults their post_processor sets, --decode through their decoder
# (text back exactly where the normalizer keeps it; HF's own text for byte
# runs that are not UTF-8 and for Metaspace decoders), refusals that name the
# JSON path, and pipelines the GPU does not implement staying on the CPU.
. tests/lib.sh
command -v python3 >/dev/null || skip_all "python3 missing"
R=$SHARED/tokref
H=$SHARED/vocab/hf
PY="python3 scripts/tokenize_tokref.py"
$PY jsonl $R/edge.txt.zst $R/edge.idx.tsv > $TMP/edge.jsonl
$PY jsonl $R/blns.txt.zst $R/blns.idx.tsv > $TMP/blns.jsonl
for f in llama2 gemma3 qwen3 deepseek_v3 mistral_nemo command_r_plus; do zstd -dcq $H/$f.tokenizer.json.zst > $TMP/$f.json; done

# --- exact ids through the CLI (qwen3 shares qwen2_5's reference) ---
for f in llama2:llama2 gemma3:gemma3 qwen3:qwen2_5 deepseek_v3:deepseek_v3; do
    name=${f%%:*}; ref=${f#*:}
    $WINNOW tokenize -q -j2 --vocab $TMP/$name.json --format bin --allow-special --no-eos --no-bos $TMP/edge.jsonl > $TMP/$name.bin
    zstd -dc $R/hf/edge.$ref.bin.zst > $TMP/$name.want
    ok "edge: $name ids through the CLI equal HF tokenizers'" cmp $TMP/$name.bin $TMP/$name.want
done

# --- BOS/EOS: the post_processor's template gives the ids and the defaults ---
echo '{"text":"Hello"}' > $TMP/one.jsonl
is "$($WINNOW tokenize -q --vocab $TMP/llama2.json $TMP/one.jsonl)" '{"text":"Hello","tokens":[1,22557]}' \
    "llama2: <s> first by default (its template), no EOS"
is "$($WINNOW tokenize -q --vocab $TMP/llama2.json --no-bos $TMP/one.jsonl)" '{"text":"Hello","tokens":[22557]}' \
    "llama2: --no-bos leaves it out"
$WINNOW tokenize -q --vocab $TMP/llama2.json --format shards -o $TMP/llama2_shards/ $TMP/one.jsonl
is "$($WINNOW shards cat $TMP/llama2_shards)" "1 22557" "llama2 --format shards: the writer puts <s> first (BOS on, EOS off)"
$WINNOW tokenize -q --vocab $TMP/qwen3.json --format shards -o $TMP/qwen3_shards/ $TMP/one.jsonl
is "$($WINNOW shards cat $TMP/qwen3_shards)" "9707 151643" "qwen3 --format shards: <|endoftext|> last, no BOS (EOS on, BOS off)"
is "$($WINNOW tokenize -q --vocab $TMP/gemma3.json $TMP/one.jsonl)" '{"text":"Hello","tokens":[2,9259]}' \
    "gemma3: <bos> first by default"
is "$($WINNOW tokenize -q --vocab $TMP/qwen3.json $TMP/one.jsonl)" '{"text":"Hello","tokens":[9707,151643]}' \
    "qwen3 (no template): <|endoftext|> after the document, as for tiktoken files"
ok "deepseek_v3 (no template, no <|endoftext|>): --eos says there is no end-of-text token" \
    sh -c "! $WINNOW tokenize -q --vocab $TMP/deepseek_v3.json --eos $TMP/one.jsonl"
is "$($WINNOW tokenize -q --vocab $TMP/deepseek_v3.json $TMP/one.jsonl)" '{"text":"Hello","tokens":[19923]}' \
    "deepseek_v3: nothing added by default"
is "$($WINNOW tokenize -q --vocab $TMP/command_r_plus.json $TMP/one.jsonl)" '{"text":"Hello","tokens":[5,28339]}' \
    "command_r_plus: <BOS_TOKEN> first; its two-token ending is not an EOS"

# --- special-token strings in the text: ordinary text by default, ids with --allow-special ---
echo '{"text":"a<tool_call>b"}' > $TMP/sp.jsonl
# (the ordinary ids are HF's for the same file with <tool_call> taken out of added_tokens)
is "$($WINNOW tokenize -q --vocab $TMP/qwen3.json --no-eos $TMP/sp.jsonl)" '{"text":"a<tool_call>b","tokens":[64,27,14172,13429,51407]}' \
    "qwen3: <tool_call> in the text is ordinary text by default"
is "$($WINNOW tokenize -q --vocab $TMP/qwen3.json --no-eos --allow-special $TMP/sp.jsonl)" '{"text":"a<tool_call>b","tokens":[64,151657,65]}' \
    "qwen3: --allow-special matches the (non-special) added token, as HF's encode"

# --- single_word tests Rust regex's \w (HF): circled and squared letters (So) are
# Alphabetic, so the middle ⓗ of Ⓣⓗⓔ and the ⓗ before 🄰 are no single words;
# ids from HF tokenizers 0.23.2 (encode(text, add_special_tokens=false)) ---
zstd -dcq $H/gpt2.tokenizer.json.zst | python3 -c '
import json, sys
t = json.load(sys.stdin)
t["added_tokens"].append({"id": 50257, "content": "\u24d7", "single_word": True, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": False})
json.dump(t, open(sys.argv[1], "w"))' $TMP/single_word.json
printf '{"text":"\342\223\211\342\223\227\342\223\224 \342\223\227 q\302\252\342\223\227 \342\223\227\360\237\204\260"}\n' > $TMP/sw.jsonl
is "$($WINNOW tokenize -q --vocab $TMP/single_word.json --no-eos --allow-special --format bin $TMP/sw.jsonl | od -An -tu4 -v | xargs | tr ' ' ,)" \
    23,158,241,231,158,241,245,158,241,242,220,50257,10662,126,103,158,241,245,2343,241,245,8582,226,108 \
    "single_word: only the ⓗ between spaces is the added token, as HF"

# --- --decode through the decoder: the text comes back ---
for name in llama2 gemma3 deepseek_v3 mistral_nemo; do
    $WINNOW tokenize -q --vocab $TMP/$name.json --format bin --no-eos --no-bos $TMP/blns.jsonl > $TMP/d.bin
    $WINNOW tokenize -q --vocab $TMP/$name.json --decode $TMP/d.bin > $TMP/d.jsonl
    ok "$name: --decode gives back every blns string" python3 -c "
import json, sys
a = [json.loads(l)['text'] for l in open('$TMP/blns.jsonl', encoding='utf-8')]
b = [json.loads(l)['text'] for l in open('$TMP/d.jsonl', encoding='utf-8')]
sys.exit(0 if a == b and len(a) == 514 else 1)"
done

# --- --decode --ids: exact text from HF tokenizers 0.23.2 (decode(ids, false)) for
# llama2's decoder (Replace, ByteFallback, Fuse, Strip) and a Metaspace decoder
# with prepend_scheme always / never; 229, 133 = <0xE2><0x82> (not UTF-8 alone),
# 161, 162 = <0x9E><0x9F>, 22557,1526,28725,1076 = "Hello world, again" ---
python3 - "$TMP/llama2.json" "$TMP" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for scheme in ("always", "never"):
    t["decoder"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": scheme, "split": True}
    json.dump(t, open("%s/metaspace_%s.json" % (sys.argv[2], scheme), "w"))
PY
FFFD=$(printf '\357\277\275')
HW=22557,1526,28725,1076
dec() { $WINNOW tokenize -q --vocab $TMP/$1.json --decode --ids $2; }
is "$(dec llama2 229,133,$HW)" "$FFFD$FFFD Hello world, again" "llama2: an invalid byte run first: one U+FFFD a byte, then the text"
is "$(dec llama2 $HW,229,133)" "Hello world, again$FFFD$FFFD" "llama2: an invalid byte run last: one U+FFFD a byte"
is "$(dec llama2 229,133,161,162,263)" "$FFFD$FFFD$FFFD${FFFD}er" "llama2: four bytes that are not UTF-8 together: four U+FFFD"
is "$(dec metaspace_always $HW)" "Hello world, again" "Metaspace always: only the first token's space is dropped"
is "$(dec metaspace_always 229,133,$HW)" "<0xE2><0x82> Hello world, again" "Metaspace always: a first token without a space keeps the next one's"
is "$(dec metaspace_never $HW)" " Hello world, again" "Metaspace never: the first space is kept"
# 259 = "▁▁": HF drops every replacement character of the first token, not only a leading one
is "$(dec metaspace_always 259,$HW)" " Hello world, again" "Metaspace always: a first token of two ▁ gives nothing"
is "$(dec metaspace_always 259)" "" "Metaspace always: the lone first token ▁▁ decodes to nothing"
is "$(dec metaspace_never 259,$HW)" "   Hello world, again" "Metaspace never: a first ▁▁ gives two spaces"

# --- refusals name the JSON path; the GPU is not used ---
python3 - "$TMP/llama2.json" "$TMP/bad.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["model"]["dropout"] = 0.1
json.dump(t, open(sys.argv[2], "w"))
PY
$WINNOW tokenize -q --vocab $TMP/bad.json $TMP/one.jsonl 2> $TMP/err; rc=$?
is "$rc" 1 "a file with BPE dropout is refused (usage error)"
ok "the message names model.dropout" grep -q "model.dropout" $TMP/err
ok "--device gpu encodes a pipeline the GPU does not implement (llama2) on the CPU" sh -c "$WINNOW tokenize -q --device gpu --vocab $TMP/llama2.json $TMP/one.jsonl 2>&1 | grep -q 'encoding on the CPU'"
done_testing
