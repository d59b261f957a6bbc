/* dedup_gpu_text.c - a signer that keeps normal forms for the device to
 * shingle and hash (the GPU path) gives the same fingerprints and
 * signatures as the CPU signer, bit for bit, on every document of the real
 * JSONL data and on edge texts (empty, one unit, fewer units than an
 * n-gram, a 300-byte word, a 20,000-word text over several GPU chunks,
 * CJK by characters), in batches of 1, 7 and 500 texts, for two shapes.
 * Everywhere: the layout with the CPU hashing it (the path a worker takes
 * when its GPU fails). Where a GPU is usable also: on the device. */
#define _XOPEN_SOURCE 700
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "dedup/minhash.h"
#include "dedup/sign.h"
#include "gpu/gpu.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

#define LONG_WORDS 20000

static const jsonl_files *data; /* the JSONL files of the shared data, by path */

/* Every text to sign, back to back. */
typedef struct {
    wbuf bytes;
    size_t *from, n, cap;
} texts;

static void add_text(const char *text, size_t len, void *ctx)
{
    texts *t = ctx;
    if (t->n + 2 > t->cap) t->from = realloc(t->from, (t->cap = 2 * t->cap + 64) * sizeof *t->from);
    t->from[0] = 0;
    buf_append(&t->bytes, text, len);
    t->from[++t->n] = t->bytes.len;
}

static void add_edge_texts(texts *t)
{
    add_text("", 0, t);
    add_text("One", 3, t);
    add_text("two words", 9, t);
    add_text("   !!! ...   ", 13, t);
    char word[400];
    memset(word, 'x', 300);
    memcpy(word + 300, " and then some more words here", 30);
    add_text(word, 330, t);
    wbuf big = WBUF_INIT;
    for (int i = 0; i < LONG_WORDS; i++) {
        char w[32];
        int len = snprintf(w, sizeof w, "w%dq%c ", i * 7919 % 10007, 'a' + i % 26);
        buf_append(&big, w, (size_t)len);
    }
    add_text(big.data, big.len, t);
    buf_free(&big);
    const char *cjk = "日本語のテキストは文字ごとに区切られます。한국어 문장 ไทย";
    add_text(cjk, strlen(cjk), t);
}

/* Differences between signer `s` and the CPU signer over all of t, batch
 * texts per finish(). */
static long compare(const minhash_params *p, dedup_signer *s, const texts *t, int batch)
{
    dedup_signer *cpu = dedup_signer_create(p);
    uint64_t *want = malloc((size_t)batch * p->k * sizeof *want), *got = malloc((size_t)batch * p->k * sizeof *got);
    dedup_fp *fw = malloc((size_t)batch * sizeof *fw), *fg = malloc((size_t)batch * sizeof *fg);
    long bad = 0;
    for (size_t from = 0; from < t->n; from += (size_t)batch) {
        size_t to = from + (size_t)batch < t->n ? from + (size_t)batch : t->n;
        for (size_t i = from; i < to; i++) {
            const char *text = t->bytes.data + t->from[i];
            size_t len = t->from[i + 1] - t->from[i];
            dedup_signer_add(cpu, text, len, &fw[i - from]);
            dedup_signer_add(s, text, len, &fg[i - from]);
        }
        dedup_signer_finish(cpu, want);
        dedup_signer_finish(s, got);
        for (size_t i = 0; i < to - from; i++) {
            int same = !memcmp(want + i * p->k, got + i * p->k, (size_t)p->k * sizeof *want) &&
                       fw[i].nshingles == fg[i].nshingles && !memcmp(fw[i].exact, fg[i].exact, sizeof fw[i].exact);
            if (!same && bad++ < 5) diag("text %zu differs", from + i);
        }
    }
    free(want), free(got), free(fw), free(fg);
    dedup_signer_destroy(cpu);
    return bad;
}

static void check_shape(const texts *t, int bands, int rows, int ngram, bool gpu)
{
    minhash_params p;
    minhash_params_init(&p, bands, rows, ngram, 1);
    static const int batches[] = {1, 7, 500};
    for (size_t b = 0; b < sizeof batches / sizeof *batches; b++) {
        dedup_signer *s = dedup_signer_create(&p);
        char why[256] = "";
        if (gpu && !dedup_signer_use_gpu(s, why, sizeof why)) {
            ok(0, "GPU signer: %s", why);
            dedup_signer_destroy(s);
            continue;
        }
        if (!gpu) dedup_signer_keep_text(s);
        is_int(compare(&p, s, t, batches[b]), 0, "%s: %zu texts, %dx%d, %d-grams, %d per batch: same as the CPU signer",
               gpu ? "on the GPU" : "normal forms kept, hashed on the CPU", t->n, bands, rows, ngram, batches[b]);
        dedup_signer_destroy(s);
    }
    minhash_params_free(&p);
}

int main(void)
{
    char root[4096];
    snprintf(root, sizeof root, "%s/jsonl", shared_dir());
    require_file(root);
    data = jsonl_files_under(root);
    texts t = {0};
    add_edge_texts(&t);
    for (int f = 0; f < data->n; f++) jsonl_for_each_text(data->path[f], add_text, &t);
    ok(data->n > 10 && t.n > 1000, "%zu texts from %d JSON files", t.n, data->n);
    check_shape(&t, 14, 8, 5, false);
    check_shape(&t, 20, 10, 3, false);
    char why[256];
    if (gpu_usable(why, sizeof why)) {
        check_shape(&t, 14, 8, 5, true);
        check_shape(&t, 20, 10, 3, true); /* K = 200: more permutations than threads per block */
    } else {
        diag("no GPU here (%s): the device half is skipped", why);
    }
    buf_free(&t.bytes);
    free(t.from);
    return done_testing();
}
