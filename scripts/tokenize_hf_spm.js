// tokenize_hf_spm.js - reference ids for tests/data/hf/spm/variants.tsv:
// each variant is a tokenizer.json that scripts/tokenize_hf_spm.py wrote
// (tests/data/hf/spm/BASE.json.zst) with the listed members replaced or
// appended, and "@RULE" as a precompiled_charsmap filled in with the base64
// of tests/data/hf/spm/RULE.charsmap.zst; encoded by Hugging Face
// tokenizers itself (npm tokenizers@0.23.2, encode(text,
// add_special_tokens=false)) over the texts tests/unit/tokenize_hf_spm.c
// uses: every blns and edge document, every 8th multi document, then
// tests/data/hf/spm/texts.bin.zst (UDHR in 532 languages, corners). Writes
// tests/data/hf/spm/NAME.ref.zst: per text its id count, then a 32-bit
// hash of the ids (u32 LE; a hash keeps the file small: see the test).
// usage: NODE_PATH=DIR/node_modules node scripts/tokenize_hf_spm.js SHARED [NAME...]
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { apply } = require('./hf_json_edit.js');

const shared = process.argv[2];
const only = process.argv.slice(3);
const MULTI_STRIDE = 8;
const DIR = 'tests/data/hf/spm';

const unzstd = (p) => execFileSync('zstd', ['-dcq', p], { maxBuffer: 1 << 30 });

function corpus(name) {
  const text = unzstd(`${shared}/tokref/${name}.txt.zst`);
  return fs.readFileSync(`${shared}/tokref/${name}.idx.tsv`, 'utf8').split('\n').filter(l => l).map(l => {
    const [off, len] = l.split('\t').map(Number);
    return text.subarray(off, off + len).toString('utf8');
  });
}

function extraTexts() {
  const b = unzstd(`${DIR}/texts.bin.zst`), out = [];
  for (let at = 0; at < b.length;) {
    const n = b.readUInt32LE(at);
    out.push(b.subarray(at + 4, at + 4 + n).toString('utf8'));
    at += 4 + n;
  }
  return out;
}

const texts = [...corpus('blns'), ...corpus('edge'), ...corpus('multi').filter((_, i) => i % MULTI_STRIDE === 0),
               ...extraTexts()];

// the test's hash: FNV-1a over the ids' little-endian bytes
function hash(ids) {
  let h = 0x811c9dc5;
  for (const id of ids)
    for (let k = 0; k < 32; k += 8) h = Math.imul(h ^ ((id >>> k) & 0xff), 0x01000193) >>> 0;
  return h;
}

function fillCharsmaps(o) {
  if (Array.isArray(o)) { o.forEach(fillCharsmaps); return; }
  if (!o || typeof o !== 'object') return;
  if (typeof o.precompiled_charsmap === 'string' && o.precompiled_charsmap.startsWith('@'))
    o.precompiled_charsmap = unzstd(`${DIR}/${o.precompiled_charsmap.slice(1)}.charsmap.zst`).toString('base64');
  Object.values(o).forEach(fillCharsmaps);
}

(async () => {
  const lines = fs.readFileSync(`${DIR}/variants.tsv`, 'utf8').split('\n').filter(l => l && !l.startsWith('#'));
  for (const line of lines) {
    const [name, base, ...edits] = line.split('\t');
    if (only.length && !only.includes(name)) continue;
    const root = JSON.parse(unzstd(`${DIR}/${base}.json.zst`).toString('utf8'));
    for (const e of edits) apply(root, e);
    fillCharsmaps(root);
    const tmp = path.join(os.tmpdir(), `spm-variant-${process.pid}.json`);
    fs.writeFileSync(tmp, JSON.stringify(root));
    const tok = Tokenizer.fromFile(tmp);
    fs.unlinkSync(tmp);
    const words = [];
    let total = 0;
    for (const t of texts) {
      const ids = (await tok.encode(t, null, { addSpecialTokens: false })).getIds();
      words.push(ids.length, hash(ids));
      total += ids.length;
    }
    const out = `${DIR}/${name}.ref`;
    fs.writeFileSync(out, Buffer.from(new Uint32Array(words).buffer));
    execFileSync('zstd', ['-19', '-qf', '--rm', out, '-o', out + '.zst']);
    console.log(name, texts.length, 'texts', total, 'ids');
  }
})();
