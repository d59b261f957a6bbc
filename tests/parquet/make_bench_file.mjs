// make_bench_file.mjs - a big FineWeb-shaped Parquet file for bench/parquet.sh:
// the 400 rows of fixtures/fineweb.parquet repeated COPIES times, written by
// parquet-wasm (arrow-rs) with snappy and ROWS-row row groups, as FineWeb ships.
//   node make_bench_file.mjs OUT.parquet COPIES [ROWS]
import fs from 'node:fs'
import path from 'node:path'
import * as arrow from 'apache-arrow'
import pw from 'parquet-wasm/node'

const [outPath, copies = '100', rowsPerGroup = '20000'] = process.argv.slice(2)
const here = path.dirname(new URL(import.meta.url).pathname)
const src = pw.readParquet(fs.readFileSync(path.join(here, 'fixtures/fineweb.parquet')))
const one = arrow.tableFromIPC(src.intoIPCStream())
const batches = []
for (let i = 0; i < Number(copies); i++) batches.push(...one.batches)
const big = new arrow.Table(batches)
const props = new pw.WriterPropertiesBuilder()
  .setCompression(pw.Compression.SNAPPY)
  .setWriterVersion(pw.WriterVersion.V1)
  .setMaxRowGroupSize(Number(rowsPerGroup))
  .build()
fs.writeFileSync(outPath, pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(big, 'stream')), props))
console.log(`${outPath}: ${big.numRows} rows`)
