/* filter_repetition_lines.c - Gopher repetition's duplicate lines and
 * paragraphs are counted exactly: the count of duplicated lines (paragraphs)
 * and their characters, pinned by two limits each (one just below the exact
 * fraction must drop, one just above must keep), equal a plain count by byte
 * comparison on random texts made to defeat a cheap pre-filter: lines that
 * share their length, first and last 8 bytes but differ in the middle, short
 * lines, empty lines, a short last line at the very end of the text (each
 * text in a buffer of exactly its size, so a read past it shows under
 * ASan), and one scratch reused from text to text. */
#include <stdlib.h>
#include <string.h>

#include "filter/config.h"
#include "filter/rules.h"
#include "tests/tap.h"
#include "tests/unit/newline_segments.h"

#define TEXTS 3000
#define MAX_LINES 40
#define MAX_TEXT 4096

/* A fixed seed: the same texts on every run. */
static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33) % n;
}

/* One line: empty, short (1-7 of "ab"), 8 bytes, or a shared head and tail
 * of 8 bytes with a middle of 0-3 of "xy". */
static size_t make_line(char *out)
{
    switch (rnd(4)) {
    case 0: return 0;
    case 1: {
        size_t len = 1 + rnd(7);
        for (size_t i = 0; i < len; i++) out[i] = "ab"[rnd(2)];
        return len;
    }
    case 2: memcpy(out, rnd(2) ? "ABCDEFGH" : "ABCDEFGX", 8); return 8;
    default: {
        size_t len = 0, mid = rnd(4);
        memcpy(out, "ABCDEFGH", 8), len = 8;
        for (size_t i = 0; i < mid; i++) out[len++] = "xy"[rnd(2)];
        memcpy(out + len, "STUVWXYZ", 8), len += 8;
        return len;
    }
    }
}

typedef struct {
    size_t elements, dups, dup_chars;
} counts;

/* Segments split on runs of at least min_run '\n' in s[a, b); duplicates by bytes. */
static counts reference(const char *s, size_t a, size_t b, size_t min_run)
{
    seg segs[MAX_TEXT + 1];
    size_t n = ref_split(s, a, b, min_run, segs);
    counts c = {n, 0, 0};
    for (size_t k = 0; k < n; k++) {
        size_t len = segs[k].b - segs[k].a;
        for (size_t j = 0; j < k; j++)
            if (segs[j].b - segs[j].a == len && memcmp(s + segs[j].a, s + segs[k].a, len) == 0) {
                c.dups++;
                c.dup_chars += len;
                break;
            }
    }
    return c;
}

enum { LINE_FRAC, LINE_CHAR_FRAC, PARA_FRAC, PARA_CHAR_FRAC, N_CHECKS };
static const char *const reasons[N_CHECKS] = {"gopher_repetition:dup_line_frac", "gopher_repetition:dup_line_char_frac",
                                              "gopher_repetition:dup_para_frac", "gopher_repetition:dup_para_char_frac"};

/* The text check's reason for s with only the limit `which` set. */
static const char *check(rule_scratch *r, const char *s, size_t n, int which, double limit)
{
    filter_config c;
    filter_config_defaults(&c);
    c.rep_dup_line_frac = c.rep_dup_para_frac = c.rep_dup_line_char_frac = c.rep_dup_para_char_frac = 0;
    double *field[N_CHECKS] = {&c.rep_dup_line_frac, &c.rep_dup_line_char_frac, &c.rep_dup_para_frac,
                               &c.rep_dup_para_char_frac};
    *field[which] = limit;
    const char *reason = gopher_repetition_text_check(&c, r, s, n, n);
    filter_config_free(&c);
    return reason;
}

int main(void)
{
    rule_scratch scratch = {0};
    char line[32], text[MAX_TEXT];
    size_t wrong[N_CHECKS] = {0}, dropped = 0, with_dups = 0;
    for (int t = 0; t < TEXTS; t++) {
        size_t n = 0, lines = 1 + rnd(MAX_LINES);
        if (rnd(4) == 0) text[n++] = '\n';
        for (size_t i = 0; i < lines; i++) {
            size_t len = make_line(line);
            memcpy(text + n, line, len), n += len;
            if (i + 1 < lines)
                for (size_t breaks = 1 + (rnd(3) == 0) + (rnd(6) == 0); breaks; breaks--) text[n++] = '\n';
        }
        if (n == 0) text[n++] = 'a'; /* an empty text is the "empty" rule's */
        char *s = malloc(n);
        memcpy(s, text, n);
        counts line_counts = reference(s, 0, n, 1);
        size_t a = 0, b = n; /* paragraphs: text.strip() split on runs of two or more */
        while (a < b && s[a] == '\n') a++;
        while (b > a && s[b - 1] == '\n') b--;
        counts para_counts = reference(s, a, b, 2);
        with_dups += line_counts.dups > 0;
        for (int l = 0; l < N_CHECKS; l++) {
            const counts *c = l < PARA_FRAC ? &line_counts : &para_counts;
            double got = l % 2 ? (double)c->dup_chars : (double)c->dups, of = l % 2 ? (double)n : (double)c->elements;
            const char *below = check(&scratch, s, n, l, (got - 0.5) / of);
            const char *above = check(&scratch, s, n, l, (got + 0.5) / of);
            if (got > 0) {
                dropped++;
                if (!below || strcmp(below, reasons[l]) != 0) wrong[l]++;
            }
            if (above) wrong[l]++;
        }
        free(s);
    }
    ok(with_dups > TEXTS / 2, "texts with duplicated lines (%zu of %d)", with_dups, TEXTS);
    ok(dropped > TEXTS, "limits just below the exact fractions drop (%zu)", dropped);
    for (int l = 0; l < N_CHECKS; l++) is_int((long)wrong[l], 0, reasons[l]);
    rule_scratch_free(&scratch);
    return done_testing();
}
