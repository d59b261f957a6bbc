/* vocab_load.c (fuzz) - the tiktoken and tokenizer.json loaders on arbitrary
 * bytes: they return 0 or -1 with a message, never crash; a tiktoken
 * vocabulary that loads encodes its own bytes and decodes them back, a
 * tokenizer.json or SentencePiece model gives only ids it can decode (its
 * normalizer may change the text). tests/fuzz/hf_tokenizer.c and
 * tests/fuzz/sp_model.c fuzz those further. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tokenize/tokenizer.h"
#include "tokenize/vocab_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tokenizer t;
    wbuf err = WBUF_INIT;
    if (tokenizer_load_mem(&t, NULL, (const char *)data, size, PRETOK_CL100K, &err) == 0) {
        bpe_scratch scratch = {0};
        tok_ids ids = {0};
        wbuf back = WBUF_INIT;
        tokenizer_encode(&t, (const char *)data, size, true, &scratch, &ids);
        size_t unknown = tokenizer_decode(&t, ids.ids, ids.n, &back);
        if (unknown) abort();
        if (!t.hf && !t.sp && (back.len != size || (size && memcmp(back.data, data, size)))) abort();
        ids_free(&ids);
        buf_free(&back);
        bpe_scratch_free(&scratch);
    } else if (!err.len) {
        abort(); /* a failure always says why */
    }
    tokenizer_free(&t);
    buf_free(&err);
    return 0;
}
