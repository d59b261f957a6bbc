#!/bin/sh
# tokenize_hf_decode.sh - `winnow tokenize --decode` of a tokenizer.json
# gives Hugging Face tokenizers' decode(ids, skip_special_tokens=false) text
# (npm tokenizers@0.23.2, written by scripts/hf_decode_cases.js into
# tests/data/hf/decode_expect.tsv) for the decoders and tokens where winnow
# used to differ: no decoder (HF joins the tokens with spaces), steps after
# a byte-level model's ByteLevel (they see one string) or before it (they
# see the byte alphabet), added tokens whose content is in the byte
# alphabet (ByteLevel decodes them too) or normalized (HF decodes the
# normalizer's form), a ByteFallback token "<0x+A>" (Rust's from_str_radix
# reads the sign), vocab strings a byte-level model cannot make (Command
# R+'s, an empty one: decoded, not refused as unknown ids), ByteLevel over
# a model that is not byte-level and the WordPiece, BPEDecoder and CTC
# decoders (once refused).
# Each variant of tests/data/hf/decode_variants.json is a real file with
# edits; its id sequences go through --decode as one --format bin stream.
. tests/lib.sh
command -v python3 >/dev/null || skip_all "python3 missing"
H=$SHARED/vocab/hf
require_file $H/gpt2.tokenizer.json.zst
D=tests/data/hf

# the variants' files (scripts/hf_decode_cases.js builds the same), the bin
# stream of each one's ids and the text HF decodes them to, one per line
python3 - "$D/decode_variants.json" "$D/decode_expect.tsv" "$H" "$TMP" <<'PY'
import json, struct, subprocess, sys
variants, expect, hf, tmp = sys.argv[1:]
for v in json.load(open(variants)):
    t = json.loads(subprocess.run(["zstd", "-dc", "%s/%s.tokenizer.json.zst" % (hf, v["base"])],
                                  check=True, capture_output=True).stdout)
    t.update(v.get("set", {}))
    for a in t["added_tokens"]:
        a.update(v.get("added_flags", {}).get(a["content"], {}))
    t["added_tokens"] += v.get("added", [])
    t["model"]["vocab"].update(v.get("vocab", {}))
    json.dump(t, open("%s/%s.json" % (tmp, v["name"]), "w"))
    open("%s/%s.bin" % (tmp, v["name"]), "wb").close()
    open("%s/%s.want" % (tmp, v["name"]), "w").close()
for line in open(expect, encoding="utf-8"):
    name, ids, text = line.rstrip("\n").split("\t")
    ids = [int(x) for x in ids.split(",") if x]
    with open("%s/%s.bin" % (tmp, name), "ab") as f:
        f.write(struct.pack("<%dI" % (len(ids) + 1), len(ids), *ids))
    with open("%s/%s.want" % (tmp, name), "a", encoding="utf-8") as f:
        f.write(json.dumps(json.loads(text), ensure_ascii=False) + "\n")
PY

# winnow's lines, read as JSON and written the way the wanted ones are
same() {
    python3 - "$1" "$2" <<'PY'
import json, sys
got = [json.loads(l)["text"] for l in open(sys.argv[1], encoding="utf-8")]
want = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
bad = [i for i in range(max(len(got), len(want))) if i >= len(got) or i >= len(want) or got[i] != want[i]]
for i in bad[:3]:
    print("#   line %d: got %r want %r" % (i + 1, got[i] if i < len(got) else None, want[i] if i < len(want) else None))
if bad:
    print("#   %d of %d lines differ" % (len(bad), len(want)))
sys.exit(1 if bad else 0)
PY
}

for v in $(python3 -c 'import json, sys; print(" ".join(v["name"] for v in json.load(open(sys.argv[1]))))' $D/decode_variants.json); do
    $WINNOW tokenize -q --vocab $TMP/$v.json --decode $TMP/$v.bin > $TMP/$v.got 2> $TMP/$v.err
    n=$(wc -l < $TMP/$v.want | tr -d ' ')
    if same $TMP/$v.got $TMP/$v.want > $TMP/$v.diff; then
        ok "$v: the $n id sequences decode to HF's text" true
    else
        ok "$v: the $n id sequences decode to HF's text" false
        cat $TMP/$v.diff
        head -2 $TMP/$v.err | sed 's/^/#   /'
    fi
done

# --- what winnow cannot decode exactly is refused, naming the decoder, by
# tokenize --decode and by shards cat --decode ---
python3 - "$TMP/gpt2_decoder_null.json" "$TMP/regex.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["decoder"] = {"type": "Replace", "pattern": {"Regex": " +"}, "content": " "}
json.dump(t, open(sys.argv[2], "w"))
PY
printf 'hi\n' | python3 -c 'import json, sys; print(json.dumps({"text": sys.stdin.read()}))' > $TMP/one.jsonl
$WINNOW tokenize -q --vocab $TMP/regex.json --format bin $TMP/one.jsonl > $TMP/regex.bin
$WINNOW tokenize -q --vocab $TMP/regex.json --decode $TMP/regex.bin > $TMP/regex.out 2> $TMP/regex.err
is "$?:$(wc -c < $TMP/regex.out | tr -d ' ')" "1:0" "a Regex Replace decoder: --decode refused (exit 1), nothing written"
ok "a Regex Replace decoder: the message names the file and the decoder" \
    grep -q "^winnow tokenize: --decode: regex.json: the decoder Replace without a String pattern is not supported" $TMP/regex.err
$WINNOW tokenize -q --vocab $TMP/regex.json -o $TMP/regex_shards/ $TMP/one.jsonl
$WINNOW shards cat $TMP/regex_shards --decode --vocab $TMP/regex.json > $TMP/cat.out 2> $TMP/cat.err
is "$?:$(wc -c < $TMP/cat.out | tr -d ' ')" "1:0" "a Regex Replace decoder: shards cat --decode refused too (it wrote the text without the decoder)"
ok "shards cat: the message names the file and the decoder" grep -q "regex.json: the decoder Replace without a String pattern is not supported" $TMP/cat.err
done_testing
