/* gpu_bpe_host_refused.c - a stretch of a document with no safe cut within
 * a batch is encoded on the host by tokenizer_encode; when that fails (a
 * tokenizer.json regex PCRE2 cannot finish: tokenizer.h), the GPU call
 * fails with PCRE2's reason, rather than give the stretch's ids as one
 * unsplit piece, and no device is retired for it: the next call encodes on
 * the same device. No pipeline the GPU takes runs PCRE2 on the host today
 * (its pre-tokenizers are scanners), so the test gives Qwen 3's Split step
 * its pattern's PCRE2 form (which hf_gpu_plan_of also accepts) with the
 * host regex (a+)+b, which backtracks past PCRE2's limits on a long run of
 * a (the device still scans Qwen's pattern). In the host emulation, so it
 * runs wherever CUDA was built in, GPU or not. */
#include "tests/unit/gpu_bpe_check.h"
#include "tokenize/hf_pipeline.h"

#define SMALL_BATCH ((size_t)4 << 20)
#define RUN_BYTES ((size_t)5 << 20) /* one letter run longer than a batch: no safe cut, to the host */
#define HOST_REGEX "(a+)+b"

static void load_qwen3(tokenizer *t)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vocab/hf/qwen3.tokenizer.json.zst", shared_dir());
    require_file(path);
    size_t n;
    char *json = slurp_zstd(path, &n);
    wbuf err = WBUF_INIT;
    if (tokenizer_load_mem(t, NULL, json, n, -1, &err)) {
        printf("Bail out! qwen3: %s\n", err.data);
        exit(1);
    }
    free(json);
    buf_free(&err);
}

/* Makes t's Split step run HOST_REGEX through PCRE2 on the host. */
static void host_regex(tokenizer *t)
{
    hf_pretok_step *st = &t->hf->pre[0];
    wbuf err = WBUF_INIT;
    pcre2_code *re = hf_regex_compile(HOST_REGEX, strlen(HOST_REGEX), NULL, &err);
    if (st->kind != HP_SPLIT || !st->re || !re) {
        printf("Bail out! qwen3's first pre-tokenizer is not a Split by regex %s\n", err.data ? err.data : "");
        exit(1);
    }
    pcre2_code_free(st->re);
    if (st->re_fast) pcre2_code_free(st->re_fast); /* Qwen's pattern without onig's newer characters */
    st->re = re;
    st->re_fast = NULL;
    st->match = HM_REGEX;
    buf_free(&err);
}

/* Whether call ids hold exactly Qwen 3's ids of "Hello world" twice. */
static bool hello_twice(const tok_ids *ids, const size_t *end)
{
    static const uint32_t want[] = {9707, 1879, 9707, 1879};
    return ids->n == 4 && end[0] == 2 && end[1] == 4 && !memcmp(ids->ids, want, sizeof want);
}

int main(void)
{
    tokenizer t;
    load_qwen3(&t);
    wbuf err = WBUF_INIT;
    gpu_bpe *probe = gpu_bpe_open(&t, GPU_BPE_EMULATE, &err);
    if (!probe) {
        printf("1..0 # SKIP %s\n", err.data);
        buf_free(&err);
        tokenizer_free(&t); /* SANITIZE=1 builds have no CUDA: LeakSanitizer checks this path */
        return 0;
    }
    gpu_bpe_close(probe);
    host_regex(&t);
    buf_clear(&err);
    gpu_bpe *g = gpu_bpe_open(&t, GPU_BPE_EMULATE, &err);
    ok(g && !gpu_bpe_tune(g, 0, SMALL_BATCH, true, &err), "the GPU takes the pipeline with a PCRE2 Split%s%s",
       g ? "" : ": ", g ? "" : err.data);
    if (!g) {
        buf_free(&err);
        tokenizer_free(&t);
        return done_testing();
    }

    char *run = malloc(RUN_BYTES + 3);
    memset(run, 'a', RUN_BYTES);
    memcpy(run + RUN_BYTES, "c b", 3);
    const char *texts[] = {"Hello world", run, "Hello world"};
    size_t lens[] = {11, RUN_BYTES + 3, 11}, end[3];
    tok_ids ids = {0};
    buf_clear(&err);
    int rc = gpu_bpe_encode(g, texts, lens, 3, &ids, end, &err);
    ok(rc == -1, "a call with the run fails (rc %d)", rc);
    ok(err.data && strstr(err.data, "could not encode a document's") && strstr(err.data, "(PCRE2: "),
       "... saying the host could not encode it, with PCRE2's reason: %s", err.data ? err.data : "");
    ok(err.data && !strstr(err.data, "no longer uses"), "... not retiring the device");
    ok(gpu_bpe_wait_devices(g) == 1, "the device is still usable");
    const char *good[] = {"Hello world", "Hello world"};
    size_t good_lens[] = {11, 11};
    ids.n = 0;
    buf_clear(&err);
    ok(gpu_bpe_encode(g, good, good_lens, 2, &ids, end, &err) == 0 && hello_twice(&ids, end),
       "the next call encodes on it, with Qwen 3's ids");

    /* a call that leaves its batches in flight: the failure comes with it or with gpu_bpe_finish */
    ids.n = 0;
    buf_clear(&err);
    rc = gpu_bpe_encode_begin(g, texts, lens, 3, false, &ids, end, NULL, &err);
    if (!rc) rc = gpu_bpe_finish(g, &err);
    ok(rc == -1 && strstr(err.data, "(PCRE2: "), "an overlapped call with the run fails too (begin or finish)");
    ids.n = 0;
    buf_clear(&err);
    ok(gpu_bpe_encode_begin(g, good, good_lens, 2, false, &ids, end, NULL, &err) == 0 && gpu_bpe_finish(g, &err) == 0 &&
           hello_twice(&ids, end),
       "... and the next one succeeds on the same device");

    ids_free(&ids);
    free(run);
    buf_free(&err);
    gpu_bpe_close(g);
    tokenizer_free(&t);
    return done_testing();
}
