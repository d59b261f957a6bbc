/* hf_regex.c - onig-syntax patterns of tokenizer.json run by PCRE2 (JIT).
 *
 * HF tokenizers compiles Split and Replace patterns with Oniguruma (Ruby
 * syntax, UTF-8). The two agree on the syntax real files use except for a
 * few escapes whose classes differ: onig's \s is Unicode White_Space (with
 * U+0085, without U+FEFF) and its \w is Alphabetic (letters, letter numbers,
 * circled letters...), marks, decimal digits and connector punctuation -
 * outside a bracket class also the Latin-1 digits and fractions U+00B2,
 * U+00B3, U+00B9, U+00BC-U+00BE, which onig's Latin-1 table calls word
 * characters - while PCRE2's UCP \s and \w differ at the edges. Those are
 * spelled out as properties; escapes whose meaning differs and
 * that cannot be spelled out (\h is a hex digit in onig, \b, \B) are
 * refused. A class inside a class is their union in onig (BLOOM's
 * " ?[^(\s|[.,!?…。，、।۔،])]+"), written here without the inner brackets;
 * a negated or POSIX one inside a class is refused. In Ruby syntax ^ and $ are line anchors (at every
 * "\n"), as PCRE2's are in multiline mode; onig's option m is PCRE2's s
 * (. matches "\n") and its {,n} is {0,n}, while {n}? (an optional {n}),
 * {n,m}+ (a repeat of the interval) and class intersections && have no
 * PCRE2 spelling here: refused. So is a case-insensitive pattern whose
 * literal text onig matches across character counts (it folds ß to ss both
 * ways; PCRE2 folds one character to one), an escaped character (\x{DF},
 * \uHHHH) counting as literal text. Onig's \uHHHH is written \x{HHHH};
 * its \xHH above 7F is a byte (PCRE2: a character) and \x alone an x
 * (PCRE2: NUL): refused.
 *
 * The PCRE2 here (10.42) has Unicode 14's tables, tokenizers' onig Unicode
 * 16's: the general categories, Nd and Alphabetic behind \p{..}, \w and \d
 * get the characters onig has and PCRE2 lacks added inside their class
 * (uclass_pcre2_additions, generated with the tables; never fewer
 * characters). A negated one inside a class cannot be spelled so: refused.
 * Other properties (scripts such as \p{Han}) are PCRE2's. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <utf8proc.h>

#include "core/utf8.h"
#include "core/util.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/unicode_class.h"

#define WORD_PROPERTIES "Alphabetic", "M", "Nd", "Pc" /* onig's \w inside a class */
/* what onig's \w adds outside a bracket class: ² ³ ¹ ¼ ½ ¾ */
#define WORD_LATIN1_EXTRA "\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}"

#define FOLD_MAX 4           /* code points of a full case folding (3 at most) */
#define MAX_EXPANSIONS 256   /* the characters whose folding is longer: about 100 */
#define MAX_CODE_POINT 0x10FFFF
#define REGEX_META ".^$|()?*+{}[\\"
#define HEX_BRACED_MAX 8 /* \x{10FFFF}: onig reads up to 8 digits */
#define HEX_X_MAX 2      /* \xHH */
#define HEX_U_DIGITS 4   /* \uHHHH */
#define ASCII_END 0x80   /* onig's \xHH from here on is a byte, not a character */

/* The characters whose full case folding is several (ß -> ss, U+FB01 -> fi):
 * their foldings, filled once. */
static int32_t expansion[MAX_EXPANSIONS][FOLD_MAX];
static int expansion_len[MAX_EXPANSIONS], nexpansions;
static pthread_once_t expansions_once = PTHREAD_ONCE_INIT;

/* cp's full case folding into f; its length in code points. */
static int fold_char(uint32_t cp, int32_t f[FOLD_MAX])
{
    utf8proc_ssize_t n = utf8proc_decompose_char((utf8proc_int32_t)cp, f, FOLD_MAX, UTF8PROC_CASEFOLD, NULL);
    return n > 0 && n <= FOLD_MAX ? (int)n : 0;
}

static void find_expansions(void)
{
    int32_t f[FOLD_MAX];
    for (uint32_t cp = 0; cp <= MAX_CODE_POINT && nexpansions < MAX_EXPANSIONS; cp++) {
        int n = fold_char(cp, f);
        if (n < 2) continue;
        memcpy(expansion[nexpansions], f, sizeof f);
        expansion_len[nexpansions++] = n;
    }
}

/* Whether the pattern turns on onig's (?i) anywhere. */
static bool caseless(const char *pat, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++) {
        if (pat[i] == '\\') {
            i++;
            continue;
        }
        if (pat[i] != '(' || pat[i + 1] != '?') continue;
        for (size_t j = i + 2; j < len && strchr("imx", pat[j]); j++)
            if (pat[j] == 'i') return true;
    }
    return false;
}

/* Whether the folded run run[0..n) holds the folding of a character that folds to several. */
static bool run_has_expansion(const int32_t *run, size_t n)
{
    for (int e = 0; e < nexpansions; e++)
        for (size_t at = 0; at + (size_t)expansion_len[e] <= n; at++)
            if (!memcmp(run + at, expansion[e], (size_t)expansion_len[e] * sizeof *run)) return true;
    return false;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The character an escape at pat[at] writes in onig - \x{H...}, \xH or
 * \xHH, \uHHHH - into *cp, and the escape's length; 0 for another escape. */
static size_t escaped_char(const char *pat, size_t len, size_t at, uint32_t *cp)
{
    if (at + 2 >= len || pat[at] != '\\' || (pat[at + 1] != 'x' && pat[at + 1] != 'u')) return 0;
    bool braced = pat[at + 1] == 'x' && pat[at + 2] == '{';
    size_t k = at + 2 + braced, most = braced ? HEX_BRACED_MAX : pat[at + 1] == 'x' ? HEX_X_MAX : HEX_U_DIGITS;
    uint32_t v = 0;
    size_t digits = 0;
    for (; k < len && digits < most && hex_digit(pat[k]) >= 0; k++, digits++) v = v << 4 | (uint32_t)hex_digit(pat[k]);
    if (!digits || (pat[at + 1] == 'u' && digits < HEX_U_DIGITS)) return 0;
    if (braced) {
        if (k >= len || pat[k] != '}') return 0;
        k++;
    }
    *cp = v;
    return k - at;
}

/* For a caseless pattern: the offset of literal text onig would match
 * across character counts (a character that folds to several, or a run
 * of literals holding such a folding), or -1. */
static long multi_char_fold_at(const char *pat, size_t len)
{
    if (!caseless(pat, len)) return -1;
    pthread_once(&expansions_once, find_expansions);
    int32_t *run = xmalloc((len * FOLD_MAX + 1) * sizeof *run), f[FOLD_MAX];
    size_t nrun = 0, run_start = 0;
    long at = -1;
    bool in_class = false;
    for (size_t i = 0; i < len && at < 0;) {
        unsigned char c = (unsigned char)pat[i];
        uint32_t escaped;
        size_t escape_len = escaped_char(pat, len, i, &escaped); /* \x{DF} is ß as much as ß is */
        bool literal = escape_len || (in_class ? c != ']' && c != '\\' : !strchr(REGEX_META, c));
        if (!literal) {
            if (!in_class && run_has_expansion(run, nrun)) at = (long)run_start;
            nrun = 0;
            if (c == '\\') i++; /* an escape is no literal text here */
            else if (c == '[') in_class = true;
            else if (c == ']') in_class = false;
            i++;
            continue;
        }
        size_t clen = escape_len ? escape_len : utf8_valid_seq((const unsigned char *)pat + i, len - i);
        int n = escape_len ? fold_char(escaped, f)
                : clen     ? fold_char(utf8_decode((const unsigned char *)pat + i, len - i, &clen), f)
                           : 0;
        if (!clen) clen = 1; /* a byte that is no character folds to nothing */
        if (n > 1) at = (long)i;
        if (!nrun) run_start = i;
        for (int k = 0; k < n && !in_class; k++) run[nrun++] = f[k];
        i += clen;
    }
    if (at < 0 && run_has_expansion(run, nrun)) at = (long)run_start;
    free(run);
    return at;
}

/* Whether pat[at] starts an option group: ( ? then option letters (i, m,
 * x, -) up to : or ). */
static bool option_group(const char *pat, size_t len, size_t at)
{
    if (at + 2 >= len || pat[at + 1] != '?') return false;
    size_t k = at + 2;
    while (k < len && pat[k] && strchr("imx-", pat[k])) k++;
    return k > at + 2 && k < len && (pat[k] == ':' || pat[k] == ')');
}

/* Whether pat[at] ('{') starts an interval {n}, {n,}, {n,m} or {,m}: then
 * *close is its '}', *has_min whether n is there, *has_comma whether a comma. */
static bool interval(const char *pat, size_t len, size_t at, size_t *close, bool *has_min, bool *has_comma)
{
    size_t k = at + 1, min_digits = 0, max_digits = 0;
    while (k < len && pat[k] >= '0' && pat[k] <= '9') k++, min_digits++;
    *has_comma = k < len && pat[k] == ',';
    if (*has_comma)
        for (k++; k < len && pat[k] >= '0' && pat[k] <= '9'; k++) max_digits++;
    *has_min = min_digits > 0;
    *close = k;
    return k < len && pat[k] == '}' && (min_digits || max_digits);
}

/* How a pattern is written for PCRE2: with onig's newer characters added
 * to its properties (exact on every text) or without (exact on a text
 * with none of them, and faster: PCRE2 tries the added ranges one by one);
 * added: whether the pattern had anything to add. */
typedef struct {
    bool newer, added;
} translation;

/* The ranges onig adds to PCRE2's property name[0..n) (uclass_pcre2_additions); "" for none. */
static const char *property_additions(const char *name, size_t n)
{
    for (int i = 0; i < uclass_npcre2_additions; i++)
        if (strlen(uclass_pcre2_additions[i].property) == n && !memcmp(uclass_pcre2_additions[i].property, name, n))
            return uclass_pcre2_additions[i].ranges;
    return "";
}

/* Writes, as the inside of a class, the union of the properties names[0..count) as onig has them. */
static void put_properties(wbuf *out, const char *const *names, int count, translation *tr)
{
    for (int i = 0; i < count; i++) {
        const char *adds = property_additions(names[i], strlen(names[i]));
        tr->added |= *adds != 0;
        buf_printf(out, "\\p{%s}%s", names[i], tr->newer ? adds : "");
    }
}

/* Writes the union of names[0..count) as onig has them: in a class its
 * inside; outside one a class of its own (negated: its complement). */
static void put_class(wbuf *out, const char *const *names, int count, bool in_class, bool negated, const char *extra,
                      translation *tr)
{
    if (!in_class) buf_puts(out, negated ? "[^" : "[");
    put_properties(out, names, count, tr);
    buf_puts(out, extra);
    if (!in_class) buf_putc(out, ']');
}

/* A property escape at pat[at] (\p{X}, \P{X}, \p{^X}): writes it as onig
 * has it and returns the offset of its '}', or 0 when it cannot be (a
 * negated one with additions inside a class: err says so) or is no braced
 * property (written as it is). */
static size_t put_property_escape(const char *pat, size_t len, size_t at, bool in_class, wbuf *out, wbuf *err, bool *failed,
                                  translation *tr)
{
    if (at + 2 >= len || pat[at + 2] != '{') return 0;
    const char *close = memchr(pat + at + 3, '}', len - at - 3);
    if (!close) return 0;
    bool negated = pat[at + 1] == 'P', caret = pat[at + 3] == '^';
    const char *name = pat + at + 3 + caret;
    size_t n = (size_t)(close - name);
    const char *adds = property_additions(name, n);
    if (!*adds) return 0;
    if (negated != caret && in_class) {
        buf_printf(err, "a negated property %.*s inside a class (at pattern offset %zu): onig's Unicode 16 "
                        "characters cannot be taken out there",
                   (int)(close + 1 - pat - at), pat + at, at);
        *failed = true;
        return 0;
    }
    char property[32];
    snprintf(property, sizeof property, "%.*s", (int)n, name);
    const char *names[] = {property};
    put_class(out, names, 1, in_class, negated != caret, "", tr);
    return (size_t)(close - pat);
}

/* The pattern translated as tr says and compiled; NULL with a message in err. */
static pcre2_code *compile(const char *pat, size_t len, translation *tr, wbuf *err)
{
    static const char *const word[] = {WORD_PROPERTIES}, *const digit[] = {"Nd"};
    long fold_at = multi_char_fold_at(pat, len);
    if (fold_at >= 0) {
        buf_printf(err, "case-insensitive text at pattern offset %ld that onig matches across character counts "
                        "(as ß and ss); PCRE2 cannot", fold_at);
        return NULL;
    }
    wbuf out = WBUF_INIT;
    bool in_class = false;
    int nested = 0; /* classes open inside the class */
    for (size_t i = 0; i < len; i++) {
        char c = pat[i];
        if (c == '\\' && i + 1 < len) {
            char e = pat[++i];
            switch (e) {
            case 's': buf_puts(&out, "\\p{White_Space}"); break;
            case 'S': buf_puts(&out, "\\P{White_Space}"); break;
            case 'w': put_class(&out, word, 4, in_class, false, in_class ? "" : WORD_LATIN1_EXTRA, tr); break;
            case 'd': put_class(&out, digit, 1, in_class, false, "", tr); break; /* \p{Nd}, as PCRE2's UCP \d */
            case 'W': case 'D':
                if (in_class) {
                    buf_printf(err, "\\%c inside a character class at pattern offset %zu", e, i - 1);
                    buf_free(&out);
                    return NULL;
                }
                if (e == 'W') put_class(&out, word, 4, false, true, WORD_LATIN1_EXTRA, tr);
                else put_class(&out, digit, 1, false, true, "", tr);
                break;
            case 'p': case 'P': {
                bool failed = false;
                size_t end = put_property_escape(pat, len, i - 1, in_class, &out, err, &failed, tr);
                if (failed) {
                    buf_free(&out);
                    return NULL;
                }
                if (end) i = end;
                else buf_putc(&out, '\\'), buf_putc(&out, e);
                break;
            }
            case 'u': { /* onig's \uHHHH is PCRE2's \x{HHHH} */
                uint32_t cp;
                if (!escaped_char(pat, len, i - 1, &cp)) {
                    buf_printf(err, "\\u without four hex digits (at pattern offset %zu)", i - 1);
                    buf_free(&out);
                    return NULL;
                }
                buf_printf(&out, "\\x{%X}", cp);
                i += HEX_U_DIGITS;
                break;
            }
            case 'x': { /* written whole, so that no {H} is taken for an interval */
                uint32_t cp;
                size_t escape_len = escaped_char(pat, len, i - 1, &cp);
                if (escape_len && pat[i + 1] != '{' && cp >= ASCII_END) {
                    buf_printf(err, "\\x%.2s (at pattern offset %zu) is a byte in onig, a character in PCRE2", pat + i + 1,
                               i - 1);
                    buf_free(&out);
                    return NULL;
                }
                if (!escape_len) { /* onig's \x alone is an x, PCRE2's a NUL */
                    buf_printf(err, "\\x without hex digits (at pattern offset %zu)", i - 1);
                    buf_free(&out);
                    return NULL;
                }
                buf_printf(&out, "\\x{%X}", cp);
                i += escape_len - 2;
                break;
            }
            case 'h': case 'H': case 'b': case 'B': case 'A': case 'z': case 'Z': case 'G': case 'K': case 'R': case 'X':
                buf_printf(err, "the escape \\%c (at pattern offset %zu) means something else in onig", e, i - 1);
                buf_free(&out);
                return NULL;
            default:
                buf_putc(&out, '\\');
                buf_putc(&out, e);
            }
            continue;
        }
        if (c == '(' && !in_class && option_group(pat, len, i)) { /* onig's m is PCRE2's s: . matches \n */
            buf_puts(&out, "(?");
            for (i += 2; pat[i] != ':' && pat[i] != ')'; i++) buf_putc(&out, pat[i] == 'm' ? 's' : pat[i]);
            buf_putc(&out, pat[i]);
            continue;
        }
        size_t close;
        bool has_min, has_comma;
        if (c == '{' && !in_class && interval(pat, len, i, &close, &has_min, &has_comma)) {
            char after = close + 1 < len ? pat[close + 1] : 0;
            if (after == '+' || (after == '?' && !has_comma)) { /* onig: {n,m}+ repeats, {n}? is optional */
                buf_printf(err, "the quantifier %.*s%c (at pattern offset %zu) means something else in onig",
                           (int)(close + 1 - i), pat + i, after, i);
                buf_free(&out);
                return NULL;
            }
            buf_putc(&out, '{');
            if (!has_min) buf_putc(&out, '0'); /* onig's {,n} is {0,n} */
            buf_append(&out, pat + i + 1, close - i);
            i = close;
            continue;
        }
        if (c == '&' && in_class && i + 1 < len && pat[i + 1] == '&') {
            buf_printf(err, "a class intersection && (at pattern offset %zu)", i);
            buf_free(&out);
            return NULL;
        }
        if (c == '[') {
            if (in_class) { /* onig's class inside a class is their union: [^a[bc]] is [^abc] */
                if (i + 1 < len && strchr("^:]", pat[i + 1])) {
                    buf_printf(err, "a negated, POSIX or ]-first class inside a class (at pattern offset %zu)", i);
                    buf_free(&out);
                    return NULL;
                }
                nested++;
                continue;
            }
            in_class = true;
            buf_putc(&out, c);
            if (i + 1 < len && pat[i + 1] == '^') buf_putc(&out, pat[++i]);
            if (i + 1 < len && pat[i + 1] == ']') buf_putc(&out, pat[++i]); /* a literal ] first */
            continue;
        }
        if (c == ']' && nested) {
            nested--;
            continue;
        }
        if (c == ']' && in_class) in_class = false;
        buf_putc(&out, c);
    }
    int code;
    PCRE2_SIZE off;
    /* onig's Ruby syntax: ^ and $ match at every line's start and end, and a
     * line ends at "\n" alone (so does . stop there) */
    pcre2_compile_context *ctx = pcre2_compile_context_create(NULL);
    if (!ctx) dief(EXIT_FATAL, "out of memory");
    pcre2_set_newline(ctx, PCRE2_NEWLINE_LF);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(out.data ? out.data : ""), out.len,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_MULTILINE, &code, &off, ctx);
    pcre2_compile_context_free(ctx);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        buf_printf(err, "regex does not compile: %s", (const char *)msg);
    } else {
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter when JIT is not there */
    }
    buf_free(&out);
    return re;
}

pcre2_code *hf_regex_compile(const char *pat, size_t len, pcre2_code **fast, wbuf *err)
{
    translation exact = {.newer = true};
    pcre2_code *re = compile(pat, len, &exact, err);
    if (fast) {
        translation plain = {.newer = false};
        *fast = re && exact.added ? compile(pat, len, &plain, err) : NULL;
    }
    return re;
}

/* Whether code point cp is one onig adds to a PCRE2 property (binary search). */
static bool newer_char(uint32_t cp)
{
    int lo = 0, hi = uclass_npcre2_newer - 1;
    if (cp < uclass_pcre2_newer[0][0]) return false;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (cp < uclass_pcre2_newer[mid][0]) hi = mid - 1;
        else if (cp > uclass_pcre2_newer[mid][1]) lo = mid + 1;
        else return true;
    }
    return false;
}

bool hf_text_has_newer(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        size_t len = utf8_valid_seq(u + i, n - i);
        if (!len) {
            i++;
            continue;
        }
        if (newer_char(utf8_decode(u + i, n - i, &len))) return true;
        i += len;
    }
    return false;
}

const pcre2_code *hf_regex_for(const pcre2_code *exact, const pcre2_code *fast, const char *s, size_t n)
{
    return fast && !hf_text_has_newer(s, n) ? fast : exact;
}

void hf_regex_error_text(int code, wbuf *out)
{
    PCRE2_UCHAR msg[256];
    if (pcre2_get_error_message(code, msg, sizeof msg) < 0) snprintf((char *)msg, sizeof msg, "error %d", code);
    buf_printf(out, "PCRE2: %s", (const char *)msg);
}
