// tokenize_hf_variants.js - reference ids for tests/data/hf/variants.tsv and
// tests/data/hf/edge_variants.tsv: each variant is one of the real
// tokenizer.json files of $SHARED/vocab/hf with the listed members replaced
// (PATH=JSON) or array elements appended (+PATH=JSON), encoded by Hugging
// Face tokenizers itself (the npm package tokenizers@0.23.2, encode(text,
// add_special_tokens=false)) over the texts tests/unit/tokenize_hf_variants.c
// uses: for variants.tsv every blns string, the first 30 (hand-written) edge
// documents and every 200th multi document; for edge_variants.tsv the
// hand-written strings of tests/data/hf/edge_texts.json, for
// normalizer_variants.tsv those of tests/data/hf/normalizer_texts.json. Writes
// tests/data/hf/NAME.bin.zst (per text: u32 count, then u32 ids, LE).
// usage: NODE_PATH=DIR/node_modules node scripts/tokenize_hf_variants.js SHARED [NAME...]
// (NAMEs: only those variants)
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { apply } = require('./hf_json_edit.js');

const shared = process.argv[2];
const only = process.argv.slice(3);
const EDGE_DOCS = 30, MULTI_STRIDE = 200;

function corpus(name) {
  const text = execFileSync('zstd', ['-dcq', `${shared}/tokref/${name}.txt.zst`], { maxBuffer: 1 << 30 });
  return fs.readFileSync(`${shared}/tokref/${name}.idx.tsv`, 'utf8').split('\n').filter(l => l).map(l => {
    const [off, len] = l.split('\t').map(Number);
    return text.subarray(off, off + len).toString('utf8');
  });
}

const lists = [
  ['tests/data/hf/variants.tsv', [...corpus('blns'), ...corpus('edge').slice(0, EDGE_DOCS),
                                  ...corpus('multi').filter((_, i) => i % MULTI_STRIDE === 0)]],
  ['tests/data/hf/edge_variants.tsv', JSON.parse(fs.readFileSync('tests/data/hf/edge_texts.json', 'utf8'))],
  ['tests/data/hf/normalizer_variants.tsv', JSON.parse(fs.readFileSync('tests/data/hf/normalizer_texts.json', 'utf8'))],
];

(async () => {
  for (const [list, texts] of lists) for (const line of fs.readFileSync(list, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const [name, base, ...edits] = line.split('\t');
    if (only.length && !only.includes(name)) continue;
    const root = JSON.parse(execFileSync('zstd', ['-dcq', `${shared}/vocab/hf/${base}.tokenizer.json.zst`],
                                         { maxBuffer: 1 << 30 }).toString('utf8'));
    for (const e of edits) apply(root, e);
    const tmp = path.join(os.tmpdir(), `variant-${process.pid}.json`);
    fs.writeFileSync(tmp, JSON.stringify(root));
    const tok = Tokenizer.fromFile(tmp);
    fs.unlinkSync(tmp);
    const words = [];
    for (const t of texts) {
      const ids = (await tok.encode(t, null, { addSpecialTokens: false })).getIds();
      words.push(ids.length, ...ids);
    }
    const out = `tests/data/hf/${name}.bin`;
    fs.writeFileSync(out, Buffer.from(new Uint32Array(words).buffer));
    execFileSync('zstd', ['-19', '-qf', '--rm', out, '-o', out + '.zst']);
    console.log(name, texts.length, 'texts', words.length - texts.length, 'ids');
  }
})();
