/* fasttext_check.c - walks a fastText model file's layout with bounds checks
 * (see fasttext_check.h); field order as fastText 0.9's saveModel writes it. */
#include "filter/fasttext_check.h"

#include <stdio.h>
#include <string.h>

#define FASTTEXT_MAGIC 793712314
#define FASTTEXT_VERSION_MIN 11
#define FASTTEXT_VERSION_MAX 12
#define FASTTEXT_MODEL_SUPERVISED 3
#define FASTTEXT_LOSS_HS 1
#define FASTTEXT_LOSS_OVA 4
#define FASTTEXT_ENTRY_WORD 0
#define FASTTEXT_ENTRY_LABEL 1
#define FASTTEXT_HS_MAX_COUNT 1000000000000000LL /* HierarchicalSoftmaxLoss's tree sentinel, 1e15 */
#define FASTTEXT_PQ_KSUB 256        /* centroids per sub-quantizer (ProductQuantizer::ksub_) */
#define FASTTEXT_MAX_DIM (1 << 20)  /* far above any published model (lid.176: 16, DCLM: 256) */
#define FASTTEXT_MAX_WORD_NGRAMS 64 /* cost per document grows with words x wordNgrams */
/* Trained weights are small (|w| < 100); with |w| <= 1e6 and dim <= 2^20, no
 * sum or dot product fastText forms can overflow a float into inf or NaN. */
#define FASTTEXT_MAX_WEIGHT 1e6f

typedef struct {
    const unsigned char *p;
    size_t n, pos;
    char *err;
    size_t errlen;
} reader;

static bool fail(reader *r, const char *what)
{
    snprintf(r->err, r->errlen, "%s at byte %zu", what, r->pos);
    return false;
}

static bool take(reader *r, void *out, size_t len, const char *field)
{
    if (r->n - r->pos < len) {
        char what[96];
        snprintf(what, sizeof what, "file ends inside %s", field);
        return fail(r, what);
    }
    memcpy(out, r->p + r->pos, len);
    r->pos += len;
    return true;
}

/* Skips count items of size bytes each (a matrix body, codes). */
static bool skip(reader *r, uint64_t count, uint64_t size, const char *field)
{
    if (size && count > (uint64_t)(r->n - r->pos) / size) {
        char what[96];
        snprintf(what, sizeof what, "%s larger than the rest of the file", field);
        return fail(r, what);
    }
    r->pos += (size_t)(count * size);
    return true;
}

static bool take_bool(reader *r, bool *out, const char *field)
{
    unsigned char b;
    if (!take(r, &b, 1, field)) return false;
    if (b > 1) {
        r->pos--;
        char what[96];
        snprintf(what, sizeof what, "%s is %u, not 0 or 1", field, b);
        return fail(r, what);
    }
    *out = b;
    return true;
}

/* Skips count floats, each finite and within +-FASTTEXT_MAX_WEIGHT. */
static bool skip_weights(reader *r, uint64_t count, const char *field)
{
    size_t at = r->pos;
    if (!skip(r, count, sizeof(float), field)) return false;
    for (uint64_t i = 0; i < count; i++) {
        float w;
        memcpy(&w, r->p + at + i * sizeof w, sizeof w);
        if (!(w >= -FASTTEXT_MAX_WEIGHT && w <= FASTTEXT_MAX_WEIGHT)) { /* NaN fails too */
            r->pos = at + i * sizeof w;
            char what[96];
            snprintf(what, sizeof what, "%s holds a weight out of range (%g)", field, (double)w);
            return fail(r, what);
        }
    }
    return true;
}

/* A dense matrix: m, n (int64), m*n floats; checks n == dim and m >= rows
 * (m == rows when exact). */
static bool check_dense(reader *r, int32_t dim, int64_t rows, bool exact, const char *name)
{
    int64_t m, n;
    size_t at = r->pos;
    if (!take(r, &m, 8, name) || !take(r, &n, 8, name)) return false;
    if (n != dim || m < rows || (exact && m != rows)) {
        r->pos = at;
        char what[160];
        snprintf(what, sizeof what, "%s is %lld x %lld, expected %s%lld rows of %d", name, (long long)m,
                 (long long)n, exact ? "" : "at least ", (long long)rows, dim);
        return fail(r, what);
    }
    if ((uint64_t)m > (uint64_t)(r->n - r->pos) / sizeof(float) / (uint64_t)n) {
        char what[96];
        snprintf(what, sizeof what, "%s larger than the rest of the file", name);
        return fail(r, what);
    }
    return skip_weights(r, (uint64_t)m * (uint64_t)n, name);
}

/* A product quantizer of vectors of size dim (ProductQuantizer::load). */
static bool check_pq(reader *r, int32_t dim, const char *name)
{
    int32_t pq_dim, nsubq, dsub, lastdsub;
    size_t at = r->pos;
    if (!take(r, &pq_dim, 4, name) || !take(r, &nsubq, 4, name) || !take(r, &dsub, 4, name) ||
        !take(r, &lastdsub, 4, name))
        return false;
    bool ok = pq_dim == dim && dsub >= 1 && nsubq == (dim + dsub - 1) / dsub &&
              lastdsub == (dim % dsub ? dim % dsub : dsub);
    if (!ok) {
        r->pos = at;
        char what[160];
        snprintf(what, sizeof what, "%s has inconsistent sizes (dim %d, sub-quantizers %d of %d, last %d)", name,
                 pq_dim, nsubq, dsub, lastdsub);
        return fail(r, what);
    }
    return skip_weights(r, (uint64_t)dim * FASTTEXT_PQ_KSUB, name);
}

/* A quantized matrix (QuantMatrix::load): qnorm, m, n, codesize, codes, pq,
 * and with qnorm the norms' codes and their quantizer. */
static bool check_quant(reader *r, int32_t dim, int64_t rows, bool exact, const char *name)
{
    bool qnorm;
    int64_t m, n;
    int32_t codesize;
    size_t at = r->pos;
    if (!take_bool(r, &qnorm, name) || !take(r, &m, 8, name) || !take(r, &n, 8, name) ||
        !take(r, &codesize, 4, name))
        return false;
    if (n != dim || m < rows || (exact && m != rows) || codesize < 0) {
        r->pos = at;
        char what[160];
        snprintf(what, sizeof what, "%s is %lld x %lld with %d code bytes, expected %s%lld rows of %d", name,
                 (long long)m, (long long)n, codesize, exact ? "" : "at least ", (long long)rows, dim);
        return fail(r, what);
    }
    size_t codes_at = r->pos;
    if (!skip(r, (uint64_t)codesize, 1, name)) return false;
    size_t pq_at = r->pos;
    if (!check_pq(r, dim, name)) return false;
    int32_t nsubq;
    memcpy(&nsubq, r->p + pq_at + 4, 4);
    if ((uint64_t)codesize != (uint64_t)m * (uint64_t)nsubq) {
        r->pos = codes_at;
        return fail(r, "quantized matrix: code bytes do not match rows x sub-quantizers");
    }
    if (!qnorm) return true;
    if (!skip(r, (uint64_t)m, 1, name)) return false;
    return check_pq(r, 1, name);
}

static bool check_args(reader *r, int32_t version, fasttext_info *info)
{
    int32_t a[12]; /* dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate */
    double t;
    size_t at = r->pos;
    if (!take(r, a, sizeof a, "the model arguments") || !take(r, &t, sizeof t, "the model arguments")) return false;
    info->dim = a[0];
    info->word_ngrams = a[5];
    info->loss = a[6];
    info->bucket = a[8];
    info->minn = a[9];
    info->maxn = a[10];
    if (version == 11 && a[7] == FASTTEXT_MODEL_SUPERVISED) info->maxn = 0; /* as fastText reads old models */
    char what[160];
    what[0] = 0;
    if (a[7] != FASTTEXT_MODEL_SUPERVISED)
        snprintf(what, sizeof what, "not a supervised model (model %d: a word-vector model cannot classify)", a[7]);
    else if (info->loss < FASTTEXT_LOSS_HS || info->loss > FASTTEXT_LOSS_OVA)
        snprintf(what, sizeof what, "unknown loss %d", info->loss);
    else if (info->dim < 1 || info->dim > FASTTEXT_MAX_DIM)
        snprintf(what, sizeof what, "dim %d out of range", info->dim);
    else if (info->word_ngrams < 1 || info->word_ngrams > FASTTEXT_MAX_WORD_NGRAMS)
        snprintf(what, sizeof what, "wordNgrams %d out of range 1..%d", info->word_ngrams, FASTTEXT_MAX_WORD_NGRAMS);
    else if (info->minn < 0 || info->maxn < 0) /* fastText compares them with unsigned lengths */
        snprintf(what, sizeof what, "char n-gram lengths %d..%d out of range", info->minn, info->maxn);
    else if (info->bucket < 0 || (info->bucket == 0 && (info->word_ngrams > 1 || info->maxn > 0)))
        snprintf(what, sizeof what, "bucket %d with wordNgrams %d and maxn %d", info->bucket, info->word_ngrams,
                 info->maxn);
    if (what[0]) {
        r->pos = at;
        return fail(r, what);
    }
    return true;
}

/* The dictionary; sets *ngram_rows to the input rows n-grams may index. */
static bool check_dictionary(reader *r, fasttext_info *info, int64_t *ngram_rows)
{
    int32_t size;
    int64_t ntokens, prune_size;
    size_t at = r->pos;
    if (!take(r, &size, 4, "the dictionary") || !take(r, &info->nwords, 4, "the dictionary") ||
        !take(r, &info->nlabels, 4, "the dictionary") || !take(r, &ntokens, 8, "the dictionary") ||
        !take(r, &prune_size, 8, "the dictionary"))
        return false;
    if (size < 0 || info->nwords < 0 || info->nlabels < 1 || (int64_t)info->nwords + info->nlabels != size) {
        r->pos = at;
        char what[160];
        snprintf(what, sizeof what, "dictionary of %d entries holds %d words and %d labels", size, info->nwords,
                 info->nlabels);
        return fail(r, what);
    }
    int64_t last_count = 0;
    for (int32_t i = 0; i < size; i++) {
        const unsigned char *nul = memchr(r->p + r->pos, 0, r->n - r->pos);
        if (!nul) return fail(r, "file ends inside a dictionary word");
        r->pos = (size_t)(nul - r->p) + 1;
        int64_t count;
        unsigned char type;
        if (!take(r, &count, 8, "a dictionary entry") || !take(r, &type, 1, "a dictionary entry")) return false;
        unsigned char want = i < info->nwords ? FASTTEXT_ENTRY_WORD : FASTTEXT_ENTRY_LABEL;
        /* hs builds its Huffman tree in one pass that needs the labels by
         * falling count (as fastText sorts them), below its 1e15 sentinel */
        bool hs_order = info->loss != FASTTEXT_LOSS_HS || i < info->nwords ||
                        (count < FASTTEXT_HS_MAX_COUNT && (i == info->nwords || count <= last_count));
        if (type != want || count < 0 || !hs_order) {
            r->pos -= 9;
            char what[128];
            snprintf(what, sizeof what, "dictionary entry %d has type %u and count %lld%s", i, type,
                     (long long)count, hs_order ? "" : " (hs needs labels by falling count)");
            return fail(r, what);
        }
        last_count = count;
    }
    *ngram_rows = prune_size < 0 ? info->bucket : 0;
    for (int64_t i = 0; i < prune_size; i++) {
        int32_t pair[2];
        if (!take(r, pair, sizeof pair, "the pruned n-gram index")) return false;
        if (pair[1] < 0) {
            r->pos -= sizeof pair;
            return fail(r, "negative row in the pruned n-gram index");
        }
        if (pair[1] >= *ngram_rows) *ngram_rows = (int64_t)pair[1] + 1;
    }
    return true;
}

bool fasttext_check(const unsigned char *data, size_t n, fasttext_info *info, char *err, size_t errlen)
{
    reader r = {data, n, 0, err, errlen};
    memset(info, 0, sizeof *info);
    int32_t magic;
    if (!take(&r, &magic, 4, "the header")) return false;
    if (magic != FASTTEXT_MAGIC) {
        r.pos = 0;
        return fail(&r, "not a fastText model (wrong magic number)");
    }
    if (!take(&r, &info->version, 4, "the header")) return false;
    if (info->version < FASTTEXT_VERSION_MIN || info->version > FASTTEXT_VERSION_MAX) {
        r.pos -= 4;
        char what[96];
        snprintf(what, sizeof what, "fastText file version %d (this reader knows %d-%d)", info->version,
                 FASTTEXT_VERSION_MIN, FASTTEXT_VERSION_MAX);
        return fail(&r, what);
    }
    int64_t ngram_rows;
    if (!check_args(&r, info->version, info) || !check_dictionary(&r, info, &ngram_rows)) return false;
    int64_t input_rows = (int64_t)info->nwords + ngram_rows;
    if (!take_bool(&r, &info->quantized, "the input quantization flag")) return false;
    if (info->quantized ? !check_quant(&r, info->dim, input_rows, false, "input matrix")
                        : !check_dense(&r, info->dim, input_rows, false, "input matrix"))
        return false;
    bool qout;
    if (!take_bool(&r, &qout, "the output quantization flag")) return false;
    /* predicting every label asks for as many predictions as output rows */
    if (info->quantized && qout ? !check_quant(&r, info->dim, info->nlabels, true, "output matrix")
                                : !check_dense(&r, info->dim, info->nlabels, true, "output matrix"))
        return false;
    if (r.pos != n) return fail(&r, "unexpected bytes after the output matrix");
    return true;
}

const char *fasttext_loss_name(int32_t l)
{
    static const char *const names[] = {"?", "hs", "ns", "softmax", "ova"};
    return l >= FASTTEXT_LOSS_HS && l <= FASTTEXT_LOSS_OVA ? names[l] : "?";
}
