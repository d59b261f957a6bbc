/* tokenize_vectors.c - all 313 vectors of gpt-tokenizer's TestPlans.txt
 * (r50k_base, p50k_base, p50k_edit, cl100k_base, o200k_base; text encoded as
 * ordinary text), and decoding each back to its sample. */
#include "tests/unit/tokenize_corpus.h"
#include "tokenize/encoding.h"
#include "tokenize/tokenizer.h"

#define NVECTORS 313

static tokenizer *load(const char *name)
{
    static tokenizer cache[8];
    static int ncached;
    const encoding_info *e = encoding_find(name);
    if (!e) return NULL;
    for (int i = 0; i < ncached; i++)
        if (!strcmp(cache[i].name, e->name)) return &cache[i];
    char path[1024];
    snprintf(path, sizeof path, "%s/vocab/tiktoken/%s", shared_dir(), e->file);
    wbuf err = WBUF_INIT;
    if (tokenizer_load(&cache[ncached], name, path, -1, &err)) {
        printf("Bail out! %s\n", err.data);
        exit(1);
    }
    buf_free(&err);
    return &cache[ncached++];
}

/* Parses "[1, 2, 3]" into ids. */
static void parse_ids(const char *s, tok_ids *ids)
{
    ids->n = 0;
    for (const char *p = strchr(s, '[') + 1; *p && *p != ']';) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p) break;
        ids_push(ids, (uint32_t)v);
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
}

int main(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/gpt-tokenizer/TestPlans.txt", shared_dir());
    require_file(path);
    size_t n;
    char *text = slurp(path, &n);
    tok_ids want = {0}, got = {0};
    bpe_scratch scratch = {0};
    wbuf decoded = WBUF_INIT;
    int nvectors = 0, encode_bad = 0, decode_bad = 0;
    char *name = NULL, *sample = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "EncodingName: ", 14)) name = line + 14;
        else if (!strncmp(line, "Sample: ", 8) || !strcmp(line, "Sample:")) sample = line + (line[7] ? 8 : 7);
        else if (!strncmp(line, "Encoded: ", 9) && name && sample) {
            tokenizer *t = load(name);
            parse_ids(line, &want);
            got.n = 0;
            tokenizer_encode(t, sample, strlen(sample), false, &scratch, &got);
            nvectors++;
            if (got.n != want.n || (got.n && memcmp(got.ids, want.ids, got.n * sizeof *got.ids))) {
                if (encode_bad++ < 5) diag("%s: '%s': %zu ids, want %zu", name, sample, got.n, want.n);
            }
            buf_clear(&decoded);
            tokenizer_decode(t, want.ids, want.n, &decoded);
            if (decoded.len != strlen(sample) || (decoded.len && memcmp(decoded.data, sample, decoded.len)))
                decode_bad++;
            name = sample = NULL;
        }
    }
    is_int(nvectors, NVECTORS, "TestPlans.txt has %d vectors", NVECTORS);
    ok(encode_bad == 0, "all vectors encode to the expected ids (%d differ)", encode_bad);
    ok(decode_bad == 0, "all expected ids decode to the sample (%d differ)", decode_bad);
    free(text);
    ids_free(&want);
    ids_free(&got);
    bpe_scratch_free(&scratch);
    buf_free(&decoded);
    return done_testing();
}
