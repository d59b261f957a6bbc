/* main.c - the winnow entry point: dispatches to a subcommand. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "tools/commands.h"
#include "tools/version.h"

static const winnow_command commands[] = {
    {"ingest", cmd_ingest, "read WARC/WET/JSONL/HTML/text/archives, write the document stream"},
    {"filter", cmd_filter, "quality rules (Gopher, C4, FineWeb), language ID, PII, block lists"},
    {"score", cmd_score, "score documents with fastText classifiers: quantiles for keep-rule thresholds"},
    {"dedup", cmd_dedup, "drop exact and near-duplicate documents (MinHash LSH; streaming or staged)"},
    {"tokenize", cmd_tokenize, "token ids per document: tiktoken encodings, tokenizer.json, SentencePiece .model"},
    {"shard", cmd_shard, "the --format bin token stream in, a zstd token shard directory out"},
    {"shards", cmd_shards, "inspect, verify, cat or export a shard directory"},
    {"vocab", cmd_vocab, "list, fetch and verify tokenizer vocabularies in the local cache"},
    {"run", cmd_run, "run a pipeline file on this machine: resumable nightly batch"},
    {"slurm", cmd_slurm, "submit a pipeline file to Slurm as job arrays"},
    {"score-extraction", cmd_score_extraction, "score main-content extraction against an article benchmark"},
};
static const int ncommands = (int)(sizeof commands / sizeof commands[0]);

static void usage(FILE *f)
{
    fprintf(f, "winnow %s - turn raw web dumps into LLM training data\n\n"
               "usage: winnow <command> [options] [FILE|DIR|-]...\n"
               "       winnow <command> --help\n"
               "       winnow --version\n\ncommands:\n", WINNOW_VERSION);
    for (int i = 0; i < ncommands; i++)
        fprintf(f, "  %-17s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-17s %s\n", "help", "show this help, or a command's (winnow help ingest)");
    fprintf(f, "\nStages read JSON Lines documents and compose in a pipe:\n"
               "  winnow ingest crawl/*.warc.gz | winnow filter | winnow dedup | winnow tokenize -o shards/\n");
}

static const winnow_command *find_command(const char *name)
{
    for (int i = 0; i < ncommands; i++)
        if (strcmp(commands[i].name, name) == 0) return &commands[i];
    return NULL;
}

static int run_command(const winnow_command *c, int argc, char **argv)
{
    static char prog[64];
    snprintf(prog, sizeof prog, "winnow %s", c->name);
    winnow_prog = prog;
    return c->run(argc, argv);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("winnow %s\n", WINNOW_VERSION);
        return EXIT_OK;
    }
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        if (argc > 2 && strcmp(name, "help") == 0) {
            const winnow_command *c = find_command(argv[2]);
            if (!c) {
                fprintf(stderr, "winnow: unknown command '%s'\n\n", argv[2]);
                usage(stderr);
                return EXIT_USAGE;
            }
            char *help_argv[] = {(char *)c->name, "--help", NULL};
            return run_command(c, 2, help_argv);
        }
        usage(stdout);
        return EXIT_OK;
    }
    /* past a file size limit (ulimit -f) a write fails with EFBIG and is
     * reported like any write error, instead of the signal killing the
     * process silently with its temporary files left behind */
    signal(SIGXFSZ, SIG_IGN);
    const winnow_command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "winnow: unknown command '%s'\n\n", name);
        usage(stderr);
        return EXIT_USAGE;
    }
    return run_command(c, argc - 1, argv + 1);
}
