/* hf_grapheme.h - extended grapheme clusters (UAX #29) exactly as HF
 * tokenizers finds them (the unicode-segmentation crate, Unicode 17), for
 * the Precompiled normalizer. Its data is hf_grapheme_tables.c. */
#ifndef WINNOW_TOKENIZE_HF_GRAPHEME_H
#define WINNOW_TOKENIZE_HF_GRAPHEME_H

#include <stddef.h>
#include <stdint.h>

/* A code point's category for the cluster rules (Grapheme_Cluster_Break,
 * with Extended_Pictographic and InCB=Consonant for characters that are
 * otherwise HG_ANY, as the crate keeps them). */
typedef enum {
    HG_ANY, HG_CR, HG_LF, HG_CONTROL, HG_EXTEND, HG_ZWJ, HG_SPACING_MARK, HG_PREPEND, HG_REGIONAL_INDICATOR,
    HG_L, HG_V, HG_T, HG_LV, HG_LVT, HG_PICTOGRAPHIC, HG_INCB_CONSONANT
} hf_grapheme_cat;

typedef struct {
    uint32_t lo, hi;
    uint8_t cat;
} hf_grapheme_range;

extern const hf_grapheme_range hf_grapheme_cats[], hf_incb_extend[];
extern const size_t hf_grapheme_ncats, hf_incb_nextend;
extern const uint32_t hf_incb_linkers[];
extern const size_t hf_incb_nlinkers;

/* The end of the extended grapheme cluster that starts at u[i] (i < n); a
 * byte that is not UTF-8 is a cluster of its own. */
size_t hf_grapheme_end(const uint8_t *u, size_t n, size_t i);

#endif
