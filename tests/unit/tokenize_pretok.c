/* tokenize_pretok.c - the hand-written pre-tokenisers against PCRE2 running
 * tiktoken's original patterns (the oracle), on all tokref text (en_code
 * subsetted unless FULL=1) and the naughty strings. PCRE2's \s differs from
 * Rust regex's (U+0085), so \s and \S are rewritten to the White_Space set. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <unicode/uchar.h>

#include "tests/unit/tokenize_corpus.h"
#include "tokenize/pretokenize.h"
#include "tokenize/unicode_class.h"
#include <stdbool.h>

#define WHITE_SPACE "\\t\\n\\x0B\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
#define EN_CODE_STRIDE 25 /* make test: every 25th en_code document */

/* tiktoken's pattern with \s and \S spelled out as Unicode White_Space. */
static char *rust_semantics(const char *pat)
{
    size_t cap = strlen(pat) * 8 + 1, n = 0;
    char *out = malloc(cap);
    int in_class = 0;
    for (const char *p = pat; *p; p++) {
        if (p[0] == '\\' && (p[1] == 's' || p[1] == 'S')) {
            const char *fmt = in_class ? "%s" : p[1] == 's' ? "[%s]" : "[^%s]";
            n += sprintf(out + n, fmt, WHITE_SPACE);
            p++;
            continue;
        }
        if (p[0] == '\\' && p[1]) {
            out[n++] = *p++;
        } else if (*p == '[') in_class = 1;
        else if (*p == ']') in_class = 0;
        out[n++] = *p;
    }
    out[n] = 0;
    return out;
}

static pcre2_code *oracle[PRETOK_NFAMILIES];
static pcre2_match_data *md;

static void oracle_init(void)
{
    for (int f = 0; f < PRETOK_NFAMILIES; f++) {
        char *pat = rust_semantics(pretok_pattern_string(f));
        int err;
        PCRE2_SIZE erroff;
        oracle[f] = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK,
                                  &err, &erroff, NULL);
        if (!oracle[f]) {
            printf("Bail out! pattern %d does not compile at %zu\n", f, (size_t)erroff);
            exit(1);
        }
        pcre2_jit_compile(oracle[f], PCRE2_JIT_COMPLETE);
        free(pat);
    }
    md = pcre2_match_data_create(4, NULL);
}

/* Offset of the first place where scanner and oracle split s differently, or -1. */
static long first_difference(int f, const char *s, size_t n)
{
    size_t pos = 0;
    while (pos < n) {
        int rc = pcre2_match(oracle[f], (PCRE2_SPTR)s, n, pos, PCRE2_NO_UTF_CHECK, md, NULL);
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        size_t want_start = rc < 0 ? n : ov[0], want_end = rc < 0 ? n : ov[1];
        size_t got = pretok_next(f, &uclass_tiktoken, (const uint8_t *)s, n, pos);
        if (want_start != pos || want_end != got) return (long)pos;
        pos = got;
    }
    return -1;
}

static void report(int f, const char *what, const char *s, size_t n, long at)
{
    size_t lo = at > 20 ? (size_t)at - 20 : 0, hi = (size_t)at + 40 < n ? (size_t)at + 40 : n;
    printf("#   family %d, %s: differs at byte %ld: '", f, what, at);
    for (size_t i = lo; i < hi; i++) printf(s[i] == '\n' ? "\\n" : "%c", s[i]);
    printf("'\n");
}

static void check_corpus(const char *name, int stride)
{
    tok_corpus c;
    corpus_load(&c, name);
    for (int f = 0; f < PRETOK_NFAMILIES; f++) {
        int bad = 0, checked = 0;
        for (int d = 0; d < c.ndocs; d += stride) {
            long at = first_difference(f, c.text + c.off[d], c.len[d]);
            checked++;
            if (at >= 0 && bad++ < 3) {
                char what[64];
                snprintf(what, sizeof what, "%s doc %d", name, d);
                report(f, what, c.text + c.off[d], c.len[d], at);
            }
        }
        ok(bad == 0, "%s: family %d splits %d documents as PCRE2 does (%d differ)", name, f, checked, bad);
    }
    corpus_free(&c);
}

/* Every line of the naughty-strings list, as one text each. */
static void check_naughty_strings(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/blns/blns.txt", shared_dir());
    require_file(path);
    size_t n;
    char *text = slurp(path, &n);
    for (int f = 0; f < PRETOK_NFAMILIES; f++) {
        int bad = 0, lines = 0;
        for (char *line = text; line < text + n;) {
            char *nl = memchr(line, '\n', (size_t)(text + n - line));
            size_t len = nl ? (size_t)(nl - line) : (size_t)(text + n - line);
            lines++;
            long at = first_difference(f, line, len);
            if (at >= 0 && bad++ < 3) report(f, "blns", line, len, at);
            line += len + 1;
        }
        long whole = first_difference(f, text, n);
        if (whole >= 0) report(f, "blns whole file", text, n, whole);
        ok(bad == 0 && whole < 0, "blns: family %d splits %d lines and the whole file as PCRE2 does", f, lines);
    }
    free(text);
}

/* Hand-picked corners the corpora may not reach. */
static void check_corners(void)
{
    static const char *cases[] = {
        "'S 'ſ 'LL 'Re x'd",  "\xCC\x81" "A b", "A\xCC\x81" "bc'S", "\xE0\xA4\x95\xE0\xA4\xBF",
        "a\x85" "b \xC2\x85" "  c", "x\xEF\xBB\xBF" "y \xEF\xBB\xBF" "z", "a\fb \f c", "\r\n\r\n  \r\n",
        "1234567 ١٢٣٤ ½¾", "a//\n/b", "   ", " ", "\t\tx", "ǅungla ǅ", "ABCdef DEFghiJKL",
        "\xFF\xFE bad \xC3 utf", "x\xC2", "''s", "?!'s", "don't I'M",
        "\xC3\x89" "T\xC3\x89'S \xC3\x80" "B'll", /* non-ASCII uppercase words, then a contraction */
    };
    for (int f = 0; f < PRETOK_NFAMILIES; f++) {
        int bad = 0;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            const char *s = cases[k];
            size_t n = strlen(s);
            /* the oracle needs valid UTF-8; on invalid bytes the pieces only have to tile */
            int rc = pcre2_match(oracle[f], (PCRE2_SPTR)s, n, 0, 0, md, NULL);
            if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
                size_t pos = 0;
                while (pos < n) pos = pretok_next(f, &uclass_tiktoken, (const uint8_t *)s, n, pos);
                if (pos != n) bad++;
                continue;
            }
            long at = first_difference(f, s, n);
            if (at >= 0 && bad++ < 5) report(f, "corner", s, n, at);
        }
        ok(bad == 0, "corner cases: family %d agrees with PCRE2", f);
    }
}

/* The generated tables against the ICU this machine has, code point by code
 * point. When ICU's Unicode version is another one, the comparison covers the
 * code points that both versions have assigned (ICU's u_charAge at most the
 * tables' version), and says so. */
static void check_tables_against_icu(void)
{
    UVersionInfo v, tables;
    char version[U_MAX_VERSION_STRING_LENGTH];
    u_getUnicodeVersion(v);
    u_versionToString(v, version);
    u_versionFromString(tables, uclass_tiktoken.unicode);
    bool same = memcmp(v, tables, sizeof v) == 0;
    if (!same)
        diag("ICU here has Unicode %s, the tables %s: comparing the code points assigned in both", version,
             uclass_tiktoken.unicode);
    long bad = 0, compared = 0;
    for (UChar32 c = 0; c <= UCLASS_MAX_CP; c++) {
        if (!same) {
            UVersionInfo age;
            u_charAge(c, age);
            bool unassigned = u_charType(c) == U_UNASSIGNED;
            if (unassigned || memcmp(age, tables, sizeof age) > 0) continue;
        }
        compared++;
        int8_t t = u_charType(c);
        uint8_t k = uclass_of(&uclass_tiktoken, (uint32_t)c);
        bool letter = t == U_UPPERCASE_LETTER || t == U_LOWERCASE_LETTER || t == U_TITLECASE_LETTER ||
                      t == U_MODIFIER_LETTER || t == U_OTHER_LETTER;
        bool number = t == U_DECIMAL_DIGIT_NUMBER || t == U_LETTER_NUMBER || t == U_OTHER_NUMBER;
        bool mark = t == U_NON_SPACING_MARK || t == U_ENCLOSING_MARK || t == U_COMBINING_SPACING_MARK;
        bool upperish = t == U_UPPERCASE_LETTER || t == U_TITLECASE_LETTER || t == U_MODIFIER_LETTER ||
                        t == U_OTHER_LETTER || mark;
        bool lowerish = t == U_LOWERCASE_LETTER || t == U_MODIFIER_LETTER || t == U_OTHER_LETTER || mark;
        bool space = u_hasBinaryProperty(c, UCHAR_WHITE_SPACE);
        bool punct = t == U_CONNECTOR_PUNCTUATION || t == U_DASH_PUNCTUATION || t == U_START_PUNCTUATION ||
                     t == U_END_PUNCTUATION || t == U_INITIAL_PUNCTUATION || t == U_FINAL_PUNCTUATION ||
                     t == U_OTHER_PUNCTUATION;
        bool symbol = t == U_MATH_SYMBOL || t == U_CURRENCY_SYMBOL || t == U_MODIFIER_SYMBOL || t == U_OTHER_SYMBOL;
        if (!!(k & UCLASS_L) != letter || !!(k & UCLASS_N) != number || !!(k & UCLASS_WS) != space ||
            !!(k & UCLASS_UPPERISH) != upperish || !!(k & UCLASS_LOWERISH) != lowerish || !!(k & UCLASS_P) != punct ||
            !!(k & UCLASS_S) != symbol)
            bad++;
    }
    ok(bad == 0, "class tables (Unicode %s) equal ICU %s for %s%ld code points (%ld differ)", uclass_tiktoken.unicode, version,
       same ? "all " : "the assigned-in-both ", compared, bad);
    ok((uclass_of(&uclass_tiktoken, 0x85) & UCLASS_WS) && (uclass_of(&uclass_tiktoken, '\f') & UCLASS_WS) && !(uclass_of(&uclass_tiktoken, 0xFEFF) & UCLASS_WS),
       "U+0085 and form feed are \\s, U+FEFF is not (Rust regex's White_Space)");
}

int main(void)
{
    oracle_init();
    diag("Unicode tables: %s", uclass_tiktoken.unicode);
    check_tables_against_icu();
    check_corners();
    check_naughty_strings();
    check_corpus("edge", 1);
    check_corpus("multi", 1);
    check_corpus("en_code", getenv("FULL") ? 1 : EN_CODE_STRIDE);
    return done_testing();
}
