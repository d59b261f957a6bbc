/* tokenize_bpe.c - the two merge methods agree (array scan for short pieces,
 * heap for long ones) on real text; pathological inputs (1 MB of one letter,
 * a 1 MB base64 blob) encode and decode back; the vocabulary loaders reject
 * malformed files with a message. */
#include <openssl/evp.h>

#include "tests/unit/tokenize_corpus.h"
#include "core/util.h"
#include "tokenize/tokenizer.h"
#include "tokenize/vocab_load.h"

#define BLOB_BYTES (1 << 20)
#define SAMPLES 20000
#define BASE64_LINE 76

static void load(tokenizer *t, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vocab/tiktoken/%s.tiktoken", shared_dir(), name);
    wbuf err = WBUF_INIT;
    if (tokenizer_load(t, name, path, -1, &err)) {
        printf("Bail out! %s\n", err.data);
        exit(1);
    }
    buf_free(&err);
}

/* Byte strings of every length 2..BPE_CPU_SCAN_MAX cut from the corpus at
 * pseudo-random places (not piece boundaries, so merges cross words too). */
static void scan_equals_heap(const tokenizer *t, const tok_corpus *c)
{
    bpe_scratch scratch = {0};
    tok_ids a = {0}, b = {0};
    uint64_t x = 88172645463325252ull;
    int bad = 0;
    for (int i = 0; i < SAMPLES; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = 2 + x % (BPE_CPU_SCAN_MAX - 1);
        size_t off = (x >> 20) % (c->size - len);
        a.n = b.n = 0;
        bpe_encode_piece(&t->vocab, (const uint8_t *)c->text + off, len, &scratch, &a);
        bpe_encode_piece_heap(&t->vocab, (const uint8_t *)c->text + off, len, &scratch, &b);
        if (a.n != b.n || memcmp(a.ids, b.ids, a.n * sizeof *a.ids)) bad++;
    }
    ok(bad == 0, "%s: scan and heap merges agree on %d byte strings (%d differ)", t->name, SAMPLES, bad);
    ids_free(&a);
    ids_free(&b);
    bpe_scratch_free(&scratch);
}

/* Encodes text, checks it decodes back, reports the time. */
static void round_trip(const tokenizer *t, const char *what, const char *text, size_t n)
{
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    wbuf back = WBUF_INIT;
    double t0 = now_seconds();
    tokenizer_encode(t, text, n, false, &scratch, &ids);
    double secs = now_seconds() - t0;
    tokenizer_decode(t, ids.ids, ids.n, &back);
    ok(back.len == n && !memcmp(back.data, text, n), "%s: %s (%zu bytes) -> %zu ids decodes back", t->name, what, n,
       ids.n);
    diag("%s: %s encoded in %.3f s", t->name, what, secs);
    ids_free(&ids);
    buf_free(&back);
    bpe_scratch_free(&scratch);
}

static void pathological(const tokenizer *t)
{
    char *s = malloc(BLOB_BYTES);
    memset(s, 'a', BLOB_BYTES);
    round_trip(t, "1 MB of 'a'", s, BLOB_BYTES);
    /* base64 of pseudo-random bytes, without line breaks: one long piece mix */
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    uint64_t x = 0x2545F4914F6CDD1Dull;
    for (size_t i = 0; i < BLOB_BYTES; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        s[i] = alphabet[x % 64];
    }
    round_trip(t, "a 1 MB base64 blob", s, BLOB_BYTES);
    free(s);
}

static void bad_files(void)
{
    static const struct {
        const char *text, *why;
    } tiktoken_cases[] = {
        {"YQ== 0\nYg== x\n", "bad rank"},
        {"YQ== 0\nYQ== 1\n", "given twice"},
        {"YQ==0\n", "expected"},
        {"Y!== 0\n", "bad base64"},
        {"", "no tokens"},
        /* each damage named by its line: blank lines count, a repeat is named where it is */
        {"YQ== 0\n\nYg== 1\nYQ== 2\nYw== 3\n", "line 4: token or rank 2 given twice"},
        {"YQ== 0\nYg== 0\nYw== 2\n", "line 2: token or rank 0 given twice"},
        {"YQ== 0\n\r\n\nYg== x\n", "line 4: bad rank"},
        {"YQ== 0\nYg== \n", "line 2: bad rank"}, /* tiktoken: line.split() gives one field */
        /* not canonical base64: EVP_DecodeBlock reads '=' inside as zero bits, Python's
         * b64decode (tiktoken's) stops at the first padding or refuses */
        {"YQ== 0\nYQ==YQ== 1\n", "line 2: bad base64"},
        {"YQ=A 0\n", "line 1: bad base64"},
        {"Y=== 0\n", "line 1: bad base64"},
        {"=QQA 0\n", "line 1: bad base64"},
        {"\tYW= 0\n", "line 1: bad base64"},
    };
    for (size_t i = 0; i < sizeof tiktoken_cases / sizeof tiktoken_cases[0]; i++) {
        tok_vocab v;
        vocab_init(&v);
        wbuf err = WBUF_INIT;
        int rc = vocab_parse_tiktoken(&v, tiktoken_cases[i].text, strlen(tiktoken_cases[i].text), &err);
        ok(rc == -1 && err.data && strstr(err.data, tiktoken_cases[i].why), "tiktoken file %zu rejected: %s", i,
           err.data ? err.data : "(accepted)");
        buf_free(&err);
        vocab_free(&v);
    }
    /* the 256 single bytes as a tiktoken file, then without byte 255 (the last line): whole it loads,
     * short of one byte it is refused (a text with that byte could not be encoded) */
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    wbuf bytes = WBUF_INIT;
    for (int b = 0; b < 256; b++) buf_printf(&bytes, "%c%c== %d\n", b64[b >> 2], b64[(b & 3) << 4], b);
    size_t without_last = bytes.len - strlen("/w== 255\n");
    for (int whole = 1; whole >= 0; whole--) {
        tokenizer t;
        wbuf err = WBUF_INIT;
        int rc = tokenizer_load_mem(&t, "gpt2", bytes.data, whole ? bytes.len : without_last, -1, &err);
        if (whole) ok(rc == 0, "a tiktoken file of the 256 single bytes loads: %s", err.data ? err.data : "");
        else ok(rc == -1 && err.data && strstr(err.data, "not every single byte"), "without byte 255 it is refused: %s",
                err.data ? err.data : "(accepted)");
        if (!rc) tokenizer_free(&t);
        buf_free(&err);
    }
    buf_free(&bytes);
    /* the longest token winnow takes is 4096 bytes, whose base64 ends in padding; one byte more is
     * refused with the limit named (not as bad base64) */
    for (size_t token_len = 4096; token_len <= 4097; token_len++) {
        unsigned char raw[4097];
        memset(raw, 'a', sizeof raw);
        char line[8192];
        int n = EVP_EncodeBlock((unsigned char *)line, raw, (int)token_len);
        snprintf(line + n, sizeof line - (size_t)n, " 0\n");
        tok_vocab v;
        vocab_init(&v);
        wbuf err = WBUF_INIT;
        int rc = vocab_parse_tiktoken(&v, line, strlen(line), &err);
        if (token_len == 4096) ok(rc == 0, "a token of 4096 bytes loads: %s", err.data ? err.data : "");
        else ok(rc == -1 && err.data && strstr(err.data, "line 1: token of more than 4096 bytes"),
                "a token of 4097 bytes is refused: %s", err.data ? err.data : "(accepted)");
        buf_free(&err);
        vocab_free(&v);
    }
    /* tokenizer.json files the loader refuses, each naming where */
    static const struct {
        const char *text, *why;
    } json_cases[] = {
        {"{\"model\":{\"type\":\"Unigram\",\"vocab\":[]}}", "model.unk_id"},
        {"{\"model\":{\"type\":\"WordLevel\",\"vocab\":{}}}", "model.unk_token"},
        {"{\"model\":{\"type\":\"Unknown\",\"vocab\":{}}}", "model.type"},
        {"{\"model\":{\"type\":\"WordPiece\",\"unk_token\":\"[UNK]\",\"vocab\":{}}}", "model.unk_token"},
        {"{\"pre_tokenizer\":{\"type\":\"UnicodeScripts\"},\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}",
         "pre_tokenizer.type"},
        {"{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Digits\",\"individual_digits\":false},{\"type\":\"CharDelimiterSplit\"}]},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}",
         "pre_tokenizer.pretokenizers[1].delimiter"},
        {"{\"pre_tokenizer\":{\"type\":\"Split\",\"pattern\":{\"Regex\":\"\\\\h+\"},\"behavior\":\"Isolated\",\"invert\":false},"
         "\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}",
         "pre_tokenizer.pattern.Regex"},
        {"{\"normalizer\":{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"\"},\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}",
         "normalizer.precompiled_charsmap"},
        {"{\"normalizer\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}",
         "normalizer.type"},
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true},\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[\"a b\"]}}",
         "model.merges[0]"},
        {"{\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true},\"model\":{\"type\":\"Unigram\",\"unk_id\":0,\"vocab\":[[\"a\",0]]}}",
         "model.type: Unigram after a ByteLevel"},
        {"{\"model\":{\"vocab\":{\"a\":0},\"continuing_subword_prefix\":\"##\",\"max_input_chars_per_word\":9}}",
         "model: no type"}, /* neither WordPiece (no unk_token) nor WordLevel: HF refuses it too */
        {"{\"model\":{\"type\":null,\"vocab\":{},\"merges\":[]}}", "model.type: not a string"},
        {"{\"model\":{\"type\":\"BPE\",\"dropout\":0.1,\"vocab\":{},\"merges\":[]}}", "model.dropout"},
        {"{\"model\":{\"type\":\"BPE\",\"continuing_subword_prefix\":7,\"vocab\":{},\"merges\":[]}}",
         "model.continuing_subword_prefix: not a string"},
        {"{\"model\":{\"type\":\"BPE\",\"unk_token\":\"<unk>\",\"vocab\":{},\"merges\":[]}}", "model.unk_token"},
        {"{\"version\":\"2.0\",\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}", "version"},
        {"{\"model\":[[[[", "byte "},
        {"{\"\":0}", "\"\": not a member"}, /* an empty key once crashed the reader (found by fuzzing); HF refuses it */
        {"{\"x\":[\0]}", "byte "}, /* a NUL byte inside a value once looped forever (found by fuzzing) */
    };
    for (size_t i = 0; i < sizeof json_cases / sizeof json_cases[0]; i++) {
        tokenizer t;
        wbuf err = WBUF_INIT;
        size_t len = strlen(json_cases[i].text);
        if (!strncmp(json_cases[i].text, "{\"x\":[", 7)) len = 9;
        int rc = tokenizer_load_mem(&t, NULL, json_cases[i].text, len, -1, &err);
        ok(rc == -1 && err.data && strstr(err.data, json_cases[i].why), "tokenizer.json %zu refused, naming %s: %s", i,
           json_cases[i].why, err.data ? err.data : "(accepted)");
        if (!rc) tokenizer_free(&t);
        buf_free(&err);
    }
}

int main(void)
{
    tok_corpus c;
    corpus_load(&c, "multi");
    static const char *names[] = {"cl100k_base", "o200k_base"};
    for (int i = 0; i < 2; i++) {
        tokenizer t;
        load(&t, names[i]);
        scan_equals_heap(&t, &c);
        pathological(&t);
        tokenizer_free(&t);
    }
    corpus_free(&c);
    bad_files();
    return done_testing();
}
