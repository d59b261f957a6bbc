/* tokenize_exact.c - token ids against tiktoken's own output: every document
 * of tokref edge and multi for gpt2, cl100k_base, o200k_base and llama3, and
 * en_code (every 25th document; all with FULL=1) for cl100k_base and
 * o200k_base. The vocabularies come from $SHARED/vocab. */
#include "tests/unit/tokenize_corpus.h"
#include "tokenize/tokenizer.h"

#define EN_CODE_STRIDE 25

static void load(tokenizer *t, const char *name, const char *file)
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

/* Compares every stride-th document; prints the first differences. */
static void check(const tokenizer *t, const char *corpus_name, const char *ref_name, int stride)
{
    tok_corpus c;
    tok_reference r;
    corpus_load(&c, corpus_name);
    reference_load(&r, corpus_name, ref_name);
    is_int(r.ndocs, c.ndocs, "%s: reference %s has one entry per document", corpus_name, ref_name);
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    int bad = 0, checked = 0;
    size_t ntokens = 0;
    for (int d = 0; d < c.ndocs && d < r.ndocs; d += stride) {
        ids.n = 0;
        tokenizer_encode(t, c.text + c.off[d], c.len[d], false, &scratch, &ids);
        const uint32_t *want = r.data + r.start[d] + 1;
        size_t nwant = r.data[r.start[d]];
        checked++;
        ntokens += ids.n;
        if (ids.n == nwant && !memcmp(ids.ids, want, nwant * sizeof *want)) continue;
        if (bad++ < 3) {
            size_t k = 0;
            while (k < ids.n && k < nwant && ids.ids[k] == want[k]) k++;
            diag("%s doc %d: %zu ids, want %zu; first difference at id %zu: got %u want %u", corpus_name, d,
                 ids.n, nwant, k, k < ids.n ? ids.ids[k] : 0, k < nwant ? want[k] : 0);
        }
    }
    ok(bad == 0, "%s/%s: %d documents, %zu ids identical to tiktoken (%d differ)", corpus_name, ref_name, checked,
       ntokens, bad);
    ids_free(&ids);
    bpe_scratch_free(&scratch);
    corpus_free(&c);
    reference_free(&r);
}

int main(void)
{
    static const struct {
        const char *encoding, *file, *ref;
        int en_code;
    } encodings[] = {
        {"gpt2", "tiktoken/r50k_base.tiktoken", "gpt2", 0},
        {"cl100k_base", "tiktoken/cl100k_base.tiktoken", "cl100k_base", 1},
        {"o200k_base", "tiktoken/o200k_base.tiktoken", "o200k_base", 1},
        {"llama3", "llama3/tokenizer.model", "llama3", 0},
    };
    int stride = getenv("FULL") ? 1 : EN_CODE_STRIDE;
    for (size_t i = 0; i < sizeof encodings / sizeof encodings[0]; i++) {
        tokenizer t;
        load(&t, encodings[i].encoding, encodings[i].file);
        check(&t, "edge", encodings[i].ref, 1);
        check(&t, "multi", encodings[i].ref, 1);
        if (encodings[i].en_code) check(&t, "en_code", encodings[i].ref, stride);
        tokenizer_free(&t);
    }
    return done_testing();
}
