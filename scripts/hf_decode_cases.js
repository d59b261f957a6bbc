// hf_decode_cases.js - the expected text of tests/e2e/tokenize_hf_decode.sh:
// Hugging Face tokenizers' decode(ids, skip_special_tokens=false) (npm
// tokenizers@0.23.2) of id sequences for the tokenizer.json variants of
// tests/data/hf/decode_variants.json (a real file from $SHARED/vocab/hf with
// the edits each names: "set" top-level members, "added" added tokens
// appended, "added_flags" flags of added tokens by content, "vocab" model
// vocab entries added). The ids: HF's encode (with special tokens) of the
// edge texts and a few more, every added token alone, and seeded random
// sequences over the vocab and over the ids a decoder treats specially.
// (each added token also between two ordinary ones)
// Writes tests/data/hf/decode_expect.tsv: variant TAB ids (comma-separated)
// TAB the text as a JSON string.
// usage: NODE_PATH=DIR/node_modules node scripts/hf_decode_cases.js
const fs = require('fs');
const path = require('path');
const { rng } = require('./seeded_rng'); /* every run draws the same ids */
const { Tokenizer } = require('tokenizers');

const SHARED = process.env.SHARED || '/work/shared/data';
const DATA = path.join(__dirname, '../tests/data/hf');

/* The variant's tokenizer.json text (the test builds the same in Python). */
function build(v) {
  const zst = path.join(SHARED, 'vocab/hf', v.base + '.tokenizer.json.zst');
  const t = JSON.parse(require('child_process').execFileSync('zstd', ['-dc', zst], { maxBuffer: 1 << 30 }));
  for (const [k, x] of Object.entries(v.set || {})) t[k] = x;
  for (const a of t.added_tokens) Object.assign(a, (v.added_flags || {})[a.content] || {});
  t.added_tokens.push(...(v.added || []));
  Object.assign(t.model.vocab, v.vocab || {});
  return JSON.stringify(t);
}


const MORE = ['Hello world\n indented\n\n  twice', ' leading space', '  two leading', 'caf\u00e9 na\u00efve', "I do not know , he said . Isn't it ? Yes !",
  "they 're here , we 've gone , I 'm fine , it 's ok , don ' t", '<unk> <s> </s> <|endoftext|>', 'x\n y\n  z', '\u2581\u2581 metaspace \u2581',
  '\u{1f600} \u{1f44d}\u{1f3fd} \u4e2d\u6587 \ud55c\uad6d\uc5b4'];

(async () => {
  const variants = JSON.parse(fs.readFileSync(path.join(DATA, 'decode_variants.json'), 'utf8'));
  const texts = JSON.parse(fs.readFileSync(path.join(DATA, 'edge_texts.json'), 'utf8')).slice(0, 60).concat(MORE);
  const lines = [];
  for (const v of variants) {
    const json = build(v);
    const tok = Tokenizer.fromString(json);
    const added = JSON.parse(json).added_tokens.map((a) => tok.tokenToId(a.content)).filter((id) => id !== null && id !== undefined);
    const size = tok.getVocabSize(true);
    const known = [];
    for (let id = 0; id < size + 8; id++) if (tok.idToToken(id) !== null) known.push(id);
    const hot = known.filter((id) => /^<0x|[\u2581\u0120\u010a ]|^.$|^##/u.test(tok.idToToken(id))).concat(added);
    const seqs = [];
    for (const text of texts) seqs.push((await tok.encode(text, null, { addSpecialTokens: true })).getIds());
    for (const id of new Set(added)) seqs.push([id], [known[1000], id, known[1000]]);
    for (const id of Object.values(v.vocab || {})) seqs.push([id], [known[1000], id, known[1000]]);
    for (const id of known) if (!/^[\x00-\x7f]*$/.test(tok.idToToken(id)) && v.base === 'command_r_plus' && id < 300) seqs.push([id]);
    const r = rng(20261128);
    for (let k = 0; k < 40; k++) {
      const from = k % 2 ? hot : known, s = [];
      for (let n = 1 + Math.floor(r() * 12); n > 0; n--) s.push(from[Math.floor(r() * from.length)]);
      seqs.push(s);
    }
    for (const s of seqs) lines.push(v.name + '\t' + s.join(',') + '\t' + JSON.stringify(await tok.decode(s, false)));
    console.log(v.name + ': ' + seqs.length + ' id sequences');
  }
  fs.writeFileSync(path.join(DATA, 'decode_expect.tsv'), lines.join('\n') + '\n');
})().catch((e) => { console.error(e); process.exit(1); });
