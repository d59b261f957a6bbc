/* core_utf8 - the vector UTF-8 validator and the one-sequence-at-a-time one
 * (utf8_valid_seq) agree with ICU's UTF-8 decoder, an independent reference,
 * on both vector paths, wherever a sequence sits relative to the 16-, 32- and
 * 64-byte blocks, including cut-off sequences. */
#include <stdlib.h>
#include <string.h>
#include <unicode/ustring.h>

#include "core/simd.h"
#include "core/utf8.h"
#include "tests/tap.h"

/* ICU's verdict: u_strFromUTF8 reports U_INVALID_CHAR_FOUND for any
 * ill-formed sequence (overlong, surrogate, above U+10FFFF, cut off). */
static bool valid_by_icu(const unsigned char *p, size_t n)
{
    UChar out[512];
    UErrorCode e = U_ZERO_ERROR;
    u_strFromUTF8(out, (int32_t)(sizeof out / sizeof *out), NULL, (const char *)p, (int32_t)n, &e);
    return U_SUCCESS(e);
}

static bool valid_by_sequences(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = utf8_valid_seq(p + i, n - i);
        if (!k) return false;
        i += k;
    }
    return true;
}

/* Every lead byte with every second byte and a spread of third and fourth
 * bytes, at the start and ending on each side of 16-, 32- and 64-byte block
 * edges, cut at every length. */
static long placed_sequences(void)
{
    static const int offsets[] = {0, 1, 12, 13, 14, 15, 28, 29, 30, 31, 45, 46, 47, 60, 61, 62, 63, 125, 126, 127};
    unsigned char buf[160];
    long wrong = 0;
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
        int off = offsets[o];
        for (unsigned a = 0x80; a < 0x100; a++)
            for (unsigned b = 0; b < 0x100; b += (a >= 0xE0 ? 3 : 1))
                for (unsigned c = 0x7E; c < 0xC2; c += (a >= 0xE0 ? 13 : 0x44)) {
                    memset(buf, 'x', sizeof buf);
                    buf[off] = (unsigned char)a;
                    buf[off + 1] = (unsigned char)b;
                    buf[off + 2] = (unsigned char)c;
                    buf[off + 3] = 0x80 + (unsigned char)(c & 0x3F);
                    for (size_t len = (size_t)off + 1; len <= (size_t)off + 6; len++)
                        wrong += valid_by_icu(buf, len) != utf8_valid((const char *)buf, len) ||
                                 valid_by_icu(buf, len) != valid_by_sequences(buf, len);
                }
    }
    return wrong;
}

/* Random mixes of ASCII, continuation bytes, leads and junk. */
static long random_strings(void)
{
    unsigned char buf[300];
    long wrong = 0;
    srand(12345);
    for (int t = 0; t < 100000; t++) {
        size_t n = (size_t)(rand() % 300);
        for (size_t i = 0; i < n; i++) {
            int r = rand() % 8;
            buf[i] = r < 4 ? 'a' : r == 4 ? (unsigned char)(0x80 + rand() % 64) : (unsigned char)(0xC0 + rand() % 64);
            if (rand() % 40 == 0) buf[i] = (unsigned char)rand();
        }
        wrong += valid_by_icu(buf, n) != utf8_valid((const char *)buf, n) || valid_by_icu(buf, n) != valid_by_sequences(buf, n);
    }
    return wrong;
}

int main(void)
{
    for (int baseline = 1; baseline >= 0; baseline--) {
        simd_force_baseline(baseline);
        const char *path = simd_avx2() ? "AVX2" : "baseline";
        is_int(placed_sequences(), 0, "%s: sequences placed across block edges", path);
        is_int(random_strings(), 0, "%s: random byte mixes", path);
        ok(utf8_valid("", 0), "%s: empty string is valid", path);
        ok(!utf8_valid("\xE2\x82", 2), "%s: cut-off sequence at the end is invalid", path);
        ok(utf8_valid("\xF0\x9F\x98\x80", 4), "%s: 4-byte sequence is valid", path);
    }
    return done_testing();
}
