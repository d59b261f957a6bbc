/* sp_model.h - a SentencePiece model (.model, a serialized ModelProto:
 * Llama 2, Mistral v1-v3, Gemma, T5) encoded and decoded by SentencePiece
 * itself (Debian's libsentencepiece), so the ids are its ids by construction.
 *
 * A model is loaded once and shared read-only by every thread:
 * SentencePieceProcessor's Encode and Decode are const and keep their
 * working memory on the stack (checked in its source, v0.1.97), and this
 * wrapper keeps its own per thread. Nothing here prints or exits. */
#ifndef WINNOW_TOKENIZE_SP_MODEL_H
#define WINNOW_TOKENIZE_SP_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_model sp_model;

/* Loads a serialized ModelProto from data[0..n) (copied); NULL with
 * SentencePiece's reason in err when it refuses the bytes. */
sp_model *sp_model_load(const char *data, size_t n, char *err, size_t errlen);
void sp_model_free(sp_model *m);

/* The number of pieces (ids are 0 .. size-1). */
int sp_model_size(const sp_model *m);

/* The string of piece id (0 <= id < size), as the model stores it
 * ("\xE2\x96\x81the", "<s>", "<0x0A>"). */
const char *sp_model_piece(const sp_model *m, int id, size_t *len);

/* Whether piece id is a control symbol (<s>, </s>, <pad>): never made from
 * text by SentencePiece, decoded to nothing. */
bool sp_model_is_control(const sp_model *m, int id);

/* The model's bos_id and eos_id (-1: none). */
int sp_model_bos(const sp_model *m);
int sp_model_eos(const sp_model *m);

/* Encodes text s[0..n) as SentencePiece's Encode does; *ids points at the
 * calling thread's result (valid until its next call). Returns the count,
 * or -1 with SentencePiece's reason in err. */
long sp_model_encode(const sp_model *m, const char *s, size_t n, const int **ids, char *err, size_t errlen);

/* Decodes ids (each 0 <= id < size) as SentencePiece's DecodeIds does;
 * *text points at the calling thread's result (valid until its next call).
 * Returns its length, or -1 with SentencePiece's reason in err. */
long sp_model_decode(const sp_model *m, const int *ids, size_t n, const char **text, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
