// tokenize_hf_merge.js - reference ids for tests/unit/tokenize_hf_merge.c:
// the hand-made SentencePiece-style files tests/data/hf/merge_order*.json
// (merges ranked unlike their tokens' ids, pairs of equal rank side by side,
// merges of a byte-fallback token with U+2581 and with a letter, non-ASCII
// merges, characters that are no token; _bytes: a token for every byte and
// no merge of one; _allbytes: a token for every byte, some merged) encoded
// by Hugging Face tokenizers itself (npm tokenizers@0.23.2, encode(text,
// add_special_tokens=false)) over fixed corner texts and pseudo-random
// texts of their alphabet.
// Writes tests/data/hf/NAME.tsv: one "text TAB ids" line per text.
// usage: NODE_PATH=DIR/node_modules node scripts/tokenize_hf_merge.js
const { Tokenizer } = require('tokenizers');
const fs = require('fs');

const ALPHABET = ['a', 'a', 'a', 'b', 'b', 'c', ' ', ' ', '\u0436', '\u044b', '\u00e9', 'x'];
const RANDOM_TEXTS = 600, MAX_CHARS = 60;
const FIXED = ['aaa', 'a'.repeat(25), 'a'.repeat(31), 'a'.repeat(40) + 'b', 'abc', 'aabc', '\u00e9 b', '\u00e9c',
               '\u0436\u044b', 'a'.repeat(30) + ' \u00e9 b', 'a'.repeat(30) + ' x b', 'x\u00e9 b c', 'a x b', ' ', ''];

let seed = 12345;
function random(n) { /* a fixed LCG: the same texts on every run */
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}

async function main() {
  const texts = [...FIXED];
  for (let i = 0; i < RANDOM_TEXTS; i++) {
    let t = '';
    for (let k = 1 + random(MAX_CHARS); k > 0; k--) t += ALPHABET[random(ALPHABET.length)];
    texts.push(t);
  }
  for (const name of ['merge_order', 'merge_order_nounk', 'merge_order_bytes', 'merge_order_allbytes']) {
    const tok = Tokenizer.fromString(fs.readFileSync(`tests/data/hf/${name}.json`, 'utf8'));
    const lines = [];
    for (const t of texts) {
      const ids = (await tok.encode(t, null, { addSpecialTokens: false })).getIds();
      lines.push(`${t}\t${ids.join(' ')}`);
    }
    fs.writeFileSync(`tests/data/hf/${name}.tsv`, lines.join('\n') + '\n');
  }
}
main();
