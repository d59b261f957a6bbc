/* hf_precompiled.h - the tokenizer.json normalizers that come from
 * SentencePiece: Precompiled (a model's precompiled_charsmap, applied as
 * HF tokenizers does it, by extended grapheme cluster) and Nmt (HF's NMT
 * rules). See docs/tokenize.md. */
#ifndef WINNOW_TOKENIZE_HF_PRECOMPILED_H
#define WINNOW_TOKENIZE_HF_PRECOMPILED_H

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "tokenize/hf_json.h"

typedef struct hf_charsmap hf_charsmap;

/* Reads a Precompiled normalizer node (its base64 precompiled_charsmap);
 * NULL with a message naming path in err when HF would refuse the file or
 * could fail on it (a damaged trie, a string pool that is not UTF-8, a
 * replacement string starting inside a character). */
hf_charsmap *hf_charsmap_load(const hj_node *node, const char *path, wbuf *err);

void hf_charsmap_free(hf_charsmap *m);

/* Appends s[0..n) normalized by m to out as HF's Precompiled does. z: how
 * many leading bytes of s lie at the document's original offset 0; returns
 * the same for out (hf_normalize.c's alignment rule). */
size_t hf_charsmap_apply(const hf_charsmap *m, const char *s, size_t n, size_t z, wbuf *out);

/* Appends s[0..n) through HF's Nmt normalizer to out (control characters
 * removed, some white space and invisible characters made a space); z and
 * the result as for hf_charsmap_apply. */
size_t hf_nmt_apply(const char *s, size_t n, size_t z, wbuf *out);

#endif
