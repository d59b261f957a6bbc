/* shard_reader.h - reading a shard directory: counts, token ranges, documents.
 *
 *     char err[512];
 *     shard_reader *r = shard_reader_open("out/", err, sizeof err);
 *     if (!r) { fprintf(stderr, "%s\n", err); exit(2); }
 *     uint64_t ndocs = shard_reader_documents(r);
 *     shard_tokens doc = {0};
 *     if (shard_reader_read_document(r, 17, &doc) == 0) use(doc.ids, doc.len);
 *     shard_tokens_free(&doc);
 *     shard_reader_close(r);
 *
 * Token numbers and document numbers are global over the directory, in the
 * order the writer received them. Ids come back as uint32 whatever the
 * stored dtype. Every frame read is checked (zstd content checksum, the seek
 * table's checksum); a damaged frame makes the call fail with a message
 * naming the shard file, frame and offset. A reader keeps the last
 * decompressed frame, so sequential reads decompress each frame once; it is
 * not thread-safe: open one reader per thread. */
#ifndef WINNOW_SHARD_READER_H
#define WINNOW_SHARD_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shards/manifest.h"

typedef struct shard_reader shard_reader;

/* A growable array of token ids that read calls fill. */
typedef struct {
    uint32_t *ids;
    size_t len, cap;
} shard_tokens;

/* Opens dir: reads the manifest, every seek table and document index, and
 * checks they agree. Returns NULL with the reason in err when they do not. */
shard_reader *shard_reader_open(const char *dir, char *err, size_t errlen);

/* The parsed manifest (tokenizer, dtype, special ids, per-shard counts). */
const shard_manifest *shard_reader_manifest(const shard_reader *r);

/* Total tokens and documents (a document split across shards counts once). */
uint64_t shard_reader_tokens(const shard_reader *r);
uint64_t shard_reader_documents(const shard_reader *r);

/* Reads tokens [start, start + n) into out->ids (out->len = n). Returns 0, or
 * -1 (see shard_reader_error) when the range is outside or data is damaged. */
int shard_reader_read_tokens(shard_reader *r, uint64_t start, uint64_t n, shard_tokens *out);

/* Global token range [*start, *end) of document doc. Returns 0 or -1. */
int shard_reader_document_range(const shard_reader *r, uint64_t doc, uint64_t *start, uint64_t *end);

/* Reads document doc (with any bos/eos the writer added) into out. Returns 0 or -1. */
int shard_reader_read_document(shard_reader *r, uint64_t doc, shard_tokens *out);

/* The message for the last failed call. */
const char *shard_reader_error(const shard_reader *r);

/* Closes the files and frees r. */
void shard_reader_close(shard_reader *r);

/* Frees the ids of t. */
void shard_tokens_free(shard_tokens *t);

/* Iterating over every document in order:
 *     shard_doc_iter it; shard_iter_init(&it, 0);
 *     while (shard_iter_next(r, &it)) use(it.doc, it.tokens.ids, it.tokens.len);
 *     if (it.failed) report(shard_reader_error(r));
 *     shard_iter_free(&it); */
typedef struct {
    uint64_t doc;       /* number of the document in tokens, after a successful next */
    uint64_t next_doc;  /* the one the next call reads */
    shard_tokens tokens;
    bool failed;        /* the iteration stopped on damaged data */
} shard_doc_iter;

/* Starts an iteration at document first. */
void shard_iter_init(shard_doc_iter *it, uint64_t first);

/* Reads the next document; false at the end or on an error (it->failed). */
bool shard_iter_next(shard_reader *r, shard_doc_iter *it);

/* Frees the iteration's buffer. */
void shard_iter_free(shard_doc_iter *it);

#endif
