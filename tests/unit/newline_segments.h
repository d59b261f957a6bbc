/* newline_segments.h - the Gopher repetition tests' plain splitter: a text
 * cut on runs of '\n' (datatrove's re.split of lines, or of paragraphs on
 * two or more). Header only. */
#ifndef WINNOW_TESTS_NEWLINE_SEGMENTS_H
#define WINNOW_TESTS_NEWLINE_SEGMENTS_H

#include <stddef.h>

/* A segment of a text: bytes [a, b) (or, for n-grams, k words from word a). */
typedef struct {
    size_t a, b;
} seg;

/* Splits s[a, b) on runs of at least `min_run` '\n' into out; returns the
 * number of segments (one more than such runs). */
static inline size_t ref_split(const char *s, size_t a, size_t b, size_t min_run, seg *out)
{
    size_t n = 0, start = a;
    for (size_t i = a; i < b;) {
        if (s[i] != '\n') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < b && s[j] == '\n') j++;
        if (j - i >= min_run) {
            out[n++] = (seg){start, i};
            start = j;
        }
        i = j;
    }
    out[n++] = (seg){start, b};
    return n;
}

#endif
