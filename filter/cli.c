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

enum { OPT_CONFIG = OPT_STAGE_FIRST_FREE, OPT_PRINT_CONFIG, OPT_LIST_LANGUAGES, OPT_SETTING_FIRST };

typedef struct {
    const filter *f;
    filter_worker **workers; /* one per thread, made on first use */
    wbuf *lines;             /* per thread: a rewritten line */
} filter_stage;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: winnow filter [options] [FILE|DIR|-]...\n\n"
            "Reads the document stream (JSON Lines, or JSON arrays of documents: their\n"
            "elements), annotates each document (metadata.lang, lang_score)\n"
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

static void filter_map(void *ctx, int worker, stage_batch *b)
{
    filter_stage *st = ctx;
    if (!st->workers[worker]) st->workers[worker] = filter_worker_create(st->f);
    filter_worker *w = st->workers[worker];
    wbuf *line = &st->lines[worker];
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        if (d->verdict != DOC_KEEP) continue;
        buf_clear(line);
        bool rewritten;
        const char *reason = filter_json_line(st->f, w, d->line, d->len, &d->json, line, &rewritten);
        if (reason) stage_doc_drop(b, i, reason, NULL);
        else if (rewritten) stage_doc_rewrite(b, i, line);
    }
}

/* A setting given on the command line, applied after --config. */
typedef struct {
    const char *name;  /* the option's name, e.g. "no-langid" */
    const char *value; /* NULL when given bare */
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
    int long_index = -1;
    while ((opt = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, &long_index)) != -1) {
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
            flags[nflags].name = longopts[long_index].name;
            flags[nflags].value = optarg;
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
        if (filter_config_set_option(&config, flags[i].name, flags[i].value, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", winnow_prog, err);
            usage(stderr);
            filter_config_free(&config);
            free(flags);
            return EXIT_USAGE;
        }
    }
    free(flags);
    if (print_config) {
        char err[256];
        int rc = filter_config_print(&config, stdout, err, sizeof err);
        filter_config_free(&config);
        if (rc) {
            warnf("--print-config: %s", err);
            return EXIT_USAGE;
        }
        return EXIT_OK;
    }

    filter *f = filter_create(&config);
    filter_stage st = {f, NULL, NULL};
    st.workers = xcalloc((size_t)opts.threads, sizeof *st.workers);
    st.lines = xcalloc((size_t)opts.threads, sizeof *st.lines);
    stage_ops ops = {.name = "filter", .ctx = &st, .map = filter_map};
    int rc = stage_run(&opts, &ops);

    for (int i = 0; i < opts.threads; i++) filter_worker_destroy(st.workers[i]);
    for (int i = 0; i < opts.threads; i++) buf_free(&st.lines[i]);
    free(st.workers);
    free(st.lines);
    filter_destroy(f);
    filter_config_free(&config);
    return rc;
}
