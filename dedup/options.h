/* options.h - the settings of `winnow dedup`, by option name, for its
 * command line and the [dedup] section of a pipeline file alike. */
#ifndef WINNOW_DEDUP_OPTIONS_H
#define WINNOW_DEDUP_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dedup/fingerprint.h"
#include "gpu/gpu.h"

typedef struct {
    int bands, rows, ngram;
    uint64_t seed;
    uint64_t expected_docs; /* 0: unknown */
    bool mark;
    double verify;  /* 0: off */
    wdevice device;
    int partitions; /* staged mode */
} dedup_options;

/* Sets the defaults. */
void dedup_options_init(dedup_options *o);

/* Sets what --name[=value] sets (value NULL: given bare; '-' and '_'
 * alike). Returns 0, or -1 with a message in err for an unknown name or a
 * bad value. The staged mode's --work, --rank and --world-size are not
 * settings. */
int dedup_options_set(dedup_options *o, const char *name, const char *value, char *err, size_t errlen);

/* Makes the run's configuration c from the settings o (free c->params with
 * minhash_params_free). Returns 0, or -1 with a message in err when bands x
 * rows is too many. Whether --device gpu finds a usable GPU is checked by
 * the run (signer_set_init, dedup_require_gpu). */
int dedup_config_make(const dedup_options *o, dedup_config *c, char *err, size_t errlen);

#endif
