/* fasttext_predict.c - fasttext_model_predict(): a text read as one line of
 * `fasttext predict-prob`, as fastText 0.9.2 reads and scores it:
 *
 *   Dictionary::getLine  tokens split at " \n\r\t\v\f\0", then "</s>" (a
 *                        literal "</s>" token ends the line too); a word's
 *                        row (when in the dictionary), its char n-grams of
 *                        "<word>" (minn..maxn UTF-8 characters; none for
 *                        "</s>"), and after the last token the word n-grams
 *                        of the words' hashes; n-gram buckets through the
 *                        pruned index of a quantized model
 *   Model::computeHidden the rows added in that order in float, times 1/n
 *   Loss::predict        softmax, one-vs-all and ns (sigmoid table), or hs
 *                        (depth-first search of the Huffman tree), the k
 *                        best kept in a heap as libstdc++'s push_heap and
 *                        pop_heap keep it (ties resolve alike)
 *
 * A model with few labels for its dim (fasttext_layout.h: proj) skips the
 * hidden vector: the output is linear in it, so each row's logits are
 * precomputed and summed in double, within float rounding of fastText's own
 * sum. Memory is read at random (rows of 2 M buckets, the word table), so the
 * word table's slots and the rows are prefetched ahead of their use, and the
 * rows are summed 16 columns at a time in registers over all of a document's
 * rows (sum_block16), which keeps many rows in flight. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "filter/fasttext_layout.h"
#include "filter/fasttext_model.h"

#define WORD_NGRAM_MULTIPLIER 116049371u /* Dictionary::addWordNgrams */
#define PREFETCH_TOKENS 16               /* word-table slots looked up ahead */
#define PREFETCH_ROWS 64                 /* input rows fetched ahead of the sum */
#define SUM_BLOCK 16                     /* columns summed in registers at once (sum_block16) */
#define CACHE_LINE 64
#define BOW '<'
#define EOW '>'

typedef struct {
    float score; /* log probability */
    int32_t label;
} prediction;

typedef struct {
    const char *s;
    uint32_t len, hash;
} token;

struct fasttext_scratch {
    token *tok;
    size_t ntok, cap_tok;
    int32_t *ids; /* input rows, in fastText's order */
    size_t nids, cap_ids;
    int32_t *word_hashes;
    size_t nhashes, cap_hashes;
    char *bracketed; /* "<word>" */
    size_t cap_bracketed;
    float *hidden, *output;
    double *logit_sum;
    size_t cap_dim, cap_labels;
    prediction *heap;
    int32_t *stack_node;
    float *stack_score;
};

fasttext_scratch *fasttext_scratch_create(void) { return xcalloc(1, sizeof(fasttext_scratch)); }

void fasttext_scratch_free(fasttext_scratch *s)
{
    if (!s) return;
    free(s->tok);
    free(s->ids);
    free(s->word_hashes);
    free(s->bracketed);
    free(s->hidden);
    free(s->output);
    free(s->logit_sum);
    free(s->heap);
    free(s->stack_node);
    free(s->stack_score);
    free(s);
}

/* Grows *p (elements of size bytes, capacity *cap) to hold need. */
static void grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return;
    size_t n = *cap ? *cap : 64;
    while (n < need) n *= 2;
    *(void **)p = xrealloc(*(void **)p, n * size);
    *cap = n;
}

static inline bool is_space(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f' || c == '\0';
}

static bool is_eos(const token *t) { return t->len == sizeof FT_EOS - 1 && !memcmp(t->s, FT_EOS, t->len); }

/* The tokens of text up to and including the first "</s>" (the one after the
 * text when it has none), with their hashes. */
static void tokenize(fasttext_scratch *s, const char *text, size_t n)
{
    s->ntok = 0;
    size_t i = 0;
    for (;;) {
        while (i < n && is_space((unsigned char)text[i])) i++;
        grow(&s->tok, &s->cap_tok, s->ntok + 1, sizeof *s->tok);
        token *t = &s->tok[s->ntok++];
        if (i == n) {
            *t = (token){FT_EOS, sizeof FT_EOS - 1, fasttext_hash(FT_EOS, sizeof FT_EOS - 1)};
            return;
        }
        size_t start = i;
        while (i < n && !is_space((unsigned char)text[i])) i++;
        *t = (token){text + start, (uint32_t)(i - start), fasttext_hash(text + start, i - start)};
        if (is_eos(t)) return;
    }
}

static const ft_slot *slot_of(const fasttext_model *m, uint32_t hash) { return &m->slots[hash & m->slot_mask]; }

/* The dictionary id of t, or -1. */
static int32_t find_word(const fasttext_model *m, const token *t)
{
    uint64_t key = fasttext_word_key(t->s, t->len);
    for (uint32_t i = t->hash & m->slot_mask;; i = (i + 1) & m->slot_mask) {
        const ft_slot *sl = &m->slots[i];
        if (sl->id < 0) return -1;
        if (sl->hash != t->hash || sl->key != key) continue;
        if (t->len < 8) return sl->id; /* the key holds the whole word */
        if (m->entry_len[sl->id] == t->len && !memcmp(m->entry[sl->id], t->s, t->len)) return sl->id;
    }
}

/* Prefetches the cache lines of p[0..n). */
static inline void prefetch_bytes(const void *p, size_t n)
{
    const char *c = p;
    for (size_t off = 0; off < n; off += CACHE_LINE) __builtin_prefetch(c + off);
    if (((uintptr_t)c & (CACHE_LINE - 1)) + n > CACHE_LINE * ((n + CACHE_LINE - 1) / CACHE_LINE))
        __builtin_prefetch(c + n - 1); /* an unaligned row's last line */
}

/* Dictionary::pushHash: n-gram bucket b as an input row, if it has one. */
static inline void push_bucket(const fasttext_model *m, fasttext_scratch *s, int32_t b)
{
    if (m->prune_size == 0) return;
    if (m->prune_size > 0 && (b = fasttext_prune_lookup(m, b)) < 0) return;
    s->ids[s->nids++] = m->nwords + b;
}

/* Dictionary::computeSubwords of "<word>": every run of minn..maxn UTF-8
 * characters but the single "<" and ">", hashed as it grows. */
static void push_char_ngrams(const fasttext_model *m, fasttext_scratch *s, const token *t)
{
    size_t len = (size_t)t->len + 2;
    grow(&s->bracketed, &s->cap_bracketed, len, 1);
    char *w = s->bracketed;
    w[0] = BOW;
    memcpy(w + 1, t->s, t->len);
    w[len - 1] = EOW;
    size_t minn = (size_t)m->info.minn, maxn = (size_t)m->info.maxn;
    uint32_t bucket = (uint32_t)m->info.bucket;
    grow(&s->ids, &s->cap_ids, s->nids + len * (maxn < len ? maxn : len), sizeof *s->ids); /* n-grams per start */
    for (size_t i = 0; i < len; i++) {
        if (((unsigned char)w[i] & 0xC0) == 0x80) continue;
        uint32_t h = FT_FNV_OFFSET;
        for (size_t j = i, chars = 1; j < len && chars <= maxn; chars++) {
            do {
                h = (h ^ (uint32_t)(int8_t)w[j++]) * FT_FNV_PRIME;
            } while (j < len && ((unsigned char)w[j] & 0xC0) == 0x80);
            if (chars >= minn && !(chars == 1 && (i == 0 || j == len))) push_bucket(m, s, (int32_t)(h % bucket));
        }
    }
}

/* Dictionary::getLine's input rows and word hashes for the tokens. */
static void collect_rows(const fasttext_model *m, fasttext_scratch *s)
{
    s->nids = s->nhashes = 0;
    grow(&s->word_hashes, &s->cap_hashes, s->ntok, sizeof *s->word_hashes);
    for (size_t i = 0; i < s->ntok && i < PREFETCH_TOKENS; i++) __builtin_prefetch(slot_of(m, s->tok[i].hash));
    for (size_t i = 0; i < s->ntok; i++) {
        if (i + PREFETCH_TOKENS < s->ntok) __builtin_prefetch(slot_of(m, s->tok[i + PREFETCH_TOKENS].hash));
        const token *t = &s->tok[i];
        int32_t wid = find_word(m, t);
        bool label = wid < 0 ? t->len >= sizeof FT_LABEL_PREFIX - 1 &&
                                   !memcmp(t->s, FT_LABEL_PREFIX, sizeof FT_LABEL_PREFIX - 1)
                             : wid >= m->nwords;
        if (label) continue;
        grow(&s->ids, &s->cap_ids, s->nids + 1, sizeof *s->ids);
        if (wid >= 0) s->ids[s->nids++] = wid;
        if (m->info.maxn > 0 && !is_eos(t)) push_char_ngrams(m, s, t);
        s->word_hashes[s->nhashes++] = (int32_t)t->hash;
    }
    /* Dictionary::addWordNgrams: the int32 hashes widen with their sign */
    int32_t n = m->info.word_ngrams;
    if (n <= 1) return;
    grow(&s->ids, &s->cap_ids, s->nids + s->nhashes * (size_t)(n - 1), sizeof *s->ids);
    uint64_t bucket = (uint64_t)m->info.bucket;
    for (size_t i = 0; i < s->nhashes; i++) {
        uint64_t h = (uint64_t)(int64_t)s->word_hashes[i];
        for (size_t j = i + 1; j < s->nhashes && j < i + (size_t)n; j++) {
            h = h * WORD_NGRAM_MULTIPLIER + (uint64_t)(int64_t)s->word_hashes[j];
            push_bucket(m, s, (int32_t)(h % bucket));
        }
    }
}

typedef float v4f __attribute__((vector_size(16)));

static inline v4f load4(const unsigned char *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline float load1(const unsigned char *p)
{
    float v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* h[j0 .. j0 + 16) = the sum of the rows' elements there, in row order, in
 * registers: each element's float additions are fastText's, in its order. */
static void sum_block16(const fasttext_model *m, const fasttext_scratch *s, size_t j0, float *h)
{
    size_t row_bytes = (size_t)m->dim * sizeof(float), at = j0 * sizeof(float);
    v4f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    for (size_t i = 0; i < s->nids; i++) {
        if (i + PREFETCH_ROWS < s->nids)
            prefetch_bytes(m->in_dense + (size_t)s->ids[i + PREFETCH_ROWS] * row_bytes + at, SUM_BLOCK * sizeof(float));
        const unsigned char *p = m->in_dense + (size_t)s->ids[i] * row_bytes + at;
        a0 += load4(p);
        a1 += load4(p + 16);
        a2 += load4(p + 32);
        a3 += load4(p + 48);
    }
    memcpy(h + j0, &a0, sizeof a0);
    memcpy(h + j0 + 4, &a1, sizeof a1);
    memcpy(h + j0 + 8, &a2, sizeof a2);
    memcpy(h + j0 + 12, &a3, sizeof a3);
}

/* Model::computeHidden: the rows summed in order in float, times 1/n. A
 * dense matrix is summed 16 columns (a cache line) at a time over all rows. */
static void compute_hidden(const fasttext_model *m, fasttext_scratch *s)
{
    size_t dim = (size_t)m->dim, j0 = 0;
    float *h = s->hidden;
    memset(h, 0, dim * sizeof *h);
    if (m->in_dense) {
        for (; j0 + SUM_BLOCK <= dim; j0 += SUM_BLOCK) sum_block16(m, s, j0, h);
        for (size_t i = 0; j0 < dim && i < s->nids; i++) {
            const unsigned char *row = m->in_dense + (size_t)s->ids[i] * dim * sizeof(float);
            for (size_t j = j0; j < dim; j++) h[j] += load1(row + j * sizeof(float));
        }
    } else {
        for (size_t i = 0; i < s->nids; i++) fasttext_quant_add_row(&m->in_quant, s->ids[i], h);
    }
    float scale = (float)(1.0 / (double)s->nids);
    for (size_t j = 0; j < dim; j++) h[j] *= scale;
}

/* The logits from the precomputed projections: sum / n in double. */
static void projected_logits(const fasttext_model *m, fasttext_scratch *s)
{
    size_t nl = (size_t)m->nlabels;
    double *sum = s->logit_sum;
    for (size_t l = 0; l < nl; l++) sum[l] = 0;
    for (size_t i = 0; i < s->nids; i++) {
        if (i + PREFETCH_ROWS < s->nids) prefetch_bytes(&m->proj[(size_t)s->ids[i + PREFETCH_ROWS] * nl], nl * sizeof *m->proj);
        const double *p = &m->proj[(size_t)s->ids[i] * nl];
        for (size_t l = 0; l < nl; l++) sum[l] += p[l];
    }
    for (size_t l = 0; l < nl; l++) s->output[l] = (float)(sum[l] * (double)(float)(1.0 / (double)s->nids));
}

/* Matrix::dotRow of output row l and the hidden vector, in float, in order. */
static float dot_row(const fasttext_model *m, const fasttext_scratch *s, int32_t l)
{
    if (m->proj) return s->output[l];
    const float *row = &m->out[(size_t)l * m->dim];
    float d = 0;
    for (int32_t j = 0; j < m->dim; j++) d += row[j] * s->hidden[j];
    return d * m->out_norm[l];
}

/* fastText's std_log: log(x + 1e-5) in double, as a float. */
static inline float std_log(float x) { return (float)log((double)x + 1e-5); }

/* Loss::sigmoid: the table lookup. */
static float table_sigmoid(const fasttext_model *m, float x)
{
    if (x < -FT_MAX_SIGMOID) return 0.0f;
    if (x > FT_MAX_SIGMOID) return 1.0f;
    int64_t i = (int64_t)((x + (float)FT_MAX_SIGMOID) * (float)FT_SIGMOID_TABLE_SIZE / (float)FT_MAX_SIGMOID / 2.0f);
    return m->sigmoid[i];
}

/* comparePairs: a before b in the heap order (greater score first). */
static inline bool before(const prediction *a, const prediction *b) { return a->score > b->score; }

/* std::push_heap of libstdc++ on heap[0..n) whose last element is new. */
static void heap_push(prediction *heap, size_t n)
{
    prediction v = heap[n - 1];
    size_t hole = n - 1;
    while (hole > 0 && before(&heap[(hole - 1) / 2], &v)) {
        heap[hole] = heap[(hole - 1) / 2];
        hole = (hole - 1) / 2;
    }
    heap[hole] = v;
}

/* std::pop_heap of libstdc++ (__adjust_heap, then __push_heap) on heap[0..n):
 * the top moves to heap[n - 1]. */
static void heap_pop(prediction *heap, size_t n)
{
    if (n < 2) return;
    size_t len = n - 1, hole = 0, child = 0;
    prediction v = heap[len];
    heap[len] = heap[0];
    while (child < (len - 1) / 2) {
        child = 2 * (child + 1);
        if (before(&heap[child], &heap[child - 1])) child--;
        heap[hole] = heap[child];
        hole = child;
    }
    if ((len & 1) == 0 && child == (len - 2) / 2) {
        child = 2 * (child + 1);
        heap[hole] = heap[child - 1];
        hole = child - 1;
    }
    while (hole > 0 && before(&heap[(hole - 1) / 2], &v)) {
        heap[hole] = heap[(hole - 1) / 2];
        hole = (hole - 1) / 2;
    }
    heap[hole] = v;
}

/* Adds (score, label) to the heap of the k best (the push, then the pop when
 * it holds k + 1), as findKBest and dfs do; returns the new size. */
static size_t heap_add(prediction *heap, size_t n, size_t k, float score, int32_t label)
{
    heap[n++] = (prediction){score, label};
    heap_push(heap, n);
    if (n > k) heap_pop(heap, n--);
    return n;
}

/* Loss::findKBest over s->output with threshold 0. */
static size_t find_k_best(const fasttext_model *m, fasttext_scratch *s, size_t k)
{
    size_t n = 0;
    for (int32_t l = 0; l < m->nlabels; l++) {
        float p = s->output[l];
        if (p < 0.0f) continue;
        if (n == k && std_log(p) < s->heap[0].score) continue;
        n = heap_add(s->heap, n, k, std_log(p), l);
    }
    return n;
}

/* SoftmaxLoss::computeOutput. */
static void softmax(const fasttext_model *m, fasttext_scratch *s)
{
    float *out = s->output, max = out[0], z = 0.0f;
    for (int32_t l = 0; l < m->nlabels; l++) max = out[l] > max ? out[l] : max;
    for (int32_t l = 0; l < m->nlabels; l++) {
        out[l] = (float)exp((double)(out[l] - max));
        z += out[l];
    }
    for (int32_t l = 0; l < m->nlabels; l++) out[l] /= z;
}

/* HierarchicalSoftmaxLoss::dfs from the root with threshold 0, depth first,
 * left before right, on an explicit stack. */
static size_t hs_search(const fasttext_model *m, fasttext_scratch *s, size_t k)
{
    int32_t n = m->nlabels;
    float floor_score = std_log(0.0f);
    size_t found = 0, top = 0;
    s->stack_node[top] = 2 * n - 2;
    s->stack_score[top++] = 0.0f;
    while (top) {
        top--;
        int32_t node = s->stack_node[top];
        float score = s->stack_score[top];
        if (score < floor_score) continue;
        if (found == k && score < s->heap[0].score) continue;
        if (m->tree_left[node] == -1 && m->tree_right[node] == -1) {
            found = heap_add(s->heap, found, k, score, node);
            continue;
        }
        float f = dot_row(m, s, node - n);
        f = (float)(1.0 / (double)(1.0f + expf(-f)));
        s->stack_node[top] = m->tree_right[node];
        s->stack_score[top++] = score + std_log(f);
        s->stack_node[top] = m->tree_left[node];
        s->stack_score[top++] = score + std_log((float)(1.0 - (double)f));
    }
    return found;
}

/* The logits of every label (hs reads its internal nodes' as it goes). */
static bool all_logits(const fasttext_model *m, fasttext_scratch *s)
{
    if (!m->proj)
        for (int32_t l = 0; l < m->nlabels; l++) s->output[l] = dot_row(m, s, l);
    for (int32_t l = 0; l < m->nlabels; l++)
        if (isnan(s->output[l])) return false;
    return true;
}

bool fasttext_model_predict(const fasttext_model *m, fasttext_scratch *s, const char *text, size_t n, int k,
                            float *probs)
{
    size_t nl = (size_t)m->nlabels;
    for (size_t l = 0; l < nl; l++) probs[l] = 0.0f;
    tokenize(s, text, n);
    collect_rows(m, s);
    if (s->nids == 0) return true; /* FastText::predict: no input, no prediction */
    if (s->cap_dim < (size_t)m->dim) {
        s->hidden = xrealloc(s->hidden, (size_t)m->dim * sizeof *s->hidden);
        s->cap_dim = (size_t)m->dim;
    }
    if (s->cap_labels < nl) {
        s->output = xrealloc(s->output, nl * sizeof *s->output);
        s->logit_sum = xrealloc(s->logit_sum, nl * sizeof *s->logit_sum);
        s->heap = xrealloc(s->heap, (nl + 1) * sizeof *s->heap);
        s->stack_node = xrealloc(s->stack_node, 2 * nl * sizeof *s->stack_node);
        s->stack_score = xrealloc(s->stack_score, 2 * nl * sizeof *s->stack_score);
        s->cap_labels = nl;
    }
    if (m->proj)
        projected_logits(m, s);
    else
        compute_hidden(m, s);
    size_t kk = k > 0 && (size_t)k < nl ? (size_t)k : nl, found;
    if (m->info.loss == FT_LOSS_HS) {
        found = hs_search(m, s, kk);
    } else {
        if (!all_logits(m, s)) return false;
        if (m->info.loss == FT_LOSS_SOFTMAX)
            softmax(m, s);
        else
            for (size_t l = 0; l < nl; l++) s->output[l] = table_sigmoid(m, s->output[l]);
        found = find_k_best(m, s, kk);
    }
    for (size_t i = 0; i < found; i++) probs[s->heap[i].label] = expf(s->heap[i].score);
    return true;
}
