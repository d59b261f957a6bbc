/* c4.c - C4 rules (Raffel et al. 2020) as datatrove's C4QualityFilter
 * applies them: line rules remove lines, document rules drop the document. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/util.h"
#include "filter/punkt.h"
#include "filter/rules.h"
#include "filter/uchar.h"

static const char *const policy_phrases[] = {"terms of use", "privacy policy"};
/* the other policy phrases all contain "cookie": looked for only after it */
static const char *const cookie_phrases[] = {"cookie policy", "uses cookies", "use of cookies", "use cookies"};

/* Whether the text, ASCII lower-cased, contains needle (lower case, its
 * first and last bytes letters, at least 2 bytes): 16 positions at a time,
 * where the first and last bytes match, then the bytes between. The text is
 * never copied. */
static bool contains(const char *hay, size_t len, const char *needle)
{
    size_t m = strlen(needle), i = 0;
    if (m > len) return false;
    const unsigned char *h = (const unsigned char *)hay, *nd = (const unsigned char *)needle;
#ifdef __SSE2__
    /* a letter's two cases differ in bit 5 only: set it and compare */
    const __m128i case_bit = _mm_set1_epi8(0x20), first = _mm_set1_epi8((char)nd[0]),
                  last = _mm_set1_epi8((char)nd[m - 1]);
    for (; i + m - 1 + 16 <= len; i += 16) {
        __m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i *)(h + i)), case_bit);
        __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(h + i + m - 1)), case_bit);
        unsigned hits = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, first), _mm_cmpeq_epi8(b, last)));
        for (; hits; hits &= hits - 1) {
            size_t at = i + (size_t)__builtin_ctz(hits), k = 1;
            while (k < m - 1 && ascii_lower(h[at + k]) == nd[k]) k++;
            if (k == m - 1) return true;
        }
    }
#endif
    for (; i + m <= len; i++) {
        size_t k = 0;
        while (k < m && ascii_lower(h[i + k]) == nd[k]) k++;
        if (k == m) return true;
    }
    return false;
}

/* The phrases the line rules look for, each checked once on the whole
 * text (ASCII letters of either case): a line, a part of the text, can only contain a phrase
 * the text contains. Lines rewritten by citation removal are not parts of
 * the text and are always checked. */
typedef struct {
    bool lorem, javascript, policy, cookie;
} phrase_presence;

static phrase_presence find_phrases(const filter_config *c, const char *s, size_t n)
{
    phrase_presence p = {false, false, false, false};
    p.lorem = c->c4_lorem_ipsum && contains(s, n, "lorem ipsum");
    p.javascript = c->c4_javascript && contains(s, n, "javascript");
    if (c->c4_policy) {
        for (size_t k = 0; k < sizeof policy_phrases / sizeof policy_phrases[0] && !p.policy; k++)
            p.policy = contains(s, n, policy_phrases[k]);
        p.cookie = contains(s, n, "cookie");
    }
    return p;
}

/* Appends s[a, b) to out without the citation markers [123], [], [edit],
 * [citation needed]. */
static void remove_citations(const char *s, size_t a, size_t b, wbuf *out)
{
    size_t i = a;
    while (i < b) {
        const char *open = memchr(s + i, '[', b - i);
        if (!open) break;
        size_t p = (size_t)(open - s), q = p + 1;
        while (q < b && isdigit((unsigned char)s[q])) q++;
        size_t end = 0;
        if (q < b && s[q] == ']')
            end = q + 1;
        else if (b - p >= 6 && memcmp(s + p, "[edit]", 6) == 0)
            end = p + 6;
        else if (b - p >= 17 && memcmp(s + p, "[citation needed]", 17) == 0)
            end = p + 17;
        if (end) {
            buf_append(out, s + i, p - i);
            i = end;
        } else {
            buf_append(out, s + i, p + 1 - i);
            i = p + 1;
        }
    }
    buf_append(out, s + i, b - i);
}

/* Words of s[a, b) as str.split() sees them, counted up to enough (0: all);
 * sets *too_long when one has more than max_len code points (max_len 0: no
 * limit; then the count stops at enough). */
static size_t split_words(const char *s, size_t a, size_t b, size_t max_len, size_t enough, bool *too_long)
{
    size_t words = 0, chars = 0;
    bool in_word = false;
    *too_long = false;
    for (size_t i = a; i < b;) {
        unsigned char ch = (unsigned char)s[i];
        uint32_t cp = ch < 0x80 ? (i++, ch) : uc_next(s, b, &i);
        if (uc_is_space(cp)) {
            in_word = false;
            continue;
        }
        if (!in_word) {
            if (!max_len && enough && words == enough) break; /* the line has enough words */
            words++;
            chars = 0;
            in_word = true;
        }
        if (max_len && ++chars > max_len) *too_long = true;
    }
    return words;
}

static bool ends_with_terminal_punct(const char *line, size_t len)
{
    if (len == 0) return false;
    if (len >= 3 && memcmp(line + len - 3, "...", 3) == 0) return false;
    char last = line[len - 1];
    return last == '.' || last == '?' || last == '!' || last == '"' || last == '\'';
}

const char *c4_apply(const filter_config *c, rule_scratch *r, const char *s, size_t n, wbuf *out,
                     bool *changed, size_t *removed)
{
    buf_clear(out);
    size_t nonempty = 0, kept = 0;
    size_t sentences = 0, line_index = 0;
    size_t max_word = (size_t)c->c4_max_word_length;
    const char *reason = NULL;
    const phrase_presence in_text = find_phrases(c, s, n);
    for (size_t pos = 0; pos < n && !reason; line_index++) {
        size_t a = pos, b;
        pos = uc_line_end(s, n, pos, &b);
        if (line_index >= r->line_cap) {
            r->line_cap = r->line_cap ? r->line_cap * 2 : 256;
            r->line_kept = xrealloc(r->line_kept, r->line_cap);
        }
        r->line_kept[line_index] = 0;

        uc_strip(s, &a, &b);
        nonempty += a < b;
        bool too_long;
        size_t words = split_words(s, a, b, b - a > max_word ? max_word : 0, (size_t)c->c4_min_words_per_line,
                                   &too_long);
        if (too_long) continue;
        /* the line after citation removal */
        const char *line = s + a;
        size_t len = b - a;
        phrase_presence may = in_text;
        if (c->c4_remove_citations && memchr(line, '[', len)) {
            may = (phrase_presence){true, true, true, true};
            buf_clear(&r->line);
            remove_citations(s, a, b, &r->line);
            line = r->line.data;
            len = r->line.len;
        }
        if (c->c4_terminal_punct && !ends_with_terminal_punct(line, len)) continue;
        if (words < c->c4_min_words_per_line) continue;
        if (c->c4_lorem_ipsum && may.lorem && contains(line, len, "lorem ipsum")) {
            reason = "c4:lorem_ipsum";
            break;
        }
        if (c->c4_javascript && may.javascript && contains(line, len, "javascript")) continue;
        if (c->c4_curly_bracket && memchr(line, '{', len)) {
            reason = "c4:curly_bracket";
            break;
        }
        if (c->c4_policy) {
            bool policy = false;
            for (size_t k = 0; k < sizeof policy_phrases / sizeof policy_phrases[0] && !policy && may.policy; k++)
                policy = contains(line, len, policy_phrases[k]);
            if (!policy && may.cookie && contains(line, len, "cookie"))
                for (size_t k = 0; k < sizeof cookie_phrases / sizeof cookie_phrases[0] && !policy; k++)
                    policy = contains(line, len, cookie_phrases[k]);
            if (policy) continue;
        }
        /* the count only meets the minimum: once there, no line needs counting */
        if (sentences < c->c4_min_sentences) sentences += punkt_count_sentences(line, 0, len);
        if (out->len) buf_putc(out, '\n');
        buf_append(out, line, len);
        r->line_kept[line_index] = 1;
        kept += len > 0;
    }
    if (reason) return reason;
    if (c->c4_min_sentences && sentences < c->c4_min_sentences) return "c4:too_few_sentences";
    /* the join of stripped, non-empty lines is already stripped except when
     * empty lines were kept (min words 0) */
    size_t a = 0, b = out->len;
    uc_strip(out->data ? out->data : "", &a, &b);
    if (a > 0 || b < out->len) {
        memmove(out->data, out->data + a, b - a);
        out->len = b - a;
        out->data[out->len] = 0;
    }
    *changed = out->len != n || memcmp(out->data ? out->data : "", s, n) != 0;
    *removed = nonempty - kept;
    return NULL;
}
