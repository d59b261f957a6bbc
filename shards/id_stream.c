/* id_stream.c - reading the --format bin token stream into a shard writer. */
#include "shards/id_stream.h"

#include <inttypes.h>

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

bool shard_stream_add(winput *in, shard_writer *w, wstats *st, uint32_t **ids, size_t *cap)
{
    for (uint64_t doc = 0;; doc++) {
        uint64_t offset = input_offset(in);
        uint8_t head[4];
        size_t got = read_full(in, head, 4);
        if (got == 0) break;
        uint32_t count = got == 4 ? (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 24 : 0;
        size_t have = 0;
        while (got == 4 && have < count) { /* grow with the data, not with the claimed count */
            size_t want = count - have < READ_CHUNK_IDS ? count - have : READ_CHUNK_IDS;
            if (have + want > *cap) {
                *cap = (have + want) * 2;
                *ids = xrealloc(*ids, *cap * sizeof **ids);
            }
            size_t bytes = read_full(in, *ids + have, want * 4);
            have += bytes / 4;
            if (bytes < want * 4) break;
        }
        if (got < 4 || have < count) {
            st->in++;
            warnf("%s: document %" PRIu64 " at offset %" PRIu64 ": stream ends inside the document (%zu of %u ids)",
                  input_name(in), doc, offset, have, count);
            stats_fail(st, "truncated");
            return false;
        }
        for (size_t i = 0; i < have; i++) { /* the stream is little-endian */
            const uint8_t *b = (const uint8_t *)&(*ids)[i];
            (*ids)[i] = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        }
        if (!shard_writer_add_counted(w, *ids, count, st, input_name(in), doc, offset)) continue;
        progress_add(1, 4 + 4 * (uint64_t)count);
    }
    return true;
}
