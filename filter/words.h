/* words.h - one-pass word tokenisation shared by every filter rule.
 *
 * English and other space-separated text is split the way NLTK's
 * word_tokenize (which datatrove uses for English) splits it, closely
 * enough to give the same rule decisions: punctuation, brackets and quotes
 * become tokens of their own, contractions ('s, n't, 'll, ...) are split off,
 * a sentence's final period is split off, the sentences being NLTK punkt's
 * (punkt.h).
 * Runs of text in scripts written without spaces (CJK, Thai, ...) are split
 * with ICU's word break iterator. Each word carries what the rules ask of it
 * (length in code points, alphabetic, all-punctuation, stop word, a hash), so
 * no rule looks at its characters again. The arrays are reused from one
 * document to the next: no allocation per word. */
#ifndef WINNOW_FILTER_WORDS_H
#define WINNOW_FILTER_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter/punkt.h"

enum {
    WORD_ALPHA = 1,  /* contains an alphabetic character (Python isalpha) */
    WORD_SYMBOL = 2, /* every character is in datatrove's PUNCTUATION_SET */
    WORD_STOP = 4,   /* equal to one of the stop words */
    WORD_OPENING = 8, /* a '"' or "''" that NLTK writes `` (else '', when it is one of those) */
};

typedef struct {
    uint32_t off, len; /* bytes of the word in the text */
    uint32_t nchars;   /* code points (2 for a '"': NLTK writes it `` or '') */
    uint32_t line;     /* index of its line, as str.splitlines() counts them */
    uint64_t hash;     /* of its bytes */
    uint32_t flags;
} fword;

#define STOPWORDS_MAX 64     /* most stop words a set takes */
#define STOPWORD_SLOTS 128   /* more than twice STOPWORDS_MAX */

/* A set of stop words (exact, case-sensitive, as datatrove compares them). */
typedef struct {
    char *copy;       /* the list the words point into */
    char **words;
    size_t *lens;
    uint64_t *packed; /* words of up to 8 bytes as zero-padded integers (stopwords_pack) */
    size_t max_len;
    int n;
    /* when max_len <= 8: an open-addressing table of the packed words (stopwords_pack) */
    uint64_t slot_word[STOPWORD_SLOTS];
    uint8_t slot_len[STOPWORD_SLOTS]; /* 0: empty slot */
    uint64_t multiplier; /* picks a word's first slot */
    bool single_probe;   /* each word sits in the slot the multiplier picks: one look */
} stopword_set;

/* Makes set from a list of words separated by commas, spaces or tabs; false
 * (set empty) when the list has more than STOPWORDS_MAX words. */
bool stopwords_init(stopword_set *set, const char *list);

/* Frees what stopwords_init() made. */
void stopwords_free(stopword_set *set);

typedef struct {
    fword *w;
    size_t n, cap;
    size_t text_chars; /* len(text) in code points */
    size_t lines;      /* len(text.splitlines()); a line's words carry its index */
    /* The counts Gopher quality reads, kept as the words are made (no
     * second pass over them), two 32-bit counts in each 64-bit tally so
     * that one addition keeps both (words and code points are fewer than
     * 2^32: offsets are 32-bit); read them with the words_count_ functions. */
    uint64_t tally_words; /* words without WORD_SYMBOL | words with WORD_ALPHA << TALLY_HIGH */
    uint64_t tally_chars; /* words with WORD_STOP | code points of words without WORD_SYMBOL << TALLY_HIGH */
    const char *text_end; /* end of the text being split */
    punkt_offsets periods; /* the periods word_tokenize splits off (punkt_sentences) */
    punkt_offsets starts;  /* where punkt's sentences start */
    size_t next_period, next_start; /* the first of each not passed yet */
    void *icu_breaker; /* UBreakIterator, made on first use */
    uint16_t *icu_u16; /* the chunk in UTF-16 for ICU */
    size_t icu_cap;    /* UTF-16 units icu_u16 holds */
} fwords;

/* The word w of text s as NLTK writes it: its bytes, but a '"' or "''" as
 * `` or '' (WORD_OPENING); sets *len. */
static inline const char *word_nltk_form(const char *s, const fword *w, size_t *len)
{
    const char *p = s + w->off;
    *len = w->len;
    if ((w->len == 1 && p[0] == '"') || (w->len == 2 && p[0] == '\'' && p[1] == '\'')) {
        *len = 2;
        return w->flags & WORD_OPENING ? "``" : "''";
    }
    return p;
}

/* Bit where the second count of a tally starts. */
#define TALLY_HIGH 32
#define TALLY_LOW_MASK 0xFFFFFFFFu

/* Words that are not all punctuation (no WORD_SYMBOL). */
static inline size_t words_count_content(const fwords *ws) { return (size_t)(ws->tally_words & TALLY_LOW_MASK); }

/* Code points of the words that are not all punctuation. */
static inline size_t words_count_content_chars(const fwords *ws) { return (size_t)(ws->tally_chars >> TALLY_HIGH); }

/* Words with WORD_ALPHA. */
static inline size_t words_count_alpha(const fwords *ws) { return (size_t)(ws->tally_words >> TALLY_HIGH); }

/* Words with WORD_STOP. */
static inline size_t words_count_stop(const fwords *ws) { return (size_t)(ws->tally_chars & TALLY_LOW_MASK); }

/* Empties ws (no memory yet). */
void words_init(fwords *ws);

/* Frees ws's memory. */
void words_free(fwords *ws);

/* Replaces ws's words by those of text s (n bytes, any bytes accepted). */
void words_tokenize(fwords *ws, const char *s, size_t n, const stopword_set *stop);

/* words_tokenize() for a caller that has counted the code points of s
 * already (uc_count(s, n), which words_tokenize() would count again). */
void words_tokenize_counted(fwords *ws, const char *s, size_t n, size_t text_chars, const stopword_set *stop);

#endif
