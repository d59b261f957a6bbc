/* config.h - every rule of `winnow filter`, its switch and its thresholds.
 *
 * One table names each setting once; the same name works as a key in a
 * config file (`key = value`, '#' comments) and as a flag (`--key value`,
 * with '-' or '_' alike; switches also as `--key`/`--no-key`). Defaults are
 * FineWeb's rule set (datatrove's values), see docs/filter.md. A numeric
 * threshold of 0 turns that one check off, as None does in datatrove. */
#ifndef WINNOW_FILTER_CONFIG_H
#define WINNOW_FILTER_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#define FILTER_DUP_NGRAM_MIN 5
#define FILTER_DUP_NGRAM_MAX 10
#define FILTER_TOP_NGRAM_MIN 2
#define FILTER_TOP_NGRAM_MAX 4

typedef struct {
    /* Gopher quality (Rae et al. 2021) */
    bool gopher_quality;
    double gopher_min_words, gopher_max_words;
    double gopher_min_avg_word_len, gopher_max_avg_word_len;
    double gopher_max_symbol_ratio;
    double gopher_max_bullet_lines, gopher_max_ellipsis_lines;
    double gopher_min_alpha_words;
    double gopher_min_stop_words;
    char *gopher_stop_words; /* comma-separated */

    /* texts longer than this many bytes are dropped (too_long) before any
     * rule runs: the rules need memory in proportion to the text (up to
     * about 50 bytes per byte, for one letter and a space repeated) */
    double max_doc_bytes;

    /* Gopher repetition */
    bool gopher_repetition;
    double rep_dup_line_frac, rep_dup_para_frac, rep_dup_line_char_frac, rep_dup_para_char_frac;
    double rep_top_ngram[FILTER_TOP_NGRAM_MAX + 1];   /* indexed by n, 2..4 */
    double rep_dup_ngram[FILTER_DUP_NGRAM_MAX + 1];   /* indexed by n, 5..10 */

    /* C4 (Raffel et al. 2020) */
    bool c4;
    bool c4_terminal_punct, c4_remove_citations, c4_lorem_ipsum, c4_javascript, c4_curly_bracket, c4_policy;
    double c4_min_sentences, c4_min_words_per_line, c4_max_word_length;

    /* FineWeb (Penedo et al. 2024) */
    bool fineweb;
    double fw_line_punct_thr;
    bool fw_line_punct_exclude_zero;
    double fw_short_line_thr, fw_short_line_length, fw_char_dup_ratio, fw_new_line_ratio;

    /* language identification (CLD2) */
    bool langid;
    char *lang; /* comma-separated codes to keep; empty keeps all */
    double min_lang_score;
    double langid_max_bytes; /* CLD2 reads at most this many bytes of a text (0: all) */

    /* PII replacement */
    bool pii;
    char *pii_email, *pii_ipv4, *pii_ipv6; /* replacements */

    /* block lists */
    char *url_blocklist, *badwords; /* file paths; empty: none */

    /* model classifiers (fastText), docs/filter.md "Model classifiers" */
    char *classifier;   /* NAME=FILE entries, one per line */
    char *keep;         /* keep rules "NAME:LABEL >= X", one per line */
    char *langid_model; /* NAME of the classifier that identifies the language instead of CLD2 */
    double classifier_top_k;     /* labels of each classifier written to metadata.scores */
    double classifier_max_bytes; /* classifiers read at most this many bytes of a text (0: all) */
    bool classifier_fast;        /* few-label models sum precomputed logits in double (fasttext_model_load) */
} filter_config;

/* Fills c with the defaults (FineWeb's rule set + language annotation). */
void filter_config_defaults(filter_config *c);

/* Frees the strings c owns. */
void filter_config_free(filter_config *c);

/* Sets one setting by name ('-' and '_' alike); returns 0, or -1 with a
 * message in err (size errlen) for an unknown key or a bad value. */
int filter_config_set(filter_config *c, const char *key, const char *value, char *err, size_t errlen);

/* Sets one setting as the option --name[=value] does: value NULL is a bare
 * --X (true for a switch), --no-X sets a switch false; '-' and '_' alike.
 * Returns 0, or -1 with a message in err for an unknown name or a bad value. */
int filter_config_set_option(filter_config *c, const char *name, const char *value, char *err, size_t errlen);

/* Reads `key = value` lines ('#' comments) from f into c. Returns 0, or -1
 * with "PATH: line N: what" in err at the first bad line (a setting that is
 * not repeatable given a second time is one). */
int filter_config_read(filter_config *c, FILE *f, const char *path, char *err, size_t errlen);

/* Reads a `key = value` file into c; exits with status 1 naming the file and
 * line on an error. */
void filter_config_load(filter_config *c, const char *path);

/* Number of settings in the table, and the i-th's name and whether it is a
 * switch. A list setting (classifier, keep) gains an entry each time it is
 * set; set to an empty value, it becomes empty. */
int filter_config_count(void);
const char *filter_config_name(int i);
bool filter_config_is_bool(int i);

/* True when key names a setting that may be given more than once, its
 * values adding up (--classifier, --keep); any other setting given twice in
 * a config file or a pipeline section is refused. */
bool filter_config_repeatable(const char *key);

/* Prints every setting with its default and help, one per line. */
void filter_config_print_help(FILE *f);

/* Prints c as a config file (the effective settings) that reads back as c.
 * Returns 0, or -1 printing nothing, with the setting in err, when a value
 * cannot be written on a config line: a line break, white space at its
 * ends, or a '#' at its start or after a space or tab (a comment). */
int filter_config_print(const filter_config *c, FILE *f, char *err, size_t errlen);

#endif
