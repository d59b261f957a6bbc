/* cli.c - `winnow dedup`: option parsing for the streaming mode and the
 * staged subcommands (signatures, buckets, apply). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stage.h"
#include "core/util.h"
#include "dedup/options.h"
#include "dedup/staged.h"
#include "dedup/stream.h"

/* Streaming with --device gpu and no -j: one core is left to the threads
 * beside the workers (the engine's reading and writer threads, the GPU's
 * start-up): the workers wait for the GPU spinning, and with one per core
 * those threads wait for a core while the workers run out of batches. On
 * 16 cores + H200, 5.4 GB of unique long documents: 15 workers 1.15-1.18 s
 * in 6 runs, 16 workers 1.20-1.25 s; 2 M short ones 1.34-1.50 s against
 * 1.27-1.47 (bench/results/dedup-gpu-pinned-2026-11-27.md). */
#define GPU_CORES_LEFT 1

/* The options of options.h are OPT_SETTING. */
enum { OPT_SETTING = OPT_STAGE_FIRST_FREE, OPT_WORK, OPT_RANK, OPT_WORLD };

static const char USAGE[] =
    "usage: winnow dedup [options] [FILE|DIR|-]...            streaming: one pass, documents in input order\n"
    "       winnow dedup signatures --work DIR [options] FILE|DIR...  staged, step 1 (per input file)\n"
    "       winnow dedup buckets --work DIR [--rank R --world-size N] step 2 (per partition)\n"
    "       winnow dedup apply --work DIR -o OUTDIR [--rank R --world-size N]  step 3 (per input file)\n"
    "\n"
    "Reads the document stream (JSON Lines, or JSON arrays of documents: their elements).\n"
    "Drops a document that shares its exact hash (XXH3-128 of the normalised text) or one\n"
    "MinHash LSH band bucket with an earlier document (files in the order given, then lines);\n"
    "reasons exact_dup / near_dup; --rejects names the earliest document collided with (dup_of).\n"
    "\n"
    "Options:\n"
    "      --bands N          LSH bands (default 14)\n"
    "      --rows N           rows (signature values) per band (default 8); K = bands*rows <= 1024\n"
    "      --ngram N          units per shingle (default 5): words, or characters of CJK/Thai/...\n"
    "      --seed N           seed of the permutation generator, splitmix64 (default 1)\n"
    "      --expected-docs N  presize the streaming index for N documents (k/M/G suffixes)\n"
    "      --mark             keep duplicates, add metadata.dup_of and metadata.dup_reason\n"
    "      --verify J         drop a near-duplicate candidate only when the Jaccard estimated\n"
    "                         from both signatures is >= J (keeps 8*K bytes per document; streaming only)\n"
    "      --device D         auto | cpu | gpu (default auto: the GPU, when one is usable, once\n"
    "                         256 MiB of text is signed, if documents average 1 KiB of text or more;\n"
    "                         the same signatures either way); workers share every GPU CUDA sees\n"
    "                         (CUDA_VISIBLE_DEVICES picks them); gpu without -j: one worker less\n"
    "                         than the cores (one core for the reading, writing and GPU threads)\n"
    "Staged mode:\n"
    "      --work DIR         intermediate files and completion markers (shared by all ranks)\n"
    "      --partitions P     key-range partitions written by signatures (default 16)\n"
    "      --rank R           this rank (default $SLURM_ARRAY_TASK_ID - $SLURM_ARRAY_TASK_MIN, else 0)\n"
    "      --world-size N     number of ranks (default $SLURM_ARRAY_TASK_COUNT, else 1)\n"
    "      apply: -o names the output directory (one file per input, same base name);\n"
    "      --rejects DIR and --stats DIR likewise name directories. Two inputs with the\n"
    "      same base name (a/x.jsonl, b/x.jsonl.gz in a directory given) are refused\n"
    "      by signatures (exit 1), before anything is written.\n";

static void usage(FILE *f)
{
    fputs(USAGE, f);
    fputs(STAGE_COMMON_HELP, f);
}

static int parse_int_option(const char *arg, const char *name, long long lo, long long hi)
{
    long long v = parse_count(arg);
    if (v < lo || v > hi) dief(EXIT_USAGE, "--%s wants a number from %lld to %lld, not '%s'", name, lo, hi, arg);
    return (int)v;
}

/* Rank and world size from the environment (Slurm job arrays, whose task
 * ids start at SLURM_ARRAY_TASK_MIN, e.g. --array=1-64), else 0 of 1. */
static void rank_defaults(staged_opts *so)
{
    const char *id = getenv("SLURM_ARRAY_TASK_ID"), *count = getenv("SLURM_ARRAY_TASK_COUNT");
    const char *min = getenv("SLURM_ARRAY_TASK_MIN");
    so->rank = id && *id ? (int)(parse_count(id) - (min && *min ? parse_count(min) : 0)) : 0;
    so->world_size = count && *count ? (int)parse_count(count) : 1;
}

int cmd_dedup(int argc, char **argv)
{
    const char *sub = NULL;
    if (argc > 1 && (!strcmp(argv[1], "signatures") || !strcmp(argv[1], "buckets") || !strcmp(argv[1], "apply"))) {
        sub = argv[1];
        argv++;
        argc--;
    }
    static const struct option longopts[] = {
        STAGE_COMMON_LONGOPTS,
        {"bands", required_argument, 0, OPT_SETTING},
        {"rows", required_argument, 0, OPT_SETTING},
        {"ngram", required_argument, 0, OPT_SETTING},
        {"seed", required_argument, 0, OPT_SETTING},
        {"expected-docs", required_argument, 0, OPT_SETTING},
        {"mark", no_argument, 0, OPT_SETTING},
        {"verify", required_argument, 0, OPT_SETTING},
        {"device", required_argument, 0, OPT_SETTING},
        {"partitions", required_argument, 0, OPT_SETTING},
        {"work", required_argument, 0, OPT_WORK},
        {"rank", required_argument, 0, OPT_RANK},
        {"world-size", required_argument, 0, OPT_WORLD},
        {0, 0, 0, 0},
    };
    stage_opts o;
    stage_opts_init(&o);
    dedup_options d;
    dedup_options_init(&d);
    staged_opts so = {0};
    rank_defaults(&so);
    int opt, long_index = -1;
    bool jobs_given = false;
    optind = 1;
    while ((opt = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, &long_index)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return EXIT_OK;
        }
        jobs_given |= opt == 'j';
        if (stage_parse_common(&o, opt, optarg)) continue;
        switch (opt) {
        case OPT_SETTING: {
            char err[256];
            if (dedup_options_set(&d, longopts[long_index].name, optarg, err, sizeof err) != 0) dief(EXIT_USAGE, "%s", err);
            break;
        }
        case OPT_WORK: so.work = optarg; break;
        case OPT_RANK: so.rank = parse_int_option(optarg, "rank", 0, 1 << 30); break;
        case OPT_WORLD: so.world_size = parse_int_option(optarg, "world-size", 1, 1 << 30); break;
        default:
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    stage_take_inputs(&o, argc, argv);
    so.partitions = d.partitions;
    if (so.world_size < 1 || so.rank < 0 || so.rank >= so.world_size)
        dief(EXIT_USAGE, "rank %d is not below world size %d", so.rank, so.world_size);
    dedup_config c;
    char err[256];
    if (dedup_config_make(&d, &c, err, sizeof err) != 0) dief(EXIT_USAGE, "%s", err);

    if (!sub && !jobs_given && c.device == DEVICE_GPU && o.threads > GPU_CORES_LEFT) o.threads -= GPU_CORES_LEFT;
    int status;
    if (!sub) {
        status = dedup_stream_run(&o, &c);
    } else {
        if (!so.work) dief(EXIT_USAGE, "dedup %s needs --work DIR", sub);
        if (c.verify || c.mark) dief(EXIT_USAGE, "--verify and --mark are for the streaming mode");
        if (!strcmp(sub, "signatures")) status = dedup_staged_signatures(&o, &c, &so);
        else if (!strcmp(sub, "buckets")) status = dedup_staged_buckets(&o, &so);
        else status = dedup_staged_apply(&o, &so);
    }
    minhash_params_free(&c.params);
    return status;
}
