/* fasttext_model.h - fastText supervised classifiers (.bin and quantized
 * .ftz), read by winnow's own loader (fasttext_model.c) after
 * fasttext_check() has vetted the file, and scored by fasttext_predict.c
 * exactly as `fasttext predict-prob` (fastText 0.9.2) scores a line.
 *
 * A model is loaded once and shared read-only by every thread; each thread
 * owns a fasttext_scratch. The file is memory-mapped: dictionary strings and a
 * dense input matrix are read in place, not copied. */
#ifndef WINNOW_FILTER_FASTTEXT_MODEL_H
#define WINNOW_FILTER_FASTTEXT_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "filter/fasttext_check.h"

typedef struct fasttext_model fasttext_model;
typedef struct fasttext_scratch fasttext_scratch;

/* Loads the model at path; returns NULL with a message naming the file and
 * the byte offset of the first bad field in err. fast: for a model with few
 * labels for its dim (at most 8, dim >= 8 per label) precompute each input
 * row's logits, so that scoring sums a few doubles per token instead of a
 * row of dim floats; probabilities then differ from fastText's float sums by
 * their rounding (measured: up to about 2e-6 on documents of thousands of
 * words). Without fast, they are fastText's own float operations. */
fasttext_model *fasttext_model_load(const char *path, bool fast, char *err, size_t errlen);
void fasttext_model_free(fasttext_model *m);

/* The model's sizes and loss. */
const fasttext_info *fasttext_model_info(const fasttext_model *m);

/* Number of labels, and label i (0 <= i < nlabels) as the model stores it
 * ("__label__en"). */
int fasttext_model_nlabels(const fasttext_model *m);
const char *fasttext_model_label(const fasttext_model *m, int i);

/* Index of the label named name, or -1. */
int fasttext_model_find_label(const fasttext_model *m, const char *name);

fasttext_scratch *fasttext_scratch_create(void);
void fasttext_scratch_free(fasttext_scratch *s);

/* Sets probs[i] (nlabels entries) to the probability of label i for text
 * read as one line, newlines as spaces: the numbers `fasttext predict-prob`
 * prints for that line with k labels (k <= 0: every label), 0 for the labels
 * it leaves out. A small k is much cheaper for hs models (the tree search
 * prunes). Returns false, all probabilities 0, when fastText refuses to score
 * (a NaN in its sums). Thread-safe with one scratch per thread. */
bool fasttext_model_predict(const fasttext_model *m, fasttext_scratch *s, const char *text, size_t n, int k,
                            float *probs);

#endif
