// hf_decode_check.js - `winnow tokenize --decode` against Hugging Face
// tokenizers' own decode (npm tokenizers@0.23.2, the Rust library Python's
// tokenizers 0.23.2 wraps), with skip_special_tokens=false, which is what
// winnow documents. Driven by scripts/hf_decode_check.sh; three steps:
//
//   node hf_decode_check.js texts OUT.jsonl
//       the text set: tokref corpora (split by their .idx.tsv; en_code and
//       multi sampled), UDHR in every script (cut to 3000 characters), the
//       edge texts of tests/data/hf/edge_texts.json, and made-up ones
//       (whitespace runs, emoji, control and private-use characters, texts
//       starting with spaces, replacement characters). Each line
//       {"i":N,"kind":K,"text":T}.
//   node hf_decode_check.js ids TOKENIZER.json TEXTS.jsonl DIR
//       the id sequences to decode, written as a --format bin stream
//       DIR/cases.bin with DIR/cases.tsv (kind per document) and HF's
//       decode of each in DIR/expect.jsonl: each text's ids from HF's
//       encode without and with its special tokens; every id of the vocab
//       alone; random id sequences (uniform, and drawn from the ids most
//       likely to go wrong: byte tokens, added tokens, tokens with the
//       Metaspace, ByteLevel-space, ## or </w> marks, one-character tokens).
//       DIR/hf_plain.jsonl holds HF's ids of each text without special tokens,
//       to check winnow's own encode against.
//   node hf_decode_check.js compare DIR
//       reads DIR/winnow_plain.jsonl (winnow's encode of the texts) and
//       DIR/winnow_decode.jsonl (winnow's decode of cases.bin; documents it
//       refused are named in DIR/winnow_decode.err) and prints one summary
//       line (JSON) and the first differences.
const fs = require('fs');
const path = require('path');
const { rng } = require('./seeded_rng'); /* every run draws the same ids */

const SHARED = process.env.SHARED || '/work/shared/data';

function readZst(file) {
  return require('child_process').execFileSync('zstd', ['-dc', file], { maxBuffer: 1 << 30 });
}


function corpusDocs(name, every) {
  const text = readZst(path.join(SHARED, 'tokref', name + '.txt.zst'));
  const idx = fs.readFileSync(path.join(SHARED, 'tokref', name + '.idx.tsv'), 'utf8').trim().split('\n');
  const docs = [];
  idx.forEach((line, k) => {
    if (k % every) return;
    const [off, len] = line.split('\t').map(Number);
    docs.push(text.subarray(off, off + len).toString('utf8'));
  });
  return docs;
}

function madeUp() {
  const t = [];
  for (const ws of [' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n ', '\u3000', '\u00a0', '\u2581', '\u2581\u2581'])
    t.push(ws, ws + 'a', 'a' + ws, ws + 'a' + ws + 'b' + ws, ws.repeat(17), 'x' + ws.repeat(9) + 'y');
  t.push(' Hello world', '  Hello world', '\tHello', '\nHello', ' ', '', 'Hello  world  ', ' . , ? ! \' n\'t \'m \'s \'ve \'re do not',
    'I do not think it\'s "x" , y . z ? w !', 'a ##b ## ##', 'end</w> of</w>', '<s> </s> <unk> <pad> [CLS] [SEP] [UNK] [MASK]',
    '<|endoftext|>', '<|endoftext|> text <|endoftext|>', '<0x41><0xE2><0x82>', '\u2581Hello\u2581world', '\u0120Hello\u010a',
    '\ud83d\ude00\ud83d\udc4d\ud83c\udffd\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 \ud83c\uddfa\ud83c\uddf8',
    '\ud83e\udd80\ud83e\uddec\ud83e\udee0 new emoji', '\ue000\uf8ff private \udb80\udc00', '\ufffd\ufffd', 'ctl \u0001\u0002\u001b[0m \u007f',
    '\u0000nul', 'NFKC \ufb01 \u2460 \uff21 \u1e9e \u0130', '\u0915\u094d\u0937 \u0e01\u0e33 \u1000\u103a', '\ud800\udc00 linear b',
    '\u{1d400}\u{1d41a} math', 'x'.repeat(300), 'ab'.repeat(200), '1234567890'.repeat(20), '    def f(x):\n        return x\n',
    '\u00e9\u00e8\u00ea \u00c0 latin-1 \u00ff\u00fe', '\u00ad\u200b\ufeff invisible', 'tab\t\tend\t', 'crlf\r\nx\r');
  return t;
}

function buildTexts(out) {
  const lines = [];
  const add = (kind, list) => list.forEach((text) => lines.push(JSON.stringify({ i: lines.length, kind, text })));
  add('blns', corpusDocs('blns', 1));
  add('edge', corpusDocs('edge', 1));
  add('multi', corpusDocs('multi', 8));
  add('en_code', corpusDocs('en_code', 60));
  const udhr = fs.readFileSync(path.join(SHARED, 'multilingual/udhr/udhr_text_DERIVED.jsonl'), 'utf8').trim().split('\n');
  add('udhr', udhr.map((l) => Array.from(JSON.parse(l).text).slice(0, 3000).join('')));
  add('edge_texts', JSON.parse(fs.readFileSync(path.join(__dirname, '../tests/data/hf/edge_texts.json'), 'utf8')));
  add('made_up', madeUp());
  fs.writeFileSync(out, lines.join('\n') + '\n');
  console.log(out + ': ' + lines.length + ' texts');
}

function writeBin(file, seqs) {
  let words = 0;
  for (const s of seqs) words += 1 + s.length;
  const buf = Buffer.alloc(4 * words);
  let at = 0;
  for (const s of seqs) {
    buf.writeUInt32LE(s.length, at), (at += 4);
    for (const id of s) buf.writeUInt32LE(id, at), (at += 4);
  }
  fs.writeFileSync(file, buf);
}

/* Interesting ids: those whose token strings a decoder treats specially. */
function interestingIds(tok, known, added) {
  const ids = [...added];
  for (const id of known) {
    const t = tok.idToToken(id);
    if (/^<0x[0-9A-Fa-f]{2}>$/.test(t) || /[\u2581\u0120\u010a ]|^##|<\/w>$|^.$/u.test(t)) ids.push(id);
  }
  return ids.length ? ids : known;
}

async function makeIds(tokFile, textsFile, dir) {
  const { Tokenizer } = require('tokenizers');
  const tok = Tokenizer.fromFile(tokFile);
  tok.disablePadding(); /* some files pad or truncate encodings: winnow's ids are the text's own */
  tok.disableTruncation();
  const json = JSON.parse(fs.readFileSync(tokFile, 'utf8'));
  const added = (json.added_tokens || []).map((a) => a.id);
  const size = tok.getVocabSize(true);
  const known = [];
  for (let id = 0; id < size + added.length + 1; id++) if (tok.idToToken(id) !== null) known.push(id);
  const texts = fs.readFileSync(textsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const seqs = [], kinds = [], plain = [];
  for (const t of texts) {
    const a = (await tok.encode(t.text, null, { addSpecialTokens: false })).getIds();
    const b = (await tok.encode(t.text, null, { addSpecialTokens: true })).getIds();
    plain.push(JSON.stringify({ i: t.i, tokens: a }));
    seqs.push(a), kinds.push('text:' + t.kind + ':' + t.i);
    if (b.length !== a.length || b.some((x, k) => x !== a[k])) seqs.push(b), kinds.push('text+special:' + t.kind + ':' + t.i);
  }
  for (const id of known) seqs.push([id]), kinds.push('single:' + id);
  const r = rng(20261128);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const hot = interestingIds(tok, known, added);
  for (let k = 0; k < 3000; k++) {
    const n = 1 + Math.floor(r() * 16), from = k % 2 ? hot : known, s = [];
    for (let j = 0; j < n; j++) s.push(pick(k % 3 === 2 ? (r() < 0.5 ? hot : known) : from));
    seqs.push(s), kinds.push((k % 2 ? 'random_hot:' : 'random:') + k);
  }
  writeBin(path.join(dir, 'cases.bin'), seqs);
  fs.writeFileSync(path.join(dir, 'cases.tsv'), kinds.map((k, i) => i + '\t' + k).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'hf_plain.jsonl'), plain.join('\n') + '\n');
  const expect = [];
  for (let i = 0; i < seqs.length; i += 512) {
    const part = seqs.slice(i, i + 512);
    const got = await Promise.all(part.map((s) => tok.decode(s, false).then((t) => ({ t }), (e) => ({ error: String(e) }))));
    for (const g of got) expect.push(JSON.stringify(g));
  }
  fs.writeFileSync(path.join(dir, 'expect.jsonl'), expect.join('\n') + '\n');
  console.log(tokFile + ': ' + texts.length + ' texts, ' + seqs.length + ' id sequences, ' + known.length + ' ids');
}

function lines(file) {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.length) : [];
}

const show = (s) => JSON.stringify(s.length > 160 ? s.slice(0, 160) + '...' : s);

/* Where a and b first differ, with some context. */
function firstDiff(a, b) {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  const from = Math.max(0, k - 20);
  return 'at ' + k + ': hf ' + show(a.slice(from, k + 40)) + ' winnow ' + show(b.slice(from, k + 40));
}

function compare(dir) {
  const summary = { dir, encode_texts: 0, encode_differ: 0, encode_missing: 0, cases: 0, equal: 0, differ: 0, refused: 0,
    hf_error: 0, differ_by_kind: {} };
  const hf = new Map(lines(path.join(dir, 'hf_plain.jsonl')).map((l) => JSON.parse(l)).map((o) => [o.i, o.tokens]));
  const wn = new Map(lines(path.join(dir, 'winnow_plain.jsonl')).map((l) => JSON.parse(l)).map((o) => [o.i, o.tokens]));
  const report = [];
  for (const [i, ids] of hf) {
    summary.encode_texts++;
    const w = wn.get(i);
    if (!w) summary.encode_missing++;
    else if (w.length !== ids.length || w.some((x, k) => x !== ids[k])) {
      summary.encode_differ++;
      if (report.length < 5) report.push('encode text ' + i + ' differs');
    }
  }
  const kinds = lines(path.join(dir, 'cases.tsv')).map((l) => l.split('\t')[1]);
  const expect = lines(path.join(dir, 'expect.jsonl')).map((l) => JSON.parse(l));
  /* documents winnow refused (an id it lacks): "document N at offset" */
  const refused = new Set();
  for (const l of lines(path.join(dir, 'winnow_decode.err'))) {
    const m = /: document (\d+) at offset/.exec(l);
    if (m) refused.add(Number(m[1]));
  }
  const got = lines(path.join(dir, 'winnow_decode.jsonl')).map((l) => JSON.parse(l).text);
  let g = 0;
  for (let d = 0; d < expect.length; d++) {
    summary.cases++;
    if (refused.has(d)) { summary.refused++; continue; }
    const w = got[g++];
    const e = expect[d];
    if (e.error !== undefined) {
      summary.hf_error++;
      if (report.length < 40) report.push('hf error on ' + kinds[d] + ': ' + e.error + '; winnow ' + show(w));
      continue;
    }
    if (w === e.t) { summary.equal++; continue; }
    summary.differ++;
    const kind = kinds[d].split(':')[0];
    summary.differ_by_kind[kind] = (summary.differ_by_kind[kind] || 0) + 1;
    if (report.length < 40) report.push('differs ' + kinds[d] + ' ' + (w === undefined ? 'missing' : firstDiff(e.t, w)));
  }
  if (g !== got.length) report.push('winnow wrote ' + got.length + ' lines, ' + g + ' expected');
  console.log(JSON.stringify(summary));
  for (const r of report) console.log('  ' + r);
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'texts') buildTexts(args[0]);
else if (mode === 'ids') makeIds(args[0], args[1], args[2]).catch((e) => { console.error(e); process.exit(1); });
else if (mode === 'compare') compare(args[0]);
else {
  console.error('usage: hf_decode_check.js texts OUT | ids TOKENIZER TEXTS DIR | compare DIR');
  process.exit(2);
}
