/* tokenize_hf_variants.c - the parts of the tokenizer.json pipeline that
 * the 12 real files do not use, each against Hugging Face tokenizers
 * itself: tests/data/hf/variants.tsv lists variants of real files (a member
 * replaced or an added token appended: ByteLevel add_prefix_space, use_regex
 * after a Split, ignore_merges false, normalizers, every Split behavior with
 * and without invert, Metaspace, Digits, Punctuation, Whitespace (Rust
 * regex's \w: llama3_whitespace has Marathi words with a ZWJ or ZWNJ inside),
 * WhitespaceSplit, BertPreTokenizer, added tokens with single_word, lstrip,
 * rstrip, normalized, an rstrip token then an lstrip one, single_word next
 * to a ZWJ, content written as JSON escapes with surrogate pairs;
 * Metaspace's "first" after a WhitespaceSplit, a Strip or a Replace by
 * nothing; WordPiece's max_input_chars_per_word; Lowercase of
 * U+0130; BLOOM's Split pattern, with a class inside a class; steps after
 * a ByteLevel as Falcon's and LTG-BERT's, WordPiece and WordLevel after a
 * ByteLevel, models without "type", BPE with CLIP's end_of_word_suffix or
 * a continuing_subword_prefix, with byte_fallback and ignore_merges), and
 * tests/data/hf/NAME.bin.zst their ids from
 * scripts/tokenize_hf_variants.js (npm tokenizers@0.23.2; or its Python
 * port scripts/tokenize_hf_variants.py) over every blns
 * string, the first 30 edge documents and every 200th multi document.
 * tests/data/hf/edge_variants.tsv lists more, encoded over the hand-written
 * strings of tests/data/hf/edge_texts.json instead (empty and white-space
 * texts, U+0085, backticks, ² ½ Ⅻ ①, CJK compatibility ideographs, format
 * characters, an added token first...): empty regex matches, Punctuation,
 * BertPreTokenizer, WhitespaceSplit, Digits, Whitespace and onig's \w,
 * Strip then Prepend, BertNormalizer, Metaspace "first" after an added
 * token, after a WhitespaceSplit that is not the first step, after
 * inserted text and after a Replace at the start, an rstrip
 * token then an lstrip one, Replace by onig patterns with (?m) and {,n};
 * Punctuation, BertPreTokenizer, BertNormalizer, StripAccents and the four
 * normalization forms on characters newer than or recategorized since
 * their crates' Unicode; Digits (contiguous, or individual before a
 * ByteLevel that adds a prefix space) before ByteLevel's regex, which the
 * Command R+ scanner must not stand in for; a Split on a byte a Replace
 * took out that NFKC or a Metaspace with that replacement brings back;
 * CharDelimiterSplit; Metaspace "first" after a normalized added token;
 * Digits, Splits on " " and "Ġ", Whitespace and Punctuation after a
 * ByteLevel; WordPiece after one with max_input_chars_per_word 5.
 * tests/data/hf/normalizer_variants.tsv lists
 * normalizers over the strings of tests/data/hf/normalizer_texts.json:
 * Lowercase of the capitals of Unicode 16 and 17 (Rust's to_lowercase
 * knows them, utf8proc 2.8 not), Replace by patterns with empty matches
 * (x*, "", lookahead: onig's find_iter matches at the text's end too and
 * skips an empty match where the last match ended), Strip of white space
 * of several bytes. */
#include "tests/unit/json_edit.h"
#include "tests/unit/tokenize_corpus.h"
#include "tokenize/hf_json.h"
#include "tokenize/tokenizer.h"

#define EDGE_DOCS 30
#define MULTI_STRIDE 200
#define VARIANTS "tests/data/hf/variants.tsv"
#define EDGE_VARIANTS "tests/data/hf/edge_variants.tsv"
#define EDGE_TEXTS "tests/data/hf/edge_texts.json"
#define MIN_EDGE_TEXTS 50
#define MIN_EDGE_VARIANTS 10
#define NORMALIZER_VARIANTS "tests/data/hf/normalizer_variants.tsv"
#define NORMALIZER_TEXTS "tests/data/hf/normalizer_texts.json"
#define MIN_NORMALIZER_TEXTS 25
#define MIN_NORMALIZER_VARIANTS 8

static int check_variants(const char *tsv_path, const text_list *texts)
{
    size_t vsize;
    char *tsv = slurp(tsv_path, &vsize);
    int nvariants = 0;
    for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') continue;
        char *save, *name = strtok_r(line, "\t", &save), *base = strtok_r(NULL, "\t", &save);
        char path[1024];
        snprintf(path, sizeof path, "%s/vocab/hf/%s.tokenizer.json.zst", shared_dir(), base);
        size_t n;
        char *json = slurp_zstd(path, &n);
        for (char *edit; (edit = strtok_r(NULL, "\t", &save));) json = apply_edit(json, edit);
        tokenizer t;
        wbuf err = WBUF_INIT;
        int rc = tokenizer_load_mem(&t, NULL, json, strlen(json), -1, &err);
        free(json);
        nvariants++;
        if (!ok(rc == 0, "%s loads%s%s", name, rc ? ": " : "", rc ? err.data : "")) {
            buf_free(&err);
            continue;
        }
        buf_free(&err);
        snprintf(path, sizeof path, "tests/data/hf/%s.bin.zst", name);
        size_t rbytes;
        uint32_t *ref = (uint32_t *)slurp_zstd(path, &rbytes);
        size_t at = 0, words = rbytes / 4, ntokens = 0;
        int bad = 0;
        bpe_scratch scratch = {0};
        tok_ids ids = {0};
        for (size_t d = 0; d < texts->n; d++) {
            ids.n = 0;
            tokenizer_encode(&t, texts->text[d], texts->len[d], true, &scratch, &ids);
            ntokens += ids.n;
            bool same = at < words && ref[at] == ids.n && at + 1 + ids.n <= words &&
                        (!ids.n || !memcmp(ref + at + 1, ids.ids, ids.n * sizeof *ids.ids));
            if (!same && bad++ < 2) {
                size_t k = 0, nwant = at < words ? ref[at] : 0;
                while (k < ids.n && k < nwant && at + 1 + k < words && ids.ids[k] == ref[at + 1 + k]) k++;
                diag("%s: text %zu: %zu ids, want %zu; first difference at %zu", name, d, ids.n, nwant, k);
            }
            at += at < words ? 1 + ref[at] : 1;
        }
        ok(bad == 0 && at == words, "%s: %zu texts, %zu ids identical to HF tokenizers (%d differ)", name, texts->n,
           ntokens, bad);
        free(ref);
        ids_free(&ids);
        bpe_scratch_free(&scratch);
        tokenizer_free(&t);
    }
    free(tsv);
    return nvariants;
}

/* Checks the variants of tsv_path over the strings of the JSON array in
 * texts_path (at least min_texts); how many variants it lists. */
static int check_listed_texts(const char *texts_path, size_t min_texts, const char *tsv_path)
{
    size_t size;
    char *text = slurp(texts_path, &size);
    hj_doc doc;
    wbuf err = WBUF_INIT;
    text_list texts = {0};
    int nvariants = 0;
    if (ok(!hj_parse(text, size, &doc, &err) && doc.root.type == HJ_ARRAY, "%s: an array of strings%s%s", texts_path,
           err.len ? ": " : "", err.len ? err.data : "")) {
        for (size_t i = 0; i < doc.root.len; i++)
            if (doc.root.items[i].type == HJ_STRING) text_list_add(&texts, doc.root.items[i].str, doc.root.items[i].len);
        ok(texts.n == doc.root.len && texts.n >= min_texts, "%s: %zu texts", texts_path, texts.n);
        nvariants = check_variants(tsv_path, &texts);
        hj_free(&doc);
    }
    buf_free(&err);
    free(text);
    text_list_free(&texts);
    return nvariants;
}

int main(void)
{
    tok_corpus corpora[3];
    corpus_load(&corpora[0], "blns");
    corpus_load(&corpora[1], "edge");
    corpus_load(&corpora[2], "multi");
    text_list docs = {0};
    text_list_add_corpus(&docs, &corpora[0], -1, 1);
    text_list_add_corpus(&docs, &corpora[1], EDGE_DOCS, 1);
    text_list_add_corpus(&docs, &corpora[2], -1, MULTI_STRIDE);
    int nvariants = check_variants(VARIANTS, &docs);
    ok(nvariants >= 25, "%d variants listed", nvariants);

    int nedge = check_listed_texts(EDGE_TEXTS, MIN_EDGE_TEXTS, EDGE_VARIANTS);
    ok(nedge >= MIN_EDGE_VARIANTS, "%d edge variants listed", nedge);
    int nnorm = check_listed_texts(NORMALIZER_TEXTS, MIN_NORMALIZER_TEXTS, NORMALIZER_VARIANTS);
    ok(nnorm >= MIN_NORMALIZER_VARIANTS, "%d normalizer variants listed", nnorm);
    text_list_free(&docs);
    for (int c = 0; c < 3; c++) corpus_free(&corpora[c]);
    return done_testing();
}
