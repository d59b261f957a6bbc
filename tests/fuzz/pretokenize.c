/* pretokenize.c (fuzz) - the three pre-tokenisers on arbitrary bytes: pieces
 * must be non-empty and tile the input exactly; for valid UTF-8 they must
 * match PCRE2 running tiktoken's pattern (\s spelled out as White_Space).
 * Our tables follow Unicode 15.0; Debian's PCRE2 (10.42) knows Unicode 14, so
 * text with a code point PCRE2 calls unassigned is only checked for tiling. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenize/pretokenize.h"

#define WHITE_SPACE "\\t\\n\\x0B\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"

static pcre2_code *oracle[PRETOK_NFAMILIES];
static pcre2_code *unassigned; /* a code point PCRE2's Unicode does not know */
static pcre2_match_data *md;

static char *rust_semantics(const char *pat)
{
    char *out = malloc(strlen(pat) * 8 + 1);
    size_t n = 0;
    int in_class = 0;
    for (const char *p = pat; *p; p++) {
        if (p[0] == '\\' && (p[1] == 's' || p[1] == 'S')) {
            n += (size_t)sprintf(out + n, in_class ? "%s" : p[1] == 's' ? "[%s]" : "[^%s]", WHITE_SPACE);
            p++;
            continue;
        }
        if (p[0] == '\\' && p[1]) out[n++] = *p++;
        else if (*p == '[') in_class = 1;
        else if (*p == ']') in_class = 0;
        out[n++] = *p;
    }
    out[n] = 0;
    return out;
}

static void init(void)
{
    for (int f = 0; f < PRETOK_NFAMILIES; f++) {
        char *pat = rust_semantics(pretok_pattern_string(f));
        int err;
        PCRE2_SIZE off;
        oracle[f] = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &err, &off, NULL);
        if (!oracle[f]) abort();
        free(pat);
    }
    int err;
    PCRE2_SIZE off;
    unassigned = pcre2_compile((PCRE2_SPTR) "\\p{Cn}", PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &err, &off, NULL);
    if (!unassigned) abort();
    md = pcre2_match_data_create(4, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!md) init();
    for (int f = 0; f < PRETOK_NFAMILIES; f++) {
        int rc = pcre2_match(oracle[f], data, size, 0, 0, md, NULL);
        int valid = !(rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21);
        if (valid && pcre2_match(unassigned, data, size, 0, PCRE2_NO_UTF_CHECK, md, NULL) >= 0) valid = 0;
        for (size_t pos = 0; pos < size;) {
            size_t end = pretok_next(f, &uclass_tiktoken, data, size, pos);
            if (end <= pos || end > size) abort();
            if (valid) {
                rc = pcre2_match(oracle[f], data, size, pos, PCRE2_NO_UTF_CHECK, md, NULL);
                PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
                if (rc < 0 || ov[0] != pos || ov[1] != end) abort();
            }
            pos = end;
        }
    }
    return 0;
}
