/* fineweb.c - FineWeb's own rules (Penedo et al. 2024) as in datatrove's
 * FineWebQualityFilter. */
#include <string.h>
#define XXH_INLINE_ALL /* short keys: inlined hashing is several times faster */
#include <xxhash.h>

#include "filter/rules.h"
#include "filter/uchar.h"

static bool ends_with_stop_char(const char *s, size_t a, size_t b)
{
    if (a == b) return false;
    char last = s[b - 1];
    return last == '.' || last == '\'' || last == '"' || last == '!' || last == '?';
}

const char *fineweb_check(const filter_config *c, rule_scratch *r, const char *s, size_t n, size_t nwords)
{
    /* lines = text.split("\n"), empty lines included */
    size_t lines = 0, punct_lines = 0, short_lines = 0, newlines = 0, chars = 0, dup_chars = 0;
    size_t short_len = (size_t)c->fw_short_line_length;
    ct_reset(&r->table, 64);
    for (size_t a = 0;;) {
        const char *nl = memchr(s + a, '\n', n - a);
        size_t b = nl ? (size_t)(nl - s) : n;
        size_t len = uc_count(s + a, b - a);
        lines++;
        chars += len;
        if (ends_with_stop_char(s, a, b)) punct_lines++;
        if (len <= short_len) short_lines++;
        size_t sa = a, sb = b;
        uc_strip(s, &sa, &sb);
        if (sa < sb) { /* duplicates among non-empty lines */
            ct_slot *slot = ct_add(&r->table, XXH3_64bits(s + a, b - a), (uint32_t)lines);
            if (slot->count > 1) dup_chars += len;
        }
        if (!nl) break;
        newlines++;
        a = b + 1;
    }
    double ratio = (double)punct_lines / (double)lines;
    if (c->fw_line_punct_thr && ratio <= c->fw_line_punct_thr && !(ratio == 0 && c->fw_line_punct_exclude_zero))
        return "fineweb:line_punct_ratio";
    if (c->fw_short_line_thr && (double)short_lines / (double)lines >= c->fw_short_line_thr)
        return "fineweb:short_line_ratio";
    if (c->fw_char_dup_ratio && chars > 0 && (double)dup_chars / (double)chars >= c->fw_char_dup_ratio)
        return "fineweb:char_dup_ratio";
    if (c->fw_new_line_ratio && newlines > 0 &&
        (nwords == 0 || (double)newlines / (double)nwords > c->fw_new_line_ratio))
        return "fineweb:list_ratio";
    return NULL;
}
