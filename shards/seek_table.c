/* seek_table.c - encoding and parsing zstd seekable-format seek tables. */
#include "seek_table.h"

#include <stdlib.h>
#include <xxhash.h>

#include "core/util.h"
#include "shards/shard_format.h"

void seek_table_encode(const seek_entry *e, uint32_t n, wbuf *out)
{
    uint8_t word[4];
    put_le32(word, SEEK_SKIPPABLE_MAGIC);
    buf_append(out, word, 4);
    put_le32(word, (uint32_t)((uint64_t)n * SEEK_ENTRY_BYTES + SEEK_FOOTER_BYTES));
    buf_append(out, word, 4);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t entry[SEEK_ENTRY_BYTES];
        put_le32(entry, e[i].csize);
        put_le32(entry + 4, e[i].dsize);
        put_le32(entry + 8, e[i].checksum);
        buf_append(out, entry, sizeof entry);
    }
    uint8_t footer[SEEK_FOOTER_BYTES];
    put_le32(footer, n);
    footer[4] = SEEK_CHECKSUM_FLAG;
    put_le32(footer + 5, SEEK_MAGIC);
    buf_append(out, footer, sizeof footer);
}

uint64_t seek_table_size_from_footer(const uint8_t *footer, const char **err)
{
    if (get_le32(footer + 5) != SEEK_MAGIC) {
        *err = "no seekable-format magic 0x8F92EAB1 at the end of the file";
        return 0;
    }
    uint8_t desc = footer[4];
    if (desc & SEEK_RESERVED_BITS) {
        *err = "seek table descriptor has reserved bits set";
        return 0;
    }
    uint64_t entry = (desc & SEEK_CHECKSUM_FLAG) ? SEEK_ENTRY_BYTES : SEEK_ENTRY_BYTES - 4;
    return SEEK_FRAME_HEADER_BYTES + get_le32(footer) * entry + SEEK_FOOTER_BYTES;
}

int seek_table_parse(const uint8_t *table, size_t table_len, uint64_t file_size,
                     seek_table *t, const char **err, uint64_t *err_pos)
{
    memset(t, 0, sizeof *t);
    *err = NULL;
    uint64_t table_start = file_size - table_len;
    *err_pos = table_start;
    if (table_len < SEEK_FRAME_HEADER_BYTES + SEEK_FOOTER_BYTES || table_len > file_size) {
        *err = "file too short for a seek table";
        return -1;
    }
    const uint8_t *footer = table + table_len - SEEK_FOOTER_BYTES;
    if (seek_table_size_from_footer(footer, err) != table_len) {
        if (!*err) *err = "seek table size does not match its footer";
        *err_pos = file_size - SEEK_FOOTER_BYTES;
        return -1;
    }
    if (get_le32(table) != SEEK_SKIPPABLE_MAGIC) {
        *err = "seek table does not start with the skippable-frame magic 0x184D2A5E";
        return -1;
    }
    if (get_le32(table + 4) != table_len - SEEK_FRAME_HEADER_BYTES) {
        *err = "seek table frame size does not match its footer's frame count";
        *err_pos = table_start + 4;
        return -1;
    }
    uint32_t n = get_le32(footer);
    int has_checksum = (footer[4] & SEEK_CHECKSUM_FLAG) != 0;
    size_t entry_bytes = has_checksum ? SEEK_ENTRY_BYTES : SEEK_ENTRY_BYTES - 4;
    t->nframes = n;
    t->entries = xcalloc((size_t)n + 1, sizeof *t->entries);
    t->coffset = xmalloc(((size_t)n + 1) * sizeof *t->coffset);
    t->doffset = xmalloc(((size_t)n + 1) * sizeof *t->doffset);
    t->table_bytes = table_len;
    t->coffset[0] = t->doffset[0] = 0;
    const uint8_t *p = table + SEEK_FRAME_HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++, p += entry_bytes) {
        t->entries[i].csize = get_le32(p);
        t->entries[i].dsize = get_le32(p + 4);
        t->entries[i].checksum = has_checksum ? get_le32(p + 8) : 0;
        t->coffset[i + 1] = t->coffset[i] + t->entries[i].csize;
        t->doffset[i + 1] = t->doffset[i] + t->entries[i].dsize;
    }
    if (t->coffset[n] != table_start) {
        *err = "seek table's compressed sizes do not add up to the file size";
        *err_pos = table_start + SEEK_FRAME_HEADER_BYTES;
        seek_table_free(t);
        return -1;
    }
    if (!has_checksum) {
        *err = "seek table has no checksums (winnow always writes them)";
        *err_pos = file_size - SEEK_FOOTER_BYTES + 4;
        seek_table_free(t);
        return -1;
    }
    return 0;
}

uint32_t seek_table_find(const seek_table *t, uint64_t pos)
{
    uint32_t lo = 0, hi = t->nframes; /* answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->doffset[mid] <= pos) lo = mid;
        else hi = mid;
    }
    return lo;
}

void seek_table_free(seek_table *t)
{
    free(t->entries);
    free(t->coffset);
    free(t->doffset);
    memset(t, 0, sizeof *t);
}

uint32_t seek_checksum(const void *data, size_t n)
{
    return (uint32_t)XXH64(data, n, 0);
}
