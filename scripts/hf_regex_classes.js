// hf_regex_classes.js - which characters the onig escapes \w, \W, \s, \S, \d
// and the Unicode properties \p{..} match in Hugging Face tokenizers' Split
// patterns, outside and inside a bracket class, and which ones its Digits
// pre-tokenizer (Rust's char::is_numeric) takes for digits: for each
// pattern, a Split (behavior Removed) of every code
// point U+0001..U+10FFFF (surrogates excepted) by HF tokenizers itself (npm
// tokenizers@0.23.2; the patterns run in Oniguruma), the characters it
// removes written as ranges. Writes tests/data/hf/onig_classes.tsv
// (pattern TAB first-last,first-last,... in hex; the line "Digits" the
// characters Digits(individual_digits) isolates), which
// tests/unit/tokenize_hf_regex.c checks hf_regex.c's translation and the
// scanners' class table (uclass_onig) against.
// usage: NODE_PATH=DIR/node_modules node scripts/hf_regex_classes.js
const { Tokenizer } = require('tokenizers');
const fs = require('fs');

const PATTERNS = ['\\w', '[\\w]', '\\W', '[^\\w]', '[^\\w\\s]', '\\s', '[\\s]', '\\S', '\\d', '[\\d]', '\\D',
  '\\p{L}', '\\p{N}', '\\p{P}', '\\p{S}', '\\p{M}', '\\p{Lu}', '\\p{Ll}', '\\p{Lt}', '\\p{Lm}', '\\p{Lo}',
  '\\p{Nd}', '\\p{Alphabetic}', '[^\\s\\p{L}\\p{N}]', '\\P{L}', '\\p{^N}'];
const CHUNK = 4096;
const SEPARATOR = '\u0000'; /* no pattern above matches NUL: it only keeps the characters apart */

(async () => {
  const chars = [];
  for (let c = 1; c < 0x110000; c++) if (c < 0xd800 || c >= 0xe000) chars.push(String.fromCodePoint(c));
  const lines = ['# pattern\tthe code points HF tokenizers\' Split (onig) matches, as hex ranges'];
  for (const pattern of PATTERNS) {
    const tok = Tokenizer.fromString(JSON.stringify({
      version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
      pre_tokenizer: { type: 'Split', pattern: { Regex: pattern }, behavior: 'Removed', invert: false },
      post_processor: null, decoder: null,
      model: { type: 'WordLevel', vocab: { '[UNK]': 0 }, unk_token: '[UNK]' } }));
    const kept = new Set();
    for (let i = 0; i < chars.length; i += CHUNK) {
      const text = Array.from(chars.slice(i, i + CHUNK).join(SEPARATOR));
      const enc = await tok.encode(text.join(''), null, { addSpecialTokens: false });
      for (const [a, b] of enc.getOffsets()) /* offsets count characters */
        for (const ch of text.slice(a, b)) if (ch !== SEPARATOR) kept.add(ch.codePointAt(0));
    }
    const ranges = [];
    for (const ch of chars) {
      const c = ch.codePointAt(0);
      if (kept.has(c)) continue;
      const last = ranges[ranges.length - 1];
      if (last && last[1] === c - 1) last[1] = c;
      else ranges.push([c, c]);
    }
    lines.push(pattern + '\t' + ranges.map(([a, b]) => a.toString(16) + '-' + b.toString(16)).join(','));
    console.log(pattern, ranges.length, 'ranges');
  }
  /* Digits: a character it isolates is a one-character piece between NULs */
  const digits = Tokenizer.fromString(JSON.stringify({
    version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: { type: 'Digits', individual_digits: true }, post_processor: null, decoder: null,
    model: { type: 'WordLevel', vocab: { '[UNK]': 0 }, unk_token: '[UNK]' } }));
  const numeric = [];
  for (let i = 0; i < chars.length; i += CHUNK) {
    const text = Array.from(SEPARATOR + chars.slice(i, i + CHUNK).join(SEPARATOR) + SEPARATOR);
    const enc = await digits.encode(text.join(''), null, { addSpecialTokens: false });
    for (const [a, b] of enc.getOffsets()) if (b === a + 1 && text[a] !== SEPARATOR) numeric.push(text[a].codePointAt(0));
  }
  const digitRanges = [];
  for (const c of numeric) {
    const last = digitRanges[digitRanges.length - 1];
    if (last && last[1] === c - 1) last[1] = c;
    else digitRanges.push([c, c]);
  }
  lines.push('Digits\t' + digitRanges.map(([a, b]) => a.toString(16) + '-' + b.toString(16)).join(','));
  console.log('Digits', numeric.length, 'characters');
  fs.writeFileSync('tests/data/hf/onig_classes.tsv', lines.join('\n') + '\n');
})();
