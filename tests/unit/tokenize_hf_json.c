/* tokenize_hf_json.c - which tokenizer.json files load, against Hugging Face
 * tokenizers itself: tests/data/hf/json_cases.tsv holds small files (a
 * WordLevel model) each with one thing changed in how its JSON is written
 * (raw control characters, bytes that are not UTF-8 inside and outside
 * strings, lone and paired surrogate escapes, upper-case hex, numbers RFC
 * 8259 forbids or serde_json finds out of range, white space and a BOM
 * around the object, an unknown or a repeated top-level member; a Bert,
 * Roberta and Sequence post_processor: their BOS/EOS; a pre-tokenizer
 * without a member HF requires, with a flag that is not a boolean, or a
 * Metaspace with the older add_prefix_space), and what
 * HF made of each (scripts/tokenize_hf_json_cases.js: npm tokenizers@0.23.2,
 * Tokenizer.fromFile): refused, or the ids of a text without and with
 * special tokens. Each file is written out and loaded by tokenizer_load:
 * one HF refuses is refused with a message naming the file; one HF loads
 * loads and gives HF's ids, and its default BOS/EOS give HF's ids with
 * special tokens; or, for the few listed in REFUSED_BY_DESIGN, is refused
 * with a message naming the file and why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "tokenize/tokenizer.h"

#define CASES "tests/data/hf/json_cases.tsv"
#define MIN_CASES 30
#define MAX_IDS 16

/* Files HF loads that winnow refuses, saying so: its member names are C strings. */
static const struct {
    const char *name, *why;
} REFUSED_BY_DESIGN[] = {{"nul_escape", "a member name holding \\u0000"}};

/* What winnow's message says for some of the files HF refuses. */
static const struct {
    const char *name, *why;
} REFUSAL_SAYS[] = {{"bom", "byte order mark"},       {"unknown_member_last", "\"comment\": not a member"},
                    {"control_1f", "control character"}, {"lone_low", "lone surrogate"},
                    {"nested_128", "nested too deep"},   {"number_out_of_range", "out of range"},
                    {"not_utf8_cut", "not UTF-8"},        {"number_leading_zero", "bad number"},
                    {"pre_bytelevel_no_trim_offsets", "pre_tokenizer.trim_offsets: missing"},
                    {"pre_split_no_invert", "pre_tokenizer.invert: missing"},
                    {"pre_digits_no_individual", "pre_tokenizer.pretokenizers[1].individual_digits: missing"},
                    {"pre_digits_flag_string", "pre_tokenizer.individual_digits: not true or false"},
                    {"pre_metaspace_no_replacement", "pre_tokenizer.replacement"},
                    {"pre_metaspace_no_prefix", "add_prefix_space: false does not match prepend_scheme always"},
                    {"pre_metaspace_no_prefix_first", "add_prefix_space: false does not match prepend_scheme first"}};

static const char *refusal_says(const char *name)
{
    for (size_t i = 0; i < sizeof REFUSAL_SAYS / sizeof *REFUSAL_SAYS; i++)
        if (!strcmp(name, REFUSAL_SAYS[i].name)) return REFUSAL_SAYS[i].why;
    return NULL;
}

static const char *refused_by_design(const char *name)
{
    for (size_t i = 0; i < sizeof REFUSED_BY_DESIGN / sizeof *REFUSED_BY_DESIGN; i++)
        if (!strcmp(name, REFUSED_BY_DESIGN[i].name)) return REFUSED_BY_DESIGN[i].why;
    return NULL;
}

/* True when err is "PATH: ..." and holds why (when not NULL). */
static bool names_file(const wbuf *err, const char *path, const char *why)
{
    size_t plen = strlen(path);
    return err->len > plen + 2 && !strncmp(err->data, path, plen) && !strncmp(err->data + plen, ": ", 2) &&
           (!why || strstr(err->data, why));
}

/* Decodes hex in place; returns the byte count. */
static size_t unhex(char *s)
{
    size_t n = 0;
    for (const char *p = s; p[0] && p[1]; p += 2) {
        unsigned byte;
        sscanf(p, "%2x", &byte);
        s[n++] = (char)byte;
    }
    return n;
}

/* Parses "1,2,3" into ids; returns the count. */
static size_t parse_ids(const char *s, uint32_t *ids)
{
    size_t n = 0;
    for (char *end; *s && n < MAX_IDS; s = *end ? end + 1 : end) ids[n++] = (uint32_t)strtoul(s, &end, 10);
    return n;
}

static bool same_ids(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    return na == nb && (!na || !memcmp(a, b, na * sizeof *a));
}

/* One case: writes the file, loads it, compares with HF's outcome. */
static void check_case(const char *dir, char *name, char *file_hex, char *text_hex, const char *plain,
                       const char *special)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    size_t n = unhex(file_hex), text_len = unhex(text_hex);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(file_hex, 1, n, f) != n || fclose(f)) {
        printf("Bail out! cannot write %s\n", path);
        exit(1);
    }
    tokenizer t;
    wbuf err = WBUF_INIT;
    int rc = tokenizer_load(&t, NULL, path, -1, &err);
    unlink(path);
    if (!strcmp(plain, "refused")) {
        ok(rc < 0 && names_file(&err, path, refusal_says(name)), "%s: refused as HF does (%s), naming the file: %s",
           name, special, rc ? err.data : "loaded");
        buf_free(&err);
        return;
    }
    const char *why = refused_by_design(name);
    if (why) {
        ok(rc < 0 && names_file(&err, path, why), "%s: HF loads it, winnow refuses it saying so: %s", name,
           rc ? err.data : "loaded");
        if (!rc) tokenizer_free(&t);
        buf_free(&err);
        return;
    }
    if (!ok(rc == 0, "%s: loads as in HF%s%s", name, rc ? ": " : "", rc ? err.data : "")) {
        buf_free(&err);
        return;
    }
    buf_free(&err);
    uint32_t want[MAX_IDS], want_special[MAX_IDS], got[MAX_IDS + 2];
    size_t nwant = parse_ids(plain, want), nspecial = parse_ids(special, want_special);
    bpe_scratch scratch = {0};
    tok_ids ids = {0};
    tokenizer_encode(&t, text_hex, text_len, true, &scratch, &ids);
    ok(same_ids(ids.ids, ids.n, want, nwant), "%s: HF's ids %s (%zu ids)", name, plain, ids.n);
    size_t ngot = 0;
    if (t.bos_default) got[ngot++] = t.bos;
    for (size_t i = 0; i < ids.n && ngot < MAX_IDS; i++) got[ngot++] = ids.ids[i];
    if (t.eos_default) got[ngot++] = t.eos;
    ok(same_ids(got, ngot, want_special, nspecial), "%s: with the default BOS/EOS, HF's ids with special tokens %s",
       name, special);
    free(ids.ids);
    bpe_scratch_free(&scratch);
    tokenizer_free(&t);
}

int main(void)
{
    require_file(CASES);
    size_t size;
    FILE *f = fopen(CASES, "rb");
    char *tsv = NULL;
    size_t cap = 0;
    int ncases = 0, nrefused = 0;
    char dir[] = "/tmp/winnow-hfjson-XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    ssize_t got;
    while ((got = getline(&tsv, &cap, f)) > 0) {
        size = (size_t)got;
        if (size && tsv[size - 1] == '\n') tsv[size - 1] = 0;
        char *save, *name = strtok_r(tsv, "\t", &save), *file_hex = strtok_r(NULL, "\t", &save),
                    *text_hex = strtok_r(NULL, "\t", &save), *plain = strtok_r(NULL, "\t", &save),
                    *special = strtok_r(NULL, "\t", &save);
        if (!name || !file_hex || !text_hex || !plain || !special) {
            printf("Bail out! %s: a line without its five fields\n", CASES);
            return 1;
        }
        check_case(dir, name, file_hex, text_hex, plain, special);
        ncases++;
        nrefused += !strcmp(plain, "refused");
    }
    free(tsv);
    fclose(f);
    rmdir(dir);
    ok(ncases >= MIN_CASES && nrefused > 0 && nrefused < ncases, "%d cases, %d refused by HF", ncases, nrefused);
    return done_testing();
}
