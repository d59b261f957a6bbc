/* shard_index.c - encoding and checking the per-shard document index. */
#include "shard_index.h"

#include <stdlib.h>
#include <xxhash.h>

#include "core/util.h"
#include "shards/shard_format.h"

void shard_index_encode(const shard_index *x, wbuf *out)
{
    size_t start = out->len;
    uint8_t head[SHARD_INDEX_HEADER_BYTES];
    memcpy(head, SHARD_INDEX_MAGIC, SHARD_INDEX_MAGIC_BYTES);
    put_le32(head + 8, SHARD_INDEX_VERSION);
    put_le32(head + 12, x->flags);
    put_le64(head + 16, x->documents);
    put_le64(head + 24, x->tokens);
    buf_append(out, head, sizeof head);
    for (uint64_t i = 0; i < x->documents; i++) {
        uint8_t v[8];
        put_le64(v, x->ends[i]);
        buf_append(out, v, 8);
    }
    uint8_t sum[8];
    put_le64(sum, XXH3_64bits(out->data + start, out->len - start));
    buf_append(out, sum, 8);
}

int shard_index_parse(const uint8_t *p, size_t len, shard_index *x, const char **err, uint64_t *err_pos)
{
    memset(x, 0, sizeof *x);
    *err_pos = 0;
    if (len < SHARD_INDEX_HEADER_BYTES + 8) {
        *err = "index file too short";
        return -1;
    }
    if (memcmp(p, SHARD_INDEX_MAGIC, SHARD_INDEX_MAGIC_BYTES) != 0) {
        *err = "bad magic (want \"" SHARD_INDEX_MAGIC "\")";
        return -1;
    }
    uint64_t docs = get_le64(p + 16);
    if (docs != (len - SHARD_INDEX_HEADER_BYTES - 8) / 8 || (len - SHARD_INDEX_HEADER_BYTES) % 8) {
        *err = "document count does not match the file size";
        *err_pos = 16;
        return -1;
    }
    if (XXH3_64bits(p, len - 8) != get_le64(p + len - 8)) {
        *err = "XXH3-64 checksum mismatch";
        *err_pos = len - 8;
        return -1;
    }
    if (get_le32(p + 8) != SHARD_INDEX_VERSION) {
        *err = "unsupported index version";
        *err_pos = 8;
        return -1;
    }
    x->flags = get_le32(p + 12);
    x->documents = docs;
    x->tokens = get_le64(p + 24);
    x->ends = xmalloc((docs ? docs : 1) * sizeof *x->ends);
    uint64_t prev = 0;
    for (uint64_t i = 0; i < docs; i++) {
        x->ends[i] = get_le64(p + SHARD_INDEX_HEADER_BYTES + 8 * i);
        if (x->ends[i] < prev || x->ends[i] > x->tokens) {
            *err = "document end offsets are not increasing within the shard";
            *err_pos = SHARD_INDEX_HEADER_BYTES + 8 * i;
            shard_index_free(x);
            return -1;
        }
        prev = x->ends[i];
    }
    if (docs ? x->ends[docs - 1] != x->tokens : x->tokens != 0) {
        *err = "last document does not end at the shard's last token";
        *err_pos = 24;
        shard_index_free(x);
        return -1;
    }
    return 0;
}

void shard_index_free(shard_index *x)
{
    free(x->ends);
    x->ends = NULL;
}
