// tokenize_hf_json_cases.js - reference outcomes for tests/unit/tokenize_hf_json.c:
// small tokenizer.json files (a WordLevel model, Whitespace pre-tokenizer)
// with one thing changed each (a vocabulary key written with raw control
// characters, bytes that are not UTF-8, surrogate escapes; ids written as
// numbers RFC 8259 does not allow; white space or a BOM around the object,
// an unknown or repeated top-level member, one of the wrong type, arrays
// nested 127 and 128 deep; a Bert, Roberta and Sequence post_processor; pre-tokenizers
// without a member HF requires, a flag that is no boolean, Metaspace's old add_prefix_space), loaded by Hugging Face
// tokenizers itself (npm tokenizers@0.23.2, Tokenizer.fromFile, as
// transformers loads a tokenizer.json) and, when it loads, encoded (without
// and with special tokens) over "a b " and the new key's text.
// Writes tests/data/hf/json_cases.tsv: name, the file's bytes in hex, the
// text in hex, then "refused" and HF's message, or the two id lists.
// usage: NODE_PATH=DIR/node_modules node scripts/tokenize_hf_json_cases.js > tests/data/hf/json_cases.tsv
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const os = require('os');
const path = require('path');

// a case: the key's bytes as written in the file (JSON source), its id's text,
// and optional text before/after the object, a member before "model" and
// one after it, an array of values inside the model (read by neither side's model)
function file(c) {
  const key = Buffer.isBuffer(c.key) ? c.key : Buffer.from(c.key ?? 'c', 'latin1');
  return Buffer.concat([
    Buffer.from(c.before ?? '', 'latin1'),
    Buffer.from('{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,' +
                '"pre_tokenizer":' + (c.pre ?? '{"type":"Whitespace"}') + ',"post_processor":' + (c.post ?? 'null') +
                ',"decoder":null,' +
                (c.member ?? '') +
                '"model":{"type":"WordLevel",' + (c.extra ? '"extra":[' + c.extra + '],' : '') +
                '"vocab":{"a":0,"b":1,"[UNK]":2,"', 'latin1'),
    key,
    Buffer.from('":' + (c.id ?? '3') + '},"unk_token":"[UNK]"}' + (c.last ?? '') + '}' + (c.after ?? ''), 'latin1'),
  ]);
}

const cases = [
  ['plain', {}],
  ['white_space_around', { before: '\n\t \r\n', after: ' \r\n\t\n' }],
  ['del_raw', { key: '\x7f' }],
  ['escapes', { key: '\\"\\\\\\/' }],
  ['surrogate_pair', { key: '\\ud83d\\ude00' }],
  ['surrogate_pair_upper', { key: '\\uD83E\\uDD99' }],
  ['hex_upper_and_lower', { key: '\\u00C9t\\u00e9' }],
  ['utf8_raw', { key: Buffer.from('été', 'utf8') }],
  ['nul_escape', { key: '\\u0000' }],
  ['numbers_in_model', { extra: '0,-0,1E5,-0.5e+3,10.25,2e-400,123456789012345678901234567890' }],
  ['repeated_member', { member: '"pre_tokenizer":null,' }],
  ['number_long', { extra: '1' + '0'.repeat(80) + '.5e-70' }],
  ['nested_127', { extra: '['.repeat(124) + ']'.repeat(124) }], // with the root, model and extra
  ['nested_128', { extra: '['.repeat(125) + ']'.repeat(125) }],
  ['control_01', { key: 'c\x01' }],
  ['control_1f', { key: 'c\x1f' }],
  ['control_tab', { key: 'c\t' }],
  ['control_newline', { key: 'c\n' }],
  ['not_utf8_ff', { key: Buffer.from([0x63, 0xff]) }],
  ['not_utf8_cut', { key: Buffer.from([0x63, 0xe2, 0x82]) }],
  ['not_utf8_overlong', { key: Buffer.from([0x63, 0xc0, 0xaf]) }],
  ['not_utf8_surrogate', { key: Buffer.from([0x63, 0xed, 0xa0, 0x80]) }],
  ['not_utf8_outside_string', { after: ' \xff' }],
  ['lone_high', { key: 'c\\ud800' }],
  ['lone_high_at_end', { key: '\\ud83d' }],
  ['lone_low', { key: 'c\\udc00' }],
  ['high_then_letter', { key: 'c\\ud800\\u0041' }],
  ['high_then_newline', { key: 'c\\ud800\\n' }],
  ['high_then_high', { key: 'c\\ud800\\ud800' }],
  ['number_leading_zero', { id: '03' }],
  ['number_minus_leading_zero', { extra: '-01' }],
  ['number_dot_end', { id: '3.' }],
  ['number_dot_exponent', { extra: '1.e3' }],
  ['number_minus_dot', { extra: '-.5' }],
  ['number_exponent_end', { extra: '1e' }],
  ['number_plus', { extra: '+1' }],
  ['number_minus_alone', { extra: '-' }],
  ['number_out_of_range', { id: '1e400' }],
  ['unknown_member', { member: '"comment":"x",' }],
  ['unknown_member_last', { last: ',"comment":"x"' }],
  ['known_member_last', { last: ',"truncation":null' }],
  ['version_number', { member: '"version":1.0,' }],
  ['version_null', { member: '"version":null,' }],
  ['added_tokens_null', { member: '"added_tokens":null,' }],
  ['truncation_number', { member: '"truncation":5,' }],
  ['padding_string', { member: '"padding":"x",' }],
  ['truncation_object', { member: '"truncation":{"direction":"Right","max_length":512,"strategy":"LongestFirst","stride":0},' }],
  ['bom', { before: '\xef\xbb\xbf' }],
  ['text_after', { after: 'x' }],
  ['bert_processing', { post: '{"type":"BertProcessing","sep":["b",1],"cls":["a",0]}' }],
  ['roberta_processing', { post: '{"type":"RobertaProcessing","sep":["[UNK]",2],"cls":["b",1],' +
                                  '"trim_offsets":true,"add_prefix_space":false}' }],
  ['sequence_processing', { post: '{"type":"Sequence","processors":[{"type":"ByteLevel","add_prefix_space":false,' +
                                   '"trim_offsets":false,"use_regex":false},{"type":"TemplateProcessing",' +
                                   '"single":[{"SpecialToken":{"id":"b","type_id":0}},{"Sequence":{"id":"A","type_id":0}},' +
                                   '{"SpecialToken":{"id":"a","type_id":0}}],"pair":[],"special_tokens":' +
                                   '{"a":{"id":"a","ids":[0],"tokens":["a"]},"b":{"id":"b","ids":[1],"tokens":["b"]}}}]}' }],
  ['pre_bytelevel_no_trim_offsets', { pre: '{"type":"ByteLevel","add_prefix_space":false}' }],
  ['pre_split_no_invert', { pre: '{"type":"Split","pattern":{"String":" "},"behavior":"Removed"}' }],
  ['pre_digits_no_individual', { pre: '{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Digits"}]}' }],
  ['pre_digits_flag_string', { pre: '{"type":"Digits","individual_digits":"true"}' }],
  ['pre_digits_flag_false', { pre: '{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},' +
                                   '{"type":"Digits","individual_digits":false}]}' }],
  ['pre_metaspace_no_replacement', { pre: '{"type":"Metaspace","prepend_scheme":"always"}', key: '\\u2581c' }],
  ['pre_metaspace_no_prefix', { pre: '{"type":"Metaspace","replacement":"\\u2581","add_prefix_space":false}', key: '\\u2581c' }],
  ['pre_metaspace_no_prefix_first', { pre: '{"type":"Metaspace","replacement":"\\u2581","add_prefix_space":false,' +
                                           '"prepend_scheme":"first"}', key: '\\u2581c' }],
  ['pre_metaspace_no_prefix_never', { pre: '{"type":"Metaspace","replacement":"\\u2581","add_prefix_space":false,' +
                                           '"prepend_scheme":"never","split":null}', key: '\\u2581c' }],
  ['pre_metaspace_prefix', { pre: '{"type":"Metaspace","replacement":"\\u2581","add_prefix_space":true}', key: '\\u2581c' }],
];

(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfjson-'));
  for (const [name, c] of cases) {
    const bytes = file(c), p = path.join(dir, name + '.json');
    fs.writeFileSync(p, bytes);
    let key = 'c';
    try { key = JSON.parse('"' + (Buffer.isBuffer(c.key) ? c.key.toString('utf8') : (c.key ?? 'c')) + '"'); } catch (e) {}
    const text = Buffer.from('a b ' + key, 'utf8');
    let row;
    try {
      const t = Tokenizer.fromFile(p);
      const plain = (await t.encode(text.toString("utf8"), null, { addSpecialTokens: false })).getIds();
      const special = (await t.encode(text.toString("utf8"), null, { addSpecialTokens: true })).getIds();
      row = [plain.join(','), special.join(',')];
    } catch (e) {
      row = ['refused', String(e.message || e).replace(/\s+/g, ' ')];
    }
    console.log([name, bytes.toString('hex'), text.toString('hex'), ...row].join('\t'));
  }
  fs.rmSync(dir, { recursive: true });
})();
