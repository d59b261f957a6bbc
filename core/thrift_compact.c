/* thrift_compact.c - the Thrift compact protocol, read with every bound checked.
 * Written from the protocol's specification (thrift/doc/specs/thrift-compact-protocol.md). */
#include "thrift_compact.h"

#include <string.h>

#define VARINT_MAX_BYTES 10
#define LONG_FORM_NIBBLE 0xf /* list size nibble that says a varint size follows */

void tc_init(tc_reader *r, const uint8_t *p, size_t n, uint64_t base)
{
    memset(r, 0, sizeof *r);
    r->p = r->start = p;
    r->end = p + n;
    r->base = base;
}

uint64_t tc_offset(const tc_reader *r) { return r->base + (uint64_t)(r->p - r->start); }

void tc_fail(tc_reader *r, const char *what)
{
    if (!r->error) {
        r->error = what;
        r->error_at = tc_offset(r);
    }
    r->p = r->end; /* every later read sees no bytes */
}

static uint8_t read_byte(tc_reader *r)
{
    if (r->p >= r->end) {
        tc_fail(r, "Thrift data ends early");
        return 0;
    }
    return *r->p++;
}

static uint64_t varint(tc_reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < VARINT_MAX_BYTES; i++) {
        uint8_t b = read_byte(r);
        if (tc_failed(r)) return 0;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) return v;
    }
    tc_fail(r, "Thrift varint longer than 10 bytes");
    return 0;
}

static int64_t zigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

int32_t tc_i32(tc_reader *r)
{
    int64_t v = zigzag(varint(r));
    if (v < INT32_MIN || v > INT32_MAX) {
        tc_fail(r, "Thrift i32 out of range");
        return 0;
    }
    return (int32_t)v;
}

int64_t tc_i64(tc_reader *r) { return zigzag(varint(r)); }

bool tc_bool(tc_reader *r, int type)
{
    (void)r;
    return type == TC_TRUE;
}

double tc_double(tc_reader *r)
{
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits |= (uint64_t)read_byte(r) << (8 * i);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

uint32_t tc_binary(tc_reader *r, const uint8_t **p)
{
    uint64_t n = varint(r);
    *p = r->p;
    if (n > (uint64_t)(r->end - r->p)) {
        tc_fail(r, "Thrift string longer than the bytes left");
        *p = r->end;
        return 0;
    }
    r->p += n;
    return (uint32_t)n;
}

bool tc_field(tc_reader *r, int16_t *id, int *type, int16_t *last_id)
{
    uint8_t b = read_byte(r);
    if (tc_failed(r) || b == TC_STOP) return false;
    *type = b & 0x0f;
    int delta = b >> 4;
    if (delta) {
        *id = (int16_t)(*last_id + delta);
    } else {
        int64_t v = zigzag(varint(r));
        if (v < INT16_MIN || v > INT16_MAX) {
            tc_fail(r, "Thrift field id out of range");
            return false;
        }
        *id = (int16_t)v;
    }
    *last_id = *id;
    if (*type > TC_STRUCT) {
        tc_fail(r, "unknown Thrift type");
        return false;
    }
    return true;
}

uint32_t tc_list(tc_reader *r, int *elem_type)
{
    uint8_t b = read_byte(r);
    uint64_t n = b >> 4;
    *elem_type = b & 0x0f;
    if (n == LONG_FORM_NIBBLE) n = varint(r);
    if (tc_failed(r)) return 0;
    /* an empty list's element type is never used: fastparquet writes 0 there (header byte 0x00) */
    if (*elem_type > TC_STRUCT || (*elem_type == TC_STOP && n)) {
        tc_fail(r, "unknown Thrift list element type");
        return 0;
    }
    if (n > (uint64_t)(r->end - r->p)) { /* each element takes a byte at least */
        tc_fail(r, "Thrift list longer than the bytes left");
        return 0;
    }
    return (uint32_t)n;
}

bool tc_struct_begin(tc_reader *r)
{
    if (++r->depth > TC_MAX_DEPTH) {
        tc_fail(r, "Thrift structs nested too deep");
        return false;
    }
    return !tc_failed(r);
}

void tc_struct_end(tc_reader *r) { r->depth--; }

void tc_skip(tc_reader *r, int type)
{
    switch (type) {
    case TC_TRUE:
    case TC_FALSE: break;
    case TC_BYTE: read_byte(r); break;
    case TC_I16:
    case TC_I32:
    case TC_I64: varint(r); break;
    case TC_DOUBLE:
        for (int i = 0; i < 8; i++) read_byte(r);
        break;
    case TC_BINARY: {
        const uint8_t *p;
        tc_binary(r, &p);
        break;
    }
    case TC_LIST:
    case TC_SET: {
        int et;
        uint32_t n = tc_list(r, &et);
        if (!tc_struct_begin(r)) break;
        for (uint32_t i = 0; i < n && !tc_failed(r); i++) {
            if (et == TC_TRUE || et == TC_FALSE) read_byte(r); /* a boolean element is one byte */
            else tc_skip(r, et);
        }
        tc_struct_end(r);
        break;
    }
    case TC_MAP: {
        uint64_t n = varint(r);
        if (!n || tc_failed(r)) break;
        uint8_t kinds = read_byte(r);
        if (n > (uint64_t)(r->end - r->p)) {
            tc_fail(r, "Thrift map longer than the bytes left");
            break;
        }
        if (!tc_struct_begin(r)) break;
        for (uint64_t i = 0; i < n && !tc_failed(r); i++) {
            int kt = kinds >> 4, vt = kinds & 0x0f;
            if (kt == TC_TRUE || kt == TC_FALSE) read_byte(r);
            else tc_skip(r, kt);
            if (vt == TC_TRUE || vt == TC_FALSE) read_byte(r);
            else tc_skip(r, vt);
        }
        tc_struct_end(r);
        break;
    }
    case TC_STRUCT: {
        if (!tc_struct_begin(r)) break;
        int16_t id, last = 0;
        int t;
        while (tc_field(r, &id, &t, &last)) tc_skip(r, t);
        tc_struct_end(r);
        break;
    }
    default: tc_fail(r, "unknown Thrift type"); break;
    }
}

/* ---- writing ---- */

static void put_varint(wbuf *b, uint64_t v)
{
    while (v >= 0x80) {
        buf_putc(b, (char)(v | 0x80));
        v >>= 7;
    }
    buf_putc(b, (char)v);
}

static uint64_t to_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void tw_field(wbuf *b, int16_t *last_id, int16_t id, int type)
{
    int delta = id - *last_id;
    if (delta > 0 && delta <= 15) {
        buf_putc(b, (char)(delta << 4 | type));
    } else {
        buf_putc(b, (char)type);
        put_varint(b, to_zigzag(id));
    }
    *last_id = id;
}

void tw_i32(wbuf *b, int32_t v) { put_varint(b, to_zigzag(v)); }
void tw_i64(wbuf *b, int64_t v) { put_varint(b, to_zigzag(v)); }

void tw_binary(wbuf *b, const void *p, size_t n)
{
    put_varint(b, n);
    if (n) buf_append(b, p, n);
}

void tw_list(wbuf *b, int elem_type, uint32_t n)
{
    if (n < LONG_FORM_NIBBLE) {
        buf_putc(b, (char)(n << 4 | (uint32_t)elem_type));
    } else {
        buf_putc(b, (char)(LONG_FORM_NIBBLE << 4 | elem_type));
        put_varint(b, n);
    }
}

void tw_stop(wbuf *b) { buf_putc(b, TC_STOP); }
