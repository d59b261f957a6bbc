/* filter_parts.c - CPU seconds per GB of the filter's parts on the texts of
 * JSONL files, held in memory (no JSON scanning, no output): the word
 * splitter alone, and filter_document with the default rules without
 * language ID. Prints a digest of the words and of the decisions, so two
 * builds can be compared on the same input.
 *
 *   filter_parts REPEATS FILE.jsonl...  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "filter/config.h"
#include "filter/filter.h"
#include "filter/words.h"
#include "tests/unit/jsonl_texts.h"

typedef struct {
    char **text;
    size_t *len;
    size_t n, cap, bytes;
} texts;

static void add_text(const char *text, size_t len, void *ctx)
{
    texts *t = ctx;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->text = xrealloc(t->text, t->cap * sizeof *t->text);
        t->len = xrealloc(t->len, t->cap * sizeof *t->len);
    }
    t->text[t->n] = xmalloc(len + 1);
    memcpy(t->text[t->n], text, len);
    t->text[t->n][len] = 0;
    t->len[t->n++] = len;
    t->bytes += len;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t h, uint64_t x) { return (h ^ x) * 0x100000001B3ULL + 0x9E3779B97F4A7C15ULL; }

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: filter_parts REPEATS FILE.jsonl...\n");
        return 2;
    }
    int repeats = atoi(argv[1]);
    texts t = {0};
    for (int i = 2; i < argc; i++)
        if (jsonl_for_each_text(argv[i], add_text, &t) < 0) dief(1, "cannot read %s", argv[i]);
    filter_config c;
    filter_config_defaults(&c);
    c.langid = false;
    filter *f = filter_create(&c);
    filter_worker *w = filter_worker_create(f);
    stopword_set stop;
    stopwords_init(&stop, c.gopher_stop_words);
    fwords ws;
    words_init(&ws);

    double best_words = 1e9, best_filter = 1e9;
    uint64_t words_digest = 0, decisions_digest = 0;
    size_t nwords = 0;
    for (int r = 0; r < repeats; r++) {
        double t0 = cpu_now();
        for (size_t i = 0; i < t.n; i++) words_tokenize(&ws, t.text[i], t.len[i], &stop);
        double t1 = cpu_now();
        words_digest = 0, nwords = 0;
        for (size_t i = 0; i < t.n; i++) { /* again, untimed, for the digest */
            words_tokenize(&ws, t.text[i], t.len[i], &stop);
            nwords += ws.n;
            for (size_t k = 0; k < ws.n; k++) {
                const fword *x = &ws.w[k];
                words_digest = mix(words_digest, x->hash ^ ((uint64_t)x->off << 32 | x->len));
                words_digest = mix(words_digest, (uint64_t)x->nchars << 40 | (uint64_t)x->line << 8 | x->flags);
            }
            words_digest = mix(words_digest, ws.lines << 32 | ws.text_chars);
        }
        double t2 = cpu_now();
        decisions_digest = 0;
        for (size_t i = 0; i < t.n; i++) {
            filter_result res;
            filter_document(f, w, t.text[i], t.len[i], NULL, 0, &res);
            uint64_t h = 7;
            for (const char *p = res.reason ? res.reason : ""; *p; p++) h = mix(h, (unsigned char)*p);
            h ^= (uint64_t)res.text_len << 16 ^ (uint64_t)res.c4_lines_removed << 48;
            decisions_digest = mix(decisions_digest, h);
        }
        double t3 = cpu_now();
        if (t1 - t0 < best_words) best_words = t1 - t0;
        if (t3 - t2 < best_filter) best_filter = t3 - t2;
    }
    double gb = (double)t.bytes / 1e9;
    printf("texts %zu, %.1f MB, %zu words\n", t.n, (double)t.bytes / 1e6, nwords);
    printf("words_tokenize: %.3f CPU-s per GB (best of %d)\n", best_words / gb, repeats);
    printf("filter_document (no langid): %.3f CPU-s per GB\n", best_filter / gb);
    printf("digest words %016llx decisions %016llx\n", (unsigned long long)words_digest,
           (unsigned long long)decisions_digest);
    words_free(&ws);
    stopwords_free(&stop);
    filter_worker_destroy(w);
    filter_destroy(f);
    filter_config_free(&c);
    for (size_t i = 0; i < t.n; i++) free(t.text[i]);
    free(t.text);
    free(t.len);
    return 0;
}
