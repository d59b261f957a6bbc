/* classify.h - model classifiers in `winnow filter`: named fastText models
 * (the classifier setting), keep rules on their label probabilities (keep),
 * and the scores they add to a kept document's metadata.
 *
 * One classifier may identify the language instead of CLD2 (langid_model):
 * its top label, without the "__label__" prefix, becomes metadata.lang and
 * its probability lang_score. Every other classifier scores each document
 * the rules keep, and writes metadata.scores.NAME = {LABEL: probability} for
 * its top classifier_top_k labels and the labels its keep rules name. */
#ifndef WINNOW_FILTER_CLASSIFY_H
#define WINNOW_FILTER_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "filter/config.h"

typedef struct classifiers classifiers;
typedef struct classify_scratch classify_scratch;

/* Loads every NAME=FILE of c->classifier and parses c->keep and
 * c->langid_model; exits with status 1 and a message naming the entry (and
 * the file and byte for a bad model) on an error. NULL when c names none. */
classifiers *classifiers_create(const filter_config *c);
void classifiers_free(classifiers *cs);

classify_scratch *classify_scratch_create(const classifiers *cs);
void classify_scratch_free(classify_scratch *s);

/* True when a classifier identifies the language. */
bool classifiers_identify_language(const classifiers *cs);

/* The language classifier's top label (without "__label__"; owned by cs)
 * and its probability for text. */
void classify_language(const classifiers *cs, classify_scratch *s, const char *text, size_t n, const char **code,
                       double *score);

/* Scores text with every classifier but the language one and applies the
 * keep rules: returns the drop reason of the first rule that fails
 * ("classifier:NAME:LABEL", static for cs's lifetime), else NULL and the
 * document's scores object ({"NAME":{"LABEL":p,...},...}) in *json, *len
 * (owned by s; length 0 when no classifier scores). */
const char *classify_document(const classifiers *cs, classify_scratch *s, const char *text, size_t n,
                              const char **json, size_t *len);

/* Scores text with every classifier, the language one too: returns one
 * array of nlabels probabilities per classifier, owned by s. */
const float *const *classify_all(const classifiers *cs, classify_scratch *s, const char *text, size_t n);

/* Number of classifiers, classifier i's name and model (0 <= i < count). */
int classifiers_count(const classifiers *cs);
const char *classifiers_name(const classifiers *cs, int i);
const struct fasttext_model *classifiers_model(const classifiers *cs, int i);

/* The bytes of text a classifier reads under classifier_max_bytes: n, or
 * less, cut at the start of a UTF-8 character. */
size_t classify_text_len(const classifiers *cs, const char *text, size_t n);

#endif
