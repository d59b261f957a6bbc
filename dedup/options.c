/* options.c - `winnow dedup` settings by name. */
#include "dedup/options.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "dedup/minhash.h"
#include "dedup/staged.h"

#define MAX_NGRAM 1000

void dedup_options_init(dedup_options *o)
{
    *o = (dedup_options){.bands = MINHASH_DEFAULT_BANDS, .rows = MINHASH_DEFAULT_ROWS, .ngram = MINHASH_DEFAULT_NGRAM,
                         .seed = MINHASH_DEFAULT_SEED, .device = DEVICE_AUTO, .partitions = STAGED_DEFAULT_PARTITIONS};
}

/* An integer option within [lo, hi] into *out. */
static int set_int(const char *name, const char *value, long long lo, long long hi, int *out, char *err, size_t errlen)
{
    long long v = parse_count(value);
    if (v < lo || v > hi) {
        snprintf(err, errlen, "--%s wants a number from %lld to %lld, not '%s'", name, lo, hi, value);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int dedup_options_set(dedup_options *o, const char *name, const char *value, char *err, size_t errlen)
{
    if (option_name_equal(name, "mark")) {
        if (value) {
            snprintf(err, errlen, "--mark takes no value");
            return -1;
        }
        o->mark = true;
        return 0;
    }
    static const char *const valued[] = {"bands", "rows", "ngram", "seed", "expected-docs", "verify", "device",
                                         "partitions"};
    int which = -1;
    for (int i = 0; i < (int)(sizeof valued / sizeof *valued); i++)
        if (option_name_equal(name, valued[i])) which = i;
    if (which < 0) {
        snprintf(err, errlen, "unknown option '%s' (winnow dedup --help lists them)", name);
        return -1;
    }
    if (!value || !*value) {
        snprintf(err, errlen, "--%s needs a value", valued[which]);
        return -1;
    }
    char *end;
    switch (which) {
    case 0: return set_int("bands", value, 1, MINHASH_MAX_PERMUTATIONS, &o->bands, err, errlen);
    case 1: return set_int("rows", value, 1, MINHASH_MAX_PERMUTATIONS, &o->rows, err, errlen);
    case 2: return set_int("ngram", value, 1, MAX_NGRAM, &o->ngram, err, errlen);
    case 3:
        o->seed = strtoull(value, &end, 0);
        if (!*end) return 0;
        snprintf(err, errlen, "--seed wants an unsigned integer, not '%s'", value);
        return -1;
    case 4:
        if (parse_count(value) >= 0) {
            o->expected_docs = (uint64_t)parse_count(value);
            return 0;
        }
        snprintf(err, errlen, "--expected-docs wants a count, not '%s'", value);
        return -1;
    case 5:
        o->verify = strtod(value, &end);
        if (!*end && o->verify > 0 && o->verify <= 1) return 0;
        snprintf(err, errlen, "--verify wants a Jaccard threshold in (0, 1], not '%s'", value);
        return -1;
    case 6:
        if (device_parse(value, &o->device) == 0) return 0;
        snprintf(err, errlen, "--device wants auto, cpu or gpu, not '%s'", value);
        return -1;
    default: return set_int("partitions", value, 1, STAGED_MAX_PARTITIONS, &o->partitions, err, errlen);
    }
}

int dedup_config_make(const dedup_options *o, dedup_config *c, char *err, size_t errlen)
{
    *c = (dedup_config){.expected_docs = o->expected_docs, .mark = o->mark, .verify = o->verify};
    if ((long)o->bands * o->rows > MINHASH_MAX_PERMUTATIONS) {
        snprintf(err, errlen, "--bands x --rows must be at most %d", MINHASH_MAX_PERMUTATIONS);
        return -1;
    }
    /* auto decides later, by the amount of text (fingerprint.h); gpu is
     * checked by the run, while its workers start (signer_set_init) */
    c->device = o->device;
    minhash_params_init(&c->params, o->bands, o->rows, o->ngram, o->seed);
    return 0;
}
