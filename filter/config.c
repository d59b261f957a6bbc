/* config.c - the table of filter settings, and the key = value reader. */
#include "filter/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

typedef enum { K_BOOL, K_NUM, K_STR, K_LIST } setting_kind; /* K_LIST: entries, one per line */

typedef struct {
    const char *name;
    setting_kind kind;
    size_t offset;
    const char *def; /* default, as text */
    const char *help;
} setting;

#define S(field, kind, def, help) {#field, kind, offsetof(filter_config, field), def, help}
#define SN(name, field, def, help) {name, K_NUM, offsetof(filter_config, field), def, help}

static const setting settings[] = {
    S(max_doc_bytes, K_NUM, "4194304", "drop longer texts (too_long) before any rule: bounds the rules' memory"),
    S(gopher_quality, K_BOOL, "true", "Gopher quality rules"),
    S(gopher_min_words, K_NUM, "50", "min words that are not all punctuation"),
    S(gopher_max_words, K_NUM, "100000", "max words that are not all punctuation"),
    S(gopher_min_avg_word_len, K_NUM, "3", "min mean word length (code points)"),
    S(gopher_max_avg_word_len, K_NUM, "10", "max mean word length"),
    S(gopher_max_symbol_ratio, K_NUM, "0.1", "max '#' per word, and max ellipses per word"),
    S(gopher_max_bullet_lines, K_NUM, "0.9", "max fraction of lines starting with a bullet"),
    S(gopher_max_ellipsis_lines, K_NUM, "0.3", "max fraction of lines ending with an ellipsis"),
    S(gopher_min_alpha_words, K_NUM, "0.8", "min fraction of words with an alphabetic character"),
    S(gopher_min_stop_words, K_NUM, "2", "min number of stop words"),
    S(gopher_stop_words, K_STR, "the,be,to,of,and,that,have,with", "stop words (comma-separated)"),

    S(gopher_repetition, K_BOOL, "true", "Gopher repetition rules"),
    S(rep_dup_line_frac, K_NUM, "0.3", "max fraction of duplicated lines"),
    S(rep_dup_para_frac, K_NUM, "0.3", "max fraction of duplicated paragraphs"),
    S(rep_dup_line_char_frac, K_NUM, "0.2", "max fraction of characters in duplicated lines"),
    S(rep_dup_para_char_frac, K_NUM, "0.2", "max fraction of characters in duplicated paragraphs"),
    SN("rep_top_2gram", rep_top_ngram[2], "0.2", "max character fraction of the top 2-gram"),
    SN("rep_top_3gram", rep_top_ngram[3], "0.18", "max character fraction of the top 3-gram"),
    SN("rep_top_4gram", rep_top_ngram[4], "0.16", "max character fraction of the top 4-gram"),
    SN("rep_dup_5gram", rep_dup_ngram[5], "0.15", "max character fraction of duplicated 5-grams"),
    SN("rep_dup_6gram", rep_dup_ngram[6], "0.14", "same for 6-grams"),
    SN("rep_dup_7gram", rep_dup_ngram[7], "0.13", "same for 7-grams"),
    SN("rep_dup_8gram", rep_dup_ngram[8], "0.12", "same for 8-grams"),
    SN("rep_dup_9gram", rep_dup_ngram[9], "0.11", "same for 9-grams"),
    SN("rep_dup_10gram", rep_dup_ngram[10], "0.1", "same for 10-grams"),

    S(c4, K_BOOL, "true", "C4 rules (line rules rewrite the text)"),
    S(c4_terminal_punct, K_BOOL, "false", "drop lines not ending in terminal punctuation (C4 paper: true)"),
    S(c4_remove_citations, K_BOOL, "true", "remove [1], [edit], [citation needed]"),
    S(c4_lorem_ipsum, K_BOOL, "true", "drop documents containing \"lorem ipsum\""),
    S(c4_javascript, K_BOOL, "true", "drop lines mentioning javascript"),
    S(c4_curly_bracket, K_BOOL, "true", "drop documents whose kept lines contain '{'"),
    S(c4_policy, K_BOOL, "true", "drop lines about cookies / terms of use / privacy policy"),
    S(c4_min_sentences, K_NUM, "5", "min sentences in the kept lines"),
    S(c4_min_words_per_line, K_NUM, "3", "drop lines with fewer words"),
    S(c4_max_word_length, K_NUM, "1000", "drop lines with a longer word"),

    S(fineweb, K_BOOL, "true", "FineWeb rules"),
    S(fw_line_punct_thr, K_NUM, "0.12", "drop when the fraction of lines ending in . ' \" ! ? is <= this"),
    S(fw_line_punct_exclude_zero, K_BOOL, "false", "keep documents where that fraction is 0"),
    S(fw_short_line_thr, K_NUM, "0.67", "drop when the fraction of short lines is >= this"),
    S(fw_short_line_length, K_NUM, "30", "a short line has at most this many characters"),
    S(fw_char_dup_ratio, K_NUM, "0.01", "drop when duplicated-line characters / characters >= this"),
    S(fw_new_line_ratio, K_NUM, "0.3", "drop when newlines per word > this"),

    S(langid, K_BOOL, "true", "language identification (CLD2): metadata.lang, lang_score"),
    S(lang, K_STR, "", "keep only these languages (comma-separated codes); empty keeps all"),
    S(min_lang_score, K_NUM, "0", "drop documents whose lang_score is not above this"),
    S(langid_max_bytes, K_NUM, "1024", "CLD2 reads at most this many bytes of each text (0: all)"),

    S(pii, K_BOOL, "false", "replace e-mail addresses and public IP addresses"),
    S(pii_email, K_STR, "email@example.com", "replacement for e-mail addresses"),
    S(pii_ipv4, K_STR, "22.214.171.124", "replacement for public IPv4 addresses"),
    S(pii_ipv6, K_STR, "2001:db8::1", "replacement for public IPv6 addresses"),

    S(url_blocklist, K_STR, "", "file of blocked domains/URLs, one per line"),
    S(badwords, K_STR, "", "file of blocked words/phrases, one per line"),

    S(classifier, K_LIST, "", "NAME=FILE: a fastText model (.bin/.ftz) scoring every kept document (repeatable)"),
    S(keep, K_LIST, "", "keep rule on a score, e.g. 'dclm:__label__hq >= 0.018' (repeatable; >=, >, <=, <)"),
    S(langid_model, K_STR, "", "NAME of a classifier that identifies the language instead of CLD2"),
    S(classifier_top_k, K_NUM, "2", "labels of each classifier written to metadata.scores (plus those of keep rules)"),
    S(classifier_max_bytes, K_NUM, "0", "classifiers read at most this many bytes of each text (0: all)"),
    S(classifier_fast, K_BOOL, "false",
      "models with <= 8 labels and dim >= 8 per label sum precomputed logits in double (faster; within ~2e-6 of fastText)"),
};
static const int nsettings = (int)(sizeof settings / sizeof settings[0]);

int filter_config_count(void) { return nsettings; }
const char *filter_config_name(int i) { return settings[i].name; }
bool filter_config_is_bool(int i) { return settings[i].kind == K_BOOL; }

/* The index of the setting named key ('_' or '-' alike), or -1. */
static int setting_index(const char *key)
{
    for (int i = 0; i < nsettings; i++)
        if (option_name_equal(settings[i].name, key)) return i;
    return -1;
}

bool filter_config_repeatable(const char *key)
{
    int i = setting_index(key);
    return i >= 0 && settings[i].kind == K_LIST;
}

static int set_value(filter_config *c, const setting *s, const char *value, char *err, size_t errlen)
{
    char *field = (char *)c + s->offset;
    if (s->kind == K_BOOL) {
        bool v;
        if (!strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "yes") || !strcmp(value, "on"))
            v = true;
        else if (!strcmp(value, "false") || !strcmp(value, "0") || !strcmp(value, "no") || !strcmp(value, "off"))
            v = false;
        else {
            snprintf(err, errlen, "%s: expected true or false, got '%s'", s->name, value);
            return -1;
        }
        *(bool *)field = v;
    } else if (s->kind == K_NUM) {
        char *end;
        errno = 0;
        double v = strtod(value, &end);
        if (end == value || *end || errno || !(v >= 0)) { /* NaN too: every rule would pass it */
            snprintf(err, errlen, "%s: expected a non-negative number, got '%s'", s->name, value);
            return -1;
        }
        *(double *)field = v;
    } else if (s->kind == K_LIST && *value && *(char **)field && **(char **)field) {
        char **p = (char **)field;
        size_t n = strlen(*p) + strlen(value) + 2;
        char *joined = xmalloc(n);
        snprintf(joined, n, "%s\n%s", *p, value);
        free(*p);
        *p = joined;
    } else {
        char **p = (char **)field;
        free(*p);
        *p = xstrdup(value);
    }
    return 0;
}

int filter_config_set(filter_config *c, const char *key, const char *value, char *err, size_t errlen)
{
    int i = setting_index(key);
    if (i >= 0) return set_value(c, &settings[i], value, err, errlen);
    snprintf(err, errlen, "unknown setting '%s'", key);
    return -1;
}

void filter_config_defaults(filter_config *c)
{
    memset(c, 0, sizeof *c);
    char err[128];
    for (int i = 0; i < nsettings; i++)
        if (set_value(c, &settings[i], settings[i].def, err, sizeof err)) dief(EXIT_FATAL, "%s", err);
}

void filter_config_free(filter_config *c)
{
    for (int i = 0; i < nsettings; i++)
        if (settings[i].kind == K_STR || settings[i].kind == K_LIST) {
            char **p = (char **)((char *)c + settings[i].offset);
            free(*p);
            *p = NULL;
        }
}

int filter_config_read(filter_config *c, FILE *f, const char *path, char *err, size_t errlen)
{
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    int *first_line = xcalloc((size_t)nsettings, sizeof *first_line); /* a setting given twice is refused */
    ssize_t len;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, 0, (size_t)len)) {
            snprintf(err, errlen, "%s: line %d: a NUL byte; not a text file?", path, lineno);
            rc = -1;
            break;
        }
        cut_comment(line, "#"); /* at the line's start or after a space or tab: "a#b" keeps its '#' */
        char *s = trim_space(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(err, errlen, "%s: line %d: expected key = value", path, lineno);
            rc = -1;
            break;
        }
        *eq = 0;
        char *key = trim_space(s), why[256];
        int i = setting_index(key);
        if (i >= 0 && settings[i].kind != K_LIST && first_line[i]) {
            snprintf(err, errlen, "%s: line %d: '%s' is given twice (first at line %d)", path, lineno, key, first_line[i]);
            rc = -1;
            break;
        }
        if (i >= 0) first_line[i] = lineno;
        if (filter_config_set(c, key, trim_space(eq + 1), why, sizeof why)) {
            snprintf(err, errlen, "%s: line %d: %s", path, lineno, why);
            rc = -1;
        }
    }
    free(line);
    free(first_line);
    return rc;
}

void filter_config_load(filter_config *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) dief(EXIT_USAGE, "%s: %s", path, strerror(errno));
    char err[PATH_MAX + 300];
    int rc = filter_config_read(c, f, path, err, sizeof err);
    fclose(f);
    if (rc) dief(EXIT_USAGE, "%s", err);
}

void filter_config_print_help(FILE *f)
{
    for (int i = 0; i < nsettings; i++) {
        const setting *s = &settings[i];
        char flag[64];
        snprintf(flag, sizeof flag, "%s", s->name);
        for (char *p = flag; *p; p++)
            if (*p == '_') *p = '-';
        bool quoted = s->kind == K_STR || s->kind == K_LIST;
        fprintf(f, "  --%-27s %s (default %s%s%s)\n", flag, s->help, quoted ? "'" : "", s->def, quoted ? "'" : "");
    }
}

/* Prints a number as the shortest of %.15g and %.17g that reads back as
 * the same double (%g's 6 digits turn 4194304 into 4.1943e+06). */
static void print_number(FILE *f, double v)
{
    char text[32];
    snprintf(text, sizeof text, "%.15g", v);
    if (strtod(text, NULL) != v) snprintf(text, sizeof text, "%.17g", v);
    fputs(text, f);
}

/* Prints a list setting as one `name = entry` line per entry (one empty
 * line when it has none, which reads back as the empty list). */
static void print_list(FILE *f, const char *name, const char *entries)
{
    if (!entries || !*entries) {
        fprintf(f, "%s =\n", name);
        return;
    }
    for (const char *p = entries; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "%s = %.*s\n", name, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

/* True when a line `name = v[0..n)` reads back as that value: see filter_config_print. */
static bool writable(const char *v, size_t n)
{
    if (n && (isspace((unsigned char)v[0]) || isspace((unsigned char)v[n - 1]))) return false;
    for (size_t i = 0; i < n; i++)
        if (v[i] == '\n' || v[i] == '\r' || (v[i] == '#' && (i == 0 || v[i - 1] == ' ' || v[i - 1] == '\t')))
            return false;
    return true;
}

/* True when every entry of a list (one per line) is writable. */
static bool list_writable(const char *entries)
{
    for (const char *p = entries; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (!writable(p, n)) return false;
        p += n + (p[n] == '\n');
    }
    return true;
}

int filter_config_print(const filter_config *c, FILE *f, char *err, size_t errlen)
{
    for (int i = 0; i < nsettings; i++) {
        const setting *s = &settings[i];
        if (s->kind != K_STR && s->kind != K_LIST) continue; /* a number or a switch prints as it reads */
        const char *v = *(char *const *)((const char *)c + s->offset);
        if ((s->kind == K_STR && v && !writable(v, strlen(v))) || (s->kind == K_LIST && !list_writable(v))) {
            snprintf(err, errlen, "%s: its value cannot be written in a config file (a line break, white space at "
                     "its ends, or a '#' at its start or after a space, which starts a comment)", s->name);
            return -1;
        }
    }
    for (int i = 0; i < nsettings; i++) {
        const setting *s = &settings[i];
        const char *field = (const char *)c + s->offset;
        if (s->kind == K_BOOL)
            fprintf(f, "%s = %s\n", s->name, *(const bool *)field ? "true" : "false");
        else if (s->kind == K_NUM) {
            fprintf(f, "%s = ", s->name);
            print_number(f, *(const double *)field);
            fputc('\n', f);
        }
        else if (s->kind == K_LIST)
            print_list(f, s->name, *(char *const *)field);
        else
            fprintf(f, "%s = %s\n", s->name, *(char *const *)field ? *(char *const *)field : "");
    }
    return 0;
}
