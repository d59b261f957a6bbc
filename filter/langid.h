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

/* Identifies the language of valid UTF-8 plain text from its first max_bytes
 * bytes (0: all n). Thread-safe. */
void langid_detect(const char *text, size_t n, size_t max_bytes, langid_result *r);

/* Looks up a language by its code or English name; returns the canonical
 * code CLD2 reports for it, or NULL when CLD2 does not know it. */
const char *langid_canonical_code(const char *name_or_code);

/* Language i (0 <= i < langid_table_size()) of CLD2's table: returns false
 * when CLD2 cannot report it (no recognized script, or a script-only
 * pseudo-language), else sets its code and English name. */
int langid_table_size(void);
bool langid_table_entry(int i, const char **code, const char **name);

#ifdef __cplusplus
}
#endif

#endif
