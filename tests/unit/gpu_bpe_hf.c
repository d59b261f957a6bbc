/* gpu_bpe_hf.c - the GPU tokenizer on the 12 real tokenizer.json files of
 * $SHARED/vocab/hf. The 7 whose pipelines the device implements exactly
 * (byte-level BPE behind GPT-2's, Llama 3's, GPT-4o's, Qwen's or Tekken's
 * pattern; no normalizer or NFC) give ids identical to the CPU path (the
 * reference, itself exact with HF tokenizers: tokenize_hf.c) on tokref
 * edge, blns and multi; the other 5 are refused, naming the stage, and so are
 * real files with one setting the device cannot do written in (ByteLevel's
 * add_prefix_space, byte_fallback, a normalizer other than NFC).
 * By default the device code runs in the host emulation (make test, no GPU
 * needed: every edge and blns document, every 4th of multi); with
 * GPU_BPE_HF=device, on the GPU: every document of the three, en_code, the
 * test vectors, adversarial and random text in 20 scripts (gpu_bpe_check.h),
 * and in both modes each token of the vocabulary as a document, random
 * bytes and random text (combining marks too), and a small vocabulary whose
 * merge ranks disagree with its ids,
 * and for Qwen 2.5 documents longer than a batch. */
#include "tests/unit/gpu_bpe_check.h"
#include "tokenize/hf_gpu.h"

#define MULTI_STRIDE_EMULATED 4
#define EN_CODE_STRIDE_DEVICE 10

static const struct {
    const char *name;
    const char *refused; /* NULL: the GPU encodes it; else the stage its refusal names */
} FILES[] = {
    {"gpt2", NULL},
    {"gpt4o", NULL},
    {"llama3", NULL},
    {"llama3_1", NULL},
    {"mistral_nemo", NULL},
    {"qwen2_5", NULL},
    {"qwen3", NULL},
    {"command_r_plus", "pre_tokenizer"},
    {"deepseek_v3", "pre_tokenizer"},
    {"gemma2", "normalizer"},
    {"gemma3", "normalizer"},
    {"llama2", "normalizer"},
};

static void load_hf_file(tokenizer *t, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vocab/hf/%s.tokenizer.json.zst", shared_dir(), name);
    require_file(path);
    size_t n;
    char *json = slurp_zstd(path, &n);
    wbuf err = WBUF_INIT;
    if (tokenizer_load_mem(t, NULL, json, n, -1, &err)) {
        printf("Bail out! %s: %s\n", name, err.data);
        exit(1);
    }
    snprintf(t->name, sizeof t->name, "%s", name);
    free(json);
    buf_free(&err);
}

/* Every token of the vocabulary as a document: the pieces that are tokens
 * (ignore_merges takes them whole; without it, GPT-2's and Qwen's
 * merges cannot make some of them) and words whose merges by pair rank
 * differ from merges by the rank of the joined string. */
static void compare_tokens(gpu_bpe *g, const tokenizer *t)
{
    doc_set s = {0};
    for (uint32_t id = 0; id < t->vocab.nids; id++) {
        size_t len;
        const uint8_t *tok = vocab_token_bytes(&t->vocab, id, &len);
        if (tok && len) docs_add(&s, (const char *)tok, len);
    }
    compare(g, t, &s, "each token as a document");
    docs_free(&s);
}

/* Random bytes (invalid UTF-8 among valid characters) and random text in
 * each script block of gpu_bpe_check.h, combining marks (which NFC
 * composes) included, a document per block. */
static void compare_random(gpu_bpe *g, const tokenizer *t)
{
    enum { NOISE = 65536, SCRIPT_BYTES = 4000 };
    size_t nblocks = sizeof SCRIPT_BLOCKS / sizeof SCRIPT_BLOCKS[0];
    wbuf *text = calloc(nblocks + 1, sizeof *text);
    uint64_t seed = 0x2545F4914F6CDD1Dull;
    doc_set s = {0};
    for (int i = 0; i < NOISE; i++) buf_putc(&text[nblocks], (char)(next_random(&seed) & 0xFF));
    docs_add(&s, text[nblocks].data, text[nblocks].len);
    for (size_t i = 0; i < nblocks; i++) {
        random_script_text(&text[i], SCRIPT_BLOCKS[i][0], SCRIPT_BLOCKS[i][1], SCRIPT_BYTES, &seed);
        docs_add(&s, text[i].data, text[i].len);
    }
    compare(g, t, &s, "random bytes, random text in 20 script blocks");
    for (size_t i = 0; i <= nblocks; i++) buf_free(&text[i]);
    free(text), docs_free(&s);
}

/* A byte-level BPE whose merge order differs from its id order: "a b"
 * (rank 0) makes id 257, "b c" (rank 1) makes id 256. HF joins by pair
 * rank, so "abc" is [257, 'c']; joining the lowest id first (tiktoken's
 * rule with rank == id) would give ['a', 256]. ignore_merges: false, so
 * "ac", a token no merge makes, is ['a', 'c']. */
static void check_pair_rank(gpu_bpe_mode mode)
{
    wbuf json = WBUF_INIT, err = WBUF_INIT;
    buf_puts(&json, "{\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true},"
                    "\"model\":{\"type\":\"BPE\",\"vocab\":{");
    int next = 256;
    for (int b = 0; b < 256; b++) { /* GPT-2's byte alphabet: printable bytes are themselves */
        bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        uint32_t cp = printable ? (uint32_t)b : (uint32_t)next++;
        buf_puts(&json, "\"");
        if (cp == '"' || cp == '\\') buf_putc(&json, '\\');
        put_utf8(&json, cp);
        buf_printf(&json, "\":%d,", b);
    }
    buf_puts(&json, "\"bc\":256,\"ab\":257,\"ac\":258},\"merges\":[\"a b\",\"b c\"]}}");
    tokenizer t;
    if (tokenizer_load_mem(&t, NULL, json.data, json.len, -1, &err)) {
        ok(0, "pair-rank vocabulary: %s", err.data);
        buf_free(&json), buf_free(&err);
        return;
    }
    snprintf(t.name, sizeof t.name, "pair-rank test vocabulary");
    gpu_bpe *g = gpu_bpe_open(&t, mode, &err);
    if (g) {
        const char *text[] = {"abc", "ac", " abcabc abc ac"};
        size_t len[] = {3, 2, 14}, end[3];
        tok_ids got = {0};
        int rc = gpu_bpe_encode(g, text, len, 1, &got, end, &err);
        ok(rc == 0 && got.n == 2 && got.ids[0] == 257 && got.ids[1] == 'c',
           "merges by pair rank: \"abc\" is [257, 99] (got %zu ids: %u, %u)", got.n, got.n ? got.ids[0] : 0,
           got.n > 1 ? got.ids[1] : 0);
        got.n = 0;
        rc = gpu_bpe_encode(g, text + 1, len + 1, 1, &got, end, &err);
        ok(rc == 0 && got.n == 2 && got.ids[0] == 'a' && got.ids[1] == 'c',
           "a token no merge makes is not taken whole: \"ac\" is [97, 99] (got %zu ids: %u, %u)", got.n,
           got.n ? got.ids[0] : 0, got.n > 1 ? got.ids[1] : 0);
        doc_set s = {0};
        for (int i = 0; i < 3; i++) docs_add(&s, text[i], len[i]);
        compare(g, &t, &s, "abc");
        docs_free(&s), ids_free(&got);
        gpu_bpe_close(g);
    } else {
        ok(0, "pair-rank vocabulary: %s", err.data);
    }
    tokenizer_free(&t);
    buf_free(&json), buf_free(&err);
}

/* A real tokenizer.json with one setting the device cannot do written in
 * (the first occurrence of from becomes to): refused, naming stage. */
static void check_variant_refused(const char *name, const char *from, const char *to, const char *stage)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vocab/hf/%s.tokenizer.json.zst", shared_dir(), name);
    require_file(path);
    size_t n;
    char *json = slurp_zstd(path, &n);
    const char *at = strstr(json, from);
    wbuf text = WBUF_INIT, err = WBUF_INIT, why = WBUF_INIT;
    if (!at) {
        ok(0, "%s: no %s to change", name, from);
        free(json);
        return;
    }
    buf_append(&text, json, (size_t)(at - json));
    buf_puts(&text, to);
    buf_puts(&text, at + strlen(from));
    tokenizer t;
    if (tokenizer_load_mem(&t, NULL, text.data, text.len, -1, &err)) {
        ok(0, "%s with %s: %s", name, to, err.data);
    } else {
        hf_gpu_plan plan;
        bool eligible = hf_gpu_plan_of(t.hf, &t.vocab, &plan, &why);
        ok(!eligible && why.data && !strncmp(why.data, stage, strlen(stage)), "%s with %s runs on the CPU: %s", name,
           to, why.data ? why.data : "(accepted)");
        tokenizer_free(&t);
    }
    free(json);
    buf_free(&text), buf_free(&err), buf_free(&why);
}

/* Every stride-th document of tokref corpus name. */
static void compare_corpus(gpu_bpe *g, const tokenizer *t, const char *name, int stride)
{
    tok_corpus c;
    corpus_load(&c, name);
    doc_set s = {0};
    docs_from_corpus(&s, &c, stride);
    compare(g, t, &s, name);
    docs_free(&s);
    corpus_free(&c);
}

int main(void)
{
    const char *mode_env = getenv("GPU_BPE_HF");
    bool device = mode_env && !strcmp(mode_env, "device");
    wbuf err = WBUF_INIT, why = WBUF_INIT;
    if (device && !gpu_bpe_usable(&why)) {
        printf("Bail out! GPU_BPE_HF=device: %s\n", why.data);
        return 1;
    }
    gpu_bpe_mode mode = device ? GPU_BPE_DEVICE : GPU_BPE_EMULATE;
    bool emulated = true;
    for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
        if (device && FILES[f].refused) continue; /* CPU-side logic, checked by make test */
        tokenizer t;
        load_hf_file(&t, FILES[f].name);
        hf_gpu_plan plan;
        buf_clear(&why);
        bool eligible = hf_gpu_plan_of(t.hf, &t.vocab, &plan, &why);
        if (FILES[f].refused) {
            ok(!eligible && why.data && !strncmp(why.data, FILES[f].refused, strlen(FILES[f].refused)),
               "%s runs on the CPU: %s", FILES[f].name, why.data ? why.data : "(accepted)");
            tokenizer_free(&t);
            continue;
        }
        ok(eligible, "%s runs on the GPU%s", FILES[f].name, eligible ? "" : why.data);
        buf_clear(&err);
        gpu_bpe *g = emulated ? gpu_bpe_open(&t, mode, &err) : NULL;
        if (!g && !device && f == 0) { /* a build without CUDA: nothing emulates the device code */
            printf("# SKIP the device code: %s\n", err.data);
            emulated = false;
        }
        if (!emulated) {
            tokenizer_free(&t);
            continue;
        }
        if (!g) {
            ok(0, "%s: %s", FILES[f].name, err.data);
            tokenizer_free(&t);
            continue;
        }
        compare_tokens(g, &t);
        compare_random(g, &t);
        compare_corpus(g, &t, "edge", 1);
        compare_corpus(g, &t, "blns", 1);
        compare_corpus(g, &t, "multi", device ? 1 : MULTI_STRIDE_EMULATED);
        if (device) compare_all(g, &t, 1, EN_CODE_STRIDE_DEVICE, !strcmp(FILES[f].name, "qwen2_5"));
        gpu_bpe_close(g);
        tokenizer_free(&t);
    }
    if (emulated) check_pair_rank(mode);
    check_variant_refused("gpt2", "\"add_prefix_space\": false", "\"add_prefix_space\": true", "pre_tokenizer");
    check_variant_refused("gpt2", "\"byte_fallback\": false", "\"byte_fallback\": true", "model");
    check_variant_refused("qwen2_5", "\"type\": \"NFC\"", "\"type\": \"NFKC\"", "normalizer");
    check_variant_refused("qwen2_5", "\"type\": \"NFC\"", "\"type\": \"Lowercase\"", "normalizer");
    buf_free(&err), buf_free(&why);
    return done_testing();
}
