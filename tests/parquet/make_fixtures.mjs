// make_fixtures.mjs - writes tests/parquet/fixtures/ with two Parquet writers
// that are not winnow's: parquet-wasm (arrow-rs's writer, as pyarrow-like
// datasets are written) and hyparquet-writer (a pure JavaScript writer).
// Run once (the files are committed):
//   cd tests/parquet && npm ci && node make_fixtures.mjs ../../../shared/data
// Outputs:
//   fineweb.parquet        FineWeb's columns (text, id, dump, url, date, file_path,
//                          language, language_score, token_count), snappy, v1 pages,
//                          dictionary where it pays, 100-row row groups: the first
//                          400 documents of the dolma CC-2019-30 sample, mapped as
//                          tests/e2e/parquet_input.sh maps them again to compare
//   types.<variant>.parquet one small table of every flat type, nulls and awkward
//                          strings, with each compression / page version / encoding
//   types.expected.jsonl   that table's rows, as JSON (what the files must read as)
import fs from 'node:fs'
import zlib from 'node:zlib'
import path from 'node:path'
import * as arrow from 'apache-arrow'
import pw from 'parquet-wasm/node'
import { parquetWriteBuffer } from 'hyparquet-writer'

const shared = process.argv[2] || '../../../shared/data'
const out = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures')
fs.mkdirSync(out, { recursive: true })

function writeWasm(table, file, { compression, version, dictionary = true, encodings = {}, rowGroup = 100 }) {
  const wasmTable = pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream'))
  let b = new pw.WriterPropertiesBuilder()
    .setCompression(compression)
    .setWriterVersion(version)
    .setDictionaryEnabled(dictionary)
    .setMaxRowGroupSize(rowGroup)
    .setDataPageSizeLimit(8192)
  for (const [col, enc] of Object.entries(encodings)) b = b.setColumnEncoding(col, enc).setColumnDictionaryEnabled(col, false)
  fs.writeFileSync(path.join(out, file), pw.writeParquet(wasmTable, b.build()))
}

// ---- FineWeb-shaped ----
const lines = zlib.gunzipSync(fs.readFileSync(path.join(shared,
  'jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz'))).toString('utf8')
  .split('\n').filter(l => l).slice(0, 400).map(l => JSON.parse(l))
const fw = {
  text: lines.map(d => d.text),
  id: lines.map(d => `<urn:uuid:${d.id}>`),
  dump: lines.map(() => 'CC-MAIN-2019-30'),
  url: lines.map(d => d.metadata.url),
  date: lines.map(d => d.metadata.warc_date),
  file_path: lines.map(d => `s3://commoncrawl/crawl-data/CC-MAIN-2019-30/segments/${d.metadata.warc_filename}`),
  language: lines.map(() => 'en'),
  language_score: lines.map((d, i) => 0.5 + (i % 500) / 1000),
  token_count: lines.map(d => BigInt(d.text.split(' ').length)), // spaces + 1: easy to recompute exactly
}
const fwTable = arrow.tableFromArrays({
  ...fw,
  language_score: Float64Array.from(fw.language_score),
  token_count: BigInt64Array.from(fw.token_count),
})
writeWasm(fwTable, 'fineweb.parquet', { compression: pw.Compression.SNAPPY, version: pw.WriterVersion.V1 })

// ---- every flat type, nulls, awkward strings ----
const odd = ['', 'a "quoted" \\ backslash', 'tab\tnew\nline\rcarriage', '\u0001\u001f control', 'émoji 👍 ünïcödé 中文',
  'x'.repeat(3000), '{"json":"inside"}', '\u2028\u2029 separators']
const N = 150
const texts = lines.slice(0, N).map((d, i) => i < odd.length ? odd[i] : d.text.slice(0, 200 + (i * 37) % 400))
const rows = []
for (let i = 0; i < N; i++) {
  rows.push({
    text: texts[i],
    id: i % 7 === 3 ? null : `doc-${i}`,
    url: i % 5 === 0 ? null : `https://example.org/${i}?q=${i % 3}`,
    lang: ['en', 'de', 'fr', null][i % 4],
    n32: i % 6 === 5 ? null : (i * 2654435761) % 2147483647 - 1000000000,
    n64: BigInt(i) * 1234567890123n - 5000000000000n,
    f32: Math.fround(i / 7),
    f64: i % 9 === 4 ? null : i * 1.0000001 - 3.5,
    flag: i % 10 === 9 ? null : i % 3 === 0,
  })
}
const typesTable = arrow.tableFromArrays({
  text: rows.map(r => r.text),
  id: rows.map(r => r.id),
  url: rows.map(r => r.url),
  lang: rows.map(r => r.lang),
  n32: arrow.vectorFromArray(rows.map(r => r.n32), new arrow.Int32()),
  n64: arrow.vectorFromArray(rows.map(r => r.n64), new arrow.Int64()),
  f32: arrow.vectorFromArray(rows.map(r => r.f32), new arrow.Float32()),
  f64: arrow.vectorFromArray(rows.map(r => r.f64), new arrow.Float64()),
  flag: arrow.vectorFromArray(rows.map(r => r.flag), new arrow.Bool()),
})
const C = pw.Compression, V = pw.WriterVersion, E = pw.Encoding
const variants = {
  'wasm-snappy-v1': { compression: C.SNAPPY, version: V.V1 },
  'wasm-zstd-v1': { compression: C.ZSTD, version: V.V1 },
  'wasm-gzip-v1': { compression: C.GZIP, version: V.V1 },
  'wasm-brotli-v1': { compression: C.BROTLI, version: V.V1 },
  'wasm-none-v1-plain': { compression: C.UNCOMPRESSED, version: V.V1, dictionary: false },
  'wasm-snappy-v2': { compression: C.SNAPPY, version: V.V2 },
  'wasm-zstd-v2': { compression: C.ZSTD, version: V.V2, rowGroup: 40 },
  'wasm-zstd-v2-delta': { compression: C.ZSTD, version: V.V2, encodings: {
    text: E.DELTA_LENGTH_BYTE_ARRAY, url: E.DELTA_BYTE_ARRAY, n32: E.DELTA_BINARY_PACKED, n64: E.DELTA_BINARY_PACKED } },
}
for (const [name, opts] of Object.entries(variants)) writeWasm(typesTable, `types.${name}.parquet`, opts)
// hyparquet-writer: its own snappy, PLAIN and dictionary pages
const hyCols = [
  { name: 'text', data: rows.map(r => r.text), type: 'STRING' },
  { name: 'id', data: rows.map(r => r.id), type: 'STRING' },
  { name: 'url', data: rows.map(r => r.url), type: 'STRING' },
  { name: 'lang', data: rows.map(r => r.lang), type: 'STRING' },
  { name: 'n32', data: rows.map(r => r.n32), type: 'INT32' },
  { name: 'n64', data: rows.map(r => r.n64), type: 'INT64' },
  { name: 'f32', data: rows.map(r => r.f32), type: 'FLOAT' },
  { name: 'f64', data: rows.map(r => r.f64), type: 'DOUBLE' },
  { name: 'flag', data: rows.map(r => r.flag), type: 'BOOLEAN' },
]
for (const [name, codec] of [['hyparquet-snappy', 'SNAPPY'], ['hyparquet-none', 'UNCOMPRESSED']])
  fs.writeFileSync(path.join(out, `types.${name}.parquet`),
    Buffer.from(parquetWriteBuffer({ columnData: hyCols, codec, rowGroupSize: 64 })))
fs.writeFileSync(path.join(out, 'types.expected.jsonl'),
  rows.map(r => JSON.stringify(r, (k, v) => typeof v === 'bigint' ? v.toString() : v)).join('\n') + '\n')
console.log(`wrote ${Object.keys(variants).length + 3} Parquet files to ${out}`)
