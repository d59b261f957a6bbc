/* dedup_minhash.c - the dedup normal form, shingles, signatures and band keys
 * against values computed here from the definitions in dedup/minhash.h, and
 * the keyset and index rules. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "core/input.h"
#include "core/json.h"
#include "dedup/fingerprint.h"
#include "dedup/index.h"
#include "dedup/keyset.h"
#include "dedup/minhash.h"
#include "dedup/normalize.h"
#include "tests/tap.h"

#define P ((UINT64_C(1) << 61) - 1)

/* splitmix64 written out from its published definition. */
static uint64_t ref_splitmix(uint64_t *x)
{
    *x += 0x9E3779B97F4A7C15ull;
    uint64_t z = *x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t ref_permute(uint64_t a, uint64_t b, uint64_t h)
{
    return (uint64_t)((((unsigned __int128)a * h) + b) % P);
}

static const char *norm(const char *s)
{
    static dedup_text t;
    dedup_normalize(s, strlen(s), &t);
    return t.text.data ? t.text.data : "";
}

static void test_normalize(void)
{
    is_str(norm("Hello,   World!"), "hello world", "lowercase, punctuation, spaces");
    is_str(norm("  Café déjà-vu  "), "cafe deja vu", "NFD without combining marks");
    is_str(norm("In 2019 we paid $1,250.75"), "in 0 we paid 0 0 0", "digit runs become 0");
    is_str(norm("abc123def ٣٤"), "abc0def 0", "digits inside words and other scripts' digits");
    is_str(norm("ÀÉÎÕÜ Ωμέγα"), "aeiou ωμεγα", "uppercase accents, Greek tonos");
    is_str(norm("soft\xC2\xADhyphen zero\xE2\x80\x8Bwidth"), "softhyphen zerowidth", "format characters vanish");
    is_str(norm("tab\tnew\nline\r\n end"), "tab new line end", "whitespace collapses");
    is_str(norm("\xFF\xFEok"), "ok", "invalid bytes become spaces");
    is_str(norm(""), "", "empty stays empty");
    static dedup_text t;
    const char *cjk = "日本語のtext 한국어 ไทย";
    dedup_normalize(cjk, strlen(cjk), &t);
    is_int(t.nunits, 4 + 1 + 1 + 3, "CJK and Thai by character, Latin and Hangul by word");
    ok(t.nunits == 9 && t.end[3] - t.start[3] == 3 && t.end[4] - t.start[4] == 4 &&
           !memcmp(t.text.data + t.start[4], "text", 4) && t.end[6] - t.start[6] == 3,
       "unit boundaries");
    dedup_text_free(&t);
}

static void test_shingles(void)
{
    dedup_text t = {0};
    const char *s = "A b, C d e F g";
    dedup_normalize(s, strlen(s), &t);
    uint64_t *h = NULL;
    size_t n = 0, cap = 0;
    minhash_shingle_hashes(&t, 5, &h, &n, &cap);
    is_int(n, 3, "7 words give 3 5-grams");
    ok(n == 3 && h[0] == XXH3_64bits("a b c d e", 9) && h[1] == XXH3_64bits("b c d e f", 9) &&
           h[2] == XXH3_64bits("c d e f g", 9),
       "shingle hashes are XXH3-64 of the n-gram bytes");
    n = 0;
    dedup_normalize("only three words", 16, &t);
    minhash_shingle_hashes(&t, 5, &h, &n, &cap);
    ok(n == 1 && h[0] == XXH3_64bits("only three words", 16), "a short text is one shingle");
    n = 0;
    dedup_normalize("日本語", strlen("日本語"), &t);
    minhash_shingle_hashes(&t, 2, &h, &n, &cap);
    ok(n == 2 && h[0] == XXH3_64bits("日本", 6) && h[1] == XXH3_64bits("本語", 6), "character bigrams for CJK");
    n = 0;
    dedup_normalize("!!!", 3, &t);
    minhash_shingle_hashes(&t, 5, &h, &n, &cap);
    is_int(n, 0, "no shingles in an empty normal form");
    free(h);
    dedup_text_free(&t);
}

static void test_permute(void)
{
    uint64_t edge[] = {0, 1, 7, P - 1, P, P + 1, P + 7, P + 8, UINT64_MAX - 1, UINT64_MAX, UINT64_C(1) << 63};
    uint64_t as[] = {1, 2, P - 1, P - 2, UINT64_C(0x1234567890ABCDE)};
    uint64_t bs[] = {0, 1, P - 1};
    int bad = 0;
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
        for (size_t j = 0; j < sizeof as / sizeof *as; j++)
            for (size_t k = 0; k < sizeof bs / sizeof *bs; k++)
                bad += minhash_permute(as[j], bs[k], edge[i]) != ref_permute(as[j], bs[k], edge[i]);
    uint64_t x = 42;
    for (int i = 0; i < 200000; i++) {
        uint64_t a = 1 + ref_splitmix(&x) % (P - 1), b = ref_splitmix(&x) % P, h = ref_splitmix(&x);
        bad += minhash_permute(a, b, h) != ref_permute(a, b, h);
    }
    is_int(bad, 0, "(a*h+b) mod 2^61-1 matches 128-bit division on edges and 200k random values");
}

static void test_signature(void)
{
    minhash_params p;
    ok(minhash_params_init(&p, 3, 4, 2, 7) == 0, "params 3x4");
    minhash_params_free(&p);
    ok(minhash_params_init(&p, 0, 4, 2, 7) != 0 && minhash_params_init(&p, 40, 40, 2, 7) != 0, "bad shapes refused");
    minhash_params_init(&p, 3, 4, 2, 7);
    uint64_t x = 7;
    int bad = 0;
    for (int k = 0; k < 12; k++) {
        uint64_t a = 1 + ref_splitmix(&x) % (P - 1), b = ref_splitmix(&x) % P;
        bad += a != p.a[k] || b != p.b[k];
    }
    is_int(bad, 0, "a_k, b_k drawn from splitmix64(seed) as documented");

    const char *text = "The quick brown fox jumps";
    dedup_text t = {0};
    dedup_normalize(text, strlen(text), &t);
    uint64_t *h = NULL;
    size_t n = 0, cap = 0;
    minhash_shingle_hashes(&t, 2, &h, &n, &cap);
    const char *grams[] = {"the quick", "quick brown", "brown fox", "fox jumps"};
    uint64_t want[12], sig[12], keys[3], want_keys[3];
    for (int k = 0; k < 12; k++) {
        want[k] = UINT64_MAX;
        for (int g = 0; g < 4; g++) {
            uint64_t v = ref_permute(p.a[k], p.b[k], XXH3_64bits(grams[g], strlen(grams[g])));
            if (v < want[k]) want[k] = v;
        }
    }
    minhash_signature(&p, h, n, sig);
    ok(n == 4 && !memcmp(sig, want, sizeof sig), "signature = per-permutation minimum over the 4 bigrams");
    for (int j = 0; j < 3; j++) {
        unsigned char bytes[32];
        for (int r = 0; r < 4; r++)
            for (int byte = 0; byte < 8; byte++) bytes[r * 8 + byte] = (unsigned char)(want[j * 4 + r] >> (8 * byte));
        want_keys[j] = XXH3_64bits_withSeed(bytes, 32, (XXH64_hash_t)j);
    }
    minhash_band_keys(&p, sig, keys);
    ok(!memcmp(keys, want_keys, sizeof keys), "band key j = XXH3-64 of its rows (little-endian), seed j");
    minhash_signature(&p, h, 0, sig);
    ok(sig[0] == UINT64_MAX && sig[11] == UINT64_MAX, "no shingles: all UINT64_MAX");
    ok(minhash_similarity(want, want, 12) == 1.0, "identical signatures estimate 1");
    free(h);
    dedup_text_free(&t);
    minhash_params_free(&p);
}

/* The vectorised signature loop against the definition, on random and
 * extreme hashes, for K a multiple of 8 and not. */
static void test_signature_wide(void)
{
    int shapes[][2] = {{14, 8}, {5, 3}, {1, 1}};
    uint64_t x = 3, hashes[1000];
    for (int i = 0; i < 1000; i++) hashes[i] = ref_splitmix(&x);
    hashes[10] = UINT64_MAX, hashes[11] = P, hashes[12] = P - 1, hashes[13] = 0, hashes[14] = P + 7;
    for (int s = 0; s < 3; s++) {
        minhash_params p;
        minhash_params_init(&p, shapes[s][0], shapes[s][1], 5, 99);
        uint64_t sig[112], want[112];
        int bad = 0;
        for (size_t n = 1; n <= 1000; n = n * 3 + 1) {
            minhash_signature(&p, hashes, n, sig);
            for (int k = 0; k < p.k; k++) {
                want[k] = UINT64_MAX;
                for (size_t i = 0; i < n; i++) {
                    uint64_t v = ref_permute(p.a[k], p.b[k], hashes[i]);
                    if (v < want[k]) want[k] = v;
                }
                bad += sig[k] != want[k];
            }
        }
        is_int(bad, 0, "K = %d: signatures of up to 1000 random and extreme hashes match the definition", p.k);
        minhash_params_free(&p);
    }
}

static void test_keyset(void)
{
    keyset s;
    keyset_init(&s, 1, true, 1000); /* presized small: must grow */
    uint64_t x = 9;
    enum { N = 300000 };
    uint64_t *keys = malloc(N * sizeof *keys);
    int added = 0, found = 0, wrong = 0, absent = 0;
    for (int i = 0; i < N; i++) {
        keys[i] = ref_splitmix(&x);
        added += keyset_add(&s, &keys[i], (uint32_t)i);
    }
    for (int i = 0; i < N; i++) {
        uint32_t v;
        if (keyset_find(&s, &keys[i], &v)) found++, wrong += v != (uint32_t)i;
        uint64_t other = ref_splitmix(&x);
        absent += !keyset_find(&s, &other, NULL);
    }
    is_int(added, N, "every new key added");
    ok(!keyset_add(&s, &keys[5], 99), "a present key is not added again");
    ok(found == N && wrong == 0, "every key found with its value after growing");
    is_int(absent, N, "absent keys not found");
    keyset_free(&s);
    keyset_init(&s, 2, false, N / 2);
    for (int i = 0; i + 1 < N; i += 2) keyset_add(&s, &keys[i], 0);
    double per_key = (double)keyset_bytes(&s) / (double)s.count;
    ok(per_key <= 16.0 / 0.94, "presized 2-word set filled to 95%%: %.1f bytes per key", per_key);
    uint64_t zero[2] = {0, 0};
    ok(!keyset_find(&s, zero, NULL) && keyset_add(&s, zero, 0) && keyset_find(&s, zero, NULL) && !keyset_add(&s, zero, 0),
       "the all-zero key (the empty-slot mark) is a key like any other");
    /* a 128-bit key with one zero half is an ordinary key, not an empty slot */
    int half_added = 0, half_found = 0, still_found = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t hi0[2] = {0, keys[2 * i + 1]}, lo0[2] = {keys[2 * i + 1], 0};
        half_added += keyset_add(&s, hi0, 0) + keyset_add(&s, lo0, 0);
    }
    for (int i = 0; i < 1000; i++) {
        uint64_t hi0[2] = {0, keys[2 * i + 1]}, lo0[2] = {keys[2 * i + 1], 0};
        half_found += keyset_find(&s, hi0, NULL) + keyset_find(&s, lo0, NULL);
    }
    for (int i = 0; i + 1 < N; i += 2) still_found += keyset_find(&s, &keys[i], NULL);
    ok(half_added == 2000 && half_found == 2000 && still_found == N / 2,
       "2-word keys with a zero half: all added and found, the other keys still there (%d, %d, %d)", half_added,
       half_found, still_found);
    keyset_free(&s);
    keyset_init(&s, 1, true, 0);
    uint32_t v = 0;
    ok(!keyset_find_or_add(&s, zero, 7, &v) && keyset_find_or_add(&s, zero, 9, &v) && v == 7 && keyset_find(&s, zero, &v) && v == 7,
       "the all-zero key keeps its value in a set with values");
    keyset_free(&s);
    free(keys);
}

/* The rule on hand-made fingerprints: exact hits, band hits, the earliest
 * document named, keys of dropped documents still counting; with one
 * partition and with many, the documents in one batch or in several. */
static void test_index(void)
{
    minhash_params p;
    minhash_params_init(&p, 2, 1, 5, 1);
    struct { uint64_t hi, k0, k1; uint32_t sh; const char *id; int kind; uint32_t first; } docs[] = {
        {1, 10, 20, 3, "A", DUP_NONE, 0},
        {2, 11, 21, 3, "B", DUP_NONE, 0},
        {1, 10, 20, 3, "C", DUP_EXACT, 0},  /* same text as A */
        {3, 12, 21, 3, "D", DUP_NEAR, 1},   /* shares band 1 with B */
        {4, 12, 22, 3, "E", DUP_NEAR, 3},   /* shares band 0 only with D, itself dropped */
        {5, 13, 13, 3, "F", DUP_NONE, 0},   /* its two bands have the same key */
        {6, 0, 0, 0, "G", DUP_NONE, 0},     /* empty text */
        {6, 0, 0, 0, "H", DUP_EXACT, 6},    /* empty text again */
        {7, 11, 10, 3, "I", DUP_NEAR, 0},   /* band 0 meets B's key, band 1 A's: dup_of the earliest, A */
    };
    enum { NDOCS = sizeof docs / sizeof *docs };
    const int threads[] = {1, 8}, per_batch[] = {NDOCS, 3};
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++) {
            dedup_index ix;
            dedup_index_init(&ix, &p, 0, threads[t], true, 0);
            int bad = 0;
            for (int from = 0; from < NDOCS; from += per_batch[s]) {
                int n = NDOCS - from < per_batch[s] ? NDOCS - from : per_batch[s];
                stage_doc sd[NDOCS] = {0};
                dedup_fp fp[NDOCS] = {0};
                uint64_t keys[2 * NDOCS], sigs[2 * NDOCS] = {0};
                for (int i = 0; i < n; i++) {
                    sd[i].ordinal = (uint64_t)(from + i);
                    fp[i] = (dedup_fp){{docs[from + i].hi, 0}, docs[from + i].sh};
                    keys[2 * i] = docs[from + i].k0;
                    keys[2 * i + 1] = docs[from + i].k1;
                }
                stage_batch b = {.docs = sd, .n = n};
                batch_prints bp = {.n = n, .fp = fp, .sigs = sigs, .keys = keys};
                batch_lookup bl = {0};
                dedup_index_lookup(&ix, &b, &bp, &bl);
                dedup_index_wait(&ix, &bl);
                for (int i = 0; i < n; i++) {
                    uint32_t first = 0;
                    dedup_index_remember(&ix, (uint64_t)(from + i), sigs + 2 * i, docs[from + i].id, 1);
                    dup_kind k = dedup_index_decide(&ix, &bp, &bl, i, &first);
                    if ((int)k != docs[from + i].kind || (k != DUP_NONE && first != docs[from + i].first)) {
                        bad++;
                        diag("doc %s: kind %d first %u", docs[from + i].id, (int)k, first);
                    }
                }
                batch_lookup_free(&bl);
            }
            is_int(bad, 0, "%d partitions, %d documents a batch: exact and band rule, earliest document, dropped documents' keys count",
                   ix.nparts, per_batch[s]);
            size_t len;
            const char *id = dedup_index_id(&ix, 3, &len);
            ok(len == 1 && *id == 'D', "ids kept for rejects");
            dedup_index_free(&ix);
        }
    minhash_params_free(&p);
}

/* Mean raw JSON text bytes per document of a JSONL file (every line a document). */
static double mean_text_bytes(const char *path, uint64_t *docs)
{
    require_file(path);
    winput *in = input_open(path);
    const char *line;
    size_t len;
    uint64_t bytes = 0;
    *docs = 0;
    while (in && input_getline(in, &line, &len)) {
        jdoc d;
        const char *err;
        size_t pos;
        if (!len || json_scan_doc(line, len, &d, &err, &pos) || d.text.kind != JSON_STRING) continue;
        bytes += d.text.len;
        ++*docs;
    }
    if (in) input_close(in);
    return *docs ? (double)bytes / (double)*docs : 0;
}

/* --device auto's rule on document length: the two inputs of the measurement
 * behind it, real web text, and the boundary. */
static void test_auto_rule(void)
{
    ok(!dedup_auto_gpu_pays(UINT64_C(2000000) * 340, 2000000),
       "auto: 2 M documents of 40 words (~340 bytes) stay on the CPU (faster there on the H200 machine)");
    ok(dedup_auto_gpu_pays(UINT64_C(5276000000), 460460), "auto: 460,460 en_code documents of ~11.5 KB go to the GPU");
    char path[512];
    snprintf(path, sizeof path, "%s/jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz", shared_dir());
    uint64_t docs;
    double mean = mean_text_bytes(path, &docs);
    ok(docs == 1000 && dedup_auto_gpu_pays((uint64_t)(mean * (double)docs), docs),
       "auto: C4 web documents (%llu, %.0f bytes of text on average) go to the GPU", (unsigned long long)docs, mean);
    ok(dedup_auto_gpu_pays(DEDUP_AUTO_GPU_MIN_DOC_BYTES * UINT64_C(1000), 1000) &&
           !dedup_auto_gpu_pays(DEDUP_AUTO_GPU_MIN_DOC_BYTES * UINT64_C(1000) - 1, 1000),
       "auto: the GPU from %u bytes of text per document on average", DEDUP_AUTO_GPU_MIN_DOC_BYTES);
}

int main(void)
{
    test_normalize();
    test_shingles();
    test_permute();
    test_signature();
    test_signature_wide();
    test_keyset();
    test_index();
    test_auto_rule();
    return done_testing();
}
