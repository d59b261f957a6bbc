#!/bin/sh
# tokenize_sp.sh - SentencePiece .model files through the CLI, against
# SentencePiece itself (Debian's python3-sentencepiece). No real .model file
# can be downloaded here, so the test trains small ones with Debian's
# spm_train on UDHR text, in the configurations the real families use
# (T5: unigram + nmt_nfkc; Llama 2 and Mistral v1-v3: BPE, identity, byte
# fallback, split digits, dummy prefix, extra spaces kept; Gemma: the same
# without the dummy prefix, with user-defined and control symbols) and more
# (unigram with byte fallback, nmt_nfkc_cf, BPE with nmt_nfkc; one without
# BOS and EOS), then checks
# every document of tokref edge and blns and every 8th of multi:
#   - ids equal sp.encode(text) (-j2: workers share the model);
#   - --allow-special: control symbols in the text are their ids (the longest
#     of those starting at one place), the text between them sp.encode'd part by part;
#   - --decode: sp.decode of the runs between control symbols, control
#     symbols as their names; the Llama 2-like model gives blns back exactly;
#   - BOS/EOS come from the model's bos_id/eos_id; bad files are refused.
. tests/lib.sh
SPY=/usr/bin/python3 # Debian's python, which python3-sentencepiece installs into (make deps)
ok "spm_train (Debian's sentencepiece, make deps) is installed" command -v spm_train
ok "python3-sentencepiece (make deps) is installed" $SPY -c "import sentencepiece"
U=$SHARED/multilingual/udhr/udhr_text_DERIVED.jsonl
R=$SHARED/tokref
require_file $U $R/edge.txt.zst $R/blns.txt.zst $R/multi.txt.zst $SHARED/vocab/hf/llama2.tokenizer.json.zst \
    $R/hf/edge.llama2.bin.zst $R/hf/blns.llama2.bin.zst $R/hf/multi.llama2.bin.zst
PY="python3 scripts/tokenize_tokref.py"
REF="$SPY scripts/tokenize_sp_reference.py"
$PY jsonl $R/edge.txt.zst $R/edge.idx.tsv > $TMP/edge.jsonl
$PY jsonl $R/blns.txt.zst $R/blns.idx.tsv > $TMP/blns.jsonl
$PY jsonl $R/multi.txt.zst $R/multi.idx.tsv | awk 'NR % 8 == 1' > $TMP/multi.jsonl
# control and user-defined symbols written in the text, and near misses
cat > $TMP/special.jsonl <<'EOF'
{"text":"<s>Hello</s> and <pad><mask> x<start_of_turn>user<end_of_turn> <unk> </s"}
{"text":"</s></s><s"}
{"text":"  two spaces <mask>  then 2024 and 3.14159 <end_of_turn>"}
{"text":"<mask>x: the longest control symbol written here, <mask>x<mask> then <mask>"}
EOF

# --- small models: every 30th line of the UDHR (230 KB, 500+ languages) ---
python3 -c "
import json, sys
lines = [l for d in open(sys.argv[1], encoding='utf-8') for l in json.loads(d)['text'].split('\n') if l.strip()]
sys.stdout.write(''.join(l + '\n' for l in lines[29::30]))" $U > $TMP/train.txt
train() { # NAME FLAGS...
    name=$1; shift
    spm_train --input=$TMP/train.txt --model_prefix=$TMP/$name --vocab_size=1500 --character_coverage=0.98 \
        --num_threads=2 --minloglevel=2 "$@" > $TMP/train.log 2>&1 || cat $TMP/train.log
}
train t5 --model_type=unigram --bos_id=-1 --eos_id=1 --unk_id=2 --pad_id=0
train llama2 --model_type=bpe --normalization_rule_name=identity --remove_extra_whitespaces=false \
    --split_digits=true --byte_fallback=true
train gemma --model_type=bpe --normalization_rule_name=identity --add_dummy_prefix=false \
    --remove_extra_whitespaces=false --split_digits=true --byte_fallback=true --pad_id=0 --eos_id=1 --bos_id=2 \
    --unk_id=3 '--user_defined_symbols=<start_of_turn>,<end_of_turn>' '--control_symbols=<mask>,<mask>x'
train unigram_bf --model_type=unigram --normalization_rule_name=identity --add_dummy_prefix=false \
    --split_digits=true --byte_fallback=true
train nfkc_cf --model_type=unigram --normalization_rule_name=nmt_nfkc_cf
train bpe_nfkc --model_type=bpe --add_dummy_prefix=false
train noeos --model_type=bpe --bos_id=-1 --eos_id=-1
MODELS="t5 llama2 gemma unigram_bf nfkc_cf bpe_nfkc"
for m in $MODELS; do require_file $TMP/$m.model; done

# --- ids: SentencePiece's own ---
for m in $MODELS; do
    for c in edge blns multi special; do
        $WINNOW tokenize -q -j2 --vocab $TMP/$m.model --format bin --no-eos $TMP/$c.jsonl > $TMP/got
        $REF encode $TMP/$m.model $TMP/$c.jsonl > $TMP/want
        ok "$m, $c: ids equal sp.encode's" cmp $TMP/got $TMP/want
    done
    for c in blns special; do
        $WINNOW tokenize -q --vocab $TMP/$m.model --format bin --no-eos --allow-special $TMP/$c.jsonl > $TMP/$m.$c.ids
        $REF encode $TMP/$m.model $TMP/$c.jsonl special > $TMP/want
        ok "$m, $c, --allow-special: control symbols in the text are their ids" cmp $TMP/$m.$c.ids $TMP/want
        $WINNOW tokenize -q --vocab $TMP/$m.model --decode $TMP/$m.$c.ids > $TMP/dec.jsonl
        ok "$m, $c: --decode equals sp.decode (control symbols as names)" \
            $REF decode $TMP/$m.model $TMP/$m.$c.ids $TMP/dec.jsonl
    done
done
ok "the multi sample is real (over 200 documents)" test "$(wc -l < $TMP/multi.jsonl)" -gt 200
ok "control symbols change the ids: --allow-special differs from the default on them" \
    sh -c "! $WINNOW tokenize -q --vocab $TMP/gemma.model --format bin --no-eos $TMP/special.jsonl | cmp -s - $TMP/gemma.special.ids"

# --- the Llama 2-like model (identity, byte fallback, spaces kept) gives blns back exactly ---
$WINNOW tokenize -q --vocab $TMP/llama2.model --decode $TMP/llama2.blns.ids > $TMP/back.jsonl
ok "llama2-like: --decode gives back every blns string" python3 -c "
import json, sys
a = [json.loads(l)['text'] for l in open('$TMP/blns.jsonl', encoding='utf-8')]
b = [json.loads(l)['text'] for l in open('$TMP/back.jsonl', encoding='utf-8')]
sys.exit(0 if a == b and len(a) == 514 else 1)"

# --- a real vocabulary: Llama 2's, as the SentencePiece model its tokenizer.json was converted
# from (no .model file can be downloaded here; the rebuilt one has the same pieces, types, merge
# order and normalizer settings), against HF tokenizers' ids for Llama 2 (tokref/hf) ---
zstd -dcq $SHARED/vocab/hf/llama2.tokenizer.json.zst > $TMP/llama2.json
$REF from-hf $TMP/llama2.json $TMP/llama2_hf.model
for c in edge:1 blns:1 multi:8; do
    name=${c%%:*}
    $WINNOW tokenize -q -j2 --vocab $TMP/llama2_hf.model --format bin --no-eos $TMP/$name.jsonl > $TMP/got
    $REF sameids $TMP/got $R/hf/$name.llama2.bin.zst $TMP/$name.jsonl ${c#*:} > $TMP/same.out 2>&1; rc=$?
    echo "# $(cat $TMP/same.out)"
    is "$rc" 0 "Llama 2 .model, $name: ids equal HF tokenizers' for Llama 2"
done

# --- BOS/EOS: the model's bos_id and eos_id; EOS on by default, BOS when asked ---
echo '{"text":"Hello"}' > $TMP/one.jsonl
hello=$($REF encode $TMP/gemma.model $TMP/one.jsonl | python3 -c "
import struct, sys
d = sys.stdin.buffer.read()
print(','.join(map(str, struct.unpack_from('<%dI' % (len(d) // 4 - 1), d, 4))))")
is "$($WINNOW tokenize -q --vocab $TMP/gemma.model $TMP/one.jsonl)" "{\"text\":\"Hello\",\"tokens\":[$hello,1]}" \
    "gemma-like: eos_id 1 after the document by default"
is "$($WINNOW tokenize -q --vocab $TMP/gemma.model --bos --no-eos $TMP/one.jsonl)" \
    "{\"text\":\"Hello\",\"tokens\":[2,$hello]}" "gemma-like: --bos puts bos_id 2 first"
ok "t5-like (bos_id -1): --bos says there is no begin-of-text token" \
    sh -c "! $WINNOW tokenize -q --vocab $TMP/t5.model --bos $TMP/one.jsonl"
ok "a model with eos_id -1 and bos_id -1 says so" $SPY -c "
import sentencepiece, sys
sp = sentencepiece.SentencePieceProcessor(model_file='$TMP/noeos.model')
sys.exit(0 if sp.eos_id() == -1 and sp.bos_id() == -1 else 1)"
$WINNOW tokenize -q --vocab $TMP/noeos.model --format bin $TMP/edge.jsonl > $TMP/noeos.bin
is "$?" 0 "eos_id -1: tokenize without --no-eos exits 0 (no EOS by default)"
$REF encode $TMP/noeos.model $TMP/edge.jsonl > $TMP/want
ok "... with sp.encode's ids and nothing after them" cmp $TMP/noeos.bin $TMP/want

# --- --decode --ids: control symbols by name; an id past the vocabulary is refused, nothing written ---
first=$(echo $hello | tr , ' ' | cut -d' ' -f1)
is "$($WINNOW tokenize --vocab $TMP/gemma.model --decode --ids "2,$first,1" | grep -c '^<s>.*</s>$')" 1 \
    "--decode --ids: <s> and </s> by name around the text"
$WINNOW tokenize --vocab $TMP/gemma.model --decode --ids "2,1500,$first,1" > $TMP/ids.out 2> $TMP/err; rc=$?
is "$rc" 1 "--decode --ids with an id past the vocabulary exits 1"
ok "... naming it" grep -q -- "--ids: id 1500 (id 2 of 4) is not in the vocabulary of gemma.model; nothing written" $TMP/err
is "$(wc -c < $TMP/ids.out | tr -d ' ')" 0 "... and writes nothing"
# a bin stream: the document with id 1500 counted failed (unknown_id), the others decoded
python3 -c "
import struct, sys
docs = [[2, $first, 1], [$first, 1500], [$first]]
sys.stdout.buffer.write(b''.join(struct.pack('<%dI' % (len(d) + 1), len(d), *d) for d in docs))" > $TMP/unk.bin
$WINNOW tokenize -q --vocab $TMP/gemma.model --decode --stats $TMP/unk.json $TMP/unk.bin > $TMP/unk.jsonl 2> $TMP/err
is "$?/$(wc -l < $TMP/unk.jsonl | tr -d ' ')" "0/2" "--decode of a stream with an id past the vocabulary: exit 0, two documents written"
is "$(python3 -c "import json; s = json.load(open('$TMP/unk.json')); print(s['in'], s['out'], s['failed_by_kind'])")" \
    "3 2 {'unknown_id': 1}" "... in 3 = out 2 + failed 1 (unknown_id)"
ok "... the failure named" grep -q "unk.bin: document 1 at offset 16: id 1500 (id 2 of 2) is not in the vocabulary of gemma.model" $TMP/err

# --- refusals: a damaged model, --encoding with a model, the GPU ---
head -c 5000 $TMP/llama2.model > $TMP/cut.model
$WINNOW tokenize -q --vocab $TMP/cut.model $TMP/one.jsonl 2> $TMP/err; rc=$?
is "$rc" 1 "a truncated .model is refused (usage error)"
ok "the message names the file and the byte" grep -q "cut.model: the ModelProto is damaged at byte 4995" $TMP/err
# a well-formed protobuf that is no model: SentencePiece's own reason
printf '\n\003\n\001a' > $TMP/nopiece.model
$WINNOW tokenize -q --vocab $TMP/nopiece.model $TMP/one.jsonl 2> $TMP/err; rc=$?
is "$rc" 1 "a ModelProto SentencePiece cannot use is refused"
ok "the message names the file and gives SentencePiece's reason" grep -q "nopiece.model: SentencePiece refuses the model" $TMP/err
# a mutated model whose normalizer trie points outside itself: libsentencepiece
# would read out of bounds on any text (found by tests/fuzz/sp_model.c)
$WINNOW tokenize -q --vocab tests/fuzz/seeds/sp_model/crash_charsmap_root.model $TMP/one.jsonl 2> $TMP/err; rc=$?
is "$rc" 1 "a .model with a broken precompiled_charsmap is refused, not encoded"
ok "the message names normalizer_spec.precompiled_charsmap and its byte" \
    grep -q "normalizer_spec.precompiled_charsmap (byte 1979): the root's children lie outside the trie" $TMP/err
# a mutated model whose "\342\226\201" piece (U+2581, the space mark) is a control
# symbol: SentencePiece cannot encode text with a space; refused at load, not
# mid-run (found by tests/fuzz/sp_model.c)
$WINNOW tokenize -q --vocab tests/fuzz/seeds/sp_model/crash_control_space.model $TMP/one.jsonl 2> $TMP/err; rc=$?
is "$rc" 1 "a .model that cannot encode ordinary text is refused at load"
ok "the message names the file and gives SentencePiece's reason" \
    grep -q "crash_control_space.model: the model cannot encode ordinary text (a damaged .model?): .*not consumed" $TMP/err
$WINNOW tokenize -q --device gpu --vocab $TMP/llama2.model $TMP/one.jsonl > "$TMP/gpu-sp.jsonl" 2> "$TMP/gpu-sp.err"
is "$?" 0 "--device gpu with a SentencePiece model encodes it on the CPU (exit 0)"
ok "... saying so" grep -q "SentencePiece model.*encoding on the CPU" "$TMP/gpu-sp.err"
ok "... with the ids of --device cpu" sh -c "$WINNOW tokenize -q --device cpu --vocab $TMP/llama2.model $TMP/one.jsonl | cmp - $TMP/gpu-sp.jsonl"
ok "--device auto encodes it on the CPU" $WINNOW tokenize -q --device auto --vocab $TMP/llama2.model $TMP/one.jsonl
done_testing
