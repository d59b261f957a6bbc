/* shard_options.c - `winnow shard` settings by name. */
#include "shards/shard_options.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "shards/vocab_hash.h"

void shard_options_init(shard_options *o)
{
    memset(o, 0, sizeof *o);
    shard_writer_options_init(&o->writer);
    o->writer.append_eos = false;
}

/* parse_count within [min, max]; -1 when not. */
static long long count_in(const char *value, long long min, long long max)
{
    long long v = value ? parse_count(value) : -1;
    return v >= min && v <= max ? v : -1;
}

int shard_options_set(shard_options *o, const char *name, const char *value, char *err, size_t errlen)
{
    shard_writer_options *w = &o->writer;
    static const char *const switches[] = {"no-append-eos", "prepend-bos", "split-docs"};
    for (size_t i = 0; i < sizeof switches / sizeof *switches; i++) {
        if (!option_name_equal(name, switches[i])) continue;
        if (value) {
            snprintf(err, errlen, "--%s takes no value", switches[i]);
            return -1;
        }
        if (i == 0) o->no_append_eos = true;
        else if (i == 1) w->prepend_bos = true;
        else w->split_docs = true;
        return 0;
    }
    long long v = 0;
    const char *bad = NULL;
    if (option_name_equal(name, "vocab-size")) {
        if ((v = count_in(value, 1, UINT32_MAX)) < 0) bad = "--vocab-size wants 1..4294967295";
        else w->vocab_size = (uint64_t)v;
    } else if (option_name_equal(name, "eos") || option_name_equal(name, "bos")) {
        bool eos = option_name_equal(name, "eos");
        if ((v = count_in(value, 0, UINT32_MAX)) < 0) bad = eos ? "--eos wants a token id" : "--bos wants a token id";
        else if (eos) w->eos_id = v, w->append_eos = true;
        else w->bos_id = v;
    } else if (option_name_equal(name, "shard-tokens")) {
        if ((v = count_in(value, 1, INT64_MAX)) < 0) bad = "--shard-tokens wants a positive count";
        else w->shard_tokens = (uint64_t)v;
    } else if (option_name_equal(name, "level")) {
        if (!shard_level_parse(value, &w->zstd_level)) bad = "--level wants tlz, 1..22, or a negative level (faster)";
    } else if (option_name_equal(name, "tokenizer") || option_name_equal(name, "vocab") ||
               option_name_equal(name, "vocab-sha256")) {
        if (!value || !*value) bad = "needs a value";
        else if (option_name_equal(name, "tokenizer")) w->tokenizer_name = value;
        else if (option_name_equal(name, "vocab")) o->vocab_file = value;
        else w->vocab_sha256 = value;
    } else {
        snprintf(err, errlen, "unknown option '%s' (winnow shard --help lists them)", name);
        return -1;
    }
    if (!bad) return 0;
    snprintf(err, errlen, "%s, not '%s'", bad, value ? value : "");
    return -1;
}

int shard_options_finish(shard_options *o, char *err, size_t errlen)
{
    if (o->no_append_eos) o->writer.append_eos = false;
    if (!o->writer.vocab_size) {
        snprintf(err, errlen, "--vocab-size is required");
        return -1;
    }
    if (o->vocab_file) {
        if (vocab_file_sha256(o->vocab_file, o->sha256)) {
            snprintf(err, errlen, "%s: cannot take the vocabulary's SHA-256", o->vocab_file);
            return -1;
        }
        o->writer.vocab_sha256 = o->sha256;
    }
    return 0;
}
