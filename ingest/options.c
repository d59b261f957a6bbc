/* options.c - the settings of `winnow ingest`, by name, for its command
 * line and for the [ingest] section of a pipeline file alike. */
#include <stdio.h>

#include "core/doc.h"
#include "core/util.h"
#include "ingest/ingest.h"

int ingest_options_set(ingest_options *o, const char *key, const char *value, char *err, size_t errlen)
{
    if (option_name_equal(key, "text-column")) { /* the inputs' text member or column, for every stage */
        if (!value || !doc_set_text_name(value)) {
            snprintf(err, errlen, "--text-column wants a member or column name without a line break");
            return -1;
        }
        return 0;
    }
    if (!option_name_equal(key, "extract")) {
        snprintf(err, errlen, "unknown option '%s' (ingest has --extract, --text-column)", key);
        return -1;
    }
    if (!value || extract_mode_parse(value, &o->extract) != 0) {
        snprintf(err, errlen, "--extract must be main or full, not '%s'", value ? value : "");
        return -1;
    }
    return 0;
}
