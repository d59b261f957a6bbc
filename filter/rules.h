/* rules.h - the quality rules: Gopher quality, Gopher repetition, C4, FineWeb.
 *
 * Each check reads the document text and its words (tokenised once, see
 * words.h) and returns NULL to keep the document or a static drop reason
 * ("gopher_quality:short_doc", ...). Definitions follow datatrove's code
 * (GopherQualityFilter, GopherRepetitionFilter, C4QualityFilter,
 * FineWebQualityFilter); docs/filter.md lists every choice. */
#ifndef WINNOW_FILTER_RULES_H
#define WINNOW_FILTER_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "filter/config.h"
#include "filter/count_table.h"
#include "filter/words.h"

/* Words are counted in at most 2^this counters (see count_words). */
#define WORD_COUNTER_BITS_MAX 18

/* Per-thread working memory the rules reuse from document to document. */
typedef struct {
    count_table table;
    uint64_t *gram_hash;  /* n-gram hashes, one per word position */
    uint32_t *gram_pos;   /* positions whose 5-gram may repeat */
    uint32_t *gram_slot;  /* per position: the counter of its word, or of its 5-gram */
    uint32_t *word_count; /* occurrences of the word at each position (or more) */
    uint32_t *word_counters; /* 1 << WORD_COUNTER_BITS_MAX counters, zero between documents */
    uint8_t *seen_counters;  /* as many byte counters (0, 1, 2: twice or more) of 5-grams or of lines and
                                paragraphs, zero between documents */
    uint64_t *char_prefix; /* code points of words[0..i) */
    uint8_t *gram_repeats; /* top n-grams: whether the gram at each position occurs twice or more */
    size_t gram_cap;
    uint32_t *lines;      /* Gopher repetition: 0, then each run of '\n' (start, end), then the
                             text's end: line k is [lines[2k], lines[2k + 1]) */
    uint32_t *paragraphs; /* paragraph k is [paragraphs[2k], paragraphs[2k + 1]) */
    size_t lines_cap, paragraphs_cap; /* entries each holds */
    uint32_t *segment_slot; /* per line or paragraph: its counter in seen_counters */
    size_t segment_slot_cap;
    uint8_t *line_kept;   /* C4: per splitlines() line, kept or not */
    size_t line_cap;
    wbuf line;            /* C4: one line after citation removal */
} rule_scratch;

/* Frees the scratch memory. */
void rule_scratch_free(rule_scratch *r);

/* Gopher quality rules on text s (n bytes) with its words. */
const char *gopher_quality_check(const filter_config *c, const char *s, size_t n, const fwords *w);

/* Gopher repetition rules (duplicate lines/paragraphs, top and duplicated n-grams). */
const char *gopher_repetition_check(const filter_config *c, rule_scratch *r, const char *s, size_t n,
                                    const fwords *w);

/* Its first half, which needs no words: empty text, duplicate paragraphs and
 * lines; text_chars is s's length in code points. */
const char *gopher_repetition_text_check(const filter_config *c, rule_scratch *r, const char *s, size_t n,
                                         size_t text_chars);

/* Its second half: top and duplicated n-grams of w. */
const char *gopher_repetition_word_check(const filter_config *c, rule_scratch *r, const fwords *w);

/* C4 rules. Writes the text made of the kept lines to out (datatrove's
 * output: stripped lines joined by '\n'), sets *changed when it differs from
 * s, *removed to the number of non-empty lines it removed, and marks kept
 * lines in r->line_kept. */
const char *c4_apply(const filter_config *c, rule_scratch *r, const char *s, size_t n, wbuf *out,
                     bool *changed, size_t *removed);

/* FineWeb rules on text s; nwords is the number of words of s. */
const char *fineweb_check(const filter_config *c, rule_scratch *r, const char *s, size_t n, size_t nwords);

#endif
