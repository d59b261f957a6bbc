/* tokenize_pretok_hf.c - the scanners of tokenize/pretok_hf.c, and the
 * tiktoken scanners a tokenizer.json's Split runs as (Llama 3's, Qwen 2.5's),
 * against the steps they replace: each real tokenizer.json's pre_tokenizer loaded as the
 * product loads it (the scanner) and the same steps built by hand as the
 * loader built them before (each Split's regex from the file in PCRE2 with
 * MATCH_INVALID_UTF, Digits by utf8proc, ByteLevel's GPT-2 split), both run
 * through hf_pretokenize, pieces compared byte for byte on: tokref edge,
 * multi, blns and every 25th en_code document; random bytes; random
 * characters from many Unicode blocks; every code point in a few contexts.
 *
 * The scanners' classes are tokenizers' onig's (Unicode 16, uclass_onig);
 * hf_regex.c gives PCRE2 (Unicode 14) onig's newer characters, and HM_DIGIT
 * takes Rust's is_numeric from the same table, so every text compares,
 * characters of Unicode 15.1 to 17 included (tokenize_hf_regex checks the
 * classes themselves against tokenizers). */
#include <utf8proc.h>

#include "core/utf8.h"
#include "tests/unit/tokenize_corpus.h"
#include "tokenize/hf_pipeline.h"
#include "tokenize/pretok_hf.h"
#include "tokenize/pretokenize.h"
#include "tokenize/unicode_class.h"

#define EN_CODE_STRIDE 25
#define RANDOM_TEXTS 20000
#define RANDOM_ITEMS 48   /* at most, per random text */
#define ALL_CHARS_PER_TEXT 256
#define SHOWN_FAILURES 3

typedef struct {
    const char *file;       /* in $SHARED/vocab/hf */
    hf_match_kind match;    /* what its loading must give: HM_SCANNER or HM_FAMILY */
    int kind;               /* which: a pretok_hf_scanner or a pretok_family */
    hf_pipeline scan, ref;
} subject;

static subject subjects[] = {
    {.file = "mistral_nemo", .match = HM_SCANNER, .kind = PRETOK_HF_TEKKEN},
    {.file = "deepseek_v3", .match = HM_SCANNER, .kind = PRETOK_HF_DEEPSEEK},
    {.file = "command_r_plus", .match = HM_SCANNER, .kind = PRETOK_HF_DIGITS_BYTE_LEVEL},
    {.file = "llama3", .match = HM_FAMILY, .kind = PRETOK_CL100K},
    {.file = "qwen2_5", .match = HM_FAMILY, .kind = PRETOK_CL100K},
};
#define NSUBJECTS (int)(sizeof subjects / sizeof subjects[0])

static hf_scratch scratch;
static hf_pieces got, want, tmp;

static hf_pretok_step *add_step(hf_pipeline *p, hf_pretok_kind kind, hf_match_kind match)
{
    hf_pretok_step *st = hf_pretok_add_step(p, kind);
    st->match = match;
    return st;
}

/* The replaced path for one pre_tokenizer entry of the file (a Split by
 * its regex, Digits or ByteLevel), built without the loader. */
static void add_reference_step(hf_pipeline *p, const hj_node *node)
{
    const char *type = hj_get_str(node, "type");
    if (!strcmp(type, "Split")) {
        const char *re = hj_get_str(hj_get(node, "pattern"), "Regex");
        wbuf err = WBUF_INIT;
        hf_pretok_step *st = add_step(p, HP_SPLIT, HM_REGEX);
        st->re = hf_regex_compile(re, strlen(re), NULL, &err);
        if (!st->re) {
            printf("Bail out! %s\n", err.data);
            exit(1);
        }
    } else if (!strcmp(type, "Digits")) {
        add_step(p, HP_SPLIT, HM_DIGIT);
    } else if (!strcmp(type, "ByteLevel")) {
        hf_pretok_step *st = add_step(p, HP_BYTE_LEVEL, HM_REGEX);
        st->use_regex = hj_get(node, "use_regex")->boolean;
        st->add_prefix_space = hj_get(node, "add_prefix_space")->boolean;
    } else {
        printf("Bail out! unexpected pre-tokenizer %s\n", type);
        exit(1);
    }
}

static void load_subject(subject *sb)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vocab/hf/%s.tokenizer.json.zst", shared_dir(), sb->file);
    require_file(path);
    size_t n;
    char *text = slurp_zstd(path, &n);
    hj_doc doc;
    wbuf err = WBUF_INIT;
    if (hj_parse(text, n, &doc, &err)) {
        printf("Bail out! %s: %s\n", path, err.data);
        exit(1);
    }
    const hj_node *pre = hj_get(&doc.root, "pre_tokenizer"), *list = hj_get(pre, "pretokenizers");
    int loaded = hf_pretok_load(&sb->scan, pre, "pre_tokenizer", &err);
    const hf_pretok_step *first = sb->scan.npre >= 1 ? &sb->scan.pre[0] : NULL;
    ok(loaded == 0 && first && first->match == sb->match &&
           (sb->match == HM_SCANNER ? first->scanner : first->family) == sb->kind,
       "%s: the loader puts %s %d in place of the file's first steps", sb->file,
       sb->match == HM_SCANNER ? "scanner" : "tiktoken scanner", sb->kind);
    for (size_t i = 0; i < list->len; i++) add_reference_step(&sb->ref, &list->items[i]);
    hj_free(&doc);
    free(text);
    buf_free(&err);
}

/* Index of the first piece where the scanner and the replaced steps differ, or -1. */
static long first_difference(const subject *sb, const char *s, size_t n)
{
    hf_pretokenize(&sb->scan, s, n, hf_first_char_len(s, n), &scratch, &got, &tmp);
    hf_pretokenize(&sb->ref, s, n, hf_first_char_len(s, n), &scratch, &want, &tmp);
    size_t both = got.n < want.n ? got.n : want.n;
    for (size_t i = 0; i < both; i++)
        if (got.len[i] != want.len[i] || memcmp(hf_piece_text(&got) + got.off[i], hf_piece_text(&want) + want.off[i], got.len[i]))
            return (long)i;
    return got.n == want.n ? -1 : (long)both;
}

static void show_bytes(const char *what, const char *s, size_t n)
{
    printf("#     %s '", what);
    for (size_t i = 0; i < n && i < 80; i++) {
        unsigned char c = (unsigned char)s[i];
        printf(c < 0x20 || c == 0x7F || c == '\'' ? "\\x%02X" : "%c", c);
    }
    printf("'\n");
}

/* Checks one text; on a difference shows the first few. */
static bool check_text(const subject *sb, const char *what, const char *s, size_t n, int *shown)
{
    long at = first_difference(sb, s, n);
    if (at < 0) return true;
    if ((*shown)++ < SHOWN_FAILURES) {
        printf("#   %s, %s: piece %ld differs\n", sb->file, what, at);
        if ((size_t)at < got.n) show_bytes("scanner:", hf_piece_text(&got) + got.off[at], got.len[at]);
        if ((size_t)at < want.n) show_bytes("replaced steps:", hf_piece_text(&want) + want.off[at], want.len[at]);
        size_t from = (size_t)at < want.n ? (size_t)(hf_piece_text(&want) + want.off[at] - s) : n;
        show_bytes("text from there:", s + from, n - from);
    }
    return false;
}

static void check_corpus(const char *name, int stride)
{
    tok_corpus c;
    corpus_load(&c, name);
    for (int k = 0; k < NSUBJECTS; k++) {
        int bad = 0, checked = 0, shown = 0;
        for (int d = 0; d < c.ndocs; d += stride) {
            const char *s = c.text + c.off[d];
            char what[64];
            snprintf(what, sizeof what, "%s doc %d", name, d);
            checked++;
            if (!check_text(&subjects[k], what, s, c.len[d], &shown)) bad++;
        }
        ok(bad == 0 && checked > 0, "%s: %s splits %d documents as the replaced steps do (%d differ)", subjects[k].file,
           name, checked, bad);
    }
    corpus_free(&c);
}

/* Every line of the naughty-strings list, and the whole list. */
static void check_naughty_strings(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/vectors/blns/blns.txt", shared_dir());
    require_file(path);
    size_t n;
    char *text = slurp(path, &n);
    for (int k = 0; k < NSUBJECTS; k++) {
        int bad = 0, lines = 0, shown = 0;
        for (char *line = text; line < text + n;) {
            char *nl = memchr(line, '\n', (size_t)(text + n - line));
            size_t len = nl ? (size_t)(nl - line) : (size_t)(text + n - line);
            lines++;
            if (!check_text(&subjects[k], "blns line", line, len, &shown)) bad++;
            line += len + 1;
        }
        bool whole = check_text(&subjects[k], "blns whole", text, n, &shown);
        ok(bad == 0 && whole && lines > 0, "%s: blns, %d lines and the whole file, as the replaced steps", subjects[k].file,
           lines);
    }
    free(text);
}

/* Every code point U+0001..U+10FFFF but surrogates, each in the contexts
 * of scripts/hf_allchars_device.py (after a letter, before a digit, between
 * spaces, after an apostrophe, tripled, before a capital and a line break),
 * ALL_CHARS_PER_TEXT code points a text. */
static void check_all_chars(void)
{
    static char text[ALL_CHARS_PER_TEXT * 40];
    for (int k = 0; k < NSUBJECTS; k++) {
        int bad = 0, texts = 0, shown = 0;
        uint32_t cp = 1;
        while (cp <= UCLASS_MAX_CP) {
            size_t n = 0;
            for (int i = 0; i < ALL_CHARS_PER_TEXT && cp <= UCLASS_MAX_CP; cp++) {
                if (cp >= 0xD800 && cp <= 0xDFFF) continue;
                char c[4];
                int len = (int)utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)c);
                n += (size_t)sprintf(text + n, "a%.*s1 %.*s b'%.*s%.*s%.*sX%.*s\n", len, c, len, c, len, c, len, c, len,
                                     c, len, c);
                i++;
            }
            texts++;
            if (!check_text(&subjects[k], "all characters", text, n, &shown)) bad++;
        }
        ok(bad == 0, "%s: every character in %d texts as the replaced steps (%d differ)", subjects[k].file, texts, bad);
    }
}

/* ---- random text ---- */

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint32_t next_random(uint32_t below)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)((rng >> 11) % below);
}

/* Blocks the random characters come from: letters, marks and digits of many
 * scripts, CJK and the edges of DeepSeek's ranges, symbols, emoji, spaces. */
static const uint32_t blocks[][2] = {
    {0x00, 0x7F},       {0x80, 0xFF},       {0x100, 0x24F},     {0x250, 0x2FF},     {0x300, 0x36F},
    {0x370, 0x3FF},     {0x400, 0x52F},     {0x530, 0x58F},     {0x590, 0x5FF},     {0x600, 0x6FF},
    {0x900, 0x97F},     {0x980, 0x9FF},     {0xB80, 0xBFF},     {0xE00, 0xE7F},     {0x10A0, 0x10FF},
    {0x1100, 0x11FF},   {0x1680, 0x169F},   {0x1E00, 0x1EFF},   {0x2000, 0x206F},   {0x2070, 0x209F},
    {0x20A0, 0x20CF},   {0x2100, 0x218F},   {0x2200, 0x22FF},   {0x2460, 0x24FF},   {0x3000, 0x303F},
    {0x3040, 0x309F},   {0x30A0, 0x30FF},   {0x3100, 0x312F},   {0x31F0, 0x31FF},   {0x4DB0, 0x4E10},
    {0x9F80, 0x9FFF},   {0xAC00, 0xAD00},   {0xE000, 0xE00F},   {0xFE30, 0xFE4F},   {0xFEF0, 0xFEFF},
    {0xFF00, 0xFFEF},   {0x10330, 0x1034F}, {0x1D400, 0x1D7FF}, {0x1F300, 0x1F64F}, {0x1F900, 0x1F9FF},
    {0x20000, 0x2000F}, /* and characters of Unicode 15.1 to 17: Todhri, Garay, Myanmar Extended-C,
                         * Sunuwar, Tolong Siki, Gurung Khema, Kirat Rai, Tangut Components
                         * Supplement, Legacy Computing Supplement, CJK Extension I */
    {0x105C0, 0x105FF}, {0x10D40, 0x10D8F}, {0x116D0, 0x116E3}, {0x11BC0, 0x11BFF}, {0x11DB0, 0x11DEF},
    {0x16100, 0x1613F}, {0x16D40, 0x16D7F}, {0x16FF0, 0x16FFF}, {0x1CC00, 0x1CCFF}, {0x2EBF0, 0x2EE5F},
};
#define NBLOCKS (uint32_t)(sizeof blocks / sizeof blocks[0])

static const char *const snippets[] = {
    "'s", "'S", "'t", "'T", "'re", "'RE", "'ve", "'Ve", "'m", "'M", "'ll", "'LL", "'d", "'D", "\xE2\x80\x99s",
    " ", "  ", "\t", "\r", "\n", "\r\n", "\v", "\f", "\xC2\xA0", "\xE3\x80\x80", "\xC2\x85", "\xE2\x80\xA8",
    "\xE2\x80\x8B", "\xEF\xBB\xBF", "0", "12", "345", "6789", "\xD9\xA3", "\xEF\xBC\x91", "\xE2\x85\xA0",
    "don't", "I'M", "x.com", "a/b", "?!", "...", "--", "$5", "\xE4\xB8\xAD\xE6\x96\x87", "\xE3\x82\xAB\xE3\x83\xBB",
    "\xE3\x82\x9B", "e\xCC\x81", "\xC7\x85", "\xF0\x9F\x98\x80",
};
#define NSNIPPETS (uint32_t)(sizeof snippets / sizeof snippets[0])

/* A random text of characters (bytes: also lone bytes and cut sequences). */
static size_t random_text(char *out, bool bytes)
{
    size_t n = 0;
    uint32_t items = 1 + next_random(RANDOM_ITEMS);
    for (uint32_t k = 0; k < items; k++) {
        uint32_t pick = next_random(bytes ? 4 : 3);
        if (pick == 0) {
            const char *sn = snippets[next_random(NSNIPPETS)];
            memcpy(out + n, sn, strlen(sn));
            n += strlen(sn);
            continue;
        }
        if (pick == 3) { /* a byte that may start, continue or break a character */
            out[n++] = (char)next_random(256);
            continue;
        }
        const uint32_t *b = blocks[next_random(NBLOCKS)];
        uint32_t cp;
        cp = b[0] + next_random(b[1] - b[0] + 1); /* (the blocks hold no surrogate) */
        char enc[4];
        utf8proc_ssize_t len = utf8proc_encode_char((utf8proc_int32_t)cp, (utf8proc_uint8_t *)enc);
        if (bytes && len > 1 && next_random(4) == 0) len = 1 + next_random((uint32_t)len - 1); /* cut short */
        memcpy(out + n, enc, (size_t)len);
        n += (size_t)len;
    }
    return n;
}

static void check_random(bool bytes)
{
    static char text[RANDOM_ITEMS * 16];
    for (int k = 0; k < NSUBJECTS; k++) {
        /* the tiktoken scanners take bytes outside characters as tiktoken
         * does, not as PCRE2's MATCH_INVALID_UTF: texts that reach them are valid */
        if (bytes && subjects[k].match == HM_FAMILY) continue;
        int bad = 0, shown = 0;
        for (int t = 0; t < RANDOM_TEXTS; t++) {
            size_t n = random_text(text, bytes);
            if (!check_text(&subjects[k], bytes ? "random bytes" : "random characters", text, n, &shown)) bad++;
        }
        ok(bad == 0, "%s: %d random %s texts as the replaced steps (%d differ)", subjects[k].file, RANDOM_TEXTS,
           bytes ? "byte" : "character", bad);
    }
}

int main(void)
{
    hf_scratch_init(&scratch);
    diag("scanner tables: Unicode %s; utf8proc: Unicode %s", uclass_onig.unicode, utf8proc_unicode_version());
    for (int k = 0; k < NSUBJECTS; k++) load_subject(&subjects[k]);
    check_random(false);
    check_random(true);
    check_all_chars();
    check_naughty_strings();
    check_corpus("edge", 1);
    check_corpus("multi", 1);
    check_corpus("en_code", getenv("FULL") ? 1 : EN_CODE_STRIDE);
    for (int k = 0; k < NSUBJECTS; k++) {
        hf_pipeline_free(&subjects[k].scan);
        hf_pipeline_free(&subjects[k].ref);
    }
    hf_pieces *lists[] = {&got, &want, &tmp};
    for (int i = 0; i < 3; i++) hf_pieces_free(lists[i]);
    hf_scratch_free(&scratch);
    return done_testing();
}
