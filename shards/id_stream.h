/* id_stream.h - the --format bin token stream `winnow shard` and `winnow
 * tokenize --decode` read: per document a u32 little-endian count, then that
 * many u32 little-endian ids.
 *
 * Damaged compression: the stream has no marker a reader could find the next
 * document by, and a damaged gzip member's lost bytes are of unknown length,
 * so after damage nothing tells whether the next intact member starts at a
 * document boundary. Reading a file therefore stops at its first damage: the
 * document the damage cut is counted failed (damaged_document), or, when it
 * fell between documents or after a whole document of the damaged member,
 * the member's documents count one failed damaged_member; the rest of that
 * file is reported as not read, rather than read as plausible but wrong ids. A document is delivered
 * only once the gzip member or zstd frame it came from has ended whole (its
 * CRC or checksum passed), so a member whose damage shows only at its end
 * gives none; a member longer than the read-ahead window (id_stream.c) is
 * not waited for, and its documents go out as decoded, as in every stage. */
#ifndef WINNOW_SHARDS_ID_STREAM_H
#define WINNOW_SHARDS_ID_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/input.h"
#include "core/stats.h"
#include "shards/shard_writer.h"

/* One input read as a bin stream, and its current document. */
typedef struct {
    winput *in;
    const char *cut_kind; /* failure kind of a document the stream's end cuts */
    uint64_t doc;         /* the current document's number in this input */
    uint64_t offset;      /* and its decoded offset */
    uint32_t *ids;        /* its ids (host order) */
    size_t n, cap;
    bool unheld;          /* a member longer than the read-ahead window began at */
    uint64_t unheld_from; /* this decoded offset: its documents are not held back */
} id_stream;

typedef enum {
    ID_STREAM_DOC, /* a whole document: ids[0..n) */
    ID_STREAM_END, /* the input ended between documents, undamaged */
    ID_STREAM_BAD  /* a cut document or damage: reported, counted in and failed, the rest not read */
} id_stream_step;

/* Starts reading in (not yet read from) as a bin stream (input_set_binary);
 * cut_kind names the failure of a document the stream's end cuts. */
void id_stream_begin(id_stream *s, winput *in, const char *cut_kind);

/* Reads the next document. Counts nothing for a document it returns (the
 * caller counts it in); a failure it counts in st as in and failed. */
id_stream_step id_stream_next(id_stream *s, wstats *st);

/* Frees the id buffer. */
void id_stream_end(id_stream *s);

/* Streams the documents of in into w, counting them in st (a document with a
 * bad id is counted failed and skipped by the writer). Returns false when the
 * input was bad (id_stream_next). */
bool shard_stream_add(winput *in, shard_writer *w, wstats *st);

#endif
