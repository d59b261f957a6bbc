/* cmd_score.c - `winnow score`: the distribution of classifier scores over
 * a sample, so that a keep rule's threshold can be read off a quantile. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stage.h"
#include "core/util.h"
#include "filter/classify.h"
#include "filter/fasttext_model.h"

/* A classifier with more labels than this needs --label to say which to summarise. */
#define SCORE_DEFAULT_MAX_LABELS 8

enum { OPT_CLASSIFIER = OPT_STAGE_FIRST_FREE, OPT_LABEL, OPT_MAX_BYTES, OPT_FAST };

static const double quantiles[] = {0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99};
#define NQUANTILES (sizeof quantiles / sizeof quantiles[0])

typedef struct {
    int classifier, label;
    float *p; /* one probability per scored document, in input order */
    size_t n, cap;
} tracked_label;

typedef struct {
    const classifiers *cs;
    classify_scratch **scratch; /* per worker */
    tracked_label *labels;
    int nlabels;
} score_stage;

/* The probabilities of a batch: nlabels per document, document-major. */
typedef struct {
    float *p;
} batch_scores;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: winnow score --classifier NAME=FILE [options] [FILE|DIR|-]...\n\n"
            "Scores every document of the stream with fastText classifiers (.bin or .ftz)\n"
            "and prints, for each label, the distribution of its probability over the\n"
            "documents: count, mean and quantiles (nearest rank). A keep rule that keeps\n"
            "the top 10%% of a sample is `winnow filter --keep 'NAME:LABEL >= P90'` with P90\n"
            "from this table. Documents are scored as `winnow filter` scores them (the text\n"
            "read as one line, newlines as spaces); filter scores C4's rewritten text when\n"
            "C4 is on, so score the output of `winnow filter --no-...` to match it exactly.\n\n"
            "  --classifier NAME=FILE   a model to score with (repeatable)\n"
            "  --label NAME:LABEL       a label to summarise (repeatable; default: every label\n"
            "                           of each classifier with at most %d labels)\n"
            "  --classifier-max-bytes N read at most N bytes of each text (default 0: all)\n"
            "  --classifier-fast        as in winnow filter: few-label models sum precomputed logits\n"
            "  -o FILE                  write the table to FILE instead of stdout\n"
            "  -j N, -q, --stats FILE   as for every stage\n"
            "  --text-column C          the JSON member or Parquet column that holds the text\n",
            SCORE_DEFAULT_MAX_LABELS);
}

/* Adds the label "NAME:LABEL" to the tracked set. */
static void track(score_stage *st, const char *spec)
{
    const char *colon = strchr(spec, ':');
    int c = -1;
    for (int i = 0; colon && i < classifiers_count(st->cs); i++) {
        const char *name = classifiers_name(st->cs, i);
        if (strlen(name) == (size_t)(colon - spec) && !strncmp(name, spec, (size_t)(colon - spec))) c = i;
    }
    if (c < 0) dief(EXIT_USAGE, "--label '%s': expected NAME:LABEL with NAME a --classifier", spec);
    int l = fasttext_model_find_label(classifiers_model(st->cs, c), colon + 1);
    if (l < 0) dief(EXIT_USAGE, "--label '%s': classifier '%s' has no label '%s'", spec, classifiers_name(st->cs, c), colon + 1);
    st->labels = xrealloc(st->labels, (size_t)(st->nlabels + 1) * sizeof *st->labels);
    st->labels[st->nlabels++] = (tracked_label){c, l, NULL, 0, 0};
}

/* Every label of every classifier with few enough labels. */
static void track_defaults(score_stage *st)
{
    for (int c = 0; c < classifiers_count(st->cs); c++) {
        const fasttext_model *m = classifiers_model(st->cs, c);
        int n = fasttext_model_nlabels(m);
        if (n > SCORE_DEFAULT_MAX_LABELS)
            dief(EXIT_USAGE, "classifier '%s' has %d labels: name the ones to summarise with --label %s:LABEL",
                 classifiers_name(st->cs, c), n, classifiers_name(st->cs, c));
        for (int l = 0; l < n; l++)
            st->labels = xrealloc(st->labels, (size_t)(st->nlabels + 1) * sizeof *st->labels),
            st->labels[st->nlabels++] = (tracked_label){c, l, NULL, 0, 0};
    }
}

static void score_map(void *ctx, int worker, stage_batch *b)
{
    score_stage *st = ctx;
    if (!st->scratch[worker]) st->scratch[worker] = classify_scratch_create(st->cs);
    batch_scores *bs = xcalloc(1, sizeof *bs);
    bs->p = xmalloc((size_t)(b->n ? b->n : 1) * (size_t)st->nlabels * sizeof *bs->p);
    wbuf text = {0};
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict != DOC_KEEP) continue;
        size_t n;
        const char *t = json_string(&d->json.text, &text, &n);
        const float *const *probs = classify_all(st->cs, st->scratch[worker], t, n);
        for (int k = 0; k < st->nlabels; k++)
            bs->p[(size_t)i * (size_t)st->nlabels + (size_t)k] = probs[st->labels[k].classifier][st->labels[k].label];
    }
    buf_free(&text);
    b->user = bs;
}

/* Appends the batch's scores in input order. */
static void score_reduce(void *ctx, stage_batch *b)
{
    score_stage *st = ctx;
    batch_scores *bs = b->user;
    for (int i = 0; i < b->n; i++) {
        if (b->docs[i].verdict != DOC_KEEP) continue;
        for (int k = 0; k < st->nlabels; k++) {
            tracked_label *t = &st->labels[k];
            if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 1024;
                t->p = xrealloc(t->p, t->cap * sizeof *t->p);
            }
            t->p[t->n++] = bs->p[(size_t)i * (size_t)st->nlabels + (size_t)k];
        }
    }
    free(bs->p);
    free(bs);
    b->user = NULL;
}

static void emit_nothing(void *ctx, stage_batch *b, woutput *out)
{
    (void)ctx, (void)b, (void)out;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static void print_table(const score_stage *st, wbuf *f)
{
    buf_puts(f, "label\tdocs\tmean");
    for (size_t q = 0; q < NQUANTILES; q++) buf_printf(f, "\tp%g", quantiles[q] * 100);
    buf_putc(f, '\n');
    for (int k = 0; k < st->nlabels; k++) {
        tracked_label *t = &st->labels[k];
        qsort(t->p, t->n, sizeof *t->p, cmp_float);
        double sum = 0;
        for (size_t i = 0; i < t->n; i++) sum += t->p[i];
        buf_printf(f, "%s:%s\t%zu\t%.6g", classifiers_name(st->cs, t->classifier),
                fasttext_model_label(classifiers_model(st->cs, t->classifier), t->label), t->n,
                t->n ? sum / (double)t->n : 0.0);
        for (size_t q = 0; q < NQUANTILES; q++) {
            size_t rank = (size_t)ceil(quantiles[q] * (double)t->n); /* nearest rank, 1-based */
            buf_printf(f, "\t%.9g", t->n ? (double)t->p[rank ? rank - 1 : 0] : 0.0);
        }
        buf_putc(f, '\n');
    }
}

int cmd_score(int argc, char **argv)
{
    stage_opts opts;
    stage_opts_init(&opts);
    static const struct option longopts[] = {STAGE_COMMON_LONGOPTS,
                                             {"classifier", required_argument, 0, OPT_CLASSIFIER},
                                             {"label", required_argument, 0, OPT_LABEL},
                                             {"classifier-max-bytes", required_argument, 0, OPT_MAX_BYTES},
                                             {"classifier-fast", no_argument, 0, OPT_FAST},
                                             {0, 0, 0, 0}};
    filter_config config;
    filter_config_defaults(&config);
    char **label_specs = xcalloc((size_t)argc, sizeof *label_specs);
    int nspecs = 0, opt;
    char err[256];
    while ((opt = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        int rc = -1; /* set when the command ends here */
        if (opt == 'h') {
            usage(stdout);
            rc = EXIT_OK;
        } else if (stage_parse_common(&opts, opt, optarg)) {
            continue;
        } else if (opt == OPT_LABEL) {
            label_specs[nspecs++] = optarg;
        } else if (opt == OPT_FAST) {
            config.classifier_fast = true;
        } else if (opt == OPT_CLASSIFIER || opt == OPT_MAX_BYTES) {
            const char *key = opt == OPT_CLASSIFIER ? "classifier" : "classifier_max_bytes";
            if (filter_config_set(&config, key, optarg, err, sizeof err)) dief(EXIT_USAGE, "%s", err);
        } else {
            usage(stderr);
            rc = EXIT_USAGE;
        }
        if (rc >= 0) {
            free(label_specs);
            filter_config_free(&config);
            return rc;
        }
    }
    stage_take_inputs(&opts, argc, argv);
    if (!*config.classifier) {
        fprintf(stderr, "%s: --classifier NAME=FILE is needed\n", winnow_prog);
        usage(stderr);
        free(label_specs);
        filter_config_free(&config);
        return EXIT_USAGE;
    }
    classifiers *cs = classifiers_create(&config);
    score_stage st = {.cs = cs};
    for (int i = 0; i < nspecs; i++) track(&st, label_specs[i]);
    if (!nspecs) track_defaults(&st);
    free(label_specs);
    st.scratch = xcalloc((size_t)opts.threads, sizeof *st.scratch);

    const char *table_path = opts.output;
    opts.output = "/dev/null"; /* the engine's document output: nothing is written to it */
    stage_ops ops = {.name = "score", .ctx = &st, .map = score_map, .reduce = score_reduce, .emit = emit_nothing};
    int rc = stage_run(&opts, &ops);
    wbuf table = {0};
    print_table(&st, &table);
    woutput *out = output_open(table_path, 0); /* stdout when NULL; a file is renamed into place */
    output_write(out, table.data, table.len);
    output_close(out);
    buf_free(&table);
    for (int i = 0; i < opts.threads; i++) classify_scratch_free(st.scratch[i]);
    for (int k = 0; k < st.nlabels; k++) free(st.labels[k].p);
    free(st.labels);
    free(st.scratch);
    classifiers_free(cs);
    filter_config_free(&config);
    return rc;
}
