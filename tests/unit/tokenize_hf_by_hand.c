/* tokenize_hf_by_hand.c - small tokenizer.json files whose ids are
 * worked out by hand from HF tokenizers' source (0.23): pre-tokenizers
 * after a ByteLevel split the piece ByteLevel wrote, each byte one
 * character of GPT-2's alphabet (byte 0xB2 of U+03B2 is '²', numeric, and
 * a space is 'Ġ'), as Falcon's [Punctuation, ByteLevel, Digits, Split] and
 * LTG-BERT's [ByteLevel, Digits] do; a WordPiece or WordLevel model after a
 * ByteLevel looks those characters up (and ByteLevel's decoder takes them
 * back to bytes); a model without "type" is the first
 * of BPE, WordPiece, WordLevel, Unigram whose members it has with the
 * types HF reads (its untagged ModelWrapper); a BPE's
 * continuing_subword_prefix before each character but the first and
 * end_of_word_suffix after the last, its merges making the left part and
 * the right part less the prefix's length. The same features against HF
 * itself: the *bytelevel*, *_untagged, clip_* and xumi_* variants of
 * tests/data/hf. */
#include "tests/tap.h"
#include "tokenize/tokenizer.h"

#define MAX_IDS 16
#define BYTE_LEVEL(prefix, regex) \
    "{\"type\":\"ByteLevel\",\"add_prefix_space\":" prefix ",\"trim_offsets\":true,\"use_regex\":" regex "}"

typedef struct {
    const char *name, *json, *text;
    int nids;
    uint32_t ids[MAX_IDS];
} json_case;

static const json_case cases[] = {
    /* Falcon's steps: "a" "," " 1234 ²2 β" -> ByteLevel's regex " 1234" " ²2" " β", written "Ġ1234"
     * "ĠÂ²2" "ĠÎ²" -> Digits "Ġ" "1234" "ĠÂ" "²2" "ĠÎ" "²" -> Split "123" "4" -> BPE */
    {"falcon_steps",
     "{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Punctuation\",\"behavior\":\"Contiguous\"},"
     BYTE_LEVEL("false", "true") ",{\"type\":\"Digits\",\"individual_digits\":false},"
     "{\"type\":\"Split\",\"pattern\":{\"Regex\":\"[0-9][0-9][0-9]\"},\"behavior\":\"Isolated\",\"invert\":false}]},"
     "\"model\":{\"type\":\"BPE\",\"vocab\":{\"Ġ\":0,\"1\":1,\"2\":2,\"3\":3,\"4\":4,\"Â\":5,\"²\":6,\"a\":7,\",\":8,"
     "\"12\":9,\"Ġa\":10,\"Î\":11,\"Î²\":12,\"ĠÎ\":13},\"merges\":[\"1 2\",\"Ġ a\",\"Î ²\",\"Ġ Î\"]}}",
     "a, 1234 \xC2\xB2" "2 \xCE\xB2", 12, {7, 8, 0, 9, 3, 4, 0, 5, 6, 2, 13, 6}},
    /* LTG-BERT's: " ab" " ²1" (prefix space added) written "Ġab" "ĠÂ²1", Digits one each: "ĠÂ" "²" "1";
     * WordPiece with prefix "": "Ġa" "b" */
    {"wordpiece_after_bytelevel",
     "{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[" BYTE_LEVEL("true", "true")
     ",{\"type\":\"Digits\",\"individual_digits\":true}]},"
     "\"model\":{\"type\":\"WordPiece\",\"unk_token\":\"[UNK]\",\"continuing_subword_prefix\":\"\","
     "\"max_input_chars_per_word\":100,\"vocab\":{\"[UNK]\":0,\"Ġa\":1,\"b\":2,\"Ġ\":3,\"Â\":4,\"²\":5,\"1\":6,"
     "\"ĠÂ\":7,\"a\":8}}}",
     "ab \xC2\xB2" "1", 5, {1, 2, 7, 5, 6}},
    {"wordlevel_after_bytelevel",
     "{\"pre_tokenizer\":" BYTE_LEVEL("false", "true") ",\"model\":{\"type\":\"WordLevel\",\"unk_token\":\"[UNK]\","
     "\"vocab\":{\"[UNK]\":0,\"Ġb\":1,\"a\":2}}}",
     "a b c", 3, {2, 1, 0}},
    /* no space is left after ByteLevel: the Split on " " keeps "abĠabĠb" whole, the one on "Ġ" cuts it */
    {"split_space_after_bytelevel",
     "{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[" BYTE_LEVEL("false", "false")
     ",{\"type\":\"Split\",\"pattern\":{\"String\":\" \"},\"behavior\":\"Isolated\",\"invert\":false},"
     "{\"type\":\"Split\",\"pattern\":{\"String\":\"Ġ\"},\"behavior\":\"MergedWithNext\",\"invert\":false}]},"
     "\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"Ġ\":2,\"Ġb\":3,\"ab\":4,\"Ġa\":5},"
     "\"merges\":[\"a b\",\"Ġ b\",\"Ġ a\"]}}",
     "ab ab b", 4, {4, 2, 4, 3}},
    /* untagged: WordPiece has all four members ("abc" is "ab" "##c"; as WordLevel it would be unknown) */
    {"untagged_wordpiece",
     "{\"model\":{\"unk_token\":\"[UNK]\",\"continuing_subword_prefix\":\"##\",\"max_input_chars_per_word\":100,"
     "\"vocab\":{\"[UNK]\":0,\"ab\":1,\"##c\":2}}}",
     "abc", 2, {1, 2}},
    /* max_input_chars_per_word null: not a WordPiece for HF, so a WordLevel */
    {"untagged_wordpiece_null_max",
     "{\"model\":{\"unk_token\":\"[UNK]\",\"continuing_subword_prefix\":\"##\",\"max_input_chars_per_word\":null,"
     "\"vocab\":{\"[UNK]\":0,\"ab\":1,\"##c\":2}}}",
     "abc", 1, {0}},
    {"untagged_wordlevel",
     "{\"pre_tokenizer\":{\"type\":\"WhitespaceSplit\"},\"model\":{\"unk_token\":\"[UNK]\","
     "\"vocab\":{\"[UNK]\":0,\"abc\":1,\"ab\":2}}}",
     "abc ab x", 3, {1, 2, 0}},
    {"untagged_unigram", "{\"model\":{\"unk_id\":0,\"vocab\":[[\"<unk>\",0],[\"a\",-1],[\"b\",-1],[\"ab\",-1.5]]}}",
     "ab", 1, {3}},
    {"untagged_bpe", "{\"model\":{\"vocab\":{\"a\":0,\"b\":1,\"ab\":2},\"merges\":[\"a b\"]}}", "ab", 1, {2}},
    /* "a" "##b" "##c", merged by "a ##b" into "ab"; then "b" and "##a", which is unknown */
    {"bpe_prefix",
     "{\"pre_tokenizer\":{\"type\":\"WhitespaceSplit\"},\"model\":{\"type\":\"BPE\",\"unk_token\":\"[UNK]\","
     "\"continuing_subword_prefix\":\"##\",\"vocab\":{\"[UNK]\":0,\"a\":1,\"##b\":2,\"ab\":3,\"##c\":4,\"b\":5},"
     "\"merges\":[\"a ##b\"]}}",
     "abc ba", 4, {3, 4, 5, 0}},
    /* CLIP's shape: "a" "b</w>" merge into "ab</w>"; " a" is "Ġ" "a</w>", which "Ġ a" does not join */
    {"bpe_suffix_byte_level",
     "{\"pre_tokenizer\":" BYTE_LEVEL("false", "true") ",\"model\":{\"type\":\"BPE\",\"end_of_word_suffix\":\"</w>\","
     "\"vocab\":{\"a\":0,\"b</w>\":1,\"ab</w>\":2,\"Ġ\":3,\"Ġa\":4,\"b\":5,\"a</w>\":6},"
     "\"merges\":[\"a b</w>\",\"Ġ a\"]}}",
     "ab a", 3, {2, 3, 6}},
};

/* Files HF loads that winnow refuses, naming where. */
static const struct {
    const char *json, *why;
} refused[] = {
    {"{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[" BYTE_LEVEL("false", "true")
     ",{\"type\":\"Metaspace\",\"replacement\":\"_\"}]},\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}",
     "pre_tokenizer.pretokenizers[1]: a Metaspace after ByteLevel"},
    {"{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[" BYTE_LEVEL("false", "true")
     ",{\"type\":\"Digits\",\"individual_digits\":true}," BYTE_LEVEL("false", "false")
     "]},\"model\":{\"type\":\"BPE\",\"vocab\":{},\"merges\":[]}}",
     "pre_tokenizer.pretokenizers[2]: a ByteLevel after ByteLevel"},
    /* HF cuts two bytes off "b" for the merged token and fails */
    {"{\"model\":{\"type\":\"BPE\",\"continuing_subword_prefix\":\"##\",\"vocab\":{\"a\":0,\"b\":1,\"ab\":2},"
     "\"merges\":[\"a b\"]}}",
     "model.merges[0]: its right part is shorter than continuing_subword_prefix"},
};

/* GPT-2's bytes_to_unicode, written out here: the printable bytes as
 * themselves, the others as 256, 257, ... in byte order. */
static uint32_t gpt2_byte_char(int b)
{
    uint32_t next = 256;
    for (int c = 0; c < 256; c++) {
        bool printable = (c >= '!' && c <= '~') || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF);
        if (c == b) return printable ? (uint32_t)c : next;
        if (!printable) next++;
    }
    return 0;
}

/* A WordLevel model after ByteLevel and a Split of every character: each
 * byte of a text of all 256 is the id of its character (HF's ByteLevel
 * alphabet, as the model and the Split see it). */
static void all_bytes(void)
{
    wbuf json = WBUF_INIT;
    buf_printf(&json, "{\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[" BYTE_LEVEL("false", "false")
                      ",{\"type\":\"Split\",\"pattern\":{\"Regex\":\".\"},\"behavior\":\"Isolated\",\"invert\":false}]},"
                      "\"model\":{\"type\":\"WordLevel\",\"unk_token\":\"[UNK]\",\"vocab\":{\"[UNK]\":256");
    for (int b = 0; b < 256; b++) {
        uint32_t cp = gpt2_byte_char(b);
        char ch[4];
        size_t len = cp < 0x80 ? 1 : 2;
        if (len == 1) ch[0] = (char)cp;
        else ch[0] = (char)(0xC0 | cp >> 6), ch[1] = (char)(0x80 | (cp & 0x3F));
        buf_puts(&json, ",\"");
        if (cp == '"' || cp == '\\') buf_putc(&json, '\\');
        buf_append(&json, ch, len);
        buf_printf(&json, "\":%d", b);
    }
    buf_puts(&json, "}}}");
    char text[256];
    for (int b = 0; b < 256; b++) text[b] = (char)b;
    tokenizer t;
    wbuf err = WBUF_INIT;
    if (ok(!tokenizer_load_mem(&t, NULL, json.data, json.len, -1, &err), "all_bytes loads%s%s", err.len ? ": " : "",
           err.len ? err.data : "")) {
        bpe_scratch scratch = {0};
        tok_ids ids = {0};
        tokenizer_encode(&t, text, sizeof text, false, &scratch, &ids);
        size_t same = 0;
        for (size_t k = 0; k < ids.n && k < 256; k++) same += ids.ids[k] == k;
        ok(ids.n == 256 && same == 256, "all_bytes: each of the 256 bytes is its own character (%zu ids, %zu right)",
           ids.n, same);
        ids_free(&ids);
        bpe_scratch_free(&scratch);
        tokenizer_free(&t);
    }
    buf_free(&err);
    buf_free(&json);
}

/* ByteLevel's decoder over a WordPiece after a ByteLevel: each token's
 * characters become their bytes; a token with another character ("€")
 * keeps its own (HF's ByteLevel::decode_chain). */
static void decode_after_bytelevel(void)
{
    static const char json[] =
        "{\"pre_tokenizer\":" BYTE_LEVEL("false", "true") ",\"decoder\":" BYTE_LEVEL("true", "true") ","
        "\"model\":{\"type\":\"WordPiece\",\"unk_token\":\"[UNK]\",\"continuing_subword_prefix\":\"\","
        "\"max_input_chars_per_word\":100,\"vocab\":{\"[UNK]\":0,\"Ġa\":1,\"b\":2,\"ĠÂ\":3,\"²\":4,\"1\":5,\"€\":6}}}";
    static const uint32_t ids[] = {1, 2, 3, 4, 5, 0, 6};
    tokenizer t;
    wbuf err = WBUF_INIT, out = WBUF_INIT;
    if (ok(!tokenizer_load_mem(&t, NULL, json, strlen(json), -1, &err) && !tokenizer_decode_refused(&t),
           "decode_after_bytelevel loads and decodes%s%s", err.len ? ": " : "", err.len ? err.data : "")) {
        tokenizer_decode(&t, ids, sizeof ids / sizeof ids[0], &out);
        is_str(out.data ? out.data : "", " ab \xC2\xB2" "1[UNK]\xE2\x82\xAC", "decode_after_bytelevel: the bytes back");
        tokenizer_free(&t);
    }
    buf_free(&err);
    buf_free(&out);
}

int main(void)
{
    all_bytes();
    decode_after_bytelevel();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const json_case *c = &cases[i];
        tokenizer t;
        wbuf err = WBUF_INIT;
        if (!ok(!tokenizer_load_mem(&t, NULL, c->json, strlen(c->json), -1, &err), "%s loads%s%s", c->name,
                err.len ? ": " : "", err.len ? err.data : "")) {
            buf_free(&err);
            continue;
        }
        bpe_scratch scratch = {0};
        tok_ids ids = {0};
        int rc = tokenizer_encode(&t, c->text, strlen(c->text), false, &scratch, &ids);
        bool same = !rc && ids.n == (size_t)c->nids && !memcmp(ids.ids, c->ids, ids.n * sizeof *ids.ids);
        ok(same, "%s: %d ids as HF gives them", c->name, c->nids);
        if (!same)
            for (size_t k = 0; k < ids.n; k++) diag("id %zu: %u", k, ids.ids[k]);
        ids_free(&ids);
        bpe_scratch_free(&scratch);
        tokenizer_free(&t);
        buf_free(&err);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        tokenizer t;
        wbuf err = WBUF_INIT;
        int rc = tokenizer_load_mem(&t, NULL, refused[i].json, strlen(refused[i].json), -1, &err);
        ok(rc == -1 && err.data && strstr(err.data, refused[i].why), "refused, naming %s: %s", refused[i].why,
           err.data ? err.data : "(accepted)");
        if (!rc) tokenizer_free(&t);
        buf_free(&err);
    }
    return done_testing();
}
