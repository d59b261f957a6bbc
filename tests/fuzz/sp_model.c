/* sp_model.c (fuzz) - mutated SentencePiece .model files (seeds: small
 * models spm_train made: unigram and BPE, byte fallback, user-defined and
 * control symbols, a custom normalization rule) through the loader, then
 * hostile text through the encoder with and without control symbols
 * matched, and the ids back through the decoder. A model either is refused
 * with a message or loads; one that loads encodes the loader's probe texts
 * (sp_tokenizer_probe_text: white space runs, digits, control and
 * user-defined symbol names, invalid UTF-8, NUL, CJK, an emoji) into ids it
 * can decode, all of them known. Other text a damaged model cannot encode (SentencePiece says
 * why; the command stops with that message) is skipped. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tokenize/sp_model.h"
#include "tokenize/sp_tokenizer.h"
#include "tokenize/tokenizer.h"

#define ERR_BYTES 512


/* Encodes s[0..n) both ways and decodes the ids; aborts on any failure
 * (where SentencePiece cannot encode s at all, only when must_encode). */
static void roundtrip(const tokenizer *t, const char *s, size_t n, bool must_encode)
{
    char err[ERR_BYTES];
    const int *raw;
    if (sp_model_encode(t->sp, s, n, &raw, err, sizeof err) < 0) {
        if (must_encode) abort();
        return;
    }
    for (int special = 0; special < 2; special++) {
        bpe_scratch scratch = {0};
        tok_ids ids = {0};
        wbuf back = WBUF_INIT;
        tokenizer_encode(t, s, n, special, &scratch, &ids);
        if (tokenizer_decode(t, ids.ids, ids.n, &back)) abort(); /* an id SentencePiece gave is unknown */
        ids_free(&ids);
        buf_free(&back);
        bpe_scratch_free(&scratch);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tokenizer t;
    wbuf err = WBUF_INIT;
    if (tokenizer_load_mem(&t, NULL, (const char *)data, size, -1, &err) == 0) {
        if (t.sp) {
            const char *text;
            size_t n;
            for (size_t i = 0; (text = sp_tokenizer_probe_text(i, &n)); i++) roundtrip(&t, text, n, true);
            roundtrip(&t, (const char *)data, size < 256 ? size : 256, false); /* the model's own bytes as text */
        }
    } else if (!err.len) {
        abort(); /* a failure always says why */
    }
    tokenizer_free(&t);
    buf_free(&err);
    return 0;
}
