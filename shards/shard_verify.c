/* shard_verify.c - every checksum and count of a shard directory, checked. */
#include "shard_verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/util.h"
#include "shards/manifest.h"
#include "shards/shard_file.h"
#include "shards/shard_format.h"
#include "shards/shard_index.h"

#define MSG_MAX 1024
#define HASH_CHUNK (1u << 20)

static void problem(shard_verify_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(shard_verify_result *res, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    warnf("%s", msg);
    res->problems++;
}

/* XXH3-64 of a whole file; -1 when it cannot be read. */
static int hash_file(const char *path, uint64_t *hash, uint64_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    char *chunk = xmalloc(HASH_CHUNK);
    size_t n;
    *size = 0;
    while ((n = fread(chunk, 1, HASH_CHUNK, f)) > 0) {
        XXH3_64bits_update(st, chunk, n);
        *size += n;
    }
    int rc = ferror(f) ? -1 : 0;
    fclose(f);
    free(chunk);
    *hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return rc;
}

/* Verifies the seek table and every frame of one shard file. */
static void verify_frames(const shard_manifest *m, const manifest_shard *ms, const char *path, shard_verify_result *res)
{
    char err[MSG_MAX];
    shard_file f;
    if (shard_file_open(path, &f, err, sizeof err)) {
        problem(res, "%s", err);
        return;
    }
    const seek_table *t = &f.table;
    uint64_t width = (uint64_t)m->dtype_bytes;
    bool sizes_ok = true;
    for (uint32_t i = 0; i < t->nframes; i++)
        if (t->entries[i].dsize > m->frame_bytes || t->entries[i].dsize % width) {
            problem(res, "%s: seek table entry %u at offset %" PRIu64 ": decompressed size %u is not a whole number of tokens up to %" PRIu64 " bytes",
                    path, i, f.size - t->table_bytes + SEEK_FRAME_HEADER_BYTES + (uint64_t)i * SEEK_ENTRY_BYTES,
                    t->entries[i].dsize, m->frame_bytes);
            sizes_ok = false;
        }
    if (t->doffset[t->nframes] != ms->tokens * width) {
        problem(res, "%s: seek table holds %" PRIu64 " bytes of tokens, the manifest says %" PRIu64 " tokens",
                path, t->doffset[t->nframes], ms->tokens);
        sizes_ok = false;
    }
    if (!sizes_ok) {
        shard_file_close(&f);
        return;
    }
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    uint8_t *frame = xmalloc(m->frame_bytes ? m->frame_bytes : 1);
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    bool all_frames = true;
    for (uint32_t i = 0; i < t->nframes; i++) {
        res->frames++;
        if (shard_file_read_frame(&f, i, dctx, frame, err, sizeof err)) {
            problem(res, "%s: %s", path, err);
            all_frames = false;
            continue;
        }
        XXH3_64bits_update(st, frame, t->entries[i].dsize);
        uint64_t ntok = t->entries[i].dsize / width;
        for (uint64_t k = 0; k < ntok; k++) {
            uint32_t id = width == 2 ? get_le16(frame + 2 * k) : get_le32(frame + 4 * k);
            if (id >= m->vocab_size) {
                problem(res, "%s: frame %u: token %" PRIu64 " of the shard is id %u, not below the vocabulary size %" PRIu64,
                        path, i, t->doffset[i] / width + k, id, m->vocab_size);
                break;
            }
        }
    }
    if (all_frames) {
        uint64_t h = XXH3_64bits_digest(st);
        if (h != ms->xxh3)
            problem(res, "%s: XXH3-64 of the tokens is %016" PRIx64 ", the manifest says %016" PRIx64, path, h, ms->xxh3);
    }
    res->tokens += ms->tokens;
    XXH3_freeState(st);
    free(frame);
    ZSTD_freeDCtx(dctx);
    shard_file_close(&f);
}

static void verify_index(const char *dir, const manifest_shard *ms, uint32_t no, bool split_docs, shard_verify_result *res)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, ms->index);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        problem(res, "%s: cannot open: %s", path, strerror(errno));
        return;
    }
    wbuf b = WBUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) buf_append(&b, chunk, n);
    fclose(fp);
    shard_index x;
    const char *why = NULL;
    uint64_t where = 0;
    if (shard_index_parse((const uint8_t *)(b.data ? b.data : ""), b.len, &x, &why, &where) == 0) {
        if (x.tokens != ms->tokens) why = "token count differs from the manifest";
        else if (x.documents != ms->documents) why = "document count differs from the manifest";
        else if (((x.flags & SHARD_INDEX_CONTINUES) != 0) != ms->continues) why = "continuation flag differs from the manifest";
        else if (ms->continues && (no == 0 || !split_docs)) why = "continues a document but there is no earlier shard of a --split-docs run";
        shard_index_free(&x);
    }
    if (why) problem(res, "%s: offset %" PRIu64 ": %s", path, where, why);
    buf_free(&b);
}

void shard_verify_dir(const char *dir, shard_verify_result *res)
{
    memset(res, 0, sizeof *res);
    shard_manifest m;
    char err[MSG_MAX];
    if (manifest_load(dir, &m, err, sizeof err)) {
        problem(res, "%s", err);
        return;
    }
    uint64_t tokens = 0, documents = 0, compressed = 0;
    for (uint32_t i = 0; i < m.nshards; i++) {
        const manifest_shard *ms = &m.shards[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, ms->file);
        uint64_t hash = 0, size = 0;
        if (hash_file(path, &hash, &size)) {
            problem(res, "%s: cannot read: %s", path, strerror(errno));
            continue;
        }
        if (size != ms->compressed_bytes)
            problem(res, "%s: %" PRIu64 " bytes, the manifest says %" PRIu64, path, size, ms->compressed_bytes);
        uint64_t before = res->problems;
        verify_frames(&m, ms, path, res);
        if (hash != ms->file_xxh3 && res->problems == before)
            problem(res, "%s: XXH3-64 of the file is %016" PRIx64 ", the manifest says %016" PRIx64
                         " although every frame and the seek table check out (damage in bytes that decode the same, e.g. an unused frame-header bit)",
                    path, hash, ms->file_xxh3);
        else if (hash != ms->file_xxh3)
            warnf("%s: (the file's XXH3-64 differs from the manifest too)", path);
        verify_index(dir, ms, i, m.split_docs, res);
        tokens += ms->tokens;
        documents += ms->documents - (ms->continues ? 1 : 0);
        compressed += ms->compressed_bytes;
        res->shards++;
    }
    if (tokens != m.tokens || documents != m.documents || compressed != m.compressed_bytes)
        problem(res, "%s/%s: totals (%" PRIu64 " tokens, %" PRIu64 " documents, %" PRIu64
                     " bytes) do not add up over the shards (%" PRIu64 ", %" PRIu64 ", %" PRIu64 ")",
                dir, SHARD_MANIFEST, m.tokens, m.documents, m.compressed_bytes, tokens, documents, compressed);
    res->documents = m.documents;
    manifest_free(&m);
}
