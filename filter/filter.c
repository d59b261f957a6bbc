/* filter.c - runs the enabled rules on one document, in FineWeb's order. */
#include "filter/filter.h"

#include <stdlib.h>
#include <string.h>

#include "core/doc.h"
#include "core/utf8.h"
#include "core/util.h"
#include "filter/blocklist.h"
#include "filter/classify.h"
#include "filter/langid.h"
#include "filter/uchar.h"
#include "filter/pii.h"
#include "filter/rules.h"
#include "filter/words.h"

/* At most this many --lang codes. */
#define FILTER_MAX_LANGS 64

struct filter {
    filter_config config;
    stopword_set stop;
    const char *langs[FILTER_MAX_LANGS];
    int nlangs;
    url_blocklist *urls;
    word_blocklist *badwords;
    pii_matcher *pii;
    classifiers *models; /* NULL when no classifier is given */
    char *lang_copy;     /* the split --lang list langs[] points into */
};

struct filter_worker {
    fwords words;
    rule_scratch rules;
    wbuf c4_text, pii_text, scratch;
    wbuf line_text, line_url, line_meta; /* filter_json_line's decoded text and url, new metadata */
    pii_scratch *pii;
    classify_scratch *models;
};

/* Splits a comma-separated list in place into out (at most max). */
static int split_list(char *s, char **out, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        if (n == max) dief(EXIT_USAGE, "too many entries in list (at most %d)", max);
        out[n++] = tok;
    }
    return n;
}

filter *filter_create(const filter_config *c)
{
    filter *f = xcalloc(1, sizeof *f);
    f->config = *c;
    /* own copies of the strings */
    filter_config *fc = &f->config;
    char **strs[] = {&fc->gopher_stop_words, &fc->lang, &fc->pii_email, &fc->pii_ipv4,
                     &fc->pii_ipv6, &fc->url_blocklist, &fc->badwords, &fc->classifier, &fc->keep,
                     &fc->langid_model};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) *strs[i] = xstrdup(*strs[i] ? *strs[i] : "");

    if (!stopwords_init(&f->stop, fc->gopher_stop_words))
        dief(EXIT_USAGE, "too many Gopher stop words (at most %d)", STOPWORDS_MAX);

    f->models = classifiers_create(fc);
    /* with a language classifier, --lang names its labels as they are; CLD2's
     * codes are canonicalised (names and aliases accepted) */
    bool by_model = classifiers_identify_language(f->models);
    f->lang_copy = xstrdup(fc->lang);
    char *codes[FILTER_MAX_LANGS];
    int n = split_list(f->lang_copy, codes, FILTER_MAX_LANGS);
    for (int i = 0; i < n; i++) {
        const char *code = by_model ? codes[i] : langid_canonical_code(codes[i]);
        if (!code) dief(EXIT_USAGE, "--lang: CLD2 does not know the language '%s'", codes[i]);
        f->langs[f->nlangs++] = code;
    }
    if (classifiers_identify_language(f->models) && !fc->langid)
        dief(EXIT_USAGE, "--langid-model replaces CLD2 in language identification: it needs --langid");
    if ((f->nlangs || fc->min_lang_score > 0) && !fc->langid)
        dief(EXIT_USAGE, "--lang and --min-lang-score need language identification (--langid)");
    if (*fc->url_blocklist) f->urls = url_blocklist_load(fc->url_blocklist);
    if (*fc->badwords) f->badwords = word_blocklist_load(fc->badwords);
    if (fc->pii) f->pii = pii_create(fc->pii_email, fc->pii_ipv4, fc->pii_ipv6);
    return f;
}

void filter_destroy(filter *f)
{
    if (!f) return;
    stopwords_free(&f->stop);
    url_blocklist_free(f->urls);
    word_blocklist_free(f->badwords);
    pii_free(f->pii);
    classifiers_free(f->models);
    free(f->lang_copy);
    filter_config_free(&f->config);
    free(f);
}

const filter_config *filter_get_config(const filter *f) { return &f->config; }

filter_worker *filter_worker_create(const filter *f)
{
    filter_worker *w = xcalloc(1, sizeof *w);
    words_init(&w->words);
    if (f->pii) w->pii = pii_scratch_create(f->pii);
    if (f->models) w->models = classify_scratch_create(f->models);
    return w;
}

void filter_worker_destroy(filter_worker *w)
{
    if (!w) return;
    words_free(&w->words);
    rule_scratch_free(&w->rules);
    buf_free(&w->c4_text);
    buf_free(&w->pii_text);
    buf_free(&w->scratch);
    buf_free(&w->line_text);
    buf_free(&w->line_url);
    buf_free(&w->line_meta);
    pii_scratch_free(w->pii);
    classify_scratch_free(w->models);
    free(w);
}

static bool lang_allowed(const filter *f, const char *code)
{
    if (!f->nlangs) return true;
    for (int i = 0; i < f->nlangs; i++)
        if (strcmp(f->langs[i], code) == 0) return true;
    return false;
}

/* Sets r's language from text; returns a drop reason when --lang or
 * --min-lang-score rejects it. */
static const char *identify_language(const filter *f, filter_worker *w, const char *text, size_t n,
                                     filter_result *r)
{
    const filter_config *c = &f->config;
    r->has_lang = true;
    if (classifiers_identify_language(f->models)) {
        classify_language(f->models, w->models, text, n, &r->lang, &r->lang_score);
    } else {
        langid_result lr;
        if (utf8_valid(text, n)) {
            langid_detect(text, n, (size_t)c->langid_max_bytes, &lr);
        } else { /* CLD2 wants valid UTF-8; the stream always is, library callers may not be */
            buf_clear(&w->scratch);
            utf8_repair(&w->scratch, text, n);
            langid_detect(w->scratch.data, w->scratch.len, (size_t)c->langid_max_bytes, &lr);
        }
        r->lang = lr.code;
        r->lang_score = lr.score;
    }
    if (!lang_allowed(f, r->lang)) return "lang:not_wanted";
    /* datatrove's LanguageFilter keeps a document when score > threshold */
    if (c->min_lang_score > 0 && r->lang_score <= c->min_lang_score) return "lang:low_score";
    return NULL;
}

void filter_document(const filter *f, filter_worker *w, const char *text, size_t n, const char *url,
                     size_t url_len, filter_result *r)
{
    const filter_config *c = &f->config;
    memset(r, 0, sizeof *r);
    r->text = text;
    r->text_len = n;

    if (c->max_doc_bytes && (double)n > c->max_doc_bytes) {
        r->reason = "too_long";
        return;
    }
    if (f->urls && url && url_len && url_blocklist_match(f->urls, url, url_len, &w->scratch)) {
        r->reason = "url_blocklist";
        return;
    }
    /* language ID decides here when it filters; when it only annotates, it
     * runs last, on the documents that are kept (same output, less work) */
    bool lang_filters = f->nlangs || c->min_lang_score > 0;
    if (c->langid && lang_filters && (r->reason = identify_language(f, w, text, n, r))) return;
    if (f->badwords && word_blocklist_match(f->badwords, text, n, &w->scratch)) {
        r->reason = "badwords";
        return;
    }
    /* the repetition rule's line and paragraph checks need no words: a
     * document they drop is never split into words */
    bool need_words = c->gopher_repetition || c->gopher_quality || c->fineweb;
    size_t chars = need_words ? uc_count(text, n) : 0; /* counted once, for both */
    if (c->gopher_repetition && (r->reason = gopher_repetition_text_check(c, &w->rules, text, n, chars))) return;
    if (need_words) words_tokenize_counted(&w->words, text, n, chars, &f->stop);
    if (c->gopher_repetition && (r->reason = gopher_repetition_word_check(c, &w->rules, &w->words))) return;
    if (c->gopher_quality && (r->reason = gopher_quality_check(c, text, n, &w->words))) return;

    const char *cur = text;
    size_t cur_len = n, nwords = w->words.n;
    if (c->c4) {
        bool changed = false;
        if ((r->reason = c4_apply(c, &w->rules, text, n, &w->c4_text, &changed, &r->c4_lines_removed))) return;
        if (changed) {
            cur = w->c4_text.data ? w->c4_text.data : ""; /* C4 may keep no line: no buffer yet */
            cur_len = w->c4_text.len;
            /* FineWeb counts the words of C4's output: those of the kept
             * lines, unless citation markers ([1], [edit]) were taken out of
             * lines (only texts with a '['), whose words C4's output is
             * tokenised again for */
            nwords = 0;
            if (c->fineweb && c->c4_remove_citations && memchr(text, '[', n)) {
                words_tokenize(&w->words, cur, cur_len, &f->stop);
                nwords = w->words.n;
            } else {
                for (size_t i = 0; i < w->words.n; i++) nwords += w->rules.line_kept[w->words.w[i].line];
            }
            r->text_changed = true;
        }
    }
    if (c->fineweb && (r->reason = fineweb_check(c, &w->rules, cur, cur_len, nwords))) return;
    if (f->models && (r->reason = classify_document(f->models, w->models, cur, cur_len, &r->scores, &r->scores_len)))
        return;
    if (f->pii) {
        size_t k = pii_replace(f->pii, w->pii, cur, cur_len, &w->pii_text);
        if (k) {
            r->pii_replaced = k;
            cur = w->pii_text.data;
            cur_len = w->pii_text.len;
            r->text_changed = true;
        }
    }
    if (c->langid && !lang_filters) identify_language(f, w, text, n, r);
    r->text = cur;
    r->text_len = cur_len;
}

bool filter_wants_url(const filter *f) { return f->urls != NULL; }

void filter_result_meta(const filter_result *r, wbuf *meta)
{
    if (!r->has_lang && !r->text_changed && !r->scores_len) return;
    if (r->has_lang) {
        meta_add_str(meta, "lang", r->lang, strlen(r->lang));
        meta_add_num(meta, "lang_score", r->lang_score);
    }
    if (r->scores_len) meta_add_raw(meta, "scores", r->scores, r->scores_len);
    if (r->c4_lines_removed) meta_add_int(meta, "c4_lines_removed", (long long)r->c4_lines_removed);
    if (r->pii_replaced) meta_add_int(meta, "pii_replaced", (long long)r->pii_replaced);
}

/* The document's URL for the URL block list: the top-level "url", else
 * metadata.url (where Dolma keeps it); NULL when there is none or no list. */
static const char *line_url(const filter *f, filter_worker *w, const jdoc *d, size_t *len)
{
    if (!f->urls) return NULL;
    jvalue url = d->url;
    if (url.kind != JSON_STRING && d->metadata.kind == JSON_OBJECT) {
        /* the metadata value is itself a scanned, valid object: scan its members */
        jdoc meta;
        const char *err;
        size_t pos;
        if (json_scan_doc(d->metadata.p, d->metadata.len, &meta, &err, &pos) == 0) url = meta.url;
    }
    if (url.kind != JSON_STRING) return NULL;
    return json_string(&url, &w->line_url, len);
}

const char *filter_json_line(const filter *f, filter_worker *w, const char *line, size_t len, const jdoc *d,
                             wbuf *out, bool *rewritten)
{
    size_t text_len;
    const char *text = json_string(&d->text, &w->line_text, &text_len);
    return filter_json_line_text(f, w, line, len, d, text, text_len, out, rewritten);
}

const char *filter_json_line_text(const filter *f, filter_worker *w, const char *line, size_t len, const jdoc *d,
                                  const char *text, size_t text_len, wbuf *out, bool *rewritten)
{
    *rewritten = false;
    size_t url_len = 0;
    const char *url = line_url(f, w, d, &url_len);
    filter_result r;
    filter_document(f, w, text, text_len, url, url_len, &r);
    if (r.reason) return r.reason;
    if (!r.has_lang && !r.text_changed && !r.scores_len) return NULL;
    buf_clear(&w->line_meta);
    filter_result_meta(&r, &w->line_meta);
    doc_rewrite(line, len, d, r.text_changed ? r.text : NULL, r.text_len, &w->line_meta, out);
    *rewritten = true;
    return NULL;
}
