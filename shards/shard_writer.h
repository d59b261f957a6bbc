/* shard_writer.h - writing a shard directory (docs/shards.md).
 *
 * Any stage that produces token ids writes shards through this API:
 *     shard_writer_options o;
 *     shard_writer_options_init(&o);
 *     o.tokenizer_name = "cl100k_base"; o.vocab_size = 100277; o.eos_id = 100257; ...
 *     shard_writer *w = shard_writer_open("out/", &o);
 *     for each document: shard_writer_add_document(w, ids, n);
 *     shard_writer_close(w);
 * Documents are stored in the order they are added. Files are written under
 * temporary names and renamed when complete; manifest.json comes last (and is
 * removed first when the directory already had one), so a killed writer never
 * leaves a directory that looks finished. The output depends only on the
 * documents and the options, never on the thread count. Frames are
 * compressed by a pool of `threads` threads, written in order by a thread
 * of the writer's own, and each finished shard is synced and renamed by
 * another while the next is written: the calling thread only lays
 * documents out. */
#ifndef WINNOW_SHARD_WRITER_H
#define WINNOW_SHARD_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"

typedef struct {
    const char *tokenizer_name; /* recorded in the manifest; NULL: "" */
    const char *vocab_sha256;   /* 64 lowercase hex digits, or NULL when unknown */
    uint64_t vocab_size;        /* required: every id must be below it; <= 65536 stores uint16 */
    int64_t eos_id;             /* -1: none */
    int64_t bos_id;             /* -1: none */
    bool append_eos;            /* append eos_id after each document (default true; needs eos_id) */
    bool prepend_bos;           /* put bos_id before each document (default false; needs bos_id) */
    uint64_t shard_tokens;      /* target tokens per shard (default 100M) */
    bool split_docs;            /* cut shards at exactly shard_tokens, splitting documents */
    int zstd_level;             /* zstd's: 1..22, or negative for faster; SHARD_LEVEL_TLZ (0): winnow's token encoder (default 1) */
    int threads;                /* compression threads (default 1) */
} shard_writer_options;

typedef struct shard_writer shard_writer;

/* Sets the defaults above. */
void shard_writer_options_init(shard_writer_options *o);

/* Reads a level for shard frames: "tlz" (SHARD_LEVEL_TLZ), or a zstd level,
 * a decimal integer from zstd's lowest (negative, fastest) level to 22, not
 * 0 (zstd's "default", which the manifest could not name). Returns false
 * when text is not one. */
bool shard_level_parse(const char *text, int *level);

/* True when the options can be used (else prints why): a false here is a
 * usage error, where a NULL from shard_writer_open() with valid options is
 * an I/O error (exit status 1 and 2). */
bool shard_writer_options_valid(const shard_writer_options *o);

/* Creates dir when needed and removes its old manifest.json and the
 * temporary files a killed writer left in it. Returns NULL
 * and prints why when the options are invalid or dir cannot be used. */
shard_writer *shard_writer_open(const char *dir, const shard_writer_options *o);

/* Adds one document of n ids. Returns 0, or -1 when an id is not below
 * vocab_size: nothing of that document is written, and
 * shard_writer_error() says which id where. I/O errors exit with status 2. */
int shard_writer_add_document(shard_writer *w, const uint32_t *ids, size_t n);

/* Adds one document of n ids without copying them yet: the ids must stay
 * unchanged until shard_writer_release() returns. The compression threads
 * copy them into their frames and check them there, so the calling thread
 * does no work per id; for a caller whose ids are below vocab_size by
 * construction (a tokenizer's own): an id that is not is a fatal error
 * (exit status 2, naming the document) when its frame is written. The
 * output is the same as shard_writer_add_document()'s. */
void shard_writer_add_borrowed(shard_writer *w, const uint32_t *ids, size_t n);

/* shard_writer_add_borrowed(), counted in st as shard_writer_add_counted()
 * counts a document it adds (in, bytes_in as --format bin bytes, out). */
void shard_writer_add_borrowed_counted(shard_writer *w, const uint32_t *ids, size_t n, wstats *st);

/* Returns once every id given to shard_writer_add_borrowed() has been
 * copied, so the caller may reuse that memory. */
void shard_writer_release(shard_writer *w);

/* Why the last shard_writer_add_document() failed. */
const char *shard_writer_error(const shard_writer *w);

/* Adds one document as `winnow shard` does and counts it in st: in, and
 * bytes_in as its --format bin bytes (a u32 count, then its ids); then out,
 * or failed (bad_id) with a warning naming source, document number and
 * offset, the document skipped. Returns true when it was added. */
bool shard_writer_add_counted(shard_writer *w, const uint32_t *ids, size_t n, wstats *st, const char *source,
                              uint64_t doc, uint64_t offset);

/* CPU seconds spent adding documents and compressing their frames so far
 * (all threads together; frames still being compressed not yet counted;
 * writing and syncing the files not counted).
 * Adding is timed by the monotonic clock less the waits for the pool,
 * scaled by the CPU share of one document in 64 timed by the CPU clock. */
double shard_writer_cpu_seconds(const shard_writer *w);

/* Documents and tokens (with bos/eos) added so far. */
uint64_t shard_writer_documents(const shard_writer *w);
uint64_t shard_writer_tokens(const shard_writer *w);

/* Finishes the last shard, writes manifest.json and frees w. Returns 0. */
int shard_writer_close(shard_writer *w);

/* Stops without a manifest, removing temporary files; frees w. */
void shard_writer_abort(shard_writer *w);

#endif
