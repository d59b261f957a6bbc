/* tokenize_options.c - `winnow tokenize` settings by name. */
#include "tokenize/tokenize_options.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "shards/shard_writer.h"

void tokenize_options_init(tokenize_options *o)
{
    memset(o, 0, sizeof *o);
    o->device = "auto";
    o->eos = true;
}

/* The switches: name, the flag it sets, the value it sets. */
static bool *switch_flag(tokenize_options *o, const char *name, bool *value)
{
    static const struct {
        const char *name;
        size_t offset;
        bool value;
    } switches[] = {
        {"allow-special", offsetof(tokenize_options, allow_special), true},
        {"eos", offsetof(tokenize_options, eos), true},
        {"no-eos", offsetof(tokenize_options, eos), false},
        {"bos", offsetof(tokenize_options, bos), true},
        {"no-bos", offsetof(tokenize_options, bos), false},
        {"split-docs", offsetof(tokenize_options, split_docs), true},
    };
    for (size_t i = 0; i < sizeof switches / sizeof *switches; i++)
        if (option_name_equal(name, switches[i].name)) {
            *value = switches[i].value;
            return (bool *)((char *)o + switches[i].offset);
        }
    return NULL;
}

int tokenize_options_set(tokenize_options *o, const char *name, const char *value, char *err, size_t errlen)
{
    bool on;
    bool *flag = switch_flag(o, name, &on);
    if (flag) {
        if (value) {
            snprintf(err, errlen, "--%s takes no value", name);
            return -1;
        }
        *flag = on;
        if (flag == &o->eos) o->eos_given = true;
        if (flag == &o->bos) o->bos_given = true;
        return 0;
    }
    const char **text = option_name_equal(name, "encoding") ? &o->encoding
                        : option_name_equal(name, "vocab")  ? &o->vocab
                        : option_name_equal(name, "pattern") ? &o->pattern
                        : option_name_equal(name, "device") ? &o->device
                                                            : NULL;
    if (!text && !option_name_equal(name, "shard-tokens") && !option_name_equal(name, "level")) {
        snprintf(err, errlen, "unknown option '%s' (winnow tokenize --help lists them)", name);
        return -1;
    }
    if (!value || !*value) {
        snprintf(err, errlen, "--%s needs a value", name);
        return -1;
    }
    if (!text && option_name_equal(name, "level")) {
        if ((o->shard_level_given = shard_level_parse(value, &o->shard_level))) return 0;
        snprintf(err, errlen, "--level wants tlz, 1..22, or a negative level (faster), not '%s'", value);
        return -1;
    }
    if (!text) {
        long long v = parse_count(value);
        if (v < 1) {
            snprintf(err, errlen, "--shard-tokens wants a positive count, not '%s'", value);
            return -1;
        }
        o->shard_tokens = (uint64_t)v;
        return 0;
    }
    if (text == &o->device && strcmp(value, "auto") && strcmp(value, "cpu") && strcmp(value, "gpu")) {
        snprintf(err, errlen, "--device must be auto, cpu or gpu, not '%s'", value);
        return -1;
    }
    if (text == &o->pattern && strcmp(value, "gpt2") && strcmp(value, "cl100k") && strcmp(value, "o200k")) {
        snprintf(err, errlen, "--pattern must be gpt2, cl100k or o200k, not '%s'", value);
        return -1;
    }
    *text = value;
    return 0;
}

void tokenize_options_defaults(tokenize_options *o, bool eos_default, bool bos_default)
{
    if (!o->eos_given) o->eos = eos_default;
    if (!o->bos_given) o->bos = bos_default;
}
