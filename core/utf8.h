/* utf8.h - UTF-8 validation, decoding and repair. */
#ifndef WINNOW_UTF8_H
#define WINNOW_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define UTF8_REPLACEMENT 0xFFFD

/* Length of the valid UTF-8 sequence starting at s (1..4), or 0 when the bytes
 * at s (at most n of them) are not a valid, shortest-form, non-surrogate sequence. */
static inline size_t utf8_valid_seq(const unsigned char *s, size_t n)
{
    if (n == 0) return 0;
    unsigned c = s[0];
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0; /* continuation byte or overlong 2-byte lead */
    if (c < 0xE0) {
        if (n < 2 || (s[1] & 0xC0) != 0x80) return 0;
        return 2;
    }
    if (c < 0xF0) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80) return 0;
        if (c == 0xE0 && s[1] < 0xA0) return 0;  /* overlong */
        if (c == 0xED && s[1] >= 0xA0) return 0; /* surrogate */
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0;
        if (c == 0xF0 && s[1] < 0x90) return 0;  /* overlong */
        if (c == 0xF4 && s[1] >= 0x90) return 0; /* above U+10FFFF */
        return 4;
    }
    return 0;
}

/* Length (1..3) of the maximal subpart at s when utf8_valid_seq(s, n) is 0:
 * the lead byte and the continuation bytes after it that could still have
 * begun a valid sequence (Unicode's "maximal subpart of an ill-formed
 * subsequence", which the WHATWG UTF-8 decoder turns into one U+FFFD, as
 * Python's decode("utf-8", "replace") does); 1 for a byte that starts none. */
static inline size_t utf8_invalid_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t need;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c >= 0xE0 && c <= 0xEF) need = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) need = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return 1;
    size_t k = 1;
    while (k <= need && k < n && s[k] >= lo && s[k] <= hi) { /* only the second byte has narrower bounds */
        k++;
        lo = 0x80;
        hi = 0xBF;
    }
    return k;
}

/* True when all n bytes are valid UTF-8. */
bool utf8_valid(const char *s, size_t n);

/* Decodes one code point at s (n bytes available); stores its length in *len.
 * Invalid bytes decode as U+FFFD with length 1. Inline: the filter's
 * character loops call it for every non-ASCII character. */
static inline uint32_t utf8_decode(const unsigned char *s, size_t n, size_t *len)
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

/* Writes code point cp (never a surrogate, at most U+10FFFF) as UTF-8 at d;
 * returns the byte after it. */
static inline char *utf8_put(char *d, uint32_t cp)
{
    if (cp < 0x80) {
        *d++ = (char)cp;
    } else if (cp < 0x800) {
        *d++ = (char)(0xC0 | (cp >> 6));
        *d++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *d++ = (char)(0xE0 | (cp >> 12));
        *d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *d++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *d++ = (char)(0xF0 | (cp >> 18));
        *d++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *d++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *d++ = (char)(0x80 | (cp & 0x3F));
    }
    return d;
}

/* Appends the UTF-8 encoding of code point cp (U+FFFD for surrogates and values above U+10FFFF). */
void utf8_append(wbuf *out, uint32_t cp);

/* Appends s to out, replacing each maximal subpart of an invalid sequence
 * (utf8_invalid_len) by one U+FFFD, as the WHATWG UTF-8 decoder does;
 * returns how many were replaced. */
size_t utf8_repair(wbuf *out, const char *s, size_t n);

#endif
