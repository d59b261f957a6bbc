/* fasttext_model.c (fuzz) - winnow's fastText model loader and predictor
 * on arbitrary bytes (truncated, hostile): a file fasttext_check() passes
 * must load (exact and fast mode, picked by the size's parity) and score
 * without fault or NaN (every probability in [0, 1 + 1e-4]: fastText adds
 * 1e-5 before its log); any other file gets a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "filter/fasttext_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("model", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size) abort();
    char path[64], err[512] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fasttext_model *m = fasttext_model_load(path, size & 1, err, sizeof err);
    if (m) {
        fasttext_scratch *s = fasttext_scratch_create();
        int n = fasttext_model_nlabels(m);
        float *probs = calloc((size_t)n, sizeof *probs);
        static const char text[] = "Article 1. All human beings are born free\nand equal in dignity and rights.";
        if (!fasttext_model_predict(m, s, text, sizeof text - 1, 0, probs)) abort();
        if (!fasttext_model_predict(m, s, (const char *)data, size < 256 ? size : 256, 1, probs)) abort();
        for (int i = 0; i < n; i++)
            if (!(probs[i] >= 0 && probs[i] <= 1.0001f)) abort();
        free(probs);
        fasttext_scratch_free(s);
        fasttext_model_free(m);
    } else if (!err[0]) {
        abort(); /* a refusal always says why */
    }
    close(fd);
    return 0;
}
