/* hf_tokenizer.c (fuzz) - a tokenizer.json and a text: the input up to its
 * first NUL byte is loaded as a tokenizer.json (seeds: small real-shaped
 * files using every normalizer, pre-tokenizer and added-token flag, which
 * the fuzzer mutates), the rest is hostile text (invalid UTF-8, NULs, long
 * runs) encoded with and without added-token matching. Loading returns 0 or
 * -1 with a message and never crashes; every id the encoder gives decodes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tokenize/tokenizer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t json_len = nul ? (size_t)(nul - data) : size;
    const char *text = nul ? (const char *)nul + 1 : (const char *)data;
    size_t text_len = nul ? size - json_len - 1 : size;
    tokenizer t;
    wbuf err = WBUF_INIT;
    if (tokenizer_load_mem(&t, NULL, (const char *)data, json_len, -1, &err) == 0) {
        bpe_scratch scratch = {0};
        tok_ids ids = {0};
        wbuf back = WBUF_INIT;
        for (int special = 0; special < 2; special++) {
            ids.n = 0;
            tokenizer_encode(&t, text, text_len, special, &scratch, &ids);
            buf_clear(&back);
            if (tokenizer_decode(&t, ids.ids, ids.n, &back)) abort(); /* an id the vocabulary does not know */
        }
        ids_free(&ids);
        buf_free(&back);
        bpe_scratch_free(&scratch);
        tokenizer_free(&t);
    } else if (!err.len) {
        abort(); /* a failure always says why */
    }
    buf_free(&err);
    return 0;
}
