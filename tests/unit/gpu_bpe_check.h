/* gpu_bpe_check.h - test helpers for the GPU tokenizer: encode a set of
 * documents with gpu/bpe.h and with the CPU path (the reference), compare
 * document by document; and the adversarial inputs both must agree on. */
#ifndef WINNOW_TESTS_GPU_BPE_CHECK_H
#define WINNOW_TESTS_GPU_BPE_CHECK_H

#include "gpu/bpe.h"
#include "tests/unit/tokenize_corpus.h"

typedef struct {
    const char **text;
    size_t *len;
    size_t n, cap;
} doc_set;

static inline void docs_add(doc_set *s, const char *text, size_t len)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->text = realloc(s->text, s->cap * sizeof *s->text);
        s->len = realloc(s->len, s->cap * sizeof *s->len);
    }
    s->text[s->n] = text;
    s->len[s->n++] = len;
}

static inline void docs_free(doc_set *s) { free(s->text), free(s->len); }

/* Every stride-th document of a tokref corpus. */
static inline void docs_from_corpus(doc_set *s, const tok_corpus *c, int stride)
{
    for (int d = 0; d < c->ndocs; d += stride) docs_add(s, c->text + c->off[d], c->len[d]);
}

/* Each line of text (without its newline) as a document, then the whole text. */
static inline void docs_from_lines(doc_set *s, const char *text, size_t n)
{
    for (const char *p = text; p < text + n;) {
        const char *nl = memchr(p, '\n', (size_t)(text + n - p));
        const char *e = nl ? nl : text + n;
        docs_add(s, p, (size_t)(e - p));
        p = e + 1;
    }
    docs_add(s, text, n);
}

static inline void load_tok(tokenizer *t, const char *name, const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vocab/%s", shared_dir(), file);
    wbuf err = WBUF_INIT;
    if (tokenizer_load(t, name, path, -1, &err)) {
        printf("Bail out! %s\n", err.data);
        exit(1);
    }
    buf_free(&err);
}

/* Encodes s with g and with the CPU path; one test point saying whether
 * every document's ids are identical. */
static inline void compare(gpu_bpe *g, const tokenizer *t, const doc_set *s, const char *what)
{
    tok_ids got = {0}, want = {0};
    size_t *end = calloc(s->n + 1, sizeof *end);
    wbuf err = WBUF_INIT;
    if (gpu_bpe_encode(g, s->text, s->len, s->n, &got, end, &err)) {
        ok(0, "%s/%s: %s", t->name, what, err.data);
        buf_free(&err), free(end);
        return;
    }
    bpe_scratch scratch = {0};
    size_t bad = 0, bytes = 0, at = 0;
    for (size_t d = 0; d < s->n; d++) {
        want.n = 0;
        tokenizer_encode(t, s->text[d], s->len[d], false, &scratch, &want);
        bytes += s->len[d];
        size_t ngot = end[d] - at;
        bool same = ngot == want.n && !memcmp(got.ids + at, want.ids, want.n * sizeof *want.ids);
        if (!same && bad++ < 3) {
            size_t k = 0;
            while (k < ngot && k < want.n && got.ids[at + k] == want.ids[k]) k++;
            diag("%s doc %zu (%zu bytes): %zu ids, want %zu; first difference at id %zu", what, d, s->len[d], ngot,
                 want.n, k);
        }
        at = end[d];
    }
    ok(bad == 0 && at == got.n, "%s/%s: %zu documents, %zu bytes, %zu ids identical to the CPU path (%zu differ)",
       t->name, what, s->n, bytes, got.n, bad);
    ids_free(&got), ids_free(&want), bpe_scratch_free(&scratch), buf_free(&err), free(end);
}

/* A deterministic pseudo-random generator (xorshift64). */
static inline uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Appends the UTF-8 bytes of code point cp. */
static inline void put_utf8(wbuf *b, uint32_t cp)
{
    char u[4];
    int n;
    if (cp < 0x80) u[0] = (char)cp, n = 1;
    else if (cp < 0x800) u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F)), u[2] = (char)(0x80 | (cp >> 6 & 0x3F)),
        u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    buf_append(b, u, (size_t)n);
}

/* Random valid UTF-8 from one script's block [lo, hi) mixed with spaces,
 * newlines, apostrophes, digits and ASCII letters, in words of 1-12 characters. */
static inline void random_script_text(wbuf *b, uint32_t lo, uint32_t hi, size_t bytes, uint64_t *seed)
{
    static const char glue[] = " \n'\r\t0.,";
    while (b->len < bytes) {
        int word = 1 + (int)(next_random(seed) % 12);
        for (int i = 0; i < word; i++) {
            uint32_t r = (uint32_t)next_random(seed);
            uint32_t cp = r % 8 == 0 ? (uint32_t)('a' + r / 8 % 26) : lo + (r / 8) % (hi - lo);
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
            put_utf8(b, cp);
        }
        buf_putc(b, glue[next_random(seed) % (sizeof glue - 1)]);
    }
}

/* Script blocks for random text: Latin, Greek, Cyrillic, Armenian, Hebrew,
 * Arabic, Devanagari, Bengali, Thai, Georgian, Hangul Jamo, Ethiopic, Khmer,
 * CJK punctuation + kana, CJK ideographs, Hangul syllables, fullwidth forms,
 * emoji, combining marks, and everything up to U+10FFFF. */
static const uint32_t SCRIPT_BLOCKS[][2] = {
    {0x20, 0x250},     {0x370, 0x400},     {0x400, 0x530},   {0x530, 0x590},   {0x590, 0x600},
    {0x600, 0x700},    {0x900, 0x980},     {0x980, 0xA00},   {0xE00, 0xE80},   {0x10A0, 0x1100},
    {0x1100, 0x1200},  {0x1200, 0x1380},   {0x1780, 0x1800}, {0x3000, 0x3100}, {0x4E00, 0x9FFF},
    {0xAC00, 0xD7A4},  {0xFF00, 0xFFF0},   {0x1F300, 0x1FAFF}, {0x300, 0x370}, {0x80, 0x10FFFF},
};

/* Compares g with the CPU path on everything: tokref edge and multi (every
 * multi_stride-th document), en_code (every en_stride-th), the test vectors,
 * BLNS, and adversarial input; with big, also en_code as one document
 * (longer than a batch) and each line of en_code as a document. */
static inline void compare_all(gpu_bpe *g, const tokenizer *t, int multi_stride, int en_stride, bool big)
{
    static const char *const corpora[] = {"edge", "multi", "en_code"};
    for (int c = 0; c < 3; c++) {
        tok_corpus corpus;
        corpus_load(&corpus, corpora[c]);
        doc_set s = {0};
        docs_from_corpus(&s, &corpus, c == 0 ? 1 : c == 1 ? multi_stride : en_stride);
        compare(g, t, &s, corpora[c]);
        if (big && c == 2) {
            doc_set one = {0}, lines = {0};
            docs_add(&one, corpus.text, corpus.size);
            compare(g, t, &one, "en_code as one document");
            docs_from_lines(&lines, corpus.text, corpus.size);
            compare(g, t, &lines, "en_code lines as documents");
            docs_free(&one), docs_free(&lines);
        }
        docs_free(&s);
        corpus_free(&corpus);
    }
    static const char *const line_files[] = {"vectors/gpt-tokenizer/TestPlans.txt", "vectors/blns/blns.txt"};
    for (int f = 0; f < 2; f++) {
        char path[1024];
        size_t n;
        snprintf(path, sizeof path, "%s/%s", shared_dir(), line_files[f]);
        require_file(path);
        char *text = slurp(path, &n);
        doc_set s = {0};
        docs_from_lines(&s, text, n);
        compare(g, t, &s, line_files[f]);
        docs_free(&s);
        free(text);
    }
    enum { MB = 1 << 20, DIGITS = 300000, SCRIPT_BYTES = 24000, NOISE = 200000 };
    wbuf letters = WBUF_INIT, digits = WBUF_INIT, spaced = WBUF_INIT, noise = WBUF_INIT;
    for (int i = 0; i < MB; i++) buf_putc(&letters, 'a');
    for (int i = 0; i < DIGITS; i++) buf_putc(&digits, (char)('0' + i * 7 % 10));
    for (int i = 0; i < MB / 2; i++) buf_putc(&spaced, i % 3 == 2 ? ' ' : 'a');
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < NOISE; i++) buf_putc(&noise, (char)(next_random(&seed) & 0xFF));
    doc_set adv = {0};
    docs_add(&adv, letters.data, letters.len);
    docs_add(&adv, "", 0);
    docs_add(&adv, digits.data, digits.len);
    docs_add(&adv, spaced.data, spaced.len);
    docs_add(&adv, "", 0);
    docs_add(&adv, noise.data, noise.len);
    compare(g, t, &adv, "adversarial (1 MB of one letter, digit runs, spaced letters, random bytes, empty)");
    docs_free(&adv);
    size_t nblocks = sizeof SCRIPT_BLOCKS / sizeof SCRIPT_BLOCKS[0];
    wbuf *scripts = calloc(nblocks, sizeof *scripts);
    doc_set rs = {0};
    for (size_t i = 0; i < nblocks; i++) {
        random_script_text(&scripts[i], SCRIPT_BLOCKS[i][0], SCRIPT_BLOCKS[i][1], SCRIPT_BYTES, &seed);
        docs_add(&rs, scripts[i].data, scripts[i].len);
    }
    compare(g, t, &rs, "random valid UTF-8 in 20 scripts");
    for (size_t i = 0; i < nblocks; i++) buf_free(&scripts[i]);
    free(scripts), docs_free(&rs);
    buf_free(&letters), buf_free(&digits), buf_free(&spaced), buf_free(&noise);
}

/* The encodings the GPU path is checked on. */
static const struct {
    const char *name, *file;
} GPU_ENCODINGS[] = {
    {"gpt2", "tiktoken/r50k_base.tiktoken"},
    {"cl100k_base", "tiktoken/cl100k_base.tiktoken"},
    {"o200k_base", "tiktoken/o200k_base.tiktoken"},
};

/* Loads cl100k_base into t for a test of the emulated GPU path; in a build
 * without the emulation (no CUDA) prints TAP's skip-all and exits 0. */
static inline void load_emulated_or_skip(tokenizer *t)
{
    wbuf err = WBUF_INIT;
    load_tok(t, GPU_ENCODINGS[1].name, GPU_ENCODINGS[1].file);
    gpu_bpe *probe = gpu_bpe_open(t, GPU_BPE_EMULATE, &err);
    if (!probe) {
        printf("1..0 # SKIP %s\n", err.data);
        buf_free(&err), tokenizer_free(t);
        exit(0);
    }
    gpu_bpe_close(probe);
    buf_free(&err);
}

#endif
