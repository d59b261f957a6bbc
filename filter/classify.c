/* classify.c - named fastText classifiers, keep rules on their scores, and
 * the metadata they write (see classify.h). */
#include "filter/classify.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/util.h"
#include "filter/fasttext_model.h"

#define LABEL_PREFIX "__label__"
#define MAX_TOP_K 1000

typedef struct {
    char *name;
    fasttext_model *model;
    int nlabels;
    bool *ruled; /* labels a keep rule names: always written */
    int k;       /* labels to score: the top k written, or every label when a rule names one */
} classifier;

typedef enum { CMP_GE, CMP_GT, CMP_LE, CMP_LT } cmp_op;

typedef struct {
    int classifier, label;
    cmp_op op;
    double threshold;
    char *reason; /* "classifier:NAME:LABEL" */
} keep_rule;

struct classifiers {
    classifier *c;
    int n;
    keep_rule *rules;
    int nrules;
    int langid;        /* the language classifier, or -1 */
    char **lang_codes; /* its labels without the prefix */
    int top_k;
    size_t max_bytes;
    bool fast; /* classifier_fast: models load in fast mode */
};

struct classify_scratch {
    int n; /* classifiers */
    fasttext_scratch *ft;
    float **probs; /* per classifier, nlabels each */
    bool *written; /* per label of the classifier being written */
    wbuf json;
};

static int find_classifier(const classifiers *cs, const char *name)
{
    for (int i = 0; i < cs->n; i++)
        if (!strcmp(cs->c[i].name, name)) return i;
    return -1;
}

/* Loads one "NAME=FILE" entry. */
static void add_classifier(classifiers *cs, char *entry)
{
    char *eq = strchr(entry, '=');
    if (!eq) dief(EXIT_USAGE, "classifier '%s': expected NAME=FILE", entry);
    *eq = 0;
    char *name = trim_space(entry), *path = trim_space(eq + 1);
    if (!*name || strpbrk(name, ": \t\"\\") || !*path)
        dief(EXIT_USAGE, "classifier '%s=%s': expected NAME=FILE, NAME without ':', quotes or blanks", name, path);
    if (find_classifier(cs, name) >= 0) dief(EXIT_USAGE, "classifier '%s' is named twice", name);
    char err[512];
    fasttext_model *m = fasttext_model_load(path, cs->fast, err, sizeof err);
    if (!m) dief(EXIT_USAGE, "classifier %s: %s", name, err);
    cs->c = xrealloc(cs->c, (size_t)(cs->n + 1) * sizeof *cs->c);
    classifier *c = &cs->c[cs->n++];
    c->name = xstrdup(name);
    c->model = m;
    c->nlabels = fasttext_model_nlabels(m);
    c->ruled = xcalloc((size_t)c->nlabels, sizeof *c->ruled);
}

/* Parses one "NAME:LABEL OP NUMBER" keep rule. */
static void add_rule(classifiers *cs, char *entry)
{
    char *opp = strpbrk(entry, "<>");
    if (!opp) dief(EXIT_USAGE, "keep '%s': expected NAME:LABEL >= NUMBER (or >, <=, <)", entry);
    keep_rule r;
    size_t oplen = opp[1] == '=' ? 2 : 1;
    r.op = opp[0] == '>' ? (oplen == 2 ? CMP_GE : CMP_GT) : (oplen == 2 ? CMP_LE : CMP_LT);
    char *num = trim_space(opp + oplen), *end;
    errno = 0;
    r.threshold = strtod(num, &end);
    if (end == num || *end || errno || !isfinite(r.threshold))
        dief(EXIT_USAGE, "keep '%s': '%s' is not a number", entry, num);
    *opp = 0;
    char *lhs = trim_space(entry), *colon = strchr(lhs, ':');
    if (!colon) dief(EXIT_USAGE, "keep '%s': expected NAME:LABEL before the comparison", lhs);
    *colon = 0;
    char *name = trim_space(lhs), *label = trim_space(colon + 1);
    if ((r.classifier = find_classifier(cs, name)) < 0)
        dief(EXIT_USAGE, "keep: no classifier named '%s' (give it with --classifier %s=FILE)", name, name);
    classifier *c = &cs->c[r.classifier];
    if ((r.label = fasttext_model_find_label(c->model, label)) < 0)
        dief(EXIT_USAGE, "keep: classifier '%s' has no label '%s'", name, label);
    c->ruled[r.label] = true;
    size_t n = strlen(name) + strlen(label) + sizeof "classifier::";
    r.reason = xmalloc(n);
    snprintf(r.reason, n, "classifier:%s:%s", name, label);
    cs->rules = xrealloc(cs->rules, (size_t)(cs->nrules + 1) * sizeof *cs->rules);
    cs->rules[cs->nrules++] = r;
}

/* Calls add(cs, entry) for each line of list. */
static void for_each_entry(classifiers *cs, const char *list, void (*add)(classifiers *, char *))
{
    char *copy = xstrdup(list ? list : ""), *save = NULL;
    for (char *e = strtok_r(copy, "\n", &save); e; e = strtok_r(NULL, "\n", &save))
        if (*trim_space(e)) add(cs, trim_space(e));
    free(copy);
}

classifiers *classifiers_create(const filter_config *c)
{
    if (!c->classifier || !*c->classifier) {
        if ((c->keep && *c->keep) || (c->langid_model && *c->langid_model))
            dief(EXIT_USAGE, "keep and langid-model need a classifier (--classifier NAME=FILE)");
        return NULL;
    }
    if (c->classifier_top_k != floor(c->classifier_top_k) || c->classifier_top_k > MAX_TOP_K)
        dief(EXIT_USAGE, "classifier-top-k: expected a whole number up to %d", MAX_TOP_K);
    classifiers *cs = xcalloc(1, sizeof *cs);
    cs->top_k = (int)c->classifier_top_k;
    cs->max_bytes = (size_t)c->classifier_max_bytes;
    cs->langid = -1;
    cs->fast = c->classifier_fast;
    for_each_entry(cs, c->classifier, add_classifier);
    for_each_entry(cs, c->keep, add_rule);
    for (int i = 0; i < cs->n; i++) {
        cs->c[i].k = cs->top_k;
        for (int r = 0; r < cs->nrules; r++)
            if (cs->rules[r].classifier == i) cs->c[i].k = 0;
    }
    if (c->langid_model && *c->langid_model) {
        if ((cs->langid = find_classifier(cs, c->langid_model)) < 0)
            dief(EXIT_USAGE, "langid-model: no classifier named '%s'", c->langid_model);
        for (int r = 0; r < cs->nrules; r++)
            if (cs->rules[r].classifier == cs->langid)
                dief(EXIT_USAGE, "keep '%s': the language classifier is filtered by --lang and --min-lang-score",
                     cs->rules[r].reason + strlen("classifier:"));
        const classifier *l = &cs->c[cs->langid];
        cs->lang_codes = xcalloc((size_t)l->nlabels, sizeof *cs->lang_codes);
        for (int i = 0; i < l->nlabels; i++) {
            const char *label = fasttext_model_label(l->model, i);
            if (!strncmp(label, LABEL_PREFIX, strlen(LABEL_PREFIX))) label += strlen(LABEL_PREFIX);
            cs->lang_codes[i] = xstrdup(label);
        }
    }
    return cs;
}

void classifiers_free(classifiers *cs)
{
    if (!cs) return;
    for (int i = 0; i < cs->n; i++) {
        free(cs->c[i].name);
        free(cs->c[i].ruled);
        fasttext_model_free(cs->c[i].model);
    }
    if (cs->lang_codes)
        for (int i = 0; i < cs->c[cs->langid].nlabels; i++) free(cs->lang_codes[i]);
    for (int i = 0; i < cs->nrules; i++) free(cs->rules[i].reason);
    free(cs->lang_codes);
    free(cs->rules);
    free(cs->c);
    free(cs);
}

classify_scratch *classify_scratch_create(const classifiers *cs)
{
    classify_scratch *s = xcalloc(1, sizeof *s);
    s->n = cs->n;
    s->ft = fasttext_scratch_create();
    s->probs = xcalloc((size_t)cs->n, sizeof *s->probs);
    int most = 0;
    for (int i = 0; i < cs->n; i++) {
        s->probs[i] = xcalloc((size_t)cs->c[i].nlabels, sizeof **s->probs);
        if (cs->c[i].nlabels > most) most = cs->c[i].nlabels;
    }
    s->written = xcalloc((size_t)most, sizeof *s->written);
    return s;
}

void classify_scratch_free(classify_scratch *s)
{
    if (!s) return;
    fasttext_scratch_free(s->ft);
    free(s->written);
    buf_free(&s->json);
    for (int i = 0; i < s->n; i++) free(s->probs[i]);
    free(s->probs);
    free(s);
}

size_t classify_text_len(const classifiers *cs, const char *text, size_t n)
{
    if (!cs->max_bytes || n <= cs->max_bytes) return n;
    size_t cut = cs->max_bytes;
    while (cut && ((unsigned char)text[cut] & 0xC0) == 0x80) cut--; /* not inside a character */
    return cut;
}

/* Scores text with classifier i, its best k labels (k <= 0: every label). */
static void score(const classifiers *cs, classify_scratch *s, int i, int k, const char *text, size_t n)
{
    /* fasttext_check's weight bound keeps fastText's sums finite: a refusal
     * here is a broken invariant, not a property of the document */
    if (!fasttext_model_predict(cs->c[i].model, s->ft, text, classify_text_len(cs, text, n), k, s->probs[i]))
        dief(EXIT_FATAL, "classifier %s: fastText refused to score a document (NaN)", cs->c[i].name);
}

bool classifiers_identify_language(const classifiers *cs) { return cs && cs->langid >= 0; }

void classify_language(const classifiers *cs, classify_scratch *s, const char *text, size_t n, const char **code,
                       double *p)
{
    score(cs, s, cs->langid, 1, text, n);
    const float *probs = s->probs[cs->langid];
    int best = 0;
    for (int i = 1; i < cs->c[cs->langid].nlabels; i++)
        if (probs[i] > probs[best]) best = i;
    *code = cs->lang_codes[best];
    *p = probs[best];
}

static bool rule_holds(const keep_rule *r, double p)
{
    switch (r->op) {
    case CMP_GE: return p >= r->threshold;
    case CMP_GT: return p > r->threshold;
    case CMP_LE: return p <= r->threshold;
    default: return p < r->threshold;
    }
}

/* Appends classifier i's object: its top k labels by probability (ties: the
 * lower label index first), then the labels its rules name. */
static void write_scores(const classifiers *cs, classify_scratch *s, int i)
{
    const classifier *c = &cs->c[i];
    const float *p = s->probs[i];
    memset(s->written, 0, (size_t)c->nlabels * sizeof *s->written);
    json_put_string(&s->json, c->name, strlen(c->name));
    buf_puts(&s->json, ":{");
    bool first = true;
    for (int k = 0; k < cs->top_k + c->nlabels; k++) {
        int pick = -1;
        if (k < cs->top_k) { /* the next best label not yet written */
            for (int l = 0; l < c->nlabels; l++) /* 0: a label fastText's search left out */
                if (!s->written[l] && p[l] > 0 && (pick < 0 || p[l] > p[pick])) pick = l;
        } else if (c->ruled[k - cs->top_k] && !s->written[k - cs->top_k]) {
            pick = k - cs->top_k;
        }
        if (pick < 0) continue;
        s->written[pick] = true;
        if (!first) buf_putc(&s->json, ',');
        first = false;
        const char *label = fasttext_model_label(c->model, pick);
        json_put_string(&s->json, label, strlen(label));
        buf_printf(&s->json, ":%.9g", (double)p[pick]); /* 9 digits give back the float */
    }
    buf_putc(&s->json, '}');
}

const char *classify_document(const classifiers *cs, classify_scratch *s, const char *text, size_t n,
                              const char **json, size_t *len)
{
    for (int i = 0; i < cs->n; i++)
        if (i != cs->langid) score(cs, s, i, cs->c[i].k, text, n);
    for (int r = 0; r < cs->nrules; r++) {
        const keep_rule *k = &cs->rules[r];
        if (!rule_holds(k, s->probs[k->classifier][k->label])) return k->reason;
    }
    buf_clear(&s->json);
    bool any = false;
    for (int i = 0; i < cs->n; i++) {
        if (i == cs->langid) continue;
        buf_putc(&s->json, any ? ',' : '{');
        any = true;
        write_scores(cs, s, i);
    }
    if (any) buf_putc(&s->json, '}');
    *json = s->json.data;
    *len = s->json.len;
    return NULL;
}

const float *const *classify_all(const classifiers *cs, classify_scratch *s, const char *text, size_t n)
{
    for (int i = 0; i < cs->n; i++) score(cs, s, i, 0, text, n);
    return (const float *const *)s->probs;
}

int classifiers_count(const classifiers *cs) { return cs ? cs->n : 0; }
const char *classifiers_name(const classifiers *cs, int i) { return cs->c[i].name; }
const struct fasttext_model *classifiers_model(const classifiers *cs, int i) { return cs->c[i].model; }
