/* cmd_shard.c - `winnow shard`: the --format bin token stream in, a shard directory out.
 *
 * The input is what `winnow tokenize --format bin` writes: per document a
 * u32 little-endian count, then that many u32 little-endian ids. */
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/input.h"
#include "core/progress.h"
#include "core/stage.h"
#include "core/stats.h"
#include "core/util.h"
#include "shards/id_stream.h"
#include "shards/shard_options.h"
#include "shards/shard_writer.h"

/* The options of shard_options.h are OPT_SETTING. */
enum { OPT_SETTING = OPT_STAGE_FIRST_FREE };

static const char usage_text[] =
    "usage: winnow shard -o DIR --vocab-size N [options] [FILE|DIR|-]...\n"
    "Reads the --format bin token stream (per document: u32 LE count, then that many\n"
    "u32 LE ids; plain, gzip or zstd) and writes a shard directory (docs/shards.md).\n\n"
    "options:\n"
    "  -o, --output DIR      shard directory to write (required); its old manifest is removed first\n"
    "      --vocab-size N    vocabulary size (required): ids must be below it; <= 65536 stores uint16\n"
    "      --tokenizer NAME  tokenizer name for the manifest (default: none)\n"
    "      --vocab FILE      vocabulary file; its SHA-256 goes into the manifest\n"
    "      --vocab-sha256 H  the vocabulary's SHA-256 (64 hex digits) instead of --vocab\n"
    "      --eos ID          end-of-sequence id: recorded, and appended after each document\n"
    "      --no-append-eos   record --eos in the manifest but do not append it\n"
    "      --bos ID          beginning-of-sequence id, recorded in the manifest\n"
    "      --prepend-bos     put --bos before each document\n"
    "      --shard-tokens N  tokens per shard, k/M/G suffixes (default: 100M)\n"
    "      --split-docs      cut shards at exactly N tokens, splitting documents\n"
    "                        (default: shards end at document boundaries)\n"
    "      --level N         zstd level 1..22 (smaller, slower) or negative (faster,\n"
    "                        larger; default: 1); or tlz: winnow's own token encoder\n"
    "                        (zstd frames any decoder reads; docs/shards.md)\n"
    "  -j, --jobs N          compression threads (default: all cores); output is the same for any N\n"
    "      --stats FILE      write counts as JSON\n"
    "  -q, --quiet           no progress or summary on stderr\n"
    "  -h, --help            this help\n"
    "Documents with an id not below --vocab-size are reported, counted as failed (bad_id)\n"
    "and skipped; a stream that ends inside a document counts it as failed (truncated).\n"
    "Damaged compression ends the reading of a file: the document it cut counts as\n"
    "failed (damaged_document), or its member's lost documents as one (damaged_member);\n"
    "the rest of that file is not read (docs/shards.md) and the exit status is 2.\n"
    "A directory means every regular file under it, in name order (FIFOs and devices are\n"
    "skipped, counted as failed not_regular_file); no input or '-' reads stdin.\n";

int cmd_shard(int argc, char **argv)
{
    static const struct option longopts[] = {
        STAGE_COMMON_LONGOPTS,
        {"vocab-size", required_argument, 0, OPT_SETTING},
        {"tokenizer", required_argument, 0, OPT_SETTING},
        {"vocab", required_argument, 0, OPT_SETTING},
        {"vocab-sha256", required_argument, 0, OPT_SETTING},
        {"eos", required_argument, 0, OPT_SETTING},
        {"bos", required_argument, 0, OPT_SETTING},
        {"no-append-eos", no_argument, 0, OPT_SETTING},
        {"prepend-bos", no_argument, 0, OPT_SETTING},
        {"shard-tokens", required_argument, 0, OPT_SETTING},
        {"split-docs", no_argument, 0, OPT_SETTING},
        {"level", required_argument, 0, OPT_SETTING},
        {0, 0, 0, 0}};
    stage_opts so;
    stage_opts_init(&so);
    shard_options o;
    shard_options_init(&o);
    char err[PATH_MAX + 128];
    int opt, long_index = -1;
    optind = 1;
    while ((opt = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, &long_index)) != -1) {
        if (opt == 'h') {
            fputs(usage_text, stdout);
            return EXIT_OK;
        }
        if (opt == OPT_SETTING) {
            if (shard_options_set(&o, longopts[long_index].name, optarg, err, sizeof err) != 0) dief(EXIT_USAGE, "%s", err);
            continue;
        }
        if (opt != '?' && stage_parse_common(&so, opt, optarg)) continue;
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    stage_take_inputs(&so, argc, argv);
    if (!so.output || !o.writer.vocab_size) {
        warnf("-o DIR and --vocab-size are required");
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (so.zstd_level) dief(EXIT_USAGE, "-z does not apply: shards are always zstd-compressed (see --level)");
    if (so.rejects_path) dief(EXIT_USAGE, "--rejects does not apply: shard drops nothing, failures are counted");
    if (shard_options_finish(&o, err, sizeof err) != 0) {
        warnf("%s", err);
        return EXIT_USAGE;
    }
    o.writer.threads = so.threads;
    if (!shard_writer_options_valid(&o.writer)) return EXIT_USAGE;
    shard_writer *w = shard_writer_open(so.output, &o.writer);
    if (!w) return EXIT_FATAL; /* the directory cannot be used */

    wstats st;
    stats_init(&st);
    progress_start("shard", so.quiet);
    int status = inputs_count_skipped(so.given, &st);
    for (int i = 0; i < so.ninputs; i++) {
        winput *in = input_open(so.inputs[i]);
        if (!in) { /* reported by input_open; counted as the stages count it */
            stats_lost(&st, INPUTS_UNREADABLE, 1);
            status = EXIT_FATAL;
            continue;
        }
        if (!shard_stream_add(in, w, &st) || input_errors(in)) status = EXIT_FATAL;
        input_close(in);
    }
    progress_stop();
    stats_set(&st, "tokens", (double)shard_writer_tokens(w));
    shard_writer_close(w);
    if (so.stats_path) stats_write_json(&st, "shard", so.stats_path);
    if (!so.quiet) stats_print_summary(&st, "winnow shard");
    stats_free(&st);
    return status;
}
