/* options.c - filter settings by option name, for the command line and the
 * [filter] section of a pipeline file alike: --X=VALUE, a bare --X for a
 * switch (true), --no-X (false); '-' and '_' alike. */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "filter/config.h"

/* True when name is "no-KEY" or "no_KEY". */
static bool negates(const char *name, const char *key)
{
    return !strncmp(name, "no", 2) && (name[2] == '-' || name[2] == '_') && option_name_equal(name + 3, key);
}

int filter_config_set_option(filter_config *c, const char *name, const char *value, char *err, size_t errlen)
{
    for (int i = 0; i < filter_config_count(); i++) {
        const char *key = filter_config_name(i);
        bool sw = filter_config_is_bool(i);
        if (option_name_equal(name, key)) {
            if (!value && !sw) {
                snprintf(err, errlen, "%s needs a value", name);
                return -1;
            }
            return filter_config_set(c, key, value ? value : "true", err, errlen);
        }
        if (sw && negates(name, key)) {
            if (value) {
                snprintf(err, errlen, "%s takes no value", name);
                return -1;
            }
            return filter_config_set(c, key, "false", err, errlen);
        }
    }
    snprintf(err, errlen, "unknown setting '%s' (winnow filter --help lists them)", name);
    return -1;
}
