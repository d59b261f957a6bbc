/* id_stream.c - reading the --format bin token stream (id_stream.h). */
#include "shards/id_stream.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/progress.h"
#include "core/util.h"

/* Reads exactly n bytes; returns how many it got. */
static size_t read_full(winput *in, void *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        size_t k = input_read(in, (char *)dst + got, n - got);
        if (k == 0) break;
        got += k;
    }
    return got;
}


#define READ_CHUNK_IDS (1u << 16)
/* A document is delivered once the gzip member or zstd frame its last byte
 * came from has ended whole: the decoder reads ahead for that, first
 * HOLD_FIRST_BYTES, doubling up to HOLD_WINDOW_BYTES, beyond which a member
 * is not waited for (its documents go out as decoded, as in other stages). */
#define HOLD_FIRST_BYTES ((size_t)64 << 10)
#define HOLD_WINDOW_BYTES ((size_t)16 << 20)

void id_stream_begin(id_stream *s, winput *in, const char *cut_kind)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->cut_kind = cut_kind;
    s->doc = UINT64_MAX; /* the first id_stream_next makes it 0 */
    input_set_binary(in);
}

void id_stream_end(id_stream *s)
{
    free(s->ids);
    s->ids = NULL;
    s->cap = 0;
}

/* Reads count ids into s->ids, growing with the data rather than with the
 * claimed count; s->n says how many came. */
static void read_ids(id_stream *s, uint32_t count)
{
    s->n = 0;
    while (s->n < count) {
        size_t want = count - s->n < READ_CHUNK_IDS ? count - s->n : READ_CHUNK_IDS;
        if (s->n + want > s->cap) {
            s->cap = (s->n + want) * 2;
            s->ids = xrealloc(s->ids, s->cap * sizeof *s->ids);
        }
        size_t bytes = read_full(s->in, s->ids + s->n, want * 4);
        s->n += bytes / 4;
        if (bytes < want * 4) return;
    }
}

/* True when the member the current document's last byte (before end) came
 * from ended whole, or is longer than the window; false, *at set, when its
 * damage was found. */
static bool member_whole(id_stream *s, uint64_t end, uint64_t *at)
{
    uint64_t checked = input_checked_to(s->in);
    if (checked >= end || (s->unheld && checked == s->unheld_from)) return true;
    for (size_t want = HOLD_FIRST_BYTES;; want *= 2) {
        const char *p;
        size_t have = input_peek(s->in, want, &p);
        checked = input_checked_to(s->in);
        if (checked >= end) return true;
        if (input_damage_from(s->in, end, at)) return false;
        if (have < want) return true; /* the input ended: its errors are the input's */
        if (want >= HOLD_WINDOW_BYTES) {
            s->unheld = true;
            s->unheld_from = checked;
            return true;
        }
    }
}

/* Where damage met the current document. */
typedef enum {
    DAMAGE_CUT,      /* inside it: its ids are partly lost */
    DAMAGE_BEFORE,   /* where it begins: the member before lost its documents */
    DAMAGE_IN_MEMBER /* after it, in the member it came from */
} damage_place;

/* Damage at decoded offset at met the current document (read_bytes of it
 * read): reports and counts it, says the rest of the input is not read. */
static id_stream_step damaged(id_stream *s, wstats *st, uint64_t at, damage_place place, uint64_t read_bytes)
{
    const char *name = input_name(s->in);
    st->in++;
    if (place == DAMAGE_CUT) {
        warnf("%s: document %" PRIu64 " at offset %" PRIu64 ": damaged compressed data at offset %" PRIu64
              " (decoded) cut it; document skipped",
              name, s->doc, s->offset, at);
        stats_fail(st, "damaged_document");
    } else if (place == DAMAGE_IN_MEMBER) {
        warnf("%s: document %" PRIu64 " at offset %" PRIu64 ": the gzip member or zstd frame it came from is "
              "damaged (at offset %" PRIu64 ", decoded); document skipped",
              name, s->doc, s->offset, at);
        stats_fail(st, "damaged_member");
    } else {
        warnf("%s: damaged compressed data at offset %" PRIu64 " (decoded), before document %" PRIu64
              ": the damaged member's documents are lost (counted as one)",
              name, at, s->doc);
        stats_fail(st, "damaged_member");
    }
    const char *p;
    if (s->offset + read_bytes > at || input_peek(s->in, 1, &p))
        warnf("%s: the rest of the input after offset %" PRIu64 " (decoded) is not read: a --format bin stream has "
              "no marker to find the next document by after damage",
              name, at);
    return ID_STREAM_BAD;
}

id_stream_step id_stream_next(id_stream *s, wstats *st)
{
    s->doc++;
    s->offset = input_offset(s->in);
    s->n = 0;
    uint8_t head[4];
    size_t got = read_full(s->in, head, 4);
    uint32_t count = got == 4 ? get_le32(head) : 0;
    if (got == 4) read_ids(s, count);
    bool whole = got == 4 && s->n == count;
    uint64_t read_bytes = got + 4 * (uint64_t)s->n, at;
    if (input_damage_from(s->in, s->offset, &at) && (!whole || at < s->offset + read_bytes))
        return damaged(s, st, at, at > s->offset ? DAMAGE_CUT : DAMAGE_BEFORE, read_bytes);
    if (whole && !member_whole(s, s->offset + read_bytes, &at))
        return damaged(s, st, at, DAMAGE_IN_MEMBER, read_bytes);
    if (got == 0) return ID_STREAM_END;
    if (!whole) {
        st->in++;
        warnf("%s: document %" PRIu64 " at offset %" PRIu64 ": stream ends inside the document (%zu of %" PRIu32
              " ids)",
              input_name(s->in), s->doc, s->offset, s->n, count);
        stats_fail(st, s->cut_kind);
        return ID_STREAM_BAD;
    }
    for (size_t i = 0; i < s->n; i++) s->ids[i] = get_le32((const uint8_t *)&s->ids[i]); /* the stream is little-endian */
    return ID_STREAM_DOC;
}

bool shard_stream_add(winput *in, shard_writer *w, wstats *st)
{
    id_stream s;
    id_stream_begin(&s, in, "truncated");
    id_stream_step step;
    while ((step = id_stream_next(&s, st)) == ID_STREAM_DOC) {
        if (!shard_writer_add_counted(w, s.ids, s.n, st, input_name(in), s.doc, s.offset)) continue;
        progress_add(1, 4 + 4 * (uint64_t)s.n);
    }
    id_stream_end(&s);
    return step == ID_STREAM_END;
}
