// read_back.mjs - reads a Parquet file with hyparquet (a second, independent
// reader) and prints one JSON line per row with every column as hyparquet
// decodes it, then a last line {"_file": {...}} with the codecs, the row
// group count and each row group's uncompressed size.
//   node read_back.mjs FILE.parquet
import fs from 'node:fs'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'

const buf = fs.readFileSync(process.argv[2])
const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length)
const meta = parquetMetadata(file)
const rows = await parquetReadObjects({ file, compressors })
for (const r of rows) process.stdout.write(JSON.stringify(r, (k, v) => typeof v === 'bigint' ? Number(v) : v) + '\n')
const codecs = new Set()
for (const g of meta.row_groups) for (const c of g.columns) codecs.add(c.meta_data.codec)
process.stdout.write(JSON.stringify({ _file: {
  codecs: [...codecs], row_groups: meta.row_groups.length, num_rows: Number(meta.num_rows),
  columns: meta.schema.slice(1).map(s => s.name),
  group_bytes: meta.row_groups.map(g => Number(g.total_byte_size)) } }) + '\n')
