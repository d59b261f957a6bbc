/* core_parquet_cell - Parquet cells whose annotation changes what the stored
 * value means, written as JSON values, against values their writers give:
 * the Parquet project's test files (apache/parquet-testing: the INT96
 * timestamps int96_from_spark.md lists, the decimals 1.00 ... 24.00 in
 * bytes, the float16 files its README makes with pyarrow, alltypes_plain's
 * INT96 timestamps beside its date strings), and cells made here whose
 * expected text was worked out with GNU date and Python's datetime and int. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/parquet.h"
#include "core/parquet_cell.h"
#include "tests/tap.h"

#define DATA "parquet/parquet-testing/data"
#define CELLS_MAX 64

static pq_file *open_data(const char *name)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/%s", shared_dir(), DATA, name);
    require_file(path);
    int fd = open(path, O_RDONLY);
    wbuf err = WBUF_INIT;
    pq_file *f = pq_open_fd(fd, NULL, 0, name, &err);
    close(fd);
    if (!f) ok(0, "%s opens: %s", name, err.data);
    buf_free(&err);
    return f;
}

/* The cells of column c (row group 0) of file name, as JSON, joined by spaces. */
static void column_cells(const char *name, int c, wbuf *out)
{
    buf_clear(out);
    pq_file *f = open_data(name);
    if (!f) return;
    pq_values v = {0};
    wbuf err = WBUF_INIT;
    if (pq_read_column(f, 0, c, &v, &err) != 0) {
        ok(0, "%s column %d reads: %s", name, c, err.data);
    } else {
        for (int64_t r = 0; r < v.n; r++) {
            if (r) buf_putc(out, ' ');
            pq_put_cell(out, pq_column_at(f, c), &v, r);
        }
        pq_values_free(&v);
    }
    buf_putc(out, 0);
    buf_free(&err);
    pq_close(f);
}

/* Spark's INT96 timestamps: int96_from_spark.md gives them as microseconds
 * since the epoch (1704141296123456, 1704070800000000, 253402225200000000,
 * 1735599600000000, null, 9089380393200000000); as UTC dates (GNU date -u
 * -d @SECONDS) with the nanosecond digits INT96 holds. The last one's Julian
 * day overflowed 32 bits when Spark wrote it: read as Spark reads it. */
static void int96_from_spark(void)
{
    wbuf got = WBUF_INIT;
    column_cells("int96_from_spark.parquet", 0, &got);
    is_str(got.data,
           "\"2024-01-01T20:34:56.123456000Z\" \"2024-01-01T01:00:00.000000000Z\" \"9999-12-31T03:00:00.000000000Z\" "
           "\"2024-12-30T23:00:00.000000000Z\" null \"+290000-12-30T23:00:00.000000000Z\"",
           "int96_from_spark.parquet: the six timestamps its notes give, year 290000 included");
    buf_free(&got);
}

/* alltypes_plain.parquet: each row's INT96 timestamp_col falls on the day
 * its date_string_col (MM/DD/YY) names. */
static void alltypes_dates_agree(void)
{
    wbuf stamps = WBUF_INIT, dates = WBUF_INIT;
    column_cells("alltypes_plain.parquet", 10, &stamps);
    column_cells("alltypes_plain.parquet", 8, &dates);
    int rows = 0, agree = 0;
    char *s = stamps.data, *d = dates.data;
    while (s && d && *s && *d) {
        int month, day, year;
        char want[16];
        if (sscanf(d, "\"%2d/%2d/%2d\"", &month, &day, &year) != 3) break;
        snprintf(want, sizeof want, "\"20%02d-%02d-%02dT", year, month, day);
        rows++;
        agree += strncmp(s, want, strlen(want)) == 0;
        s = strchr(s, ' ');
        d = strchr(d, ' ');
        if (!s || !d) break;
        s++, d++;
    }
    ok(rows == 8 && agree == 8, "alltypes_plain.parquet: 8 INT96 timestamps on the days of their date strings (%d of %d)",
       agree, rows);
    buf_free(&stamps);
    buf_free(&dates);
}

/* DECIMAL(4, 2) in a byte array and DECIMAL(25, 2) in 11 fixed bytes: 1.00 ... 24.00. */
static void decimals_in_bytes(void)
{
    wbuf want = WBUF_INIT, got = WBUF_INIT;
    for (int k = 1; k <= 24; k++) buf_printf(&want, "%s%d.00", k > 1 ? " " : "", k);
    buf_putc(&want, 0);
    const char *files[] = {"byte_array_decimal.parquet", "fixed_length_decimal.parquet"};
    for (int i = 0; i < 2; i++) {
        column_cells(files[i], 0, &got);
        is_str(got.data, want.data, "%s: 1.00 ... 24.00", files[i]);
    }
    buf_free(&want);
    buf_free(&got);
}

/* FLOAT16 cells: the values the README's pyarrow script wrote (NaN is null). */
static void float16_files(void)
{
    wbuf got = WBUF_INIT;
    column_cells("float16_nonzeros_and_nans.parquet", 0, &got);
    is_str(got.data, "null 1.0 -2.0 null 0.0 -1.0 -0.0 2.0", "float16_nonzeros_and_nans.parquet: its 8 values");
    column_cells("float16_zeros_and_nans.parquet", 0, &got);
    is_str(got.data, "null 0.0 null", "float16_zeros_and_nans.parquet: its 3 values");
    buf_free(&got);
}

/* One cell of a column of meaning (and the rest of col) holding n, as JSON. */
static const char *int_cell(pq_column col, int type, int64_t n, wbuf *out)
{
    pq_values v = {.n = 1, .type = type, .ints = &n};
    col.type = type;
    buf_clear(out);
    pq_put_cell(out, &col, &v, 0);
    buf_putc(out, 0);
    return out->data;
}

static const char *bytes_cell(pq_column col, const uint8_t *p, size_t len, wbuf *out)
{
    pq_bytes b = {p, (uint32_t)len};
    pq_values v = {.n = 1, .type = col.type, .bytes = &b};
    buf_clear(out);
    pq_put_cell(out, &col, &v, 0);
    buf_putc(out, 0);
    return out->data;
}

/* Dates across eras and leap days (Python's datetime.date(1970, 1, 1) +
 * timedelta(days=N); outside its years 1..9999, days counted by hand). */
static void dates(void)
{
    wbuf out = WBUF_INIT;
    pq_column date = {.meaning = PQ_DATE};
    is_str(int_cell(date, PQ_INT32, 11016, &out), "\"2000-02-29\"", "DATE 11016: 2000-02-29 (a 400-year leap day)");
    is_str(int_cell(date, PQ_INT32, -25508, &out), "\"1900-03-01\"", "DATE -25508: 1900-03-01 (1900 has no Feb 29)");
    is_str(int_cell(date, PQ_INT32, 2932896, &out), "\"9999-12-31\"", "DATE 2932896: 9999-12-31");
    is_str(int_cell(date, PQ_INT32, 2932897, &out), "\"+010000-01-01\"", "DATE 2932897: year 10000, expanded");
    is_str(int_cell(date, PQ_INT32, -719528, &out), "\"0000-01-01\"", "DATE -719528: 0000-01-01 (proleptic)");
    is_str(int_cell(date, PQ_INT32, -719529, &out), "\"-000001-12-31\"", "DATE -719529: the day before, year -1");
    buf_free(&out);
}

/* Timestamps and times by unit and by isAdjustedToUTC. */
static void timestamps_and_times(void)
{
    wbuf out = WBUF_INIT;
    pq_column ms_utc = {.meaning = PQ_TIMESTAMP, .time_digits = 3, .utc = true};
    pq_column us_local = {.meaning = PQ_TIMESTAMP, .time_digits = 6, .utc = false};
    pq_column ns_utc = {.meaning = PQ_TIMESTAMP, .time_digits = 9, .utc = true};
    is_str(int_cell(ms_utc, PQ_INT64, 1700000000123, &out), "\"2023-11-14T22:13:20.123Z\"",
           "TIMESTAMP(true, MILLIS) 1700000000123: UTC, with a Z");
    is_str(int_cell(us_local, PQ_INT64, -1, &out), "\"1969-12-31T23:59:59.999999\"",
           "TIMESTAMP(false, MICROS) -1: rounded down, a local time without a Z");
    is_str(int_cell(ns_utc, PQ_INT64, INT64_MIN, &out), "\"1677-09-21T00:12:43.145224192Z\"",
           "TIMESTAMP(true, NANOS) at INT64_MIN: 1677-09-21T00:12:43.145224192Z");
    pq_column time_ms = {.meaning = PQ_TIME, .time_digits = 3, .utc = false};
    pq_column time_us = {.meaning = PQ_TIME, .time_digits = 6, .utc = true};
    is_str(int_cell(time_ms, PQ_INT32, 45296789, &out), "\"12:34:56.789\"", "TIME(MILLIS) 45296789: 12:34:56.789");
    is_str(int_cell(time_us, PQ_INT64, 86399999999, &out), "\"23:59:59.999999Z\"",
           "TIME(true, MICROS) 86399999999: the day's last microsecond, UTC");
    buf_free(&out);
}

/* Decimals in bytes of any length and sign (Python's int.from_bytes(..., 'big', signed=True)). */
static void decimal_bytes_made_here(void)
{
    wbuf out = WBUF_INIT;
    pq_column dec = {.type = PQ_BYTE_ARRAY, .meaning = PQ_DECIMAL, .scale = 2};
    static const uint8_t minus_one[] = {0xff}, low[] = {0x80, 0x00}, wide[17] = {0x01};
    is_str(bytes_cell(dec, minus_one, 1, &out), "-0.01", "DECIMAL(s=2) 0xff: -0.01");
    is_str(bytes_cell(dec, low, 2, &out), "-327.68", "DECIMAL(s=2) 0x8000: -327.68");
    is_str(bytes_cell(dec, wide, 17, &out), "3402823669209384634633746074317682114.56",
           "DECIMAL(s=2) of 17 bytes (2^128): every digit");
    is_str(bytes_cell(dec, low, 0, &out), "null", "DECIMAL in an empty byte array: null (no number in it)");
    pq_column uuid = {.type = PQ_FIXED_LEN_BYTE_ARRAY, .type_length = 16, .meaning = PQ_UUID};
    static const uint8_t id[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00};
    is_str(bytes_cell(uuid, id, 16, &out), "\"123e4567-e89b-12d3-a456-426614174000\"", "UUID: 8-4-4-4-12 hex");
    buf_free(&out);
}

int main(void)
{
    int96_from_spark();
    alltypes_dates_agree();
    decimals_in_bytes();
    float16_files();
    dates();
    timestamps_and_times();
    decimal_bytes_made_here();
    return done_testing();
}
