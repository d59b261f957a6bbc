/* filter_repetition_ref.c - Gopher repetition's decisions equal those of a
 * plain reference written from datatrove's GopherRepetitionFilter (every
 * line, paragraph and n-gram counted, none skipped by a bound or a length),
 * on real documents (DCLM, Dolma CC, C4) and on tokref's en_code corpus (code
 * and prose), at the default limits and at limits low enough that the exact
 * counts decide. The reference compares lines and paragraphs by their bytes
 * and n-grams by their words as NLTK writes them (bytes, a double quote as
 * `` or ''), with no hash of the filter's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/config.h"
#include "filter/rules.h"
#include "filter/uchar.h"
#include "filter/words.h"
#include "tests/tap.h"
#include "tests/unit/web_samples.h"
#include "tests/unit/newline_segments.h"
#include "tests/unit/tokenize_corpus.h"

/* Limit sets: top 2-, 3-, 4-gram, duplicated 5..10-gram (the n-gram's limit
 * is dup - (n - 5) x dup_step), line/paragraph fractions. */
typedef struct {
    double top[3], dup, lines, dup_step;
} limits;
static const limits limit_sets[] = {
    {{0.2, 0.18, 0.16}, -1, -1, 0}, /* the defaults (-1: keep the default) */
    {{0.08, 0.06, 0.05}, 0.05, 0.1, 0},
    {{0.03, 0.02, 0.01}, 0.02, 0.05, 0},
    {{0.005, 0.004, 0.003}, 0.005, 0.01, 0},
    /* limits that differ per n, falling and rising: the filter's bounds
     * must not take one n's limit for another's */
    {{1, 1, 1}, 0.04, 1, 0.006},
    {{1, 1, 1}, 0.004, 1, -0.006},
};
#define N_LIMITS (sizeof limit_sets / sizeof limit_sets[0])

typedef struct {
    const char *s;
    const fwords *w;
    size_t k; /* words per n-gram; 0: segments are byte ranges */
} seg_ctx;

/* Orders two words by their forms. */
static int word_order(const seg_ctx *c, const fword *p, const fword *q)
{
    size_t lp, lq;
    const char *a = word_nltk_form(c->s, p, &lp), *b = word_nltk_form(c->s, q, &lq);
    int d = memcmp(a, b, lp < lq ? lp : lq);
    return d ? d : (lp > lq) - (lp < lq);
}

static bool seg_equal(const seg_ctx *c, seg x, seg y)
{
    if (!c->k) return x.b - x.a == y.b - y.a && memcmp(c->s + x.a, c->s + y.a, x.b - x.a) == 0;
    for (size_t j = 0; j < c->k; j++)
        if (word_order(c, &c->w->w[x.a + j], &c->w->w[y.a + j])) return false;
    return true;
}

/* Orders segments by content (bytes, or the words' bytes), then position. */
static const seg_ctx *sort_ctx;
static const seg *sort_segs;
static int seg_order(const void *pa, const void *pb)
{
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    const seg_ctx *c = sort_ctx;
    seg x = sort_segs[i], y = sort_segs[j];
    if (!c->k) {
        size_t lx = x.b - x.a, ly = y.b - y.a;
        int d = memcmp(c->s + x.a, c->s + y.a, lx < ly ? lx : ly);
        if (d) return d;
        if (lx != ly) return lx < ly ? -1 : 1;
    } else {
        for (size_t t = 0; t < c->k; t++) {
            int d = word_order(c, &c->w->w[x.a + t], &c->w->w[y.a + t]);
            if (d) return d;
        }
    }
    return i < j ? -1 : i > j;
}

/* first[i]: the first segment equal to segs[i], found by sorting (order is scratch). */
static void first_equals(const seg_ctx *c, const seg *segs, size_t n, size_t *order, size_t *first)
{
    for (size_t i = 0; i < n; i++) order[i] = i;
    sort_ctx = c;
    sort_segs = segs;
    qsort(order, n, sizeof *order, seg_order);
    for (size_t i = 0; i < n; i++)
        first[order[i]] = i > 0 && seg_equal(c, segs[order[i - 1]], segs[order[i]]) ? first[order[i - 1]] : order[i];
}

/* find_duplicates: duplicates and their characters. */
static void ref_duplicates(const char *s, const seg *segs, size_t n, size_t *dups, size_t *dup_chars, size_t *order,
                           size_t *first)
{
    seg_ctx c = {s, NULL, 0};
    first_equals(&c, segs, n, order, first);
    *dups = *dup_chars = 0;
    for (size_t i = 0; i < n; i++)
        if (first[i] != i) {
            (*dups)++;
            *dup_chars += uc_count(s + segs[i].a, segs[i].b - segs[i].a);
        }
}

static size_t gram_chars(const fwords *w, size_t i, size_t k)
{
    size_t chars = 0;
    for (size_t j = 0; j < k; j++) chars += w->w[i + j].nchars;
    return chars;
}

/* Working arrays of the reference, each longer than any text's segments or words. */
typedef struct {
    seg *segs;
    size_t *order, *first, *word, *prev;
    uint64_t *key;
} ref_arrays;

/* What GopherRepetitionFilter.filter measures, whatever the limits. */
typedef struct {
    double chars;
    size_t para, para_dups, para_dup_chars, lines, line_dups, line_dup_chars;
    double top[5];      /* k = 2..4: characters of the most frequent gram x its count */
    size_t repeated[11]; /* k = 5..10: find_all_duplicate's characters */
} ref_stats;

/* Orders positions by (key, position). */
static const uint64_t *sort_keys;
static int key_order(const void *pa, const void *pb)
{
    size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
    if (sort_keys[i] != sort_keys[j]) return sort_keys[i] < sort_keys[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* first[i]: the first position whose key equals key[i] (order is scratch). */
static void first_equal_keys(const uint64_t *key, size_t n, size_t *order, size_t *first)
{
    for (size_t i = 0; i < n; i++) order[i] = i;
    sort_keys = key;
    qsort(order, n, sizeof *order, key_order);
    for (size_t i = 0; i < n; i++)
        first[order[i]] = i > 0 && key[order[i - 1]] == key[order[i]] ? first[order[i - 1]] : order[i];
}

/* The measures, with the filter's words. An n-gram's identity is the pair
 * (identity of its first n - 1 words, identity of its last word): equal
 * grams are equal in both. */
static void ref_measure(const char *s, size_t n, const fwords *w, ref_arrays *m, ref_stats *r)
{
    memset(r, 0, sizeof *r);
    r->chars = (double)uc_count(s, n);
    size_t a = 0, b = n;
    uc_strip(s, &a, &b);
    r->para = ref_split(s, a, b, 2, m->segs);
    ref_duplicates(s, m->segs, r->para, &r->para_dups, &r->para_dup_chars, m->order, m->first);
    r->lines = ref_split(s, 0, n, 1, m->segs);
    ref_duplicates(s, m->segs, r->lines, &r->line_dups, &r->line_dup_chars, m->order, m->first);
    seg_ctx words = {s, w, 1};
    for (size_t i = 0; i < w->n; i++) m->segs[i] = (seg){i, i + 1};
    first_equals(&words, m->segs, w->n, m->order, m->word);
    memcpy(m->prev, m->word, w->n * sizeof *m->prev);
    for (size_t k = 2; k <= 10 && k <= w->n; k++) {
        size_t grams = w->n - k + 1;
        for (size_t i = 0; i < grams; i++) m->key[i] = (uint64_t)m->prev[i] << 32 | m->word[i + k - 1];
        first_equal_keys(m->key, grams, m->order, m->first);
        memcpy(m->prev, m->first, grams * sizeof *m->prev);
        if (k <= 4) { /* Counter.most_common(1): the most frequent, the first seen among equals */
            size_t *count = m->order; /* per first position */
            memset(count, 0, grams * sizeof *count);
            for (size_t i = 0; i < grams; i++) count[m->first[i]]++;
            size_t best = 0;
            for (size_t i = 0; i < grams; i++)
                if (count[i] > count[best]) best = i;
            r->top[k] = (double)(gram_chars(w, best, k) + k - 1) * (double)count[best];
            continue;
        }
        bool *in_set = (bool *)m->order; /* per first position: in find_all_duplicate's set */
        memset(in_set, 0, grams * sizeof *in_set);
        for (size_t i = 0; i < grams;) {
            if (in_set[m->first[i]]) {
                r->repeated[k] += gram_chars(w, i, k);
                i += k;
            } else {
                in_set[m->first[i]] = true;
                i++;
            }
        }
    }
}

/* GopherRepetitionFilter.filter's decision from the measures. */
static const char *ref_reason(const filter_config *c, const ref_stats *r)
{
    if (r->chars == 0) return "gopher_repetition:empty";
    if (c->rep_dup_para_frac && (double)r->para_dups / (double)r->para > c->rep_dup_para_frac)
        return "gopher_repetition:dup_para_frac";
    if (c->rep_dup_para_char_frac && (double)r->para_dup_chars / r->chars > c->rep_dup_para_char_frac)
        return "gopher_repetition:dup_para_char_frac";
    if (c->rep_dup_line_frac && (double)r->line_dups / (double)r->lines > c->rep_dup_line_frac)
        return "gopher_repetition:dup_line_frac";
    if (c->rep_dup_line_char_frac && (double)r->line_dup_chars / r->chars > c->rep_dup_line_char_frac)
        return "gopher_repetition:dup_line_char_frac";
    static const char *const top[] = {"gopher_repetition:top_2_gram", "gopher_repetition:top_3_gram",
                                      "gopher_repetition:top_4_gram"};
    for (size_t k = 2; k <= 4; k++)
        if (c->rep_top_ngram[k] && r->top[k] / r->chars > c->rep_top_ngram[k]) return top[k - 2];
    static const char *const dup[] = {"gopher_repetition:duplicated_5_n_grams", "gopher_repetition:duplicated_6_n_grams",
                                      "gopher_repetition:duplicated_7_n_grams", "gopher_repetition:duplicated_8_n_grams",
                                      "gopher_repetition:duplicated_9_n_grams", "gopher_repetition:duplicated_10_n_grams"};
    for (size_t k = 5; k <= 10; k++)
        if (c->rep_dup_ngram[k] && (double)r->repeated[k] / r->chars > c->rep_dup_ngram[k]) return dup[k - 5];
    return NULL;
}

typedef struct {
    stopword_set *stop;
    fwords words;
    rule_scratch scratch;
    ref_arrays m;
    long documents, disagreements, drops;
} check_ctx;


static void check_text(const char *text, size_t len, void *arg)
{
    check_ctx *c = arg;
    words_tokenize(&c->words, text, len, c->stop);
    ref_stats want_stats;
    ref_measure(text, len, &c->words, &c->m, &want_stats);
    for (size_t l = 0; l < N_LIMITS; l++) {
        filter_config cfg;
        filter_config_defaults(&cfg);
        for (int k = 2; k <= 4; k++) cfg.rep_top_ngram[k] = limit_sets[l].top[k - 2];
        if (limit_sets[l].dup >= 0)
            for (int k = 5; k <= 10; k++) cfg.rep_dup_ngram[k] = limit_sets[l].dup - (k - 5) * limit_sets[l].dup_step;
        if (limit_sets[l].lines >= 0)
            cfg.rep_dup_line_frac = cfg.rep_dup_para_frac = cfg.rep_dup_line_char_frac = cfg.rep_dup_para_char_frac =
                limit_sets[l].lines;
        const char *got = gopher_repetition_check(&cfg, &c->scratch, text, len, &c->words);
        const char *want = ref_reason(&cfg, &want_stats);
        if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0)) {
            if (c->disagreements++ < 5) diag("document %ld: got %s, want %s", c->documents, got ? got : "keep", want ? want : "keep");
        }
        if (want) c->drops++;
        filter_config_free(&cfg);
    }
    c->documents++;
}

int main(void)
{
    stopword_set stop;
    stopwords_init(&stop, "the,be,to,of,and,that,have,with");
    check_ctx c = {.stop = &stop};
    words_init(&c.words);
    size_t most = (size_t)1 << 20; /* more than lines, paragraphs or grams of any text read */
    c.m.segs = malloc(most * sizeof *c.m.segs);
    c.m.order = malloc(most * sizeof *c.m.order);
    c.m.first = malloc(most * sizeof *c.m.first);
    c.m.word = malloc(most * sizeof *c.m.word);
    c.m.prev = malloc(most * sizeof *c.m.prev);
    c.m.key = malloc(most * sizeof *c.m.key);
    web_samples_for_each_text(check_text, &c);
    tok_corpus code;
    corpus_load(&code, "en_code");
    for (int d = 0; d < code.ndocs; d += 4) check_text(code.text + code.off[d], code.len[d], &c);
    corpus_free(&code);
    diag("%ld documents x %zu limit sets, %ld drops", c.documents, N_LIMITS, c.drops);
    ok(c.documents > 4000, "documents compared (%ld)", c.documents);
    ok(c.drops > c.documents, "the low limits drop documents (%ld drops)", c.drops);
    ok(c.disagreements == 0, "the same decisions as the reference (%ld disagreements)", c.disagreements);
    words_free(&c.words);
    stopwords_free(&stop);
    rule_scratch_free(&c.scratch);
    free(c.m.segs);
    free(c.m.order);
    free(c.m.first);
    free(c.m.word);
    free(c.m.prev);
    free(c.m.key);
    return done_testing();
}
