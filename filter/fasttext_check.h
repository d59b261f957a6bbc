/* fasttext_check.h - checks that a file is a fastText supervised model
 * (.bin, or .ftz as `fasttext quantize` writes it) whose every size and
 * index is consistent, before fasttext_model.c reads it.
 *
 * The loader reads the file's fields without checks of its own: this walk
 * reads the layout of fastText 0.9 (src/fasttext.cc saveModel: magic,
 * version, Args, Dictionary, the input matrix, the output matrix) and
 * refuses anything that could not be predicted with safely (a truncated or
 * hostile file would otherwise index out of the mapping or its matrices). */
#ifndef WINNOW_FILTER_FASTTEXT_CHECK_H
#define WINNOW_FILTER_FASTTEXT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the check learned of a model. */
typedef struct {
    int32_t version;  /* file format version (11 or 12) */
    int32_t dim;      /* vector size */
    int32_t loss;     /* 1 hs, 2 ns, 3 softmax, 4 ova */
    int32_t word_ngrams, minn, maxn, bucket;
    int32_t nwords, nlabels;
    bool quantized;   /* the input matrix is product-quantized (.ftz) */
} fasttext_info;

/* Checks the model in data[0..n); returns true and fills info, or false with
 * a message naming the offending field and its byte offset in err. */
bool fasttext_check(const unsigned char *data, size_t n, fasttext_info *info, char *err, size_t errlen);

/* The name of loss l ("hs", "ns", "softmax", "ova"), or "?" for another value. */
const char *fasttext_loss_name(int32_t l);

#ifdef __cplusplus
}
#endif

#endif
