/* dedup_gpu_xxh3.c - the GPU's shingle hash (gpu/xxh3_words.h, compiled here
 * as C, the same source the device runs) against libxxhash's XXH3_64bits():
 * every length from 0 to 2,100 bytes (all seven length paths, several 1 KiB
 * blocks of the long path) at every byte alignment, on random bytes; and
 * every shingle of the real JSONL data, hashed from the normal form as the
 * GPU signer lays it out (texts back to back, unit offsets). Runs anywhere:
 * no GPU needed. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "dedup/minhash.h"
#include "dedup/normalize.h"
#include "gpu/xxh3_words.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

#define MAX_LEN 2100

/* xorshift64*: reproducible random bytes. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

static void test_lengths(void)
{
    size_t nwords = (MAX_LEN + 8) / 8 + 2;
    uint64_t *words = calloc(nwords, 8);
    uint64_t x = 88172645463325252ull;
    long bad = 0, checked = 0;
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < nwords; i++) words[i] = next_random(&x);
        const char *bytes = (const char *)words;
        for (uint64_t len = 0; len <= MAX_LEN; len++)
            for (uint64_t at = 0; at < 8; at++, checked++)
                if (wx_xxh3_64(words, at, len) != XXH3_64bits(bytes + at, len)) {
                    if (bad++ < 5) diag("length %lu at offset %lu differs", (unsigned long)len, (unsigned long)at);
                }
    }
    ok(bad == 0, "%ld of %ld random (length, alignment) pairs, lengths 0..%d, differ from XXH3_64bits", bad, checked,
       MAX_LEN);
    free(words);
}

static const jsonl_files *data; /* the JSONL files of the shared data, by path */

/* What each document of the data adds to the count. */
typedef struct {
    dedup_text t;
    uint64_t *hashes, *words;
    size_t cap, cap_words;
    long docs, shingles, bad;
} shingle_check;

/* Hashes every 5-gram shingle of the text with both hashes; the text sits at
 * an odd offset of its words, as a document does in a batch. */
static void check_document(const char *text, size_t len, void *ctx)
{
    shingle_check *c = ctx;
    size_t n = 0;
    dedup_normalize(text, len, &c->t);
    minhash_shingle_hashes(&c->t, MINHASH_DEFAULT_NGRAM, &c->hashes, &n, &c->cap);
    uint64_t base = 3 + (uint64_t)c->docs % 5;
    size_t need = (base + c->t.text.len) / 8 + 2;
    if (need > c->cap_words) c->words = realloc(c->words, (c->cap_words = need * 2) * 8);
    memcpy((char *)c->words + base, c->t.text.data ? c->t.text.data : "", c->t.text.len);
    size_t last = c->t.nunits < MINHASH_DEFAULT_NGRAM ? c->t.nunits - 1 : MINHASH_DEFAULT_NGRAM - 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t from = c->t.start[i], to = c->t.end[i + last];
        if (wx_xxh3_64(c->words, base + from, to - from) != c->hashes[i] && c->bad++ < 5)
            diag("document %ld shingle %zu differs", c->docs, i);
    }
    c->docs++;
    c->shingles += (long)n;
}

static void test_real_shingles(const char *dir)
{
    require_file(dir);
    data = jsonl_files_under(dir);
    shingle_check c = {0};
    for (int f = 0; f < data->n; f++) jsonl_for_each_text(data->path[f], check_document, &c);
    ok(c.docs > 1000 && c.shingles > 100000, "real data read: %ld documents, %ld shingles", c.docs, c.shingles);
    ok(c.bad == 0, "%ld of %ld real shingles hash differently from XXH3_64bits", c.bad, c.shingles);
    dedup_text_free(&c.t);
    free(c.hashes);
    free(c.words);
}

int main(void)
{
    const char *shared = getenv("SHARED");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/jsonl", shared ? shared : "../shared/data");
    test_lengths();
    test_real_shingles(dir);
    return done_testing();
}
