/* dedup_normalize.c - fuzz target for the dedup normaliser and shingler.
 * Invariants: the normal form is valid UTF-8 with single spaces between
 * units and none at the ends; units are in order, inside the text, and
 * cover every non-space byte; shingle count and signature values follow
 * their definitions. The first input byte picks the n-gram size. When the
 * rest is the inside of a valid JSON string, dedup_normalize_json on it
 * gives what dedup_normalize gives on its decoded text. The vector paths the
 * CPU has (64-byte AVX-512) give what the baseline 16-byte path gives, on
 * the bytes and on the JSON string. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/simd.h"
#include "core/utf8.h"
#include "dedup/minhash.h"
#include "dedup/normalize.h"

static int same_text(const dedup_text *a, const dedup_text *b)
{
    return a->text.len == b->text.len && !memcmp(a->text.data ? a->text.data : "", b->text.data ? b->text.data : "", a->text.len) &&
           a->nunits == b->nunits && (!a->nunits || (!memcmp(a->start, b->start, a->nunits * sizeof *a->start) &&
                                                     !memcmp(a->end, b->end, a->nunits * sizeof *a->end)));
}

/* dedup_normalize (json: dedup_normalize_json on v) with the baseline
 * vector code equals *best, made with the best the CPU has. */
static void check_baseline(const char *s, size_t n, const jvalue *v, const dedup_text *best)
{
    static dedup_text base;
    simd_force_baseline(true);
    if (v) dedup_normalize_json(v, &base);
    else dedup_normalize(s, n, &base);
    simd_force_baseline(false);
    if (!same_text(&base, best)) abort();
}

/* The JSON-string reading of the n bytes at s against the decoded text's. */
static void check_json_string(const char *s, size_t n)
{
    static wbuf line, decoded;
    static dedup_text raw, plain;
    buf_clear(&line);
    buf_append(&line, "{\"text\":\"", 9);
    buf_append(&line, s, n);
    buf_append(&line, "\"}", 2);
    jdoc d;
    const char *err;
    size_t pos, len;
    if (json_scan_doc(line.data, line.len, &d, &err, &pos) != 0 || d.text.kind != JSON_STRING || d.text.len != n) return;
    dedup_normalize_json(&d.text, &raw);
    check_baseline(NULL, 0, &d.text, &raw);
    const char *text = json_string(&d.text, &decoded, &len);
    dedup_normalize(text, len, &plain);
    if (raw.text.len != plain.text.len || memcmp(raw.text.data, plain.text.data, raw.text.len) || raw.nunits != plain.nunits ||
        memcmp(raw.start, plain.start, raw.nunits * sizeof *raw.start) || memcmp(raw.end, plain.end, raw.nunits * sizeof *raw.end))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static dedup_text t;
    static minhash_params p;
    static uint64_t *hashes;
    static size_t cap;
    if (!p.k) minhash_params_init(&p, 3, 2, 5, 1);
    if (size == 0) return 0;
    int ngram = 1 + data[0] % 8;
    dedup_normalize((const char *)data + 1, size - 1, &t);
    check_baseline((const char *)data + 1, size - 1, NULL, &t);
    const char *s = t.text.data ? t.text.data : "";
    size_t n = t.text.len;
    if (!utf8_valid(s, n)) abort();
    check_json_string((const char *)data + 1, size - 1);
    if (n && (s[0] == ' ' || s[n - 1] == ' ' || strstr(s, "  "))) abort();
    size_t covered = 0, prev_end = 0;
    for (size_t i = 0; i < t.nunits; i++) {
        if (t.start[i] >= t.end[i] || t.end[i] > n || t.start[i] < prev_end) abort();
        if (memchr(s + t.start[i], ' ', t.end[i] - t.start[i])) abort();
        covered += t.end[i] - t.start[i];
        prev_end = t.end[i];
    }
    size_t spaces = 0;
    for (size_t i = 0; i < n; i++) spaces += s[i] == ' ';
    if (covered + spaces != n) abort();
    size_t len = 0;
    minhash_shingle_hashes(&t, ngram, &hashes, &len, &cap);
    if (len != minhash_shingle_count(&t, ngram)) abort();
    if ((t.nunits == 0) != (len == 0)) abort();
    uint64_t sig[6];
    minhash_signature(&p, hashes, len, sig);
    for (int k = 0; k < p.k; k++)
        if (len ? sig[k] >= MINHASH_PRIME : sig[k] != MINHASH_EMPTY) abort();
    return 0;
}
