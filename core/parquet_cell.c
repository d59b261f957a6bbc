/* parquet_cell.c - one Parquet cell as a JSON value. */
#include "core/parquet_cell.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"

#define DOUBLE_DIGITS_MIN 15
#define DOUBLE_DIGITS_MAX 17
#define NUMBER_MAX 48
#define SECONDS_PER_DAY 86400
#define JULIAN_DAY_OF_EPOCH 2440588 /* 1970-01-01 as a Julian day number (INT96's days) */
#define MICROS_PER_DAY 86400000000ull

bool pq_cell_readable(const pq_column *col)
{
    if (col->meaning == PQ_OTHER_MEANING) return false;
    /* fixed-length bytes mean something only through their annotation */
    return col->type != PQ_FIXED_LEN_BYTE_ARRAY || col->meaning != PQ_AS_STORED;
}

bool pq_cell_is_string(const pq_column *col)
{
    switch (col->meaning) {
    case PQ_DATE: case PQ_TIME: case PQ_TIMESTAMP: case PQ_UUID: return true;
    case PQ_AS_STORED: return col->type == PQ_BYTE_ARRAY;
    }
    return false;
}

/* The shortest "%.*g" form of x that reads back as the same double (a FLOAT
 * cell is written as its exact value as a double, as Arrow readers give it). */
static void put_real(wbuf *out, double x)
{
    if (!isfinite(x)) { /* JSON has no NaN or infinity */
        buf_puts(out, "null");
        return;
    }
    char s[NUMBER_MAX];
    for (int digits = DOUBLE_DIGITS_MIN; digits <= DOUBLE_DIGITS_MAX; digits++) {
        snprintf(s, sizeof s, "%.*g", digits, x);
        if (strtod(s, NULL) == x) break;
    }
    if (!strpbrk(s, ".eE")) strcat(s, ".0"); /* stays a float when read back */
    buf_puts(out, s);
}

/* An IEEE 754 half (FLOAT16) as the double of the same value. */
static double half_to_double(uint16_t h)
{
    int exponent = (h >> 10) & 0x1f;
    double magnitude, fraction = h & 0x3ff;
    if (exponent == 0) magnitude = ldexp(fraction, -24); /* subnormal */
    else if (exponent == 0x1f) magnitude = fraction ? NAN : INFINITY;
    else magnitude = ldexp(fraction + 1024, exponent - 25);
    return h & 0x8000 ? -magnitude : magnitude;
}

/* The decimal digits (no sign) digits[0, n) with scale of them after the
 * point: "12345" with scale 2 is 123.45, "5" with scale 3 is 0.005. */
static void put_scaled(wbuf *out, bool negative, const char *digits, size_t n, int scale)
{
    if (negative) buf_putc(out, '-');
    size_t s = (size_t)scale;
    if (n <= s) { /* zeros before the digits: 0.00ddd */
        buf_putc(out, '0');
        buf_putc(out, '.');
        for (size_t k = n; k < s; k++) buf_putc(out, '0');
        buf_append(out, digits, n);
        return;
    }
    buf_append(out, digits, n - s);
    if (s) {
        buf_putc(out, '.');
        buf_append(out, digits + n - s, s);
    }
}

/* A DECIMAL's stored integer x with scale digits after the point, exactly. */
static void put_decimal(wbuf *out, int64_t x, int scale)
{
    uint64_t magnitude = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    char digits[NUMBER_MAX];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)magnitude);
    put_scaled(out, x < 0, digits, (size_t)n, scale);
}

/* A DECIMAL stored as a big-endian two's complement integer of len bytes
 * (any length; an empty one is a null: there is no number in it). */
static void put_decimal_bytes(wbuf *out, const uint8_t *p, size_t len, int scale)
{
    if (len == 0) {
        buf_puts(out, "null");
        return;
    }
    uint8_t *magnitude = xmalloc(len);
    char *digits = xmalloc(len * 3 + 1); /* 256^len < 10^(3 len) */
    bool negative = p[0] & 0x80;
    for (size_t i = 0; i < len; i++) magnitude[i] = negative ? (uint8_t)~p[i] : p[i];
    for (size_t i = len; negative && i-- > 0;) /* two's complement: invert, then add one */
        if (++magnitude[i] != 0) break;
    size_t n = 0, first = 0; /* digits come out lowest first; first: the first non-zero byte */
    do { /* long division by 10 of the big-endian magnitude */
        unsigned remainder = 0;
        for (size_t i = first; i < len; i++) {
            unsigned value = remainder * 256 + magnitude[i];
            magnitude[i] = (uint8_t)(value / 10);
            remainder = value % 10;
        }
        digits[n++] = (char)('0' + remainder);
        while (first < len && magnitude[first] == 0) first++;
    } while (first < len);
    for (size_t i = 0; i < n / 2; i++) { /* highest first */
        char t = digits[i];
        digits[i] = digits[n - 1 - i];
        digits[n - 1 - i] = t;
    }
    put_scaled(out, negative, digits, n, scale);
    free(magnitude);
    free(digits);
}

/* a / b rounded down (b > 0). */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return a % b < 0 ? q - 1 : q;
}

/* What is left of a after floor_div(a, b): 0 .. b - 1 (no product, which
 * overflows near INT64_MIN). */
static int64_t floor_mod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

/* The proleptic Gregorian date of the day days after 1970-01-01: counted
 * in 400-year eras of 146,097 days from 0000-03-01, so that a leap day is
 * the last day of its year. */
static void date_of_day(int64_t days, int64_t *year, int *month, int *day)
{
    int64_t from_0000_03_01 = days + 719468; /* days from 0000-03-01 to 1970-01-01 */
    int64_t era = floor_div(from_0000_03_01, 146097);
    int64_t day_of_era = from_0000_03_01 - era * 146097;                                      /* 0 .. 146096 */
    int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365; /* 0 .. 399 */
    int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100); /* 0 .. 365, from March */
    int64_t month_from_march = (5 * day_of_year + 2) / 153;                                   /* 0 .. 11 */
    *day = (int)(day_of_year - (153 * month_from_march + 2) / 5 + 1);
    *month = (int)(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
    *year = year_of_era + era * 400 + (*month <= 2);
}

/* YYYY-MM-DD; a year outside 0000-9999 as ISO 8601 expanded years with six
 * digits and a sign (+010000, -000001), the form ECMAScript dates use. */
static void put_date(wbuf *out, int64_t days)
{
    int64_t year;
    int month, day;
    date_of_day(days, &year, &month, &day);
    if (year >= 0 && year <= 9999) buf_printf(out, "%04lld-%02d-%02d", (long long)year, month, day);
    else buf_printf(out, "%+07lld-%02d-%02d", (long long)year, month, day);
}

/* HH:MM:SS, then the fraction's digits (none when digits is 0). */
static void put_clock(wbuf *out, int64_t second_of_day, int64_t fraction, int digits)
{
    buf_printf(out, "%02lld:%02lld:%02lld", (long long)(second_of_day / 3600), (long long)(second_of_day / 60 % 60),
               (long long)(second_of_day % 60));
    if (digits) buf_printf(out, ".%0*lld", digits, (long long)fraction);
}

static int64_t power_of_ten(int digits)
{
    int64_t p = 1;
    while (digits-- > 0) p *= 10;
    return p;
}

/* A timestamp: days since 1970-01-01, then the second of that day and its fraction. */
static void put_instant(wbuf *out, int64_t days, int64_t second_of_day, int64_t fraction, int digits, bool utc)
{
    buf_putc(out, '"');
    put_date(out, days);
    buf_putc(out, 'T');
    put_clock(out, second_of_day, fraction, digits);
    if (utc) buf_putc(out, 'Z');
    buf_putc(out, '"');
}

/* A TIMESTAMP of units (10^-digits s) since 1970-01-01T00:00:00. */
static void put_timestamp(wbuf *out, int64_t units, int digits, bool utc)
{
    int64_t per_second = power_of_ten(digits);
    int64_t seconds = floor_div(units, per_second);
    put_instant(out, floor_div(seconds, SECONDS_PER_DAY), floor_mod(seconds, SECONDS_PER_DAY), floor_mod(units, per_second),
                digits, utc);
}

/* An INT96 timestamp: nanoseconds of the day (8 bytes), then the Julian
 * day (4, signed), little-endian; read as Spark (its writer) reads it: the
 * days times a day's microseconds plus the microseconds of the nanoseconds,
 * in 64-bit integers that wrap as Java's do, so that a Spark timestamp past
 * year 9999 (whose Julian day overflowed when written) reads back as
 * written. The last three digits of the nanoseconds are kept as they are. */
static void put_int96(wbuf *out, const uint8_t *p)
{
    uint64_t nanos_bits = 0;
    uint32_t julian_bits = 0;
    for (int k = 7; k >= 0; k--) nanos_bits = nanos_bits << 8 | p[k];
    for (int k = 11; k >= 8; k--) julian_bits = julian_bits << 8 | p[k];
    int64_t julian = julian_bits < 0x80000000u ? (int64_t)julian_bits : (int64_t)julian_bits - 0x100000000;
    int64_t nanos = (int64_t)nanos_bits, micros_of_nanos = floor_div(nanos, 1000);
    uint64_t micros_wrapped = (uint64_t)(julian - JULIAN_DAY_OF_EPOCH) * MICROS_PER_DAY + (uint64_t)micros_of_nanos;
    int64_t micros = (int64_t)micros_wrapped; /* two's complement, as every compiler winnow builds with */
    int64_t seconds = floor_div(micros, 1000000);
    put_instant(out, floor_div(seconds, SECONDS_PER_DAY), floor_mod(seconds, SECONDS_PER_DAY),
                floor_mod(micros, 1000000) * 1000 + floor_mod(nanos, 1000), 9, true);
}

/* A TIME of units since midnight; a value outside the day keeps its sign
 * and hours (-01:00:00, 25:00:00) rather than wrapping. */
static void put_time(wbuf *out, int64_t units, int digits, bool utc)
{
    int64_t per_second = power_of_ten(digits);
    uint64_t magnitude = units < 0 ? 0 - (uint64_t)units : (uint64_t)units;
    buf_putc(out, '"');
    if (units < 0) buf_putc(out, '-');
    put_clock(out, (int64_t)(magnitude / (uint64_t)per_second), (int64_t)(magnitude % (uint64_t)per_second), digits);
    if (utc) buf_putc(out, 'Z');
    buf_putc(out, '"');
}

static void put_uuid(wbuf *out, const uint8_t *p)
{
    buf_putc(out, '"');
    for (int k = 0; k < 16; k++) {
        if (k == 4 || k == 6 || k == 8 || k == 10) buf_putc(out, '-');
        buf_printf(out, "%02x", p[k]);
    }
    buf_putc(out, '"');
}

void pq_put_cell(wbuf *out, const pq_column *col, const pq_values *v, int64_t r)
{
    if (v->valid && !v->valid[r]) {
        buf_puts(out, "null");
        return;
    }
    const pq_bytes *b = v->bytes ? &v->bytes[r] : NULL;
    switch (col->meaning) {
    case PQ_DECIMAL:
        if (b) put_decimal_bytes(out, b->p, b->len, col->scale);
        else put_decimal(out, v->ints[r], col->scale);
        return;
    case PQ_UNSIGNED:
        if (v->type == PQ_INT32) buf_printf(out, "%u", (unsigned)(uint32_t)v->ints[r]);
        else buf_printf(out, "%llu", (unsigned long long)(uint64_t)v->ints[r]);
        return;
    case PQ_DATE:
        buf_putc(out, '"');
        put_date(out, v->ints[r]);
        buf_putc(out, '"');
        return;
    case PQ_TIME: put_time(out, v->ints[r], col->time_digits, col->utc); return;
    case PQ_TIMESTAMP:
        if (b) put_int96(out, b->p); /* INT96: 12 bytes, as the reader decodes them */
        else put_timestamp(out, v->ints[r], col->time_digits, col->utc);
        return;
    case PQ_UUID: put_uuid(out, b->p); return;
    case PQ_FLOAT16: put_real(out, half_to_double((uint16_t)(b->p[0] | b->p[1] << 8))); return;
    }
    switch (v->type) {
    case PQ_BYTE_ARRAY: json_put_string(out, (const char *)b->p, b->len); break;
    case PQ_BOOLEAN: buf_puts(out, v->ints[r] ? "true" : "false"); break;
    case PQ_INT32:
    case PQ_INT64: buf_printf(out, "%lld", (long long)v->ints[r]); break;
    case PQ_FLOAT:
    case PQ_DOUBLE: put_real(out, v->reals[r]); break;
    default: buf_puts(out, "null"); break;
    }
}
