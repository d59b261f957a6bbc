/* core_utf8_repair - utf8_repair makes one U+FFFD of each maximal subpart of
 * an ill-formed sequence, as the WHATWG Encoding Standard's UTF-8 decoder and
 * Python's bytes.decode("utf-8", "replace") do (not one per byte): the
 * Unicode Standard's example (chapter 3, "U+FFFD Substitution of Maximal
 * Subparts") and other cases with Python's answers, then every string of up
 * to four bytes drawn from the bytes where the rules change, and random
 * strings, against ICU's u_strFromUTF8WithSub, an independent decoder that
 * substitutes the same way. Pages and text documents go through it
 * (ingest/charset.c). */
#include <stdlib.h>
#include <string.h>
#include <unicode/ustring.h>

#include "core/utf8.h"
#include "tests/tap.h"

#define FFFD "\xEF\xBF\xBD"
/* The longest input the comparison builds, and room for its UTF-16. */
#define MAX_INPUT 64

/* utf8_repair's output for s[0..n) (static storage) and its count in *replaced. */
static const char *repaired(const char *s, size_t n, size_t *replaced)
{
    static wbuf out;
    buf_clear(&out);
    *replaced = utf8_repair(&out, s, n);
    buf_putc(&out, 0);
    return out.data;
}

/* ICU's answer for s[0..n) as UTF-8 into out (NUL-terminated); returns its
 * substitution count, or -1 when ICU fails. */
static long by_icu(const unsigned char *s, size_t n, char *out, size_t size)
{
    UChar u[MAX_INPUT * 2];
    int32_t ulen = 0, subs = 0, len = 0;
    UErrorCode e = U_ZERO_ERROR;
    u_strFromUTF8WithSub(u, MAX_INPUT * 2, &ulen, (const char *)s, (int32_t)n, 0xFFFD, &subs, &e);
    if (U_FAILURE(e)) return -1;
    u_strToUTF8(out, (int32_t)size, &len, u, ulen, &e);
    if (U_FAILURE(e) || (size_t)len >= size) return -1;
    out[len] = 0;
    return subs;
}

/* 1 when utf8_repair and ICU agree on s[0..n) (text and count). */
static int agrees(const unsigned char *s, size_t n)
{
    char want[MAX_INPUT * 4];
    long subs = by_icu(s, n, want, sizeof want);
    size_t replaced;
    const char *got = repaired((const char *)s, n, &replaced);
    return subs >= 0 && (size_t)subs == replaced && !strcmp(got, want);
}

/* Every string of 1-4 bytes over the bytes where a decoder's rules change;
 * returns how many disagree. */
static long short_strings(void)
{
    static const unsigned char bytes[] = {'a',  0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                                          0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4,
                                          0xF5, 0xF7, 0xF8, 0xFE, 0xFF};
    enum { NB = sizeof bytes };
    long wrong = 0, all = 0;
    unsigned char s[4];
    for (size_t len = 1; len <= 4; len++) {
        size_t total = 1;
        for (size_t i = 0; i < len; i++) total *= NB;
        for (size_t t = 0; t < total; t++) {
            size_t v = t;
            for (size_t i = 0; i < len; i++, v /= NB) s[i] = bytes[v % NB];
            all++;
            if (!agrees(s, len) && wrong++ < 5) diag("disagree on %zu bytes starting %02x", len, s[0]);
        }
    }
    ok(all == NB + NB * NB + NB * NB * NB + (long)NB * NB * NB * NB, "every short string built (%ld)", all);
    return wrong;
}

/* Random mixes of ASCII, continuation bytes, leads and junk. */
static long random_strings(void)
{
    unsigned char s[MAX_INPUT];
    long wrong = 0;
    srand(4242);
    for (int t = 0; t < 100000; t++) {
        size_t n = (size_t)(rand() % MAX_INPUT);
        for (size_t i = 0; i < n; i++) {
            int r = rand() % 6;
            s[i] = r < 2 ? 'a' : r == 2 ? (unsigned char)(0x80 + rand() % 64) : (unsigned char)(0xC0 + rand() % 64);
        }
        wrong += !agrees(s, n);
    }
    return wrong;
}

int main(void)
{
    size_t replaced;
    /* Python 3: b"a\xf1\x80\x80\xe1\x80\xc2b\x80c\x80\xbfd".decode("utf-8", "replace")
     * == "a\ufffd\ufffd\ufffdb\ufffdc\ufffd\ufffdd" (the Unicode Standard's example) */
    is_str(repaired("a\xF1\x80\x80\xE1\x80\xC2" "b\x80" "c\x80\xBF" "d", 13, &replaced),
           "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d", "the Unicode Standard's example, as Python decodes it");
    is_int(replaced, 6, "... six replacements");
    is_str(repaired("\xF0\x9F\x98", 3, &replaced), FFFD, "a 4-byte sequence cut off at the end: one U+FFFD");
    is_str(repaired("x\xE2\x82y", 4, &replaced), "x" FFFD "y", "a 3-byte sequence cut short: one U+FFFD");
    is_str(repaired("\xE0\x80\xAF", 3, &replaced), FFFD FFFD FFFD, "overlong E0 80: no maximal subpart longer than 1");
    is_str(repaired("\xED\xA0\x80x", 4, &replaced), FFFD FFFD FFFD "x", "a surrogate: one U+FFFD a byte");
    is_str(repaired("\xF4\x90\x80\x80", 4, &replaced), FFFD FFFD FFFD FFFD, "above U+10FFFF: one a byte");
    is_str(repaired("\xF4\x8F\xBF", 3, &replaced), FFFD, "F4 8F BF cut off: one");
    is_str(repaired("\xC0\xAF\xF5\x80", 4, &replaced), FFFD FFFD FFFD FFFD, "C0, F5 and what follows: one a byte");
    is_int(short_strings(), 0, "ICU: every string of 1-4 interesting bytes");
    is_int(random_strings(), 0, "ICU: 100,000 random strings");
    return done_testing();
}
