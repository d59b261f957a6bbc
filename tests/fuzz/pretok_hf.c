/* pretok_hf.c (fuzz) - the scanners of tokenize/pretok_hf.c on arbitrary
 * bytes against the steps they replace (tests/unit/tokenize_pretok_hf.c
 * does the same on real and random text): each pre_tokenizer loaded as the
 * product loads it, and built by hand as before (the Split regexes in PCRE2
 * with MATCH_INVALID_UTF, Digits by utf8proc, ByteLevel's GPT-2 split); the
 * pieces must be the same. Input with a character that Debian's PCRE2
 * (an older Unicode than the scanners' 15.0) calls unassigned is only
 * checked for tiling. */
#include <stdlib.h>
#include <string.h>

#include "tokenize/hf_pipeline.h"
#include "tokenize/pretok_hf.h"

#define NSCANNERS 3

static hf_pipeline scan[NSCANNERS], ref[NSCANNERS];
static hf_scratch scratch;
static hf_pieces got, want, tmp;
static pcre2_code *unassigned;

static void load_json(hf_pipeline *p, const char *json)
{
    hj_doc doc;
    wbuf err = WBUF_INIT;
    if (hj_parse(json, strlen(json), &doc, &err) || hf_pretok_load(p, &doc.root, "pre_tokenizer", &err)) abort();
    if (p->pre[0].match != HM_SCANNER) abort(); /* the loader must use the scanner */
    hj_free(&doc);
    buf_free(&err);
}

static hf_pretok_step *add_step(hf_pipeline *p, hf_pretok_kind kind, hf_match_kind match)
{
    hf_pretok_step *st = hf_pretok_add_step(p, kind);
    st->match = match;
    return st;
}

static void add_regex(hf_pipeline *p, const char *pat)
{
    wbuf err = WBUF_INIT;
    if (!(add_step(p, HP_SPLIT, HM_REGEX)->re = hf_regex_compile(pat, strlen(pat), NULL, &err))) abort();
}

/* A JSON string literal of s (quotes, backslashes and control characters escaped). */
static void json_string(wbuf *out, const char *s)
{
    buf_putc(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') buf_putc(out, '\\');
        if ((unsigned char)*s < 0x20) buf_printf(out, "\\u%04x", *s);
        else buf_putc(out, *s);
    }
    buf_putc(out, '"');
}

static void split_json(wbuf *out, const char *pat)
{
    buf_puts(out, "{\"type\":\"Split\",\"pattern\":{\"Regex\":");
    json_string(out, pat);
    buf_puts(out, "},\"behavior\":\"Isolated\",\"invert\":false},");
}

static void init(void)
{
    static const char byte_level[] = "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":false}]}";
    wbuf json = WBUF_INIT;
    buf_puts(&json, "{\"type\":\"Sequence\",\"pretokenizers\":[");
    split_json(&json, PRETOK_HF_TEKKEN_PATTERN);
    buf_puts(&json, byte_level);
    load_json(&scan[0], json.data);
    add_regex(&ref[0], PRETOK_HF_TEKKEN_PATTERN);
    buf_clear(&json);
    buf_puts(&json, "{\"type\":\"Sequence\",\"pretokenizers\":[");
    for (int i = 0; i < PRETOK_HF_DEEPSEEK_SPLITS; i++) {
        split_json(&json, pretok_hf_deepseek_patterns[i]);
        add_regex(&ref[1], pretok_hf_deepseek_patterns[i]);
    }
    buf_puts(&json, byte_level);
    load_json(&scan[1], json.data);
    load_json(&scan[2], "{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Digits\",\"individual_digits\":true},"
                        "{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":true,\"use_regex\":true}]}");
    add_step(&ref[2], HP_SPLIT, HM_DIGIT);
    add_step(&ref[2], HP_BYTE_LEVEL, HM_REGEX)->use_regex = true;
    buf_free(&json);
    hf_scratch_init(&scratch);
    int code;
    PCRE2_SIZE off;
    unassigned = pcre2_compile((PCRE2_SPTR) "\\p{Cn}", PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
                               &code, &off, NULL);
    if (!unassigned) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!unassigned) init();
    const char *s = (const char *)data;
    bool compare = pcre2_match(unassigned, data, size, 0, 0, scratch.md, NULL) < 0;
    for (int k = 0; k < NSCANNERS; k++) {
        hf_pretokenize(&scan[k], s, size, hf_first_char_len(s, size), &scratch, &got, &tmp);
        size_t at = 0;
        for (size_t i = 0; i < got.n; i++) { /* non-empty pieces that tile the input */
            if (!got.len[i] || hf_piece_text(&got) + got.off[i] != s + at) abort();
            at += got.len[i];
        }
        if (at != size) abort();
        if (!compare) continue;
        hf_pretokenize(&ref[k], s, size, hf_first_char_len(s, size), &scratch, &want, &tmp);
        if (got.n != want.n) abort();
        for (size_t i = 0; i < got.n; i++)
            if (got.off[i] != want.off[i] || got.len[i] != want.len[i]) abort();
    }
    return 0;
}
