/* cmd_ingest.c - `winnow ingest`: the command-line face of ingest.h. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "core/output.h"
#include "core/progress.h"
#include "core/stage.h"
#include "core/util.h"
#include "ingest/ingest.h"
#include "tools/commands.h"

enum { OPT_EXTRACT = OPT_STAGE_FIRST_FREE };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: winnow ingest [options] [FILE|DIR|-]...\n\n"
            "Reads raw web dumps and writes one JSON document per line. Each input's kind\n"
            "is found from its content, whatever its name or compression (gzip, zstd, bzip2,\n"
            "xz, lz4): WARC 0.17-1.1 (HTML responses and resources become documents), WET\n"
            "(conversion records, text as is), ARC versions 1 and 2 (their records read as\n"
            "WARC records), JSON Lines documents (passed through, an id\n"
            "added when missing), JSON arrays of documents ('[' then '{': their elements),\n"
            "HTML files, plain text files, tar/zip/7z archives of these, and Parquet files\n"
            "(a document per row; a Parquet file inside an archive is counted binary_file).\n"
            "A directory means every regular file under it, in name order\n"
            "(FIFOs and devices are skipped); no input or '-' reads stdin. Skipped records\n"
            "(requests, metadata, revisits, non-2xx, non-HTML...) are counted by reason;\n"
            "damaged records are reported with file, record number and offset, counted,\n"
            "and reading goes on.\n\n"
            "options:\n"
            "  --extract=MODE      main (default): the main content, without navigation and\n"
            "                      boilerplate; full: all visible text of the page\n");
    fputs(STAGE_COMMON_HELP, f);
}

typedef struct {
    woutput *docs, *rejects;
} outputs;

static void write_docs(void *ctx, const char *lines, size_t len) { output_write(((outputs *)ctx)->docs, lines, len); }

static void write_rejects(void *ctx, const char *lines, size_t len)
{
    output_write(((outputs *)ctx)->rejects, lines, len);
}

int cmd_ingest(int argc, char **argv)
{
    static const struct option longopts[] = {
        STAGE_COMMON_LONGOPTS,
        {"extract", required_argument, 0, OPT_EXTRACT},
        {0, 0, 0, 0},
    };
    stage_opts o;
    stage_opts_init(&o);
    ingest_options io;
    ingest_options_init(&io);
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return EXIT_OK;
        }
        if (c == OPT_EXTRACT) {
            char err[128];
            if (ingest_options_set(&io, "extract", optarg, err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n\n", winnow_prog, err);
                usage(stderr);
                return EXIT_USAGE;
            }
            continue;
        }
        if (!stage_parse_common(&o, c, optarg)) {
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    stage_take_inputs(&o, argc, argv);
    io.threads = o.threads;
    io.want_rejects = o.rejects_path != NULL;

    outputs outs = {output_open(o.output, o.zstd_level), o.rejects_path ? output_open(o.rejects_path, 0) : NULL};
    ingest_sink sink = {write_docs, write_rejects, &outs};
    progress_start("ingest", o.quiet);
    ingest *g = ingest_create(&io, &sink);
    int status = ingest_inputs(g, o.given) == 0 ? EXIT_OK : EXIT_FATAL;
    ingest_flush(g);
    progress_stop();
    output_close(outs.docs);
    if (outs.rejects) output_close(outs.rejects);
    const wstats *s = ingest_stats(g);
    /* damaged compressed data: what decoded is written and counted, and the
     * exit status says the input was not whole, as in every other stage */
    if (stats_get(s, "damaged_streams") > 0) status = EXIT_FATAL;
    if (o.stats_path) stats_write_json(s, "ingest", o.stats_path);
    if (!o.quiet) stats_print_summary(s, winnow_prog);
    ingest_destroy(g);
    return status;
}
