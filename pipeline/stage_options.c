/* stage_options.c - [ingest] and [filter] through their stages' option parsers. */
#include "pipeline/stage_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define MESSAGE_MAX 512

static int fail(const pl_config *c, const pl_section *s, const pl_option *o, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s:%d: [%s] %s", c->path, o->line, s->name, what);
    return -1;
}

static int read_ingest(const pl_config *c, ingest_options *io, char *err, size_t errlen)
{
    const pl_section *s = pl_config_section(c, "ingest");
    for (int i = 0; s && i < s->n; i++) {
        char why[MESSAGE_MAX];
        if (ingest_options_set(io, s->opts[i].key, s->opts[i].value, why, sizeof why) != 0)
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
        char *path = xmalloc(strlen(c->base_dir) + strlen(o->value) + 2);
        if (o->value[0] == '/') strcpy(path, o->value);
        else sprintf(path, "%s/%s", c->base_dir, o->value);
        filter_config_load(fc, path); /* exits naming the file and line on an error */
        free(path);
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

int pl_stage_options_read(const pl_config *c, ingest_options *io, filter_config *fc, char *err, size_t errlen)
{
    ingest_options_init(io);
    filter_config_defaults(fc);
    if (read_ingest(c, io, err, errlen) != 0) return -1;
    return read_filter(c, fc, err, errlen);
}
