/* uchar.h - the character classes the filter rules need, defined as Python
 * defines them (datatrove's rules are Python: str.isspace, str.isalpha,
 * str.splitlines), so that decisions match on the same text. */
#ifndef WINNOW_FILTER_UCHAR_H
#define WINNOW_FILTER_UCHAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes a non-ASCII code point (see uc_next). */
uint32_t uc_next_wide(const char *s, size_t n, size_t *i);

/* Decodes the code point at s[i] (n bytes in all) and advances *i; invalid
 * bytes decode as U+FFFD, one byte each. */
static inline uint32_t uc_next(const char *s, size_t n, size_t *i)
{
    unsigned char c = (unsigned char)s[*i];
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    return uc_next_wide(s, n, i);
}

/* Start of the code point that ends just before byte position i (i > 0). */
size_t uc_prev_start(const char *s, size_t i);

/* Number of code points in valid UTF-8 s (Python len()). */
size_t uc_count(const char *s, size_t n);

/* One line of str.splitlines() from byte pos: sets *end to where the line's
 * text ends and returns where the next line starts (n at the end). */
size_t uc_line_end(const char *s, size_t n, size_t pos, size_t *end);

bool uc_is_space_wide(uint32_t cp);

/* Python str.isspace(): whitespace as str.split() and str.strip() see it. */
static inline bool uc_is_space(uint32_t cp)
{
    if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
    return uc_is_space_wide(cp);
}

/* A line boundary of Python str.splitlines() (\r\n is handled by the caller). */
bool uc_is_line_break(uint32_t cp);

/* Python str.isalpha() for one character (Unicode categories L*). */
bool uc_is_alpha(uint32_t cp);

/* Python's \w for one character: letters, numbers and '_'. */
bool uc_is_word(uint32_t cp);

/* In datatrove's PUNCTUATION_SET (used by Gopher's non-symbol word test). */
bool uc_is_datatrove_punct(uint32_t cp);

/* A script written without spaces between words (Han, kana, Thai, Lao,
 * Khmer, Myanmar, Tibetan): words there come from ICU's word breaker. */
bool uc_is_nospace_script(uint32_t cp);

/* Bytes [*a, *b) of s with Python-whitespace removed at both ends. */
void uc_strip(const char *s, size_t *a, size_t *b);

#endif
