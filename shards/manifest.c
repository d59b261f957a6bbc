/* manifest.c - writing and reading manifest.json.
 *
 * Reading uses a small JSON tree parser: the manifest is tiny next to the
 * shards and written by winnow, but a reader must still reject anything
 * malformed with a clear message rather than guess. */
#include "manifest.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/json.h"
#include "core/utf8.h"
#include "core/util.h"
#include "shards/manifest_digest.h"
#include "shards/shard_format.h"

#define JSON_MAX_DEPTH 32
#define MANIFEST_MAX_FRAME_BYTES (1ull << 30)
#define JSON_FIRST_PLAIN_CHAR 0x20  /* characters below it must be escaped in a string */
#define JSON_UNICODE_ESCAPE_LEN 5   /* u and 4 hex digits */
#define UTF8_FIRST_MULTIBYTE 0x80   /* bytes from it on begin or continue a multibyte sequence */

/* ---- writing ---- */

static void put_id_or_null(wbuf *out, int64_t id)
{
    if (id < 0) buf_puts(out, "null");
    else buf_printf(out, "%" PRId64, id);
}

const char *manifest_dtype_name(int dtype_bytes)
{
    return dtype_bytes == 2 ? "uint16" : "uint32";
}

void manifest_write_json(const shard_manifest *m, wbuf *out)
{
    buf_printf(out, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n", SHARD_FORMAT_NAME, m->version);
    buf_puts(out, "  \"tokenizer\": {\"name\": ");
    json_put_string(out, m->tokenizer, strlen(m->tokenizer));
    buf_puts(out, ", \"vocab_sha256\": ");
    if (m->vocab_sha256) json_put_string(out, m->vocab_sha256, strlen(m->vocab_sha256));
    else buf_puts(out, "null");
    buf_printf(out, ", \"vocab_size\": %" PRIu64 "},\n", m->vocab_size);
    buf_printf(out, "  \"dtype\": \"%s\",\n  \"special\": {\"eos\": ", manifest_dtype_name(m->dtype_bytes));
    put_id_or_null(out, m->eos);
    buf_puts(out, ", \"bos\": ");
    put_id_or_null(out, m->bos);
    buf_printf(out, "},\n  \"eos_appended\": %s,\n  \"bos_prepended\": %s,\n  \"split_docs\": %s,\n",
               m->eos_appended ? "true" : "false", m->bos_prepended ? "true" : "false",
               m->split_docs ? "true" : "false");
    buf_printf(out, "  \"frame_bytes\": %" PRIu64 ",\n  \"zstd_level\": %d,\n  \"shard_tokens\": %" PRIu64 ",\n",
               m->frame_bytes, m->zstd_level, m->shard_tokens);
    buf_printf(out, "  \"totals\": {\"shards\": %u, \"tokens\": %" PRIu64 ", \"documents\": %" PRIu64
                    ", \"compressed_bytes\": %" PRIu64 "},\n  \"shards\": [",
               m->nshards, m->tokens, m->documents, m->compressed_bytes);
    for (uint32_t i = 0; i < m->nshards; i++) {
        const manifest_shard *s = &m->shards[i];
        buf_puts(out, i ? ",\n    {\"file\": " : "\n    {\"file\": ");
        json_put_string(out, s->file, strlen(s->file));
        buf_puts(out, ", \"index\": ");
        json_put_string(out, s->index, strlen(s->index));
        buf_printf(out, ", \"tokens\": %" PRIu64 ", \"documents\": %" PRIu64 ", \"compressed_bytes\": %" PRIu64
                        ", \"xxh3_64\": \"%016" PRIx64 "\", \"file_xxh3_64\": \"%016" PRIx64
                        "\", \"continues_document\": %s}",
                   s->tokens, s->documents, s->compressed_bytes, s->xxh3, s->file_xxh3,
                   s->continues ? "true" : "false");
    }
    char digest[65];
    manifest_digest(m, digest);
    buf_printf(out, m->nshards ? "\n  ],\n  \"manifest_sha256\": \"%s\"\n}\n" : "],\n  \"manifest_sha256\": \"%s\"\n}\n",
               digest);
}

/* ---- a small JSON tree ---- */

typedef enum { JN_NULL, JN_BOOL, JN_NUMBER, JN_STRING, JN_ARRAY, JN_OBJECT } jn_kind;

typedef struct jnode {
    jn_kind kind;
    char *key;   /* member name when inside an object */
    char *text;  /* string value, or the number's literal */
    bool truth;
    struct jnode *child, *next;
} jnode;

typedef struct {
    const char *p, *end, *start;
    const char *err;
    size_t err_pos;
} jparser;

static void jn_free(jnode *n)
{
    while (n) {
        jnode *next = n->next;
        jn_free(n->child);
        free(n->key);
        free(n->text);
        free(n);
        n = next;
    }
}

static void skip_ws(jparser *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int fail(jparser *j, const char *why)
{
    if (!j->err) {
        j->err = why;
        j->err_pos = (size_t)(j->p - j->start);
    }
    return -1;
}

static bool is_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* The length of a valid escape after its backslash at s (RFC 8259, 7: one of
 * " \ / b f n r t, or u and 4 hex digits), or 0 for an invalid one. */
static size_t escape_length(const char *s, const char *end)
{
    if (s >= end) return 0;
    if (*s && strchr("\"\\/bfnrt", *s)) return 1;
    if (*s != 'u' || end - s < (ptrdiff_t)JSON_UNICODE_ESCAPE_LEN) return 0;
    for (size_t i = 1; i < JSON_UNICODE_ESCAPE_LEN; i++)
        if (!is_hex_digit(s[i])) return 0;
    return JSON_UNICODE_ESCAPE_LEN;
}

/* Parses a string at j->p (on its opening quote) into a new NUL-terminated
 * copy. A raw control character, an invalid escape or bytes that are not
 * UTF-8 are refused, as JSON (RFC 8259, 7 and 8.1) and the Python reader's
 * json.load refuse them: json_unescape alone would read "\x41" as "x41". */
static char *parse_string(jparser *j)
{
    const char *s = ++j->p;
    bool escapes = false;
    while (j->p < j->end && *j->p != '"') {
        if ((unsigned char)*j->p < JSON_FIRST_PLAIN_CHAR) {
            fail(j, "control character in a string");
            return NULL;
        }
        if ((unsigned char)*j->p >= UTF8_FIRST_MULTIBYTE) {
            size_t len = utf8_valid_seq((const unsigned char *)j->p, (size_t)(j->end - j->p));
            if (!len) {
                fail(j, "a string that is not UTF-8");
                return NULL;
            }
            j->p += len - 1;
        } else if (*j->p == '\\') {
            size_t len = escape_length(j->p + 1, j->end);
            if (!len) {
                fail(j, "invalid escape in a string");
                return NULL;
            }
            escapes = true;
            j->p += len;
        }
        j->p++;
    }
    if (j->p >= j->end) {
        fail(j, "unterminated string");
        return NULL;
    }
    size_t n = (size_t)(j->p - s);
    j->p++;
    wbuf out = WBUF_INIT;
    if (escapes) {
        jvalue v = {s, n, JSON_STRING, true};
        json_unescape(&v, &out);
    } else {
        buf_append(&out, s, n);
    }
    if (!out.data) buf_puts(&out, "");
    return out.data;
}

static jnode *parse_value(jparser *j, int depth);

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Whether s[0..n) is a number by JSON's grammar (RFC 8259, section 6):
 * strtoull alone would also take "+5" and "007", which a JSON reader (the
 * Python reader's among them) refuses. */
static bool json_number(const char *s, size_t n)
{
    size_t i = s[0] == '-' ? 1 : 0;
    if (i < n && s[i] == '0') i++;
    else if (i < n && is_digit(s[i])) while (i < n && is_digit(s[i])) i++;
    else return false;
    if (i < n && s[i] == '.') {
        if (++i >= n || !is_digit(s[i])) return false;
        while (i < n && is_digit(s[i])) i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (++i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i])) return false;
        while (i < n && is_digit(s[i])) i++;
    }
    return i == n;
}

static bool has_member(const jnode *obj, const char *key)
{
    for (const jnode *c = obj->child; c; c = c->next)
        if (strcmp(c->key, key) == 0) return true;
    return false;
}

static jnode *parse_container(jparser *j, int depth, bool object)
{
    jnode *n = xcalloc(1, sizeof *n);
    n->kind = object ? JN_OBJECT : JN_ARRAY;
    char close = object ? '}' : ']';
    jnode **tail = &n->child;
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return n;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(j);
        if (object) {
            if (j->p >= j->end || *j->p != '"' || !(key = parse_string(j))) break;
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                free(key);
                fail(j, "expected ':'");
                break;
            }
            j->p++;
        }
        if (key && has_member(n, key)) { /* readers differ on which copy counts: refuse both */
            free(key);
            fail(j, "duplicate key");
            break;
        }
        jnode *c = parse_value(j, depth + 1);
        if (!c) {
            free(key);
            break;
        }
        c->key = key;
        *tail = c;
        tail = &c->next;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            return n;
        }
        break;
    }
    fail(j, object ? "malformed object" : "malformed array");
    jn_free(n);
    return NULL;
}

static jnode *parse_value(jparser *j, int depth)
{
    skip_ws(j);
    if (j->p >= j->end) {
        fail(j, "unexpected end");
        return NULL;
    }
    if (depth > JSON_MAX_DEPTH) {
        fail(j, "nested too deeply");
        return NULL;
    }
    char c = *j->p;
    if (c == '{' || c == '[') return parse_container(j, depth, c == '{');
    jnode *n = xcalloc(1, sizeof *n);
    if (c == '"') {
        n->kind = JN_STRING;
        if (!(n->text = parse_string(j))) goto bad;
        return n;
    }
    static const struct { const char *word; jn_kind kind; bool truth; } literals[] = {
        {"null", JN_NULL, false}, {"true", JN_BOOL, true}, {"false", JN_BOOL, false}};
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) {
        size_t len = strlen(literals[i].word);
        if ((size_t)(j->end - j->p) >= len && memcmp(j->p, literals[i].word, len) == 0) {
            n->kind = literals[i].kind;
            n->truth = literals[i].truth;
            j->p += len;
            return n;
        }
    }
    const char *s = j->p;
    while (j->p < j->end && strchr("+-0123456789.eE", *j->p)) j->p++;
    if (j->p == s) {
        fail(j, "unexpected character");
        goto bad;
    }
    if (!json_number(s, (size_t)(j->p - s))) {
        j->p = s;
        fail(j, "malformed number");
        goto bad;
    }
    n->kind = JN_NUMBER;
    n->text = xmalloc((size_t)(j->p - s) + 1);
    memcpy(n->text, s, (size_t)(j->p - s));
    n->text[j->p - s] = 0;
    return n;
bad:
    jn_free(n);
    return NULL;
}

static const jnode *member(const jnode *obj, const char *key)
{
    if (!obj || obj->kind != JN_OBJECT) return NULL;
    for (const jnode *c = obj->child; c; c = c->next)
        if (strcmp(c->key, key) == 0) return c;
    return NULL;
}

/* ---- reading the manifest from the tree ---- */

typedef struct {
    char *err;
    size_t errlen;
    bool failed;
} mctx;

static void mfail(mctx *c, const char *fmt, const char *what)
{
    if (c->failed) return;
    c->failed = true;
    snprintf(c->err, c->errlen, fmt, what);
}

static uint64_t get_u64(mctx *c, const jnode *obj, const char *key)
{
    const jnode *n = member(obj, key);
    if (!n || n->kind != JN_NUMBER || n->text[0] == '-') {
        mfail(c, "\"%s\" missing or not a non-negative integer", key);
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(n->text, &end, 10);
    if (*end || errno) mfail(c, "\"%s\" is not an integer", key);
    return v;
}

/* An integer that may be negative, within int's range. */
static int get_int(mctx *c, const jnode *obj, const char *key)
{
    const jnode *n = member(obj, key);
    if (!n || n->kind != JN_NUMBER) {
        mfail(c, "\"%s\" missing or not an integer", key);
        return 0;
    }
    char *end;
    errno = 0;
    long long v = strtoll(n->text, &end, 10);
    if (*end || errno || v < INT_MIN || v > INT_MAX) mfail(c, "\"%s\" is not an integer", key);
    return (int)v;
}

static int64_t get_id(mctx *c, const jnode *obj, const char *key)
{
    const jnode *n = member(obj, key);
    if (n && n->kind == JN_NULL) return MANIFEST_NO_ID;
    uint64_t v = get_u64(c, obj, key);
    if (v > INT64_MAX) mfail(c, "\"%s\" out of range", key);
    return (int64_t)v;
}

static bool get_bool(mctx *c, const jnode *obj, const char *key)
{
    const jnode *n = member(obj, key);
    if (!n || n->kind != JN_BOOL) {
        mfail(c, "\"%s\" missing or not true/false", key);
        return false;
    }
    return n->truth;
}

static char *get_str(mctx *c, const jnode *obj, const char *key, bool nullable)
{
    const jnode *n = member(obj, key);
    if (nullable && n && n->kind == JN_NULL) return NULL;
    if (!n || n->kind != JN_STRING) {
        mfail(c, "\"%s\" missing or not a string", key);
        return xstrdup("");
    }
    return xstrdup(n->text);
}

/* Exactly 16 lowercase hex digits, as written (docs/shards.md): strtoull
 * alone would also take upper case, a sign, spaces or "0x", which the
 * canonical text of manifest_sha256 (and the Python reader) would not. */
static uint64_t get_hex64(mctx *c, const jnode *obj, const char *key)
{
    char *s = get_str(c, obj, key, false);
    uint64_t v = strtoull(s, NULL, 16);
    if (strlen(s) != 16 || strspn(s, "0123456789abcdef") != 16) mfail(c, "\"%s\" is not 16 lowercase hex digits", key);
    free(s);
    return v;
}

/* A shard's file names must stay inside the directory. */
static bool plain_name(const char *s)
{
    return s[0] && s[0] != '.' && !strchr(s, '/');
}

int manifest_parse(const char *text, size_t len, shard_manifest *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    jparser j = {text, text + len, text, NULL, 0};
    jnode *root = parse_value(&j, 0);
    if (root) {
        skip_ws(&j);
        if (j.p != j.end) {
            fail(&j, "trailing bytes after the JSON object");
            jn_free(root);
            root = NULL;
        }
    }
    if (!root) {
        snprintf(err, errlen, "not valid JSON: %s at byte %zu", j.err, j.err_pos);
        return -1;
    }
    mctx c = {err, errlen, false};
    char *format = get_str(&c, root, "format", false);
    if (!c.failed && strcmp(format, SHARD_FORMAT_NAME) != 0) mfail(&c, "\"format\" is \"%s\", not \"winnow-shards\"", format);
    free(format);
    uint64_t version = get_u64(&c, root, "version");
    m->version = version > INT_MAX ? INT_MAX : (int)version; /* not cut to int: 2^32 + 1 must not read as 1 */
    if (!c.failed && m->version != SHARD_FORMAT_VERSION) mfail(&c, "%s", "unsupported format version (this reader knows version 1)");
    const jnode *tok = member(root, "tokenizer");
    m->tokenizer = get_str(&c, tok, "name", false);
    m->vocab_sha256 = get_str(&c, tok, "vocab_sha256", true);
    m->vocab_size = get_u64(&c, tok, "vocab_size");
    char *dtype = get_str(&c, root, "dtype", false);
    if (strcmp(dtype, "uint16") == 0) m->dtype_bytes = 2;
    else if (strcmp(dtype, "uint32") == 0) m->dtype_bytes = 4;
    else mfail(&c, "\"dtype\" is \"%s\", not uint16 or uint32", dtype);
    free(dtype);
    const jnode *special = member(root, "special");
    m->eos = get_id(&c, special, "eos");
    m->bos = get_id(&c, special, "bos");
    m->eos_appended = get_bool(&c, root, "eos_appended");
    m->bos_prepended = get_bool(&c, root, "bos_prepended");
    m->split_docs = get_bool(&c, root, "split_docs");
    m->frame_bytes = get_u64(&c, root, "frame_bytes");
    m->zstd_level = get_int(&c, root, "zstd_level"); /* negative: zstd's fast levels */
    m->shard_tokens = get_u64(&c, root, "shard_tokens");
    if (!c.failed && (m->frame_bytes == 0 || m->frame_bytes > MANIFEST_MAX_FRAME_BYTES || m->frame_bytes % (uint64_t)m->dtype_bytes))
        mfail(&c, "%s", "\"frame_bytes\" is not a whole number of tokens up to 1 GiB");
    const jnode *totals = member(root, "totals");
    uint64_t nshards = get_u64(&c, totals, "shards");
    m->tokens = get_u64(&c, totals, "tokens");
    m->documents = get_u64(&c, totals, "documents");
    m->compressed_bytes = get_u64(&c, totals, "compressed_bytes");
    const jnode *list = member(root, "shards");
    if (!list || list->kind != JN_ARRAY) mfail(&c, "%s", "\"shards\" missing or not an array");
    uint64_t count = 0;
    for (const jnode *s = list ? list->child : NULL; s; s = s->next) count++;
    if (!c.failed && count != nshards) mfail(&c, "%s", "totals.shards does not match the shard list");
    if (!c.failed) {
        m->shards = xcalloc(count ? count : 1, sizeof *m->shards);
        for (const jnode *s = list->child; s && !c.failed; s = s->next) {
            manifest_shard *x = &m->shards[m->nshards++];
            x->file = get_str(&c, s, "file", false);
            x->index = get_str(&c, s, "index", false);
            if (!c.failed && (!plain_name(x->file) || !plain_name(x->index)))
                mfail(&c, "shard file name \"%s\" is not a plain name inside the directory", x->file);
            x->tokens = get_u64(&c, s, "tokens");
            x->documents = get_u64(&c, s, "documents");
            x->compressed_bytes = get_u64(&c, s, "compressed_bytes");
            x->xxh3 = get_hex64(&c, s, "xxh3_64");
            x->file_xxh3 = get_hex64(&c, s, "file_xxh3_64");
            x->continues = get_bool(&c, s, "continues_document");
            if (!c.failed && x->continues && x->documents == 0)
                mfail(&c, "shard \"%s\" continues a document but lists no documents", x->file);
        }
    }
    char *recorded = get_str(&c, root, "manifest_sha256", false);
    if (!c.failed) {
        char digest[65];
        manifest_digest(m, digest);
        if (strcmp(recorded, digest) != 0)
            mfail(&c, "manifest_sha256 is %s, but the manifest's shard list and counts give another: it was edited or damaged",
                  recorded);
    }
    free(recorded);
    jn_free(root);
    if (c.failed) {
        manifest_free(m);
        return -1;
    }
    return 0;
}

int manifest_load(const char *dir, shard_manifest *m, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, SHARD_MANIFEST);
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        memset(m, 0, sizeof *m);
        struct stat st;
        if (e == ENOENT && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(err, errlen, "%s: no %s: not a shard directory, or its writer stopped before the end "
                     "(the manifest is written last)", dir, SHARD_MANIFEST);
        else
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return -1;
    }
    wbuf text = WBUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&text, chunk, n);
    fclose(f);
    char why[512];
    int rc = manifest_parse(text.data ? text.data : "", text.len, m, why, sizeof why);
    if (rc) snprintf(err, errlen, "%s: %s", path, why);
    buf_free(&text);
    return rc;
}

void manifest_free(shard_manifest *m)
{
    for (uint32_t i = 0; i < m->nshards; i++) {
        free(m->shards[i].file);
        free(m->shards[i].index);
    }
    free(m->shards);
    free(m->tokenizer);
    free(m->vocab_sha256);
    memset(m, 0, sizeof *m);
}
