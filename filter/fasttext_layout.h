/* fasttext_layout.h - a loaded fastText model as fasttext_model.c lays it out
 * in memory and fasttext_predict.c reads it; private to those two files.
 *
 * Everything is read-only after loading and shared by every thread. The
 * dictionary's strings and a dense input matrix stay in the file's mapping
 * (no copy); what prediction reads at random gets a compact table of its own. */
#ifndef WINNOW_FILTER_FASTTEXT_LAYOUT_H
#define WINNOW_FILTER_FASTTEXT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "filter/fasttext_check.h"

#define FT_LOSS_HS 1
#define FT_LOSS_NS 2
#define FT_LOSS_SOFTMAX 3
#define FT_LOSS_OVA 4
#define FT_PQ_KSUB 256           /* centroids per sub-quantizer */
#define FT_SIGMOID_TABLE_SIZE 512 /* Loss::t_sigmoid_: 513 entries over [-8, 8] */
#define FT_MAX_SIGMOID 8
#define FT_FNV_OFFSET 2166136261u /* Dictionary::hash: FNV-1a */
#define FT_FNV_PRIME 16777619u
#define FT_EOS "</s>"
#define FT_LABEL_PREFIX "__label__" /* Args::label; fastText does not store it */

/* A word-table slot: a dictionary entry by the fastText hash of its string.
 * key packs the first 7 bytes and the length (capped at 255) so that a word
 * of up to 7 bytes is matched without reading its string. */
typedef struct {
    uint64_t key;
    uint32_t hash;
    int32_t id; /* -1: empty */
} ft_slot;

/* A product-quantized matrix (QuantMatrix + ProductQuantizer). */
typedef struct {
    const unsigned char *codes; /* rows x nsubq */
    float *centroids;           /* dim x 256, ProductQuantizer::centroids_ */
    int32_t nsubq, dsub, lastdsub;
    const unsigned char *norm_codes; /* rows, or NULL without quantized norms */
    float norm_centroids[FT_PQ_KSUB];
} ft_quant;

struct fasttext_model {
    void *map;
    size_t map_len;
    fasttext_info info;
    int32_t dim, nwords, nlabels, size; /* size = nwords + nlabels entries */
    /* dictionary entries (words, then labels): strings in the mapping */
    const char **entry;
    uint32_t *entry_len;
    ft_slot *slots; /* power-of-two word table */
    uint32_t slot_mask;
    /* the pruned n-gram index (pruneidx_): bucket -> row past the words */
    int64_t prune_size; /* -1: not pruned; 0: no n-gram rows at all */
    int32_t *prune_key, *prune_row;
    uint32_t prune_mask;
    /* input matrix: dense rows (read in place from the mapping, or from an
     * aligned copy when rows are small: fasttext_model.c copy_small_rows),
     * or quantized */
    int64_t in_rows;
    const unsigned char *in_dense; /* in_rows x dim floats, maybe unaligned; or NULL */
    void *in_copy;                 /* the copy in_dense points into, or NULL */
    ft_quant in_quant;
    /* output matrix, decoded: out[l * dim + j]; logit = dot(row, hidden) * out_norm[l] */
    float *out, *out_norm;
    /* hs: the Huffman tree (HierarchicalSoftmaxLoss::buildTree) */
    int32_t *tree_left, *tree_right;
    float sigmoid[FT_SIGMOID_TABLE_SIZE + 1];
    /* each input row's logits, proj[row * nlabels + l] (the output matrix
     * times the row, in double), when the model has few labels for its dim */
    double *proj;
};

/* FNV-1a as fastText's Dictionary::hash (bytes sign-extended). */
uint32_t fasttext_hash(const char *s, size_t len);

/* The word-table key of a string (ft_slot). */
uint64_t fasttext_word_key(const char *s, size_t len);

/* The row past the words that pruned bucket b maps to, or -1 (m->prune_size > 0). */
int32_t fasttext_prune_lookup(const struct fasttext_model *m, int32_t b);

/* QuantMatrix::addRowToVector: x[j] += norm * centroid, row's codes in order. */
void fasttext_quant_add_row(const ft_quant *q, int64_t row, float *x);

/* The quantized norm of row (1 without quantized norms). */
float fasttext_quant_norm(const ft_quant *q, int64_t row);

#endif
