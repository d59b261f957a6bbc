/* cli.c - `winnow filter`: the command line over filter.h and the stage engine. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/doc.h"
#include "core/stage.h"
#include "core/util.h"
#include "filter/filter.h"
#include "filter/langid.h"

/* Buffers each worker thread uses: decoded text, metadata, new line, url. */
#define SCRATCH_PER_WORKER 4

enum { OPT_CONFIG = OPT_STAGE_FIRST_FREE, OPT_PRINT_CONFIG, OPT_LIST_LANGUAGES, OPT_SETTING_FIRST };

typedef struct {
    const filter *f;
    filter_worker **workers; /* one per thread, made on first use */
    wbuf *scratch;           /* per thread: decoded text, metadata, new line, url */
} filter_stage;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: winnow filter [options] [files...]\n\n"
            "Reads the document stream, annotates each document (metadata.lang, lang_score)\n"
            "and drops those that fail the enabled rules. Default rules: FineWeb's set\n"
            "(Gopher repetition, Gopher quality, C4 without the terminal punctuation rule,\n"
            "FineWeb) plus CLD2 language identification.\n\n"
            "  --config FILE                 read settings from FILE (key = value lines, '#' comments);\n"
            "                                flags given on the command line override it\n"
            "  --print-config                print the effective settings as a config file and exit\n"
            "  --list-languages              print the languages CLD2 can report (code, name) and exit\n\n"
            "settings (also config keys, with '_' for '-'; switches take --X, --no-X or --X=true|false;\n"
            "a threshold of 0 turns that check off):\n");
    filter_config_print_help(out);
    fprintf(out, "\n%s", STAGE_COMMON_HELP);
}

/* The document's URL for the URL block list: the top-level "url", else
 * metadata.url (where Dolma keeps it); NULL when there is none or no list. */
static const char *document_url(const filter_stage *st, const stage_doc *d, wbuf *scratch, size_t *len)
{
    if (!*filter_get_config(st->f)->url_blocklist) return NULL;
    jvalue url = d->json.url;
    if (url.kind != JSON_STRING && d->json.metadata.kind == JSON_OBJECT) {
        /* the metadata value is itself a scanned, valid object: scan its members */
        jdoc meta;
        const char *err;
        size_t pos;
        if (json_scan_doc(d->json.metadata.p, d->json.metadata.len, &meta, &err, &pos) == 0) url = meta.url;
    }
    if (url.kind != JSON_STRING) return NULL;
    return json_string(&url, scratch, len);
}

static void filter_map(void *ctx, int worker, stage_batch *b)
{
    filter_stage *st = ctx;
    if (!st->workers[worker]) st->workers[worker] = filter_worker_create(st->f);
    filter_worker *w = st->workers[worker];
    wbuf *text_buf = &st->scratch[worker * SCRATCH_PER_WORKER], *meta = text_buf + 1, *line = text_buf + 2,
         *url_buf = text_buf + 3;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict != DOC_KEEP) continue;
        size_t len;
        const char *text = json_string(&d->json.text, text_buf, &len);
        size_t url_len = 0;
        const char *url = document_url(st, d, url_buf, &url_len);
        filter_result r;
        filter_document(st->f, w, text, len, url, url_len, &r);
        if (r.reason) {
            stage_doc_drop(b, i, r.reason, NULL);
            continue;
        }
        if (!r.has_lang && !r.text_changed) continue;
        buf_clear(meta);
        if (r.has_lang) {
            meta_add_str(meta, "lang", r.lang, strlen(r.lang));
            meta_add_num(meta, "lang_score", r.lang_score);
        }
        if (r.c4_lines_removed) meta_add_int(meta, "c4_lines_removed", (long long)r.c4_lines_removed);
        if (r.pii_replaced) meta_add_int(meta, "pii_replaced", (long long)r.pii_replaced);
        buf_clear(line);
        doc_rewrite(d->line, d->len, &d->json, r.text_changed ? r.text : NULL, r.text_len, meta, line);
        stage_doc_rewrite(b, i, line);
    }
}

/* A setting given on the command line, applied after --config. */
typedef struct {
    const char *key;
    const char *value;
} flag_setting;

/* The option table, built once: common options, ours, then one per setting
 * (and --no-X for switches). */
static const struct option *option_table(void)
{
    static struct option *longopts;
    if (longopts) return longopts;
    int nset = filter_config_count();
    static const struct option common[] = {STAGE_COMMON_LONGOPTS};
    int ncommon = (int)(sizeof common / sizeof common[0]);
    longopts = xcalloc((size_t)(ncommon + 3 + 2 * nset + 1), sizeof *longopts);
    int k = 0;
    for (int i = 0; i < ncommon; i++) longopts[k++] = common[i];
    longopts[k++] = (struct option){"config", required_argument, 0, OPT_CONFIG};
    longopts[k++] = (struct option){"print-config", no_argument, 0, OPT_PRINT_CONFIG};
    longopts[k++] = (struct option){"list-languages", no_argument, 0, OPT_LIST_LANGUAGES};
    for (int i = 0; i < nset; i++) {
        char *name = xstrdup(filter_config_name(i));
        for (char *p = name; *p; p++)
            if (*p == '_') *p = '-';
        bool sw = filter_config_is_bool(i);
        longopts[k++] = (struct option){name, sw ? optional_argument : required_argument, 0,
                                        OPT_SETTING_FIRST + 2 * i};
        if (sw) {
            size_t len = strlen(name) + 4;
            char *negated = xmalloc(len);
            snprintf(negated, len, "no-%s", name);
            longopts[k++] = (struct option){negated, no_argument, 0, OPT_SETTING_FIRST + 2 * i + 1};
        }
    }
    return longopts;
}

int cmd_filter(int argc, char **argv)
{
    stage_opts opts;
    stage_opts_init(&opts);

    int nset = filter_config_count();
    const struct option *longopts = option_table();
    const char *config_path = NULL;
    bool print_config = false;
    flag_setting *flags = xcalloc((size_t)argc, sizeof *flags);
    int nflags = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            free(flags);
            return EXIT_OK;
        }
        if (stage_parse_common(&opts, opt, optarg)) continue;
        if (opt == OPT_CONFIG) {
            config_path = optarg;
        } else if (opt == OPT_LIST_LANGUAGES) {
            const char *code, *name;
            for (int i = 0; i < langid_table_size(); i++)
                if (langid_table_entry(i, &code, &name)) printf("%s\t%s\n", code, name);
            free(flags);
            return EXIT_OK;
        } else if (opt == OPT_PRINT_CONFIG) {
            print_config = true;
        } else if (opt >= OPT_SETTING_FIRST && opt < OPT_SETTING_FIRST + 2 * nset) {
            int i = (opt - OPT_SETTING_FIRST) / 2;
            bool negated = (opt - OPT_SETTING_FIRST) % 2;
            flags[nflags].key = filter_config_name(i);
            flags[nflags].value = negated ? "false" : optarg ? optarg : "true";
            nflags++;
        } else {
            usage(stderr);
            free(flags);
            return EXIT_USAGE;
        }
    }
    stage_take_inputs(&opts, argc, argv);

    filter_config config;
    filter_config_defaults(&config);
    if (config_path) filter_config_load(&config, config_path);
    for (int i = 0; i < nflags; i++) {
        char err[256];
        if (filter_config_set(&config, flags[i].key, flags[i].value, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", winnow_prog, err);
            usage(stderr);
            filter_config_free(&config);
            free(flags);
            return EXIT_USAGE;
        }
    }
    free(flags);
    if (print_config) {
        filter_config_print(&config, stdout);
        filter_config_free(&config);
        return EXIT_OK;
    }

    filter *f = filter_create(&config);
    filter_stage st = {f, NULL, NULL};
    st.workers = xcalloc((size_t)opts.threads, sizeof *st.workers);
    st.scratch = xcalloc((size_t)opts.threads * SCRATCH_PER_WORKER, sizeof *st.scratch);
    stage_ops ops = {"filter", &st, filter_map, NULL, NULL};
    int rc = stage_run(&opts, &ops);

    for (int i = 0; i < opts.threads; i++) filter_worker_destroy(st.workers[i]);
    for (int i = 0; i < opts.threads * SCRATCH_PER_WORKER; i++) buf_free(&st.scratch[i]);
    free(st.workers);
    free(st.scratch);
    filter_destroy(f);
    filter_config_free(&config);
    return rc;
}
