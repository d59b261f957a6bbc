/* hf_unicode.c - the character classes HF tokenizers takes from Rust crates
 * with old Unicode tables, at those versions: unicode_categories (0.1.1:
 * Unicode 8.0) for Punctuation, BertPreTokenizer and BertNormalizer, and
 * unicode-normalization-alignments for StripAccents (Unicode 9.0) and the
 * NFC/NFD/NFKC/NFKD tables (Unicode 11.0). A
 * character assigned later is none of them there, and the few whose
 * category changed since keep their old one. Measured against HF tokenizers
 * 0.23.2 over every code point (tests/data/hf/edge_texts.json has some). */
#include <unicode/uchar.h>
#include <utf8proc.h>

#include "tokenize/hf_pipeline.h"

#define CATEGORIES_UNICODE 8    /* unicode_categories' tables */
#define COMBINING_UNICODE 9      /* unicode-normalization-alignments' is_combining_mark */
#define DECOMPOSITION_UNICODE 11 /* its decompositions and compositions */

#define MONGOLIAN_BIRGA_WITH_ORNAMENT 0x166D /* Po in Unicode 8, So since */
#define SHARADA_SANDHI_MARK 0x111C9          /* Po in Unicode 8, Mn since */
#define VEDIC_SIGN_ARDHAVISARGA 0x1CF2       /* Mc in Unicode 9, Lo since */
#define VEDIC_SIGN_ROTATED_ARDHAVISARGA 0x1CF3
#define HANUNOO_SIGN_PAMUDPOD 0x1734         /* Mn in Unicode 8, Mc since */
#define MONGOLIAN_ALI_GALI_BALUDA 0x1885     /* Lo in Unicode 8, Mn since (and 0x1886) */
#define MONGOLIAN_ALI_GALI_THREE_BALUDA 0x1886
#define JAVANESE_CONSONANT_SIGN_KERET 0xA9BD /* Mc in Unicode 8, Mn since */

/* Whether cp was assigned by Unicode major.x. */
static bool assigned_by(uint32_t cp, int major)
{
    UVersionInfo age;
    u_charAge((UChar32)cp, age);
    return age[0] && age[0] <= major;
}

static utf8proc_category_t category(uint32_t cp)
{
    return utf8proc_category((utf8proc_int32_t)cp);
}

bool hf_is_punctuation(uint32_t cp)
{
    if (cp < 0x80) /* Rust's is_ascii_punctuation */
        return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126);
    if (cp == MONGOLIAN_BIRGA_WITH_ORNAMENT || cp == SHARADA_SANDHI_MARK) return true;
    utf8proc_category_t c = category(cp);
    return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO && assigned_by(cp, CATEGORIES_UNICODE);
}

bool hf_is_control(uint32_t cp)
{
    utf8proc_category_t c = category(cp);
    return (c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CS ||
            c == UTF8PROC_CATEGORY_CO) &&
           assigned_by(cp, CATEGORIES_UNICODE);
}

bool hf_is_nonspacing_mark(uint32_t cp)
{
    if (cp == HANUNOO_SIGN_PAMUDPOD) return true;
    if (cp == SHARADA_SANDHI_MARK || cp == MONGOLIAN_ALI_GALI_BALUDA || cp == MONGOLIAN_ALI_GALI_THREE_BALUDA ||
        cp == JAVANESE_CONSONANT_SIGN_KERET)
        return false;
    return category(cp) == UTF8PROC_CATEGORY_MN && assigned_by(cp, CATEGORIES_UNICODE);
}

bool hf_is_combining_mark(uint32_t cp)
{
    if (cp == VEDIC_SIGN_ARDHAVISARGA || cp == VEDIC_SIGN_ROTATED_ARDHAVISARGA) return true;
    if (cp == SHARADA_SANDHI_MARK) return false;
    utf8proc_category_t c = category(cp);
    return c >= UTF8PROC_CATEGORY_MN && c <= UTF8PROC_CATEGORY_ME && assigned_by(cp, COMBINING_UNICODE);
}

bool hf_normalization_knows(uint32_t cp)
{
    return assigned_by(cp, DECOMPOSITION_UNICODE);
}
