/* tokenize_hf_spm.c - tokenizer.json files converted from SentencePiece
 * unigram models (T5, mT5, XLM-R, ALBERT shapes: the Precompiled and Nmt
 * normalizers, Metaspace, Unigram) against Hugging Face tokenizers itself.
 * scripts/tokenize_hf_spm.py trained two models on UDHR text (nmt_nfkc,
 * nmt_nfkc_cf) and wrote them as T5Converter does;
 * tests/data/hf/spm/variants.tsv edits them into the other converters'
 * shapes; scripts/tokenize_hf_spm.js recorded HF's ids (npm
 * tokenizers@0.23.2) over every blns and edge document, every 8th multi
 * document, the start of each of the 532 UDHR translations and hand-made
 * corners and 2000 random short strings of characters from many blocks
 * (tests/data/hf/spm/texts.bin.zst). The reference keeps per text the id
 * count and a 32-bit hash of the ids (the full ids would be megabytes); a
 * text matches when both do. The random strings and the last corner hold
 * characters newer than the Unicode of the tables HF's NFC/NFD/NFKC/NFKD,
 * StripAccents and Punctuation use; winnow uses those versions too
 * (tokenize/hf_unicode.c), so every variant is compared on every text. Then Precompiled's
 * refusals: a charsmap that is not base64, cut short, or whose trie points
 * outside itself; and a hand-made one-rule charsmap ("a" -> "é") that HF
 * (0.23.2) loads and applies, but panics on ("Invalid last symbol") when
 * its base64 ends in a character with nonzero unused bits, and on
 * normalizing "a" ("not a char boundary") when the rule's string starts
 * inside the é. */
#include <openssl/evp.h>

#include "tests/unit/json_edit.h"
#include "tests/unit/tokenize_corpus.h"
#include "tokenize/tokenizer.h"

#define MULTI_STRIDE 8
#define DIR "tests/data/hf/spm"
#define FNV_OFFSET 0x811c9dc5u
#define FNV_PRIME 0x01000193u
#define REF_WORDS 2 /* per text: count, hash */

/* The hash of scripts/tokenize_hf_spm.js: FNV-1a over the ids' little-endian bytes. */
static uint32_t hash_ids(const uint32_t *ids, size_t n)
{
    uint32_t h = FNV_OFFSET;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 32; k += 8) h = (h ^ ((ids[i] >> k) & 0xFF)) * FNV_PRIME;
    return h;
}

/* json with every "@RULE" charsmap replaced by the base64 of DIR/RULE.charsmap.zst (json freed). */
static char *fill_charsmaps(char *json)
{
    static const char key[] = "\"precompiled_charsmap\":\"@";
    char *at;
    while ((at = strstr(json, key))) {
        char *name = at + strlen(key), *end = strchr(name, '"'), path[512];
        snprintf(path, sizeof path, "%s/%.*s.charsmap.zst", DIR, (int)(end - name), name);
        size_t n;
        char *blob = slurp_zstd(path, &n);
        char *b64 = malloc(4 * (n / 3 + 1) + 1);
        EVP_EncodeBlock((unsigned char *)b64, (const unsigned char *)blob, (int)n);
        char *out = splice(json, name - 1, end, b64);
        free(blob);
        free(b64);
        free(json);
        json = out;
    }
    return json;
}

/* Loads a tokenizer.json text; 0 or -1 with the message in err. */
static int load(tokenizer *t, const char *json, wbuf *err)
{
    return tokenizer_load_mem(t, NULL, json, strlen(json), -1, err);
}

/* A T5-shaped file with this normalizer member, for the refusals. */
static void refused(const char *normalizer, const char *why, const char *what)
{
    char json[4096];
    snprintf(json, sizeof json,
             "{\"version\":\"1.0\",\"normalizer\":%s,\"pre_tokenizer\":null,\"model\":{\"type\":\"Unigram\",\"unk_id\":0,"
             "\"vocab\":[[\"<unk>\",0.0],[\"a\",-1.0]]},\"added_tokens\":[]}",
             normalizer);
    tokenizer t;
    wbuf err = WBUF_INIT;
    int rc = load(&t, json, &err);
    ok(rc == -1 && err.data && strstr(err.data, why), "%s is refused: %s", what, err.data ? err.data : "(loads)");
    if (!rc) tokenizer_free(&t);
    buf_free(&err);
}

/* The hand-made charsmap: 256 units (a block for the root, whose offset
 * is 0), the unit of byte 'a' (a leaf, offset 1) and its value unit 'a' ^ 1;
 * the pool "é\0". */
#define CRAFTED_UNITS 256
#define CRAFTED_POOL "\xC3\xA9"
#define UNIT_HAS_LEAF (1u << 8)
#define UNIT_OFFSET_SHIFT 10
#define LEAF_LABEL (1u << 31) /* a value unit's label, which no byte matches */
#define ROOT_LABEL 0xFFu       /* the root unit's label: no byte leads back to it */

/* The hand-made charsmap's Precompiled normalizer JSON into json: the rule
 * of "a" points at pool byte value; loose_bits sets an unused bit of the
 * last base64 character (its blob of 1031 bytes ends in one '='). */
static void crafted_charsmap(uint32_t value, bool loose_bits, char *json, size_t size)
{
    uint8_t blob[4 + 4 * CRAFTED_UNITS + sizeof CRAFTED_POOL] = {0};
    uint32_t units[CRAFTED_UNITS] = {0}, trie_bytes = sizeof units;
    units[0] = ROOT_LABEL;
    units['a'] = 1u << UNIT_OFFSET_SHIFT | UNIT_HAS_LEAF | 'a';
    units['a' ^ 1] = LEAF_LABEL | value;
    for (size_t i = 0; i < CRAFTED_UNITS; i++)
        for (int k = 0; k < 4; k++) blob[4 + 4 * i + k] = (uint8_t)(units[i] >> (8 * k));
    for (int k = 0; k < 4; k++) blob[k] = (uint8_t)(trie_bytes >> (8 * k));
    memcpy(blob + 4 + sizeof units, CRAFTED_POOL, sizeof CRAFTED_POOL);
    char b64[4 * (sizeof blob / 3 + 1) + 1];
    int len = EVP_EncodeBlock((unsigned char *)b64, blob, (int)sizeof blob);
    if (loose_bits) {
        static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        b64[len - 2] = digits[(strchr(digits, b64[len - 2]) - digits) | 1];
    }
    snprintf(json, size, "{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"%s\"}", b64);
}

/* Encodes "a" with a T5-shaped file whose normalizer is the hand-made
 * charsmap and whose vocabulary has "é": true when that is its one id. */
static bool crafted_maps_a(void)
{
    char normalizer[2048], json[4096];
    crafted_charsmap(0, false, normalizer, sizeof normalizer);
    snprintf(json, sizeof json,
             "{\"version\":\"1.0\",\"normalizer\":%s,\"pre_tokenizer\":null,\"model\":{\"type\":\"Unigram\",\"unk_id\":0,"
             "\"vocab\":[[\"<unk>\",0.0],[\"a\",-1.0],[\"é\",-1.0]]},\"added_tokens\":[]}",
             normalizer);
    tokenizer t;
    wbuf err = WBUF_INIT;
    if (load(&t, json, &err)) {
        diag("the hand-made charsmap: %s", err.data);
        buf_free(&err);
        return false;
    }
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    tokenizer_encode(&t, "a", 1, true, &scratch, &ids);
    bool mapped = ids.n == 1 && ids.ids[0] == 2;
    ids_free(&ids);
    bpe_scratch_free(&scratch);
    tokenizer_free(&t);
    return mapped;
}

int main(void)
{
    tok_corpus corpora[3];
    corpus_load(&corpora[0], "blns");
    corpus_load(&corpora[1], "edge");
    corpus_load(&corpora[2], "multi");
    text_list texts = {0};
    text_list_add_corpus(&texts, &corpora[0], -1, 1);
    text_list_add_corpus(&texts, &corpora[1], -1, 1);
    text_list_add_corpus(&texts, &corpora[2], -1, MULTI_STRIDE);
    size_t extra_n, corpus_texts = texts.n;
    char *extra = slurp_zstd(DIR "/texts.bin.zst", &extra_n);
    for (size_t at = 0; at + 4 <= extra_n;) {
        uint32_t len;
        memcpy(&len, extra + at, 4);
        text_list_add(&texts, extra + at + 4, len);
        at += 4 + len;
    }
    ok(texts.n - corpus_texts > 550, "%zu UDHR and corner texts", texts.n - corpus_texts);

    size_t vsize;
    char *tsv = slurp(DIR "/variants.tsv", &vsize);
    int nvariants = 0;
    for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') continue;
        char *save, *name = strtok_r(line, "\t", &save), *base = strtok_r(NULL, "\t", &save), path[1024];
        snprintf(path, sizeof path, "%s/%s.json.zst", DIR, base);
        size_t n;
        char *json = slurp_zstd(path, &n);
        for (char *edit; (edit = strtok_r(NULL, "\t", &save));) json = apply_edit(json, edit);
        json = fill_charsmaps(json);
        tokenizer t;
        wbuf err = WBUF_INIT;
        int rc = load(&t, json, &err);
        free(json);
        nvariants++;
        if (!ok(rc == 0, "%s loads%s%s", name, rc ? ": " : "", rc ? err.data : "")) {
            buf_free(&err);
            continue;
        }
        buf_free(&err);
        snprintf(path, sizeof path, "%s/%s.ref.zst", DIR, name);
        size_t rbytes;
        uint32_t *ref = (uint32_t *)slurp_zstd(path, &rbytes);
        size_t ntokens = 0, nref = rbytes / 4 / REF_WORDS;
        int bad = 0;
        bpe_scratch scratch = {0};
        tok_ids ids = {0};
        for (size_t i = 0; i < texts.n && i < nref; i++) {
            ids.n = 0;
            tokenizer_encode(&t, texts.text[i], texts.len[i], true, &scratch, &ids);
            ntokens += ids.n;
            const uint32_t *want = ref + REF_WORDS * i;
            if ((want[0] != ids.n || want[1] != hash_ids(ids.ids, ids.n)) && bad++ < 3)
                diag("%s: text %zu (%s): %zu ids, HF %u%s", name, i, i < corpus_texts ? "tokref" : "texts.bin", ids.n,
                     want[0], want[0] == ids.n ? " (other ids)" : "");
        }
        ok(bad == 0 && nref == texts.n, "%s: %zu texts, %zu ids identical to HF tokenizers (%d differ)", name, texts.n,
           ntokens, bad);
        free(ref);
        ids_free(&ids);
        bpe_scratch_free(&scratch);
        tokenizer_free(&t);
    }
    ok(nvariants >= 9, "%d variants listed", nvariants);

    refused("{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"AAA*\"}", "not standard base64", "a charsmap not in base64");
    refused("{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"\"}", "shorter than its 4-byte trie size", "an empty charsmap");
    /* trie size 8 (two units), the root's offset pointing far past them */
    refused("{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"CAAAAAAA/P8AAAAAYQA=\"}", "outside the trie",
            "a charsmap whose root lies outside its trie");
    refused("{\"type\":\"Precompiled\",\"precompiled_charsmap\":\"CAAAAAAAAAAAAAAAYQA\"}", "not standard base64",
            "a charsmap without its base64 padding");
    refused("{\"type\":\"Precompiled\"}", "precompiled_charsmap: not a string", "a Precompiled without a charsmap");
    ok(crafted_maps_a(), "the hand-made charsmap loads and maps \"a\" to \"é\", as in HF");
    char crafted[2048];
    crafted_charsmap(0, true, crafted, sizeof crafted);
    refused(crafted, "not standard base64", "the hand-made charsmap with nonzero unused bits before its '='");
    crafted_charsmap(1, false, crafted, sizeof crafted);
    refused(crafted, "starts inside a character", "the hand-made charsmap with its rule's string inside the é");
    free(tsv);
    free(extra);
    text_list_free(&texts);
    for (int c = 0; c < 3; c++) corpus_free(&corpora[c]);
    return done_testing();
}
