// make_annotated.mjs - writes fixtures/annotated.parquet with parquet-wasm
// (arrow-rs's writer): columns whose annotation (parquet.thrift LogicalType)
// changes what the stored value means, next to a text column. Run once (the
// file is committed):   cd tests/parquet && npm ci && node make_annotated.mjs
// Columns (arrow type -> what arrow-rs stores):
//   text   utf8                      BYTE_ARRAY STRING
//   id     int32                     INT32 (a top-level field that is not a string)
//   price  decimal(9, 2)             INT32 DECIMAL(9, 2): the integer is 100 x the value
//   big    decimal(18, 4)            INT64 DECIMAL(18, 4)
//   u32    uint32                    INT32 INTEGER(32, unsigned)
//   u64    uint64                    INT64 INTEGER(64, unsigned)
//   date   timestamp[ms]             INT64 TIMESTAMP(MILLIS) (a top-level field)
//   day    date32                    INT32 DATE
//   wide   decimal(30, 3)            FIXED_LEN_BYTE_ARRAY DECIMAL(30, 3)
//   score  float64                   DOUBLE, with infinities and a NaN
//   us     timestamp[us, UTC]        INT64 TIMESTAMP(isAdjustedToUTC = true, MICROS)
//   ns     timestamp[ns]             INT64 TIMESTAMP(isAdjustedToUTC = false, NANOS)
//   clock  time32[ms]                INT32 TIME(MILLIS)
//   clock_us time64[us]              INT64 TIME(MICROS)
//   half   float16                   FIXED_LEN_BYTE_ARRAY(2) FLOAT16
//   tags   list<utf8>                a LIST group (nested: an array)
//   blob   fixed_size_binary[3]      FIXED_LEN_BYTE_ARRAY(3), no annotation (left out)
//   meta   struct<src: utf8, n: int32>  a group (nested: an object)
//   kv     map<utf8, int32>          a MAP group (nested: an object keyed by its keys)
//   metadata struct<lang: utf8>      a group named metadata: its members join the document's metadata
// tests/e2e/parquet_annotations.sh holds the rows as they must read.
import fs from 'node:fs'
import path from 'node:path'
import * as arrow from 'apache-arrow'
import pw from 'parquet-wasm/node'

const out = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures')

// A decimal128 vector from unscaled BigInts (null: a null cell).
function decimals(values, precision, scale) {
  const words = new Uint32Array(values.length * 4)
  const valid = new Uint8Array(Math.ceil(values.length / 8))
  values.forEach((v, i) => {
    if (v === null) return
    valid[i >> 3] |= 1 << (i & 7)
    let x = BigInt.asUintN(128, v)
    for (let k = 0; k < 4; k++) { words[i * 4 + k] = Number(x & 0xffffffffn); x >>= 32n }
  })
  const nulls = values.filter(v => v === null).length
  return arrow.makeVector(arrow.makeData({ type: new arrow.Decimal(scale, precision, 128), length: values.length,
    nullCount: nulls, nullBitmap: nulls ? valid : undefined, data: words }))
}

// A vector of type from its stored values (null: a null cell), as they are
// (arrow's builders take milliseconds for every timestamp unit).
function stored(type, values) {
  const valid = new Uint8Array(Math.ceil(values.length / 8))
  values.forEach((v, i) => { if (v !== null) valid[i >> 3] |= 1 << (i & 7) })
  const nulls = values.filter(v => v === null).length
  const zero = type.ArrayType === BigInt64Array ? 0n : 0
  return arrow.makeVector(arrow.makeData({ type, length: values.length, nullCount: nulls,
    nullBitmap: nulls ? valid : undefined, data: new type.ArrayType(values.map(v => v === null ? zero : v)) }))
}

const table = new arrow.Table({
  text: arrow.vectorFromArray(['first', 'second', 'third', 'fourth', 'fifth', 'sixth']),
  id: arrow.vectorFromArray([7, -1, 0, 2147483647, null, 42], new arrow.Int32()),
  price: decimals([12345n, -5n, 100n, 0n, null, 999999999n], 9, 2),
  big: decimals([9223372036854775807n, -9223372036854775808n, 1n, -10000n, 123456789012345678n, null], 18, 4),
  u32: arrow.vectorFromArray([4294967295, 0, 2147483648, 1, null, 3000000000], new arrow.Uint32()),
  u64: arrow.vectorFromArray([18446744073709551615n, 0n, 9223372036854775808n, 1n, 12345678901234567890n, null], new arrow.Uint64()),
  date: arrow.vectorFromArray([0, 1700000000123, null, 1, 2, 3].map(v => v === null ? null : new Date(v)), new arrow.TimestampMillisecond()),
  day: arrow.vectorFromArray([0, 19000, 1, null, 2, 3].map(v => v === null ? null : new Date(v * 86400000)), new arrow.DateDay()),
  wide: decimals([1n, 2n, null, 3n, 4n, 5n], 30, 3),
  score: arrow.vectorFromArray([1.5, Infinity, -Infinity, NaN, null, -0.25], new arrow.Float64()),
  us: stored(new arrow.Timestamp(arrow.TimeUnit.MICROSECOND, 'UTC'),
    [0n, 1700000000123456n, -1n, null, 253402300799999999n, -62135596800000000n]),
  ns: stored(new arrow.Timestamp(arrow.TimeUnit.NANOSECOND),
    [1n, null, -1000000001n, 9223372036854775807n, -9223372036854775808n, 0n]),
  clock: stored(new arrow.TimeMillisecond(), [0, 45296789, null, 86399999, 1, 3600000]),
  clock_us: stored(new arrow.TimeMicrosecond(), [86399999999n, 1n, null, 0n, 43200000000n, 60000000n]),
  half: stored(new arrow.Float16(), [0x3e00, 0x8000, null, 0x7c00, 0x0001, 0x7bff]),
  tags: arrow.vectorFromArray([['a', 'b'], [], null, ['c'], null, ['d']],
    new arrow.List(new arrow.Field('item', new arrow.Utf8(), true))),
  blob: arrow.vectorFromArray([1, 2, 3, 4, 5, 6].map(k => new Uint8Array([k, k, k])), new arrow.FixedSizeBinary(3)),
  meta: arrow.vectorFromArray([{ src: 'cc', n: 1 }, null, { src: null, n: 3 }, { src: 'wiki', n: null }, { src: 'x', n: 5 }, null],
    new arrow.Struct([new arrow.Field('src', new arrow.Utf8(), true), new arrow.Field('n', new arrow.Int32(), true)])),
  kv: arrow.vectorFromArray([new Map([['a', 1], ['b', 2]]), new Map(), null, new Map([['c', null]]), new Map([['d', 4]]), null],
    new arrow.Map_(new arrow.Field('entries', new arrow.Struct([new arrow.Field('key', new arrow.Utf8(), false),
      new arrow.Field('value', new arrow.Int32(), true)]), false))),
  metadata: arrow.vectorFromArray([{ lang: 'en' }, null, { lang: null }, { lang: 'fr' }, { lang: 'de' }, { lang: 'en' }],
    new arrow.Struct([new arrow.Field('lang', new arrow.Utf8(), true)])),
})
const props = new pw.WriterPropertiesBuilder().setCompression(pw.Compression.SNAPPY).setDictionaryEnabled(false).build()
fs.writeFileSync(path.join(out, 'annotated.parquet'), pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(table, 'stream')), props))
console.log(`wrote ${path.join(out, 'annotated.parquet')}`)
