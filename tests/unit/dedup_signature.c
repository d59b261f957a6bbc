/* dedup_signature.c - minhash_signature() (the fast loop where the CPU has
 * it) equals the per-permutation minimum of minhash_permute() on every
 * document of the real JSONL data, and on hashes made to strain the fast
 * loop's estimate: exact repeats, values one apart, values next to P, more
 * than one block, K not a multiple of 8. */
#include <stdlib.h>
#include <string.h>

#include "dedup/minhash.h"
#include "dedup/normalize.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

#define P MINHASH_PRIME

/* The signature straight from the definition. */
static void reference(const minhash_params *p, const uint64_t *h, size_t n, uint64_t *sig)
{
    for (int k = 0; k < p->k; k++) {
        sig[k] = MINHASH_EMPTY;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = minhash_permute(p->a[k], p->b[k], h[i]);
            if (v < sig[k]) sig[k] = v;
        }
    }
}

/* Permutations among the k where the signature of h[0..n) differs from the reference. */
static int mismatches(const minhash_params *p, const uint64_t *h, size_t n)
{
    uint64_t got[MINHASH_MAX_PERMUTATIONS], want[MINHASH_MAX_PERMUTATIONS];
    minhash_signature(p, h, n, got);
    reference(p, h, n, want);
    int bad = 0;
    for (int k = 0; k < p->k; k++) bad += got[k] != want[k];
    return bad;
}

static uint64_t mulmod(uint64_t x, uint64_t y)
{
    return (uint64_t)((unsigned __int128)x * y % P);
}

static uint64_t inverse(uint64_t a)
{
    uint64_t r = 1, e = P - 2;
    for (; e; e >>= 1, a = mulmod(a, a))
        if (e & 1) r = mulmod(r, a);
    return r;
}

/* The hash that permutation (a, b) maps to v. */
static uint64_t preimage(uint64_t a, uint64_t b, uint64_t v)
{
    return mulmod((v + P - b) % P, inverse(a));
}

/* What test_real_data carries from one document to the next. */
typedef struct {
    minhash_params *p;
    dedup_text t;
    uint64_t *h;
    size_t cap, docs, shingles;
    int bad;
} real_data;

static void check_document(const char *text, size_t len, void *ctx)
{
    real_data *r = ctx;
    size_t n = 0;
    dedup_normalize(text, len, &r->t);
    minhash_shingle_hashes(&r->t, r->p->ngram, &r->h, &n, &r->cap);
    r->bad += mismatches(r->p, r->h, n);
    r->docs++;
    r->shingles += n;
}

static void test_real_data(void)
{
    char path[3][512];
    snprintf(path[0], sizeof path[0], "%s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz", shared_dir());
    snprintf(path[1], sizeof path[1], "%s/jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz", shared_dir());
    snprintf(path[2], sizeof path[2], "%s/jsonl/dclm/data/majority_data.jsonl", shared_dir());
    for (int f = 0; f < 3; f++) require_file(path[f]);
    minhash_params p;
    minhash_params_init(&p, MINHASH_DEFAULT_BANDS, MINHASH_DEFAULT_ROWS, MINHASH_DEFAULT_NGRAM, 1);
    diag("fast signature loop %s on this CPU", p.filter ? "used" : "not available");
    real_data r = {.p = &p};
    for (int f = 0; f < 3; f++) jsonl_for_each_text(path[f], check_document, &r);
    ok(r.docs > 2000 && r.shingles > 1000000, "real data read: %zu documents, %zu shingles", r.docs, r.shingles);
    is_int(r.bad, 0, "signatures of every real document equal the definition's");
    free(r.h);
    dedup_text_free(&r.t);
    minhash_params_free(&p);
}

static void test_strained(void)
{
    int shapes[][2] = {{14, 8}, {5, 3}, {2, 4}};
    enum { N = 5000 };
    uint64_t *h = malloc(N * sizeof *h), x = 11;
    for (int s = 0; s < 3; s++) {
        minhash_params p;
        minhash_params_init(&p, shapes[s][0], shapes[s][1], 5, 1234);
        int bad = 0;
        for (int round = 0; round < 40; round++) {
            size_t n = round < 8 ? (size_t[]){1, 2, 3, 1023, 1024, 1025, 2048, N}[round] : 1 + x % N;
            for (size_t i = 0; i < n; i++) h[i] = x = x * 6364136223846793005ull + 1442695040888963407ull;
            int k = (int)(x % (uint64_t)p.k);
            uint64_t a = p.a[k], b = p.b[k];
            switch (round % 4) {
            case 0: /* repeats of one hash all over */
                for (size_t i = 0; i < n; i += 3) h[i] = h[0];
                break;
            case 1: /* permutation k's smallest values one apart, in different blocks */
                for (size_t i = 0; i < n; i += 97) h[i] = preimage(a, b, 1000 + i % 5);
                break;
            case 2: /* every value of permutation k next to P: the estimate wraps */
                for (size_t i = 0; i < n; i++) h[i] = preimage(a, b, P - 1 - i % 64);
                break;
            default: /* the same with unreduced hashes (h and h + P map alike) */
                for (size_t i = 0; i < n; i++) h[i] = preimage(a, b, P - 1 - i % 7) + (i % 2 ? P : 0);
            }
            bad += mismatches(&p, h, n);
        }
        is_int(bad, 0, "K = %d: repeats, near ties, values next to P, several blocks match the definition", p.k);
        minhash_params_free(&p);
    }
    free(h);
}

int main(void)
{
    test_real_data();
    test_strained();
    return done_testing();
}
