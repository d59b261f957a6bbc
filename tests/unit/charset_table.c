/* charset_table - table conversion gives byte for byte what iconv gives (each
 * byte iconv stops at replaced by U+FFFD), for every charset it handles, on
 * random bytes, on bytes biased to multi-byte leads, and on real text
 * re-encoded to the charset. */
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "ingest/charset.h"
#include "ingest/charset_table.h"
#include "tests/tap.h"

/* The reference: iconv over the whole input, a rejected byte becoming U+FFFD. */
static size_t by_iconv(const char *charset, const char *p, size_t n, wbuf *out)
{
    iconv_t cd = iconv_open("UTF-8", charset);
    buf_clear(out);
    size_t replaced = charset_iconv_convert(cd, p, n, out);
    iconv_close(cd);
    return replaced;
}

/* Re-encodes UTF-8 text to charset, dropping what it lacks. */
static size_t encode(const char *utf8, size_t n, const char *charset, char *out, size_t cap)
{
    char to[64];
    snprintf(to, sizeof to, "%s//IGNORE", charset);
    iconv_t cd = iconv_open(to, "UTF-8");
    char *in = (char *)utf8, *dst = out;
    size_t inleft = n, left = cap;
    iconv(cd, &in, &inleft, &dst, &left);
    iconv_close(cd);
    return (size_t)(dst - out);
}

static int same(const char *charset, const char *p, size_t n, wbuf *a, wbuf *b)
{
    size_t want = by_iconv(charset, p, n, a);
    buf_clear(b);
    ssize_t got = charset_table_convert(charset, p, n, b);
    return got == (ssize_t)want && a->len == b->len && !memcmp(a->data, b->data, a->len);
}

int main(void)
{
    wbuf a = WBUF_INIT, b = WBUF_INIT;
    enum { SAMPLE = 1 << 16, ROUNDS = 8 };
    char *bytes = malloc(SAMPLE), *text = malloc(4 * SAMPLE);
    /* real text: a UDHR-like mix of scripts from the test data, else a built-in line */
    static const char mix[] = "Everyone has the right to life. Все люди рождаются свободными. "
                              "すべての人間は、生まれながらにして自由である。人人生而自由。모든 인간은 태어날 때부터 자유로우며 "
                              "Ελληνικά ÄÖÜ äöü ß € „quotes“ — ½ ¾ עברית العربية ไทย ";
    srand(9);
    const char *cs;
    for (size_t c = 0; (cs = charset_table_name(c)); c++) {
        int good = 1;
        for (int r = 0; r < ROUNDS && good; r++) {
            for (size_t i = 0; i < SAMPLE; i++) {
                int x = rand();
                /* half the rounds: bytes mostly high, so multi-byte leads meet every kind of trail */
                bytes[i] = (char)(r % 2 ? (x % 4 ? 0x80 | (x >> 8) : x >> 8) : x >> 8);
            }
            size_t n = (size_t)(rand() % SAMPLE); /* any length: sequences cut by the end */
            good = same(cs, bytes, n, &a, &b);
        }
        ok(good, "%s: random bytes convert as iconv converts them", cs);
        size_t tn = 0;
        for (int k = 0; k < 40; k++) tn += encode(mix, sizeof mix - 1, cs, text + tn, 4 * SAMPLE - tn);
        ok(tn > 0 && same(cs, text, tn, &a, &b), "%s: text re-encoded to it converts as iconv does", cs);
    }
    buf_clear(&b);
    ok(charset_table_convert("UTF-16", "ab", 2, &b) < 0 && b.len == 0, "a charset it does not handle: -1, nothing written");
    ok(charset_table_convert("CP1255", "ab", 2, &b) < 0, "CP1255 (glibc composes) is left to iconv");
    ok(charset_table_convert("CP949", "ab", 2, &b) < 0, "CP949 (glibc consumes some bytes it rejects) is left to iconv");
    /* glibc's UHC rejects A2 E8 after consuming both bytes (a fuzzer found
     * the skip past the end this once caused) */
    iconv_t uhc = iconv_open("UTF-8", "UHC");
    buf_clear(&a);
    size_t bad = charset_iconv_convert(uhc, "x\xA2\xE8", 3, &a);
    iconv_close(uhc);
    ok(bad == 1 && a.len == 4 && !memcmp(a.data, "x\xEF\xBF\xBD", 4),
       "UHC bytes iconv consumes while rejecting them: one U+FFFD, nothing read past the end");
    charset_table_thread_free();
    free(bytes);
    free(text);
    buf_free(&a);
    buf_free(&b);
    return done_testing();
}
