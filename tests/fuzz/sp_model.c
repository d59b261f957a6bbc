/* sp_model.c (fuzz) - mutated SentencePiece .model files (seeds: small
 * models spm_train made: unigram and BPE, byte fallback, user-defined and
 * control symbols, a custom normalization rule) through the loader, then
 * hostile text through the encoder with and without control symbols
 * matched, and the ids back through the decoder. A model either is refused
 * with a message or loads; one that loads encodes the ordinary texts below
 * (the loader refuses a model that cannot) into ids it can decode, all of
 * them known. Other text a damaged model cannot encode (SentencePiece says
 * why; the command stops with that message) is skipped. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tokenize/sp_model.h"
#include "tokenize/tokenizer.h"

#define ERR_BYTES 512

/* Texts every loaded model encodes: white space runs, digits, control and
 * user-defined symbol names, invalid UTF-8, NUL, a byte-fallback character. */
#define TEXT(s) {s, sizeof s - 1}
static const struct {
    const char *s;
    size_t n;
} texts[] = {
    TEXT(""), TEXT(" "), TEXT("  a  b  "), TEXT("Hello world 12345 3.14"), TEXT("<s>x</s><pad><unk><mask></s"),
    TEXT("\xff\xfe invalid \xc3"), TEXT("a\0b"),
    TEXT("\xe2\x96\x81\xe2\x96\x81 \xf0\x9f\x98\x80 \xe4\xb8\xad\xe6\x96\x87"),
};

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
            for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) roundtrip(&t, texts[i].s, texts[i].n, true);
            roundtrip(&t, (const char *)data, size < 256 ? size : 256, false); /* the model's own bytes as text */
        }
    } else if (!err.len) {
        abort(); /* a failure always says why */
    }
    tokenizer_free(&t);
    buf_free(&err);
    return 0;
}
