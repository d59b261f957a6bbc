/* filter_rules.c - fuzz target for the filter rule engine: any bytes (valid
 * UTF-8 or not) as a document's text and URL through every rule, language
 * ID, PII replacement and the block lists. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/filter.h"

static filter *filters[2];
static filter_worker *workers[2];

/* Writes a small block list file and returns its path. */
static const char *list_file(const char *name, const char *content)
{
    static char paths[2][64];
    static int n;
    char *p = paths[n++ % 2];
    snprintf(p, 64, "/tmp/winnow-fuzz-%s-%d", name, (int)getpid());
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(content, f);
        fclose(f);
    }
    return p;
}

static void setup(void)
{
    filter_config c;
    char err[128];
    filter_config_defaults(&c);
    filter_config_set(&c, "pii", "true", err, sizeof err);
    filter_config_set(&c, "url_blocklist", list_file("urls", "bad.example\nhttp://x.y/z\n"), err, sizeof err);
    filter_config_set(&c, "badwords", list_file("words", "darn\nsilly goose\n$$\n\xc3\xa9t\xc3\xa9\n"), err, sizeof err);
    filters[0] = filter_create(&c);
    filter_config_free(&c);
    /* every check switched on, thresholds off the defaults, C4 terminal punctuation */
    filter_config_defaults(&c);
    filter_config_set(&c, "c4_terminal_punct", "true", err, sizeof err);
    filter_config_set(&c, "gopher_min_words", "0", err, sizeof err);
    filter_config_set(&c, "gopher_repetition", "true", err, sizeof err);
    filter_config_set(&c, "c4_min_sentences", "0", err, sizeof err);
    filter_config_set(&c, "c4_max_word_length", "3", err, sizeof err);
    filter_config_set(&c, "fw_line_punct_thr", "0", err, sizeof err);
    filter_config_set(&c, "rep_top_2gram", "1", err, sizeof err);
    filters[1] = filter_create(&c);
    filter_config_free(&c);
    for (int i = 0; i < 2; i++) workers[i] = filter_worker_create(filters[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!filters[0]) setup();
    /* the bytes after a first NUL, when there is one, are the URL */
    const char *text = (const char *)data;
    const char *nul = memchr(data, 0, size);
    size_t text_len = nul ? (size_t)(nul - text) : size;
    const char *url = nul ? nul + 1 : NULL;
    size_t url_len = nul ? size - text_len - 1 : 0;
    for (int i = 0; i < 2; i++) {
        filter_result r;
        filter_document(filters[i], workers[i], text, text_len, url, url_len, &r);
        if (!r.reason && r.text_changed && r.text_len && !r.text) abort();
    }
    return 0;
}
