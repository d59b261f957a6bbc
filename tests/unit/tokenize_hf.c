/* tokenize_hf.c - the 12 real Hugging Face tokenizer.json files of
 * $SHARED/vocab/hf against Hugging Face tokenizers 0.23.2 itself: every
 * document of tokref multi, edge and blns, ids compared with
 * $SHARED/tokref/hf/CORPUS.NAME.bin.zst (encode(text, add_special_tokens=
 * false), which matches added tokens written in the text: allow_special).
 * A file that does not load fails its tests. */
#include "tests/unit/tokenize_corpus.h"
#include "tokenize/tokenizer.h"

/* Compares every document of corpus_name; prints the first differences. */
static void check(const tokenizer *t, const char *name, const char *corpus_name, const char *ref_name)
{
    tok_corpus c;
    tok_reference r;
    corpus_load(&c, corpus_name);
    char path[1024];
    snprintf(path, sizeof path, "%s/tokref/hf/%s.%s.bin.zst", shared_dir(), corpus_name, ref_name);
    size_t bytes;
    r.data = (uint32_t *)slurp_zstd(path, &bytes);
    r.n = bytes / 4;
    r.start = malloc((size_t)(c.ndocs + 1) * sizeof *r.start);
    r.ndocs = 0;
    for (size_t i = 0; i < r.n && r.ndocs < c.ndocs + 1; i += 1 + r.data[i]) r.start[r.ndocs++] = i;
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    int bad = 0;
    size_t ntokens = 0;
    for (int d = 0; d < c.ndocs && d < r.ndocs; d++) {
        ids.n = 0;
        tokenizer_encode(t, c.text + c.off[d], c.len[d], true, &scratch, &ids);
        const uint32_t *want = r.data + r.start[d] + 1;
        size_t nwant = r.data[r.start[d]];
        ntokens += ids.n;
        if (ids.n == nwant && (!nwant || !memcmp(ids.ids, want, nwant * sizeof *want))) continue;
        if (bad++ < 3) {
            size_t k = 0;
            while (k < ids.n && k < nwant && ids.ids[k] == want[k]) k++;
            diag("%s %s doc %d: %zu ids, want %zu; first difference at id %zu: got %u want %u", name,
                 corpus_name, d, ids.n, nwant, k, k < ids.n ? ids.ids[k] : 0, k < nwant ? want[k] : 0);
        }
    }
    ok(bad == 0 && r.ndocs == c.ndocs,
            "%s on %s: %d documents, %zu ids identical to HF tokenizers (%d differ, %d references)", name,
            corpus_name, c.ndocs, ntokens, bad, r.ndocs);
    ids_free(&ids);
    bpe_scratch_free(&scratch);
    corpus_free(&c);
    reference_free(&r);
}

int main(void)
{
    /* name, and the reference it shares (the MANIFEST: llama3_1 == llama3 and
     * qwen3 == qwen2_5 on all three corpora) */
    static const struct {
        const char *name, *ref;
    } files[] = {
        {"command_r_plus", "command_r_plus"},
        {"deepseek_v3", "deepseek_v3"},
        {"gemma2", "gemma2"},
        {"gemma3", "gemma3"},
        {"gpt2", "gpt2"},
        {"gpt4o", "gpt4o"},
        {"llama2", "llama2"},
        {"llama3", "llama3"},
        {"llama3_1", "llama3"},
        {"mistral_nemo", "mistral_nemo"},
        {"qwen2_5", "qwen2_5"},
        {"qwen3", "qwen2_5"},
    };
    static const char *corpora[] = {"edge", "blns", "multi"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/vocab/hf/%s.tokenizer.json.zst", shared_dir(), files[i].name);
        size_t n;
        char *json = slurp_zstd(path, &n);
        tokenizer t;
        wbuf err = WBUF_INIT;
        int rc = tokenizer_load_mem(&t, NULL, json, n, -1, &err);
        free(json);
        ok(rc == 0, "%s loads%s%s", files[i].name, rc ? ": " : "", rc ? err.data : "");
        buf_free(&err);
        if (rc) {
            for (size_t k = 0; k < sizeof corpora / sizeof corpora[0]; k++)
                ok(0, "%s on %s: not loaded", files[i].name, corpora[k]);
            continue;
        }
        for (size_t k = 0; k < sizeof corpora / sizeof corpora[0]; k++)
            check(&t, files[i].name, corpora[k], files[i].ref);
        tokenizer_free(&t);
    }
    return done_testing();
}
