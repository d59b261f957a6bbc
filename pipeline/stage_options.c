/* stage_options.c - [ingest] and [filter] through their stages' option parsers. */
#include "pipeline/stage_options.h"

#include <stdio.h>

#include "core/util.h"

#define MESSAGE_MAX 512

static int fail(const pl_config *c, const pl_section *s, const pl_option *o, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s:%d: [%s] %s", c->path, o->line, s->name, what);
    return -1;
}

/* One stage's setter, as the stage's options module has it. */
typedef int (*option_setter)(void *settings, const char *name, const char *value, char *err, size_t errlen);

static int set_ingest(void *o, const char *name, const char *value, char *err, size_t errlen)
{
    return ingest_options_set(o, name, value, err, errlen);
}

static int set_tokenize(void *o, const char *name, const char *value, char *err, size_t errlen)
{
    return tokenize_options_set(o, name, value, err, errlen);
}

static int set_shard(void *o, const char *name, const char *value, char *err, size_t errlen)
{
    return shard_options_set(o, name, value, err, errlen);
}

static int set_dedup(void *o, const char *name, const char *value, char *err, size_t errlen)
{
    return dedup_options_set(o, name, value, err, errlen);
}

/* Every option of section `stage` through set. */
static int read_section(const pl_config *c, const char *stage, option_setter set, void *settings, char *err,
                        size_t errlen)
{
    const pl_section *s = pl_config_section(c, stage);
    for (int i = 0; s && i < s->n; i++) {
        char why[MESSAGE_MAX];
        if (set(settings, s->opts[i].key, s->opts[i].value, why, sizeof why) != 0)
            return fail(c, s, &s->opts[i], why, err, errlen);
    }
    return 0;
}

static int read_filter(const pl_config *c, filter_config *fc, char *err, size_t errlen)
{
    const pl_section *s = pl_config_section(c, "filter");
    for (int i = 0; s && i < s->n; i++) {
        const pl_option *o = &s->opts[i];
        if (!option_name_equal(o->key, "config")) continue;
        if (!o->value || !*o->value) return fail(c, s, o, "config needs a file", err, errlen);
        filter_config_load(fc, o->value); /* exits naming the file and line on an error */
    }
    for (int i = 0; s && i < s->n; i++) {
        const pl_option *o = &s->opts[i];
        char why[MESSAGE_MAX];
        if (option_name_equal(o->key, "config")) continue;
        if (filter_config_set_option(fc, o->key, o->value, why, sizeof why) != 0)
            return fail(c, s, o, why, err, errlen);
    }
    return 0;
}

int pl_stage_options_read(const pl_config *c, pl_stage_options *o, char *err, size_t errlen)
{
    ingest_options_init(&o->ingest);
    filter_config_defaults(&o->filter);
    tokenize_options_init(&o->tokenize);
    shard_options_init(&o->shard);
    dedup_options_init(&o->dedup);
    if (read_section(c, "ingest", set_ingest, &o->ingest, err, errlen) == 0 && read_filter(c, &o->filter, err, errlen) == 0 &&
        read_section(c, "dedup", set_dedup, &o->dedup, err, errlen) == 0 &&
        read_section(c, "tokenize", set_tokenize, &o->tokenize, err, errlen) == 0 &&
        read_section(c, "shard", set_shard, &o->shard, err, errlen) == 0)
        return 0;
    pl_stage_options_free(o);
    return -1;
}

void pl_stage_options_free(pl_stage_options *o) { filter_config_free(&o->filter); }
