/* punkt.h - sentence boundaries as NLTK's punkt finds them with its English
 * model, which is what FineWeb's word splitting (NLTK word_tokenize: punkt
 * sentences, then the Treebank rules per sentence) and C4's sentence count
 * rest on. The algorithm is punkt's (NLTK 3.8 sent_tokenize: candidate
 * contexts, the two annotation passes, boundary realignment); the model's
 * abbreviations, collocations and frequent sentence starters are built in.
 * Its orthographic table (how each of ~20,000 words was seen capitalised)
 * is not: the orthographic heuristic sees every word as never seen, which
 * changes a break after an abbreviation, an initial or a number followed by
 * a capitalised word (docs/filter.md measures how often). */
#ifndef WINNOW_FILTER_PUNKT_H
#define WINNOW_FILTER_PUNKT_H

#include <stdbool.h>
#include <stddef.h>

/* Growing list of byte offsets, reused from one text to the next. */
typedef struct {
    size_t *at;
    size_t n, cap;
} punkt_offsets;

/* Frees the list's memory. */
void punkt_offsets_free(punkt_offsets *o);

/* Sets *periods to the offsets, ascending, of the periods in s[0, n) that
 * NLTK's word_tokenize splits off its words: the last period of each punkt
 * sentence (after realignment), when only closing quotes, brackets and
 * whitespace follow it in the sentence and no period precedes it; and
 * *starts to the offsets where those sentences start. */
void punkt_sentences(const char *s, size_t n, punkt_offsets *periods, punkt_offsets *starts);

/* Number of sentences NLTK's sent_tokenize finds in s[a, b) that are not
 * all whitespace (datatrove's strip_strings). */
size_t punkt_count_sentences(const char *s, size_t a, size_t b);

#endif
