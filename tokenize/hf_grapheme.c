/* hf_grapheme.c - extended grapheme clusters by UAX #29's rules (GB3 to
 * GB13, GB9c included) over the Unicode 17 data of hf_grapheme_tables.c,
 * as the unicode-segmentation crate HF tokenizers uses finds them. ICU's
 * break iterator is not used: Debian 12's ICU 72 is Unicode 15.0, whose
 * clusters differ from HF's around characters added since (U+0897 after
 * a no-break space is one cluster for HF, two for ICU 72) and Indic
 * conjuncts (GB9c). */
#include "tokenize/hf_grapheme.h"

#include <stdbool.h>

#include "core/utf8.h"

#define HANGUL_FIRST 0xAC00
#define HANGUL_LAST 0xD7A3
#define HANGUL_T_COUNT 28 /* an LV syllable every 28th, LVT syllables between */

/* The range of the sorted ranges t[0..n) that holds c, or NULL. */
static const hf_grapheme_range *find(const hf_grapheme_range *t, size_t n, uint32_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < t[mid].lo) hi = mid;
        else if (c > t[mid].hi) lo = mid + 1;
        else return &t[mid];
    }
    return NULL;
}

static int category(uint32_t c)
{
    if (c >= HANGUL_FIRST && c <= HANGUL_LAST) return (c - HANGUL_FIRST) % HANGUL_T_COUNT ? HG_LVT : HG_LV;
    if (c >= 0x20 && c < 0x7F) return HG_ANY; /* printable ASCII */
    const hf_grapheme_range *r = find(hf_grapheme_cats, hf_grapheme_ncats, c);
    return r ? r->cat : HG_ANY;
}

static bool incb_linker(uint32_t c)
{
    for (size_t i = 0; i < hf_incb_nlinkers; i++)
        if (hf_incb_linkers[i] == c) return true;
    return false;
}

static bool incb_extend(uint32_t c) { return find(hf_incb_extend, hf_incb_nextend, c) != NULL; }

static bool extends(int cat) { return cat == HG_EXTEND || cat == HG_ZWJ || cat == HG_SPACING_MARK; }

size_t hf_grapheme_end(const uint8_t *u, size_t n, size_t i)
{
    size_t len = utf8_valid_seq(u + i, n - i);
    if (!len) return i + 1;
    uint32_t cp = utf8_decode(u + i, n - i, &len);
    int prev = category(cp);
    if (prev == HG_CR) return i + 1 < n && u[i + 1] == '\n' ? i + 2 : i + 1; /* GB3, GB4 */
    if (prev == HG_LF || prev == HG_CONTROL) return i + len;                  /* GB4 */
    bool pict = prev == HG_PICTOGRAPHIC, pict_zwj = false; /* GB11: ExtPict Extend* ZWJ, so far */
    unsigned regional = prev == HG_REGIONAL_INDICATOR;    /* GB12, GB13: indicators in a row */
    int conjunct = prev == HG_INCB_CONSONANT;             /* GB9c: 1 a consonant, 2 and a linker since */
    size_t j = i + len;
    while (j < n && utf8_valid_seq(u + j, n - j)) {
        cp = utf8_decode(u + j, n - j, &len);
        int cur = category(cp);
        bool join;
        if (cur == HG_CONTROL || cur == HG_CR || cur == HG_LF) join = false; /* GB5 */
        else if (prev == HG_L) join = cur == HG_L || cur == HG_V || cur == HG_LV || cur == HG_LVT || extends(cur); /* GB6 */
        else if ((prev == HG_LV || prev == HG_V) && (cur == HG_V || cur == HG_T)) join = true; /* GB7 */
        else if ((prev == HG_LVT || prev == HG_T) && cur == HG_T) join = true;               /* GB8 */
        else if (extends(cur)) join = true;                                                   /* GB9, GB9a */
        else if (prev == HG_PREPEND) join = true;                                             /* GB9b */
        else if (conjunct == 2 && cur == HG_INCB_CONSONANT) join = true;                      /* GB9c */
        else if (pict_zwj && cur == HG_PICTOGRAPHIC) join = true;                             /* GB11 */
        else join = prev == HG_REGIONAL_INDICATOR && cur == HG_REGIONAL_INDICATOR && regional % 2; /* GB12, GB13 */
        if (!join) break;
        pict_zwj = pict && cur == HG_ZWJ;
        pict = cur == HG_PICTOGRAPHIC || (pict && cur == HG_EXTEND);
        regional = cur == HG_REGIONAL_INDICATOR ? regional + 1 : 0;
        if (cur == HG_INCB_CONSONANT) conjunct = 1;
        else if (incb_linker(cp)) conjunct = conjunct ? 2 : 0;
        else if (!incb_extend(cp)) conjunct = 0;
        prev = cur;
        j += len;
    }
    return j;
}
