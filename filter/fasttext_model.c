/* fasttext_model.c - loads a fastText model (see fasttext_model.h) from its
 * file's mapping after fasttext_check() has vetted every size and index:
 * the dictionary and its word table, the pruned n-gram index, the input and
 * output matrices (dense or product-quantized), the hs tree and the sigmoid
 * table, laid out as fasttext_layout.h says. Field order: fastText 0.9's
 * FastText::saveModel (magic, version, Args, Dictionary, input, qout, output). */
#include "filter/fasttext_model.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "filter/fasttext_layout.h"

#define HEADER_BYTES 8               /* magic, version */
#define ARGS_BYTES (12 * 4 + 8)      /* twelve int32 and the double t */
#define DICT_HEADER_BYTES (3 * 4 + 2 * 8)
#define ENTRY_TAIL_BYTES (8 + 1)     /* count, type */
#define HS_COUNT_SENTINEL 1000000000000000LL /* buildTree's 1e15 for unbuilt nodes */
/* In fast mode the input rows' logits are precomputed when a model has at
 * most this many labels and dim is at least PROJECT_MIN_DIM_PER_LABEL times
 * that: a token then reads nlabels doubles instead of dim floats, and loading
 * costs rows x labels x dim multiply-adds (2 M x 2 x 256: under a second). */
#define PROJECT_MAX_LABELS 8
#define COPY_MAX_ROW_BYTES 256 /* place_rows */
#define PROJECT_MIN_DIM_PER_LABEL 8

/* A cursor over the checked bytes (fasttext_check() guarantees every read). */
typedef struct {
    const unsigned char *p;
} cursor;

static int32_t get_i32(cursor *c)
{
    int32_t v;
    memcpy(&v, c->p, sizeof v);
    c->p += sizeof v;
    return v;
}

static int64_t get_i64(cursor *c)
{
    int64_t v;
    memcpy(&v, c->p, sizeof v);
    c->p += sizeof v;
    return v;
}

static float get_f32(const unsigned char *p)
{
    float v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The word-table key of a string: its first 7 bytes and its length. */
uint64_t fasttext_word_key(const char *s, size_t len)
{
    uint64_t key = 0;
    memcpy(&key, s, len < 7 ? len : 7);
    return key | (uint64_t)(len < 255 ? len : 255) << 56;
}

/* FNV-1a as fastText's Dictionary::hash: bytes sign-extended. */
uint32_t fasttext_hash(const char *s, size_t len)
{
    uint32_t h = FT_FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= (uint32_t)(int8_t)s[i];
        h *= FT_FNV_PRIME;
    }
    return h;
}

/* Slots for n entries: a power of two, at least 2n, at most 2^32. */
static uint64_t table_size_for(int64_t n)
{
    uint64_t size = 16;
    while (size < 2 * (uint64_t)n && size < ((uint64_t)1 << 32)) size *= 2;
    return size;
}

/* Word table: a later entry with the same string replaces an earlier one,
 * as Dictionary::load's word2int_ does. */
static void build_word_table(fasttext_model *m)
{
    uint64_t size = table_size_for(m->size);
    m->slot_mask = (uint32_t)(size - 1);
    m->slots = xmalloc(size * sizeof *m->slots);
    for (uint64_t i = 0; i < size; i++) m->slots[i].id = -1;
    for (int32_t i = 0; i < m->size; i++) {
        uint32_t h = fasttext_hash(m->entry[i], m->entry_len[i]);
        uint64_t key = fasttext_word_key(m->entry[i], m->entry_len[i]);
        uint32_t s = h & m->slot_mask;
        while (m->slots[s].id >= 0) {
            int32_t o = m->slots[s].id;
            if (m->entry_len[o] == m->entry_len[i] && !memcmp(m->entry[o], m->entry[i], m->entry_len[i])) break;
            s = (s + 1) & m->slot_mask;
        }
        m->slots[s] = (ft_slot){key, h, i};
    }
}

static uint32_t prune_slot(uint32_t key, uint32_t mask) { return (key * 2654435761u) & mask; }

/* The pruned index, a later pair for the same bucket replacing an earlier one
 * (as Dictionary::load's map does). */
static void read_prune_index(fasttext_model *m, cursor *c)
{
    if (m->prune_size <= 0) return;
    uint64_t size = table_size_for(m->prune_size);
    m->prune_mask = (uint32_t)(size - 1);
    m->prune_key = xmalloc(size * sizeof *m->prune_key);
    m->prune_row = xmalloc(size * sizeof *m->prune_row);
    for (uint64_t i = 0; i < size; i++) m->prune_row[i] = -1;
    for (int64_t i = 0; i < m->prune_size; i++) {
        int32_t key = get_i32(c), row = get_i32(c);
        uint32_t s = prune_slot((uint32_t)key, m->prune_mask);
        while (m->prune_row[s] >= 0 && m->prune_key[s] != key) s = (s + 1) & m->prune_mask;
        m->prune_key[s] = key;
        m->prune_row[s] = row;
    }
}

int32_t fasttext_prune_lookup(const fasttext_model *m, int32_t bucket)
{
    uint32_t s = prune_slot((uint32_t)bucket, m->prune_mask);
    while (m->prune_row[s] >= 0) {
        if (m->prune_key[s] == bucket) return m->prune_row[s];
        s = (s + 1) & m->prune_mask;
    }
    return -1;
}

static void read_dictionary(fasttext_model *m, cursor *c)
{
    m->size = get_i32(c);
    m->nwords = get_i32(c);
    m->nlabels = get_i32(c);
    (void)get_i64(c); /* ntokens */
    m->prune_size = get_i64(c);
    m->entry = xmalloc((size_t)m->size * sizeof *m->entry);
    m->entry_len = xmalloc((size_t)m->size * sizeof *m->entry_len);
    for (int32_t i = 0; i < m->size; i++) {
        size_t len = strlen((const char *)c->p);
        m->entry[i] = (const char *)c->p;
        m->entry_len[i] = (uint32_t)len;
        c->p += len + 1 + ENTRY_TAIL_BYTES;
    }
    build_word_table(m);
    read_prune_index(m, c);
}

/* ProductQuantizer::load into q (centroids copied aligned). */
static void read_pq(cursor *c, int32_t *nsubq, int32_t *dsub, int32_t *lastdsub, float *centroids)
{
    int32_t dim = get_i32(c);
    *nsubq = get_i32(c);
    *dsub = get_i32(c);
    *lastdsub = get_i32(c);
    for (int64_t i = 0; i < (int64_t)dim * FT_PQ_KSUB; i++) centroids[i] = get_f32(c->p + 4 * i);
    c->p += (size_t)dim * FT_PQ_KSUB * 4;
}

/* QuantMatrix::load; returns its row count. */
static int64_t read_quant(cursor *c, int32_t dim, ft_quant *q)
{
    bool qnorm = *c->p++;
    int64_t rows = get_i64(c);
    (void)get_i64(c); /* columns: dim */
    int32_t codesize = get_i32(c);
    q->codes = c->p;
    c->p += codesize;
    q->centroids = xmalloc((size_t)dim * FT_PQ_KSUB * sizeof *q->centroids);
    read_pq(c, &q->nsubq, &q->dsub, &q->lastdsub, q->centroids);
    if (qnorm) {
        q->norm_codes = c->p;
        c->p += rows;
        int32_t n1, d1, l1;
        read_pq(c, &n1, &d1, &l1, q->norm_centroids);
    }
    return rows;
}

/* ProductQuantizer::get_centroids(m, code). */
static const float *centroid(const ft_quant *q, int32_t sub, unsigned char code)
{
    if (sub == q->nsubq - 1) return &q->centroids[(size_t)sub * FT_PQ_KSUB * q->dsub + (size_t)code * q->lastdsub];
    return &q->centroids[((size_t)sub * FT_PQ_KSUB + code) * q->dsub];
}

float fasttext_quant_norm(const ft_quant *q, int64_t row)
{
    return q->norm_codes ? q->norm_centroids[q->norm_codes[row]] : 1.0f;
}

void fasttext_quant_add_row(const ft_quant *q, int64_t row, float *x)
{
    float norm = fasttext_quant_norm(q, row);
    const unsigned char *code = q->codes + (size_t)q->nsubq * row;
    for (int32_t sub = 0; sub < q->nsubq; sub++) {
        const float *cen = centroid(q, sub, code[sub]);
        int32_t d = sub == q->nsubq - 1 ? q->lastdsub : q->dsub;
        float *out = x + (size_t)sub * q->dsub;
        for (int32_t n = 0; n < d; n++) out[n] += norm * cen[n];
    }
}

/* The output matrix, decoded to floats: a dense row, or a quantized row's
 * centroids (QuantMatrix::dotRow multiplies the dot product by the norm). */
static void read_output(fasttext_model *m, cursor *c, bool quantized)
{
    size_t dim = (size_t)m->dim;
    m->out = xcalloc((size_t)m->nlabels * dim, sizeof *m->out);
    m->out_norm = xmalloc((size_t)m->nlabels * sizeof *m->out_norm);
    if (!quantized) {
        c->p += 16; /* rows, columns */
        for (size_t i = 0; i < (size_t)m->nlabels * dim; i++) m->out[i] = get_f32(c->p + 4 * i);
        for (int32_t l = 0; l < m->nlabels; l++) m->out_norm[l] = 1.0f;
        c->p += (size_t)m->nlabels * dim * 4;
        return;
    }
    ft_quant q = {0};
    read_quant(c, m->dim, &q);
    for (int32_t l = 0; l < m->nlabels; l++) {
        const unsigned char *code = q.codes + (size_t)q.nsubq * l;
        for (int32_t sub = 0; sub < q.nsubq; sub++) {
            const float *cen = centroid(&q, sub, code[sub]);
            int32_t d = sub == q.nsubq - 1 ? q.lastdsub : q.dsub;
            memcpy(&m->out[(size_t)l * dim + (size_t)sub * q.dsub], cen, (size_t)d * sizeof *cen);
        }
        m->out_norm[l] = fasttext_quant_norm(&q, l);
    }
    free(q.centroids);
}

/* HierarchicalSoftmaxLoss::buildTree over the labels' counts (falling, as
 * fasttext_check() requires): leaves 0..n-1, internal nodes n..2n-2. */
static void build_tree(fasttext_model *m, const int64_t *counts)
{
    int32_t n = m->nlabels, nodes = 2 * n - 1;
    int64_t *count = xmalloc((size_t)nodes * sizeof *count);
    m->tree_left = xmalloc((size_t)nodes * sizeof *m->tree_left);
    m->tree_right = xmalloc((size_t)nodes * sizeof *m->tree_right);
    for (int32_t i = 0; i < nodes; i++) {
        count[i] = i < n ? counts[i] : HS_COUNT_SENTINEL;
        m->tree_left[i] = m->tree_right[i] = -1;
    }
    int32_t leaf = n - 1, node = n;
    for (int32_t i = n; i < nodes; i++) {
        int32_t mini[2];
        for (int j = 0; j < 2; j++)
            mini[j] = leaf >= 0 && count[leaf] < count[node] ? leaf-- : node++;
        m->tree_left[i] = mini[0];
        m->tree_right[i] = mini[1];
        /* counts are below 1e15 each: saturate instead of overflowing on a hostile file */
        count[i] = count[mini[0]] > INT64_MAX - count[mini[1]] ? INT64_MAX : count[mini[0]] + count[mini[1]];
    }
    free(count);
}

/* Loss::t_sigmoid_, computed as fastText computes it. */
static void build_sigmoid(fasttext_model *m)
{
    for (int i = 0; i <= FT_SIGMOID_TABLE_SIZE; i++) {
        float x = (float)(i * 2 * FT_MAX_SIGMOID) / (float)FT_SIGMOID_TABLE_SIZE - (float)FT_MAX_SIGMOID;
        m->sigmoid[i] = (float)(1.0 / (1.0 + (double)expf(-x)));
    }
}

/* Lets the kernel drop the mapping's pages of bytes [from_byte, +n). */
static void drop_pages(const unsigned char *from_byte, size_t n)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)from_byte + page - 1) & ~(page - 1), to = ((uintptr_t)from_byte + n) & ~(page - 1);
    if (to > from) madvise((void *)from, to - from, MADV_DONTNEED);
}

/* Points m->in_dense at the dense rows: in place, or, for rows of at most
 * COPY_MAX_ROW_BYTES, at an aligned copy on huge pages. A small row read at
 * random costs a TLB miss and, unaligned in the file, often two cache lines
 * for one (measured on the lid.176-shaped model, dim 16: about 1.5x faster
 * scoring). Large rows (dim 256: 1 KB) amortise both, and a copy of a
 * gigabyte matrix would cost its size in RAM and seconds of page clearing. */
static void place_rows(fasttext_model *m, const unsigned char *rows)
{
    size_t row_bytes = (size_t)m->dim * sizeof(float), n = (size_t)m->in_rows * row_bytes;
    if (row_bytes > COPY_MAX_ROW_BYTES) {
        m->in_dense = rows;
        return;
    }
    m->in_copy = xcalloc_huge(n ? n : 1, 1);
    memcpy(m->in_copy, rows, n);
    drop_pages(rows, n);
    m->in_dense = m->in_copy;
}

/* proj[row * nlabels + l]: output row l times input row, in double. */
static void build_projection(fasttext_model *m, const unsigned char *dense_rows)
{
    size_t dim = (size_t)m->dim, nl = (size_t)m->nlabels;
    m->proj = xmalloc((size_t)m->in_rows * nl * sizeof *m->proj);
    float *row = xmalloc(dim * sizeof *row);
    for (int64_t r = 0; r < m->in_rows; r++) {
        if (dense_rows) {
            memcpy(row, dense_rows + (size_t)r * dim * sizeof *row, dim * sizeof *row);
        } else {
            memset(row, 0, dim * sizeof *row);
            fasttext_quant_add_row(&m->in_quant, r, row);
        }
        for (size_t l = 0; l < nl; l++) {
            const float *o = &m->out[l * dim];
            double d = 0;
            for (size_t j = 0; j < dim; j++) d += (double)row[j] * o[j];
            m->proj[(size_t)r * nl + l] = d * m->out_norm[l];
        }
    }
    free(row);
    if (dense_rows) drop_pages(dense_rows, (size_t)m->in_rows * dim * sizeof *row);
}

/* Reads the checked file; NULL, or why fastText would refuse it too. */
static const char *read_model(fasttext_model *m, const unsigned char *bytes, bool fast)
{
    const fasttext_info *info = &m->info;
    m->dim = info->dim;
    cursor c = {bytes + HEADER_BYTES + ARGS_BYTES};
    const unsigned char *dense_rows = NULL;
    int64_t prune_size;
    memcpy(&prune_size, c.p + DICT_HEADER_BYTES - sizeof prune_size, sizeof prune_size);
    if (prune_size > INT32_MAX) /* fastText counts the pairs in an int32 */
        return "pruned n-gram index of more than 2^31 pairs";
    int32_t nlabels;
    memcpy(&nlabels, c.p + 2 * sizeof nlabels, sizeof nlabels);
    if (info->loss == FT_LOSS_HS && nlabels > INT32_MAX / 2) /* fastText's int tree size would overflow */
        return "hs tree of more than 2^30 labels";
    read_dictionary(m, &c);
    bool quantized = *c.p++;
    if (!quantized && m->prune_size >= 0) return "pruned n-gram index with a dense input matrix, which fastText refuses";
    if (quantized) {
        m->in_rows = read_quant(&c, m->dim, &m->in_quant);
    } else {
        m->in_rows = get_i64(&c);
        c.p += 8; /* columns */
        dense_rows = c.p;
        c.p += (size_t)m->in_rows * (size_t)m->dim * 4;
    }
    bool qout = *c.p++;
    read_output(m, &c, quantized && qout);
    if (info->loss == FT_LOSS_HS) {
        int64_t *counts = xmalloc((size_t)m->nlabels * sizeof *counts);
        for (int32_t l = 0; l < m->nlabels; l++) {
            const char *e = m->entry[m->nwords + l];
            memcpy(&counts[l], e + m->entry_len[m->nwords + l] + 1, sizeof counts[l]);
        }
        build_tree(m, counts);
        free(counts);
    }
    build_sigmoid(m);
    if (fast && m->nlabels <= PROJECT_MAX_LABELS && m->dim >= PROJECT_MIN_DIM_PER_LABEL * m->nlabels)
        build_projection(m, dense_rows);
    else if (dense_rows)
        place_rows(m, dense_rows);
    return NULL;
}

/* Maps path read-only; NULL with a message in err. */
static void *map_file(const char *path, size_t *n, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        snprintf(err, errlen, "%s: not a regular, non-empty file", path);
        close(fd);
        return NULL;
    }
    *n = (size_t)st.st_size;
    void *p = mmap(NULL, *n, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    return p;
}

/* The file is read once: fasttext_check() walks the mapping, then the model
 * is read from the same bytes (strings and a dense input matrix in place). */
fasttext_model *fasttext_model_load(const char *path, bool fast, char *err, size_t errlen)
{
    size_t n;
    void *bytes = map_file(path, &n, err, errlen);
    if (!bytes) return NULL;
    fasttext_info info;
    char why[256];
    if (!fasttext_check(bytes, n, &info, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", path, why);
        munmap(bytes, n);
        return NULL;
    }
    fasttext_model *m = xcalloc(1, sizeof *m);
    m->map = bytes;
    m->map_len = n;
    m->info = info;
    const char *refused = read_model(m, bytes, fast);
    if (refused) {
        snprintf(err, errlen, "%s: %s (dictionary header at byte %d)", path, refused, HEADER_BYTES + ARGS_BYTES);
        fasttext_model_free(m);
        return NULL;
    }
    return m;
}

void fasttext_model_free(fasttext_model *m)
{
    if (!m) return;
    free(m->entry);
    free(m->entry_len);
    free(m->slots);
    free(m->prune_key);
    free(m->prune_row);
    free(m->in_quant.centroids);
    free(m->out);
    free(m->out_norm);
    free(m->tree_left);
    free(m->tree_right);
    free(m->proj);
    free(m->in_copy);
    munmap(m->map, m->map_len);
    free(m);
}

const fasttext_info *fasttext_model_info(const fasttext_model *m) { return &m->info; }

int fasttext_model_nlabels(const fasttext_model *m) { return m->nlabels; }

const char *fasttext_model_label(const fasttext_model *m, int i) { return m->entry[m->nwords + i]; }

int fasttext_model_find_label(const fasttext_model *m, const char *name)
{
    for (int32_t i = 0; i < m->nlabels; i++)
        if (!strcmp(m->entry[m->nwords + i], name)) return i;
    return -1;
}
