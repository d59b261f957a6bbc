/* web_samples.h - the real web documents of the shared data that the filter
 * tests check rules on: DCLM's sample, Dolma's Common Crawl file and OLMo's
 * C4 sample. Header only. */
#ifndef WINNOW_TESTS_WEB_SAMPLES_H
#define WINNOW_TESTS_WEB_SAMPLES_H

#include <stdio.h>

#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

/* Calls fn on the text of every document of the three samples; one test
 * point per file, failing when it holds no document (a missing file bails). */
static inline void web_samples_for_each_text(jsonl_text_fn fn, void *ctx)
{
    static const char *const files[] = {
        "jsonl/dclm/data/majority_data.jsonl",
        "jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz",
        "jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz",
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", shared_dir(), files[f]);
        require_file(path);
        long n = jsonl_for_each_text(path, fn, ctx);
        ok(n > 0, "%s read (%ld documents)", files[f], n);
    }
}

#endif
