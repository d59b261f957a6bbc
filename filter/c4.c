/* c4.c - C4 rules (Raffel et al. 2020) as datatrove's C4QualityFilter
 * applies them: line rules remove lines, document rules drop the document. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "core/util.h"
#include "filter/rules.h"
#include "filter/uchar.h"

static const char *const policy_phrases[] = {"terms of use", "privacy policy"};
/* the other policy phrases all contain "cookie": looked for only after it */
static const char *const cookie_phrases[] = {"cookie policy", "uses cookies", "use of cookies", "use cookies"};

static bool contains(const char *hay, size_t len, const char *needle)
{
    return memmem(hay, len, needle, strlen(needle)) != NULL;
}

/* The phrases the line rules look for, each checked once on the whole
 * (lower-cased) text: a line, a part of the text, can only contain a phrase
 * the text contains. Lines rewritten by citation removal are not parts of
 * the text and are always checked. */
typedef struct {
    bool lorem, javascript, policy, cookie;
} phrase_presence;

static phrase_presence find_phrases(const filter_config *c, const char *lower, size_t n)
{
    phrase_presence p = {false, false, false, false};
    p.lorem = c->c4_lorem_ipsum && contains(lower, n, "lorem ipsum");
    p.javascript = c->c4_javascript && contains(lower, n, "javascript");
    if (c->c4_policy) {
        for (size_t k = 0; k < sizeof policy_phrases / sizeof policy_phrases[0] && !p.policy; k++)
            p.policy = contains(lower, n, policy_phrases[k]);
        p.cookie = contains(lower, n, "cookie");
    }
    return p;
}

/* ASCII lower case of s into out (same length, other bytes unchanged),
 * 8 bytes at a time. */
static void ascii_lower(const char *s, size_t n, wbuf *out)
{
    buf_clear(out);
    buf_reserve(out, n);
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t low7 = x & ~highs;
        /* bit 7 of each byte: at least 'A', above 'Z' (no carry leaves a byte) */
        uint64_t from_a = low7 + ones * (0x80 - 'A'), past_z = low7 + ones * (0x80 - 'Z' - 1);
        uint64_t upper = from_a & ~past_z & ~x & highs;
        x |= upper >> 2; /* 0x80 >> 2 = 0x20 */
        memcpy(out->data + i, &x, 8);
    }
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out->data[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    out->len = n;
    out->data[n] = 0;
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
    ascii_lower(s, n, &r->text_lower);
    size_t sentences = 0, line_index = 0;
    size_t max_word = (size_t)c->c4_max_word_length;
    const char *reason = NULL;
    const phrase_presence in_text = find_phrases(c, r->text_lower.data, n);
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
        /* the line, and its lower case, after citation removal */
        const char *line = s + a, *lower = r->text_lower.data + a;
        size_t len = b - a;
        phrase_presence may = in_text;
        if (c->c4_remove_citations && memchr(line, '[', len)) {
            may = (phrase_presence){true, true, true, true};
            buf_clear(&r->line);
            remove_citations(s, a, b, &r->line);
            ascii_lower(r->line.data, r->line.len, &r->lower);
            line = r->line.data;
            lower = r->lower.data;
            len = r->line.len;
        }
        if (c->c4_terminal_punct && !ends_with_terminal_punct(line, len)) continue;
        if (words < c->c4_min_words_per_line) continue;
        if (c->c4_lorem_ipsum && may.lorem && contains(lower, len, "lorem ipsum")) {
            reason = "c4:lorem_ipsum";
            break;
        }
        if (c->c4_javascript && may.javascript && contains(lower, len, "javascript")) continue;
        if (c->c4_curly_bracket && memchr(line, '{', len)) {
            reason = "c4:curly_bracket";
            break;
        }
        if (c->c4_policy) {
            bool policy = false;
            for (size_t k = 0; k < sizeof policy_phrases / sizeof policy_phrases[0] && !policy && may.policy; k++)
                policy = contains(lower, len, policy_phrases[k]);
            if (!policy && may.cookie && contains(lower, len, "cookie"))
                for (size_t k = 0; k < sizeof cookie_phrases / sizeof cookie_phrases[0] && !policy; k++)
                    policy = contains(lower, len, cookie_phrases[k]);
            if (policy) continue;
        }
        sentences += count_sentences(line, 0, len);
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
