/* filter_ngram_simd.c - Gopher repetition decides the same with the top
 * n-gram bounds computed by the AVX2 pass and by the scalar pass, on the
 * real documents of the filter bench (DCLM, Dolma CC, C4) at the default
 * limits and at limits low enough that the bounds stop ruling n-grams out
 * and the exact counts decide. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/simd.h"
#include "filter/config.h"
#include "filter/rules.h"
#include "filter/words.h"
#include "tests/unit/web_samples.h"
#include "tests/tap.h"

/* Top 2-, 3- and 4-gram limits tried on every document. */
static const double top_limits[][3] = {{0.2, 0.18, 0.16}, {0.08, 0.06, 0.05}, {0.03, 0.02, 0.01}, {0.005, 0.004, 0.003}};
#define N_LIMITS (sizeof top_limits / sizeof top_limits[0])

typedef struct {
    stopword_set *stop;
    fwords words;
    rule_scratch scratch;
    long documents, disagreements, drops;
} check_ctx;

/* The rule's reason for the text with the bounds of the AVX2 pass (avx2) or the scalar pass. */
static const char *reason_with(check_ctx *c, const filter_config *cfg, const char *text, size_t len, bool avx2)
{
    simd_force_baseline(!avx2);
    return gopher_repetition_check(cfg, &c->scratch, text, len, &c->words);
}

static void check_text(const char *text, size_t len, void *arg)
{
    check_ctx *c = arg;
    words_tokenize(&c->words, text, len, c->stop);
    for (size_t l = 0; l < N_LIMITS; l++) {
        filter_config cfg;
        filter_config_defaults(&cfg);
        for (int k = 2; k <= FILTER_TOP_NGRAM_MAX; k++) cfg.rep_top_ngram[k] = top_limits[l][k - 2];
        /* line and paragraph rules off: every document reaches the n-gram rules */
        cfg.rep_dup_line_frac = cfg.rep_dup_line_char_frac = cfg.rep_dup_para_frac = cfg.rep_dup_para_char_frac = 0;
        const char *vector = reason_with(c, &cfg, text, len, true);
        const char *scalar = reason_with(c, &cfg, text, len, false);
        if ((vector == NULL) != (scalar == NULL) || (vector && strcmp(vector, scalar) != 0)) c->disagreements++;
        if (scalar) c->drops++;
        filter_config_free(&cfg);
    }
    c->documents++;
}

int main(void)
{
    simd_force_baseline(false);
    if (!simd_avx2()) skip_all("no AVX2 on this CPU: only the scalar pass runs");
    stopword_set stop;
    stopwords_init(&stop, "the,be,to,of,and,that,have,with");
    check_ctx c = {.stop = &stop};
    words_init(&c.words);
    web_samples_for_each_text(check_text, &c);
    diag("%ld documents x %zu limit sets, %ld drops", c.documents, N_LIMITS, c.drops);
    ok(c.documents > 2000, "read the bench documents (%ld)", c.documents);
    ok(c.drops > c.documents, "the low limits drop documents (%ld drops)", c.drops);
    ok(c.disagreements == 0, "AVX2 and scalar bounds give the same decisions (%ld disagreements)", c.disagreements);
    words_free(&c.words);
    stopwords_free(&stop);
    rule_scratch_free(&c.scratch);
    simd_force_baseline(false);
    return done_testing();
}
