/* gpu_bpe_direct.c - gpu_bpe_encode_to (the device writes the ids straight
 * into the caller's array, long pieces spliced in by the host) against the
 * CPU path, run through the host emulation of the device code: every
 * document of tokref edge, every 8th of multi, and documents that take the
 * rarer ways (long pieces, a document longer than a batch, a stretch with
 * no safe cut that the host encodes, empty documents), with the texts in
 * plain and in gpu_bpe_host_alloc memory; an array one id too small is
 * refused (1), an exact one is not. Runs wherever CUDA was built in. */
#include "tests/unit/gpu_bpe_check.h"

#define MULTI_STRIDE 8
#define SMALL_BATCH ((size_t)4 << 20) /* the smallest batch gpu_bpe_tune allows */
#define CHUNK_BYTES 64

/* Encodes s into an array of cap ids; returns the call's result, ids and ends in *got and end. */
static int encode_to(gpu_bpe *g, const doc_set *s, bool pinned, size_t cap, tok_ids *got, size_t *end)
{
    wbuf err = WBUF_INIT;
    const char **texts = (const char **)s->text;
    char *host = NULL;
    if (pinned) { /* the texts copied back to back into page-locked memory */
        size_t total = 0;
        for (size_t d = 0; d < s->n; d++) total += s->len[d];
        host = gpu_bpe_host_alloc(g, total ? total : 1);
        texts = malloc((s->n ? s->n : 1) * sizeof *texts);
        for (size_t d = 0, at = 0; d < s->n; at += s->len[d++]) {
            memcpy(host + at, s->text[d], s->len[d]);
            texts[d] = host + at;
        }
    }
    got->n = 0;
    ids_reserve(got, cap + 1);
    got->ids[cap] = 0xDEADBEEF; /* must stay: nothing is written past cap */
    int rc = gpu_bpe_encode_to(g, texts, s->len, s->n, pinned, got->ids, cap, &got->n, end, &err);
    if (rc < 0) diag("gpu_bpe_encode_to: %s", err.data);
    if (got->ids[cap] != 0xDEADBEEF) rc = -2;
    if (pinned) gpu_bpe_host_free(g, host), free(texts);
    buf_free(&err);
    return rc;
}

/* One test point: s through gpu_bpe_encode_to gives the CPU's ids for every
 * document, then the same with one id less of room is refused. */
static void check(gpu_bpe *g, const tokenizer *t, const doc_set *s, bool pinned, const char *what)
{
    tok_ids want = {0}, one = {0}, got = {0};
    size_t *want_end = calloc(s->n + 1, sizeof *want_end), *end = calloc(s->n + 1, sizeof *end);
    bpe_scratch scratch = {0};
    for (size_t d = 0; d < s->n; d++) {
        one.n = 0;
        tokenizer_encode(t, s->text[d], s->len[d], false, &scratch, &one);
        ids_reserve(&want, one.n);
        memcpy(want.ids + want.n, one.ids, one.n * sizeof *one.ids);
        want.n += one.n;
        want_end[d] = want.n;
    }
    int rc = encode_to(g, s, pinned, want.n, &got, end);
    bool same = rc == 0 && got.n == want.n && !memcmp(got.ids, want.ids, want.n * sizeof *want.ids) &&
                !memcmp(end, want_end, s->n * sizeof *end);
    ok(same, "%s/%s%s: %zu documents, %zu ids, written in place, identical to the CPU path (result %d)", t->name,
       what, pinned ? " (texts in page-locked memory)" : "", s->n, want.n, rc);
    if (want.n) {
        rc = encode_to(g, s, pinned, want.n - 1, &got, end);
        ok(rc == 1, "%s/%s%s: one id less of room is refused (result %d)", t->name, what, pinned ? " (pinned)" : "", rc);
    }
    ids_free(&want), ids_free(&one), ids_free(&got), bpe_scratch_free(&scratch);
    free(want_end), free(end);
}

int main(void)
{
    wbuf err = WBUF_INIT;
    tokenizer t;
    load_tok(&t, GPU_ENCODINGS[0].name, GPU_ENCODINGS[0].file);
    gpu_bpe *probe = gpu_bpe_open(&t, GPU_BPE_EMULATE, &err);
    tokenizer_free(&t);
    if (!probe) {
        printf("1..0 # SKIP %s\n", err.data);
        buf_free(&err);
        return 0;
    }
    gpu_bpe_close(probe);
    /* rare ways: a piece of 300 letters (long, merged on the host), 5 MB of
     * one letter (longer than a batch, no safe cut: the host encodes it),
     * 9 MB of words (cut into segments of several batches), empty ones */
    enum { LONG_PIECE = 300, NO_CUT = 5 << 20, WORDS = 9 << 20 };
    wbuf longp = WBUF_INIT, nocut = WBUF_INIT, words = WBUF_INIT;
    buf_puts(&longp, "before ");
    for (int i = 0; i < LONG_PIECE; i++) buf_putc(&longp, (char)('a' + i * 7 % 26));
    buf_puts(&longp, " after");
    for (int i = 0; i < NO_CUT; i++) buf_putc(&nocut, 'x');
    for (int i = 0; words.len < WORDS; i++) buf_puts(&words, i % 9 ? "word " : "Numbers 12345, and more. ");
    for (size_t e = 0; e < 2; e++) { /* gpt2 and cl100k_base */
        load_tok(&t, GPU_ENCODINGS[e].name, GPU_ENCODINGS[e].file);
        gpu_bpe *g = gpu_bpe_open(&t, GPU_BPE_EMULATE, &err);
        if (!g || gpu_bpe_tune(g, CHUNK_BYTES, SMALL_BATCH, true, &err)) {
            printf("Bail out! %s\n", err.data);
            return 1;
        }
        static const char *const corpora[] = {"edge", "multi"};
        for (int c = 0; c < 2; c++) {
            tok_corpus corpus;
            corpus_load(&corpus, corpora[c]);
            doc_set s = {0};
            docs_from_corpus(&s, &corpus, c == 0 ? 1 : MULTI_STRIDE);
            check(g, &t, &s, false, corpora[c]);
            check(g, &t, &s, true, corpora[c]);
            docs_free(&s);
            corpus_free(&corpus);
        }
        doc_set rare = {0};
        docs_add(&rare, "", 0);
        docs_add(&rare, longp.data, longp.len);
        docs_add(&rare, nocut.data, nocut.len);
        docs_add(&rare, "", 0);
        docs_add(&rare, words.data, words.len);
        docs_add(&rare, longp.data, longp.len);
        check(g, &t, &rare, false, "long piece, 5 MB without a cut, 9 MB of words, empty");
        docs_free(&rare);
        gpu_bpe_close(g);
        tokenizer_free(&t);
    }
    buf_free(&longp), buf_free(&nocut), buf_free(&words), buf_free(&err);
    return done_testing();
}
