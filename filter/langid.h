/* langid.h - language identification with CLD2, behind a C interface. */
#ifndef WINNOW_FILTER_LANGID_H
#define WINNOW_FILTER_LANGID_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *code; /* ISO 639 code CLD2 reports ("en", "zh-Hant", "un" when unknown); static */
    double score;     /* share of the text in that language, 0..1 */
    bool reliable;    /* CLD2's own reliability verdict */
} langid_result;

/* Identifies the language of n bytes of valid UTF-8 plain text. Thread-safe. */
void langid_detect(const char *text, size_t n, langid_result *r);

/* Looks up a language by its code or English name; returns the canonical
 * code CLD2 reports for it, or NULL when CLD2 does not know it. */
const char *langid_canonical_code(const char *name_or_code);

#ifdef __cplusplus
}
#endif

#endif
