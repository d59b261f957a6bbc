// make_legacy_lists.mjs - writes fixtures/legacy_lists.parquet with
// hyparquet-writer: lists in the legacy 2-level shapes parquet-format's
// LogicalTypes.md keeps readable by its backward-compatibility rules (as
// parquet-avro and older writers made them): a LIST group whose repeated
// child is a group of one field named `array`, or the list's name with
// `_tuple`, holds that group as its element, not the field. Run once (the
// file is committed):   cd tests/parquet && npm ci && node make_legacy_lists.mjs
// Rows (as the rules read them; hyparquet itself reads the field instead):
//   {"text":"one","a":[{"x":1},{"x":null}],"b":[{"y":7}]}
//   {"text":"two","a":[],"b":null}
import fs from 'node:fs'
import path from 'node:path'
import { parquetWriteBuffer } from 'hyparquet-writer'

const out = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures')
const schema = [
  { name: 'root', num_children: 3 },
  { name: 'text', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
  { name: 'a', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'array', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'x', type: 'INT32', repetition_type: 'OPTIONAL' },
  { name: 'b', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'b_tuple', repetition_type: 'REPEATED', num_children: 1 },
  { name: 'y', type: 'INT32', repetition_type: 'OPTIONAL' },
]
// hyparquet-writer shreds each list element as the one field's value
const buf = parquetWriteBuffer({ schema, columnData: [
  { name: 'text', data: ['one', 'two'] },
  { name: 'a', data: [[1, null], []] },
  { name: 'b', data: [[7], null] },
] })
fs.writeFileSync(path.join(out, 'legacy_lists.parquet'), new Uint8Array(buf))
console.log(`wrote ${path.join(out, 'legacy_lists.parquet')}`)
