#include "utf8.h"


bool utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        /* fast path: 8 ASCII bytes at a time */
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (w & 0x8080808080808080ULL) break;
            p += 8;
        }
        if (p >= end) break;
        if (*p < 0x80) { p++; continue; }
        size_t k = utf8_valid_seq(p, (size_t)(end - p));
        if (!k) return false;
        p += k;
    }
    return true;
}

uint32_t utf8_decode(const unsigned char *s, size_t n, size_t *len)
{
    size_t k = utf8_valid_seq(s, n);
    *len = k ? k : 1;
    switch (k) {
    case 1: return s[0];
    case 2: return ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    case 3: return ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    case 4:
        return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
               ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    default: return UTF8_REPLACEMENT;
    }
}

void utf8_append(wbuf *out, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = UTF8_REPLACEMENT;
    if (cp < 0x80) { b[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { b[0] = (char)(0xC0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
    else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); b[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
    }
    buf_append(out, b, n);
}

size_t utf8_repair(wbuf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n, *run = p;
    size_t replaced = 0;
    buf_reserve(out, n);
    while (p < end) {
        if (*p < 0x80) { p++; continue; }
        size_t k = utf8_valid_seq(p, (size_t)(end - p));
        if (k) { p += k; continue; }
        buf_append(out, run, (size_t)(p - run));
        utf8_append(out, UTF8_REPLACEMENT);
        replaced++;
        p++;
        run = p;
    }
    buf_append(out, run, (size_t)(p - run));
    return replaced;
}
