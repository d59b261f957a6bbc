/* shard_reader.c - random access to the tokens and documents of a shard directory. */
#include "shard_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "core/util.h"
#include "shards/shard_file.h"
#include "shards/shard_format.h"
#include "shards/shard_index.h"

#define ERR_MAX 768
#define NO_FRAME UINT32_MAX

typedef struct {
    char *path;
    shard_file file;
    shard_index index;
    uint64_t first_token; /* global number of its first token */
    uint64_t first_doc;   /* global number of the first document that begins in it */
} rshard;

struct shard_reader {
    shard_manifest m;
    rshard *s;
    uint32_t n;
    uint64_t documents;
    ZSTD_DCtx *dctx;
    uint8_t *frame; /* the last decompressed frame */
    uint32_t frame_shard, frame_no;
    char err[ERR_MAX];
};

static void free_shards(shard_reader *r)
{
    for (uint32_t i = 0; i < r->n; i++) {
        shard_file_close(&r->s[i].file);
        shard_index_free(&r->s[i].index);
        free(r->s[i].path);
    }
    free(r->s);
}

void shard_reader_close(shard_reader *r)
{
    if (!r) return;
    free_shards(r);
    manifest_free(&r->m);
    ZSTD_freeDCtx(r->dctx);
    free(r->frame);
    free(r);
}

/* Loads shard i's seek table and index and checks them against the manifest. */
static int open_shard(shard_reader *r, const char *dir, uint32_t i, char *err, size_t errlen)
{
    const manifest_shard *ms = &r->m.shards[i];
    rshard *s = &r->s[i];
    size_t plen = strlen(dir) + strlen(ms->file) + strlen(ms->index) + 2;
    s->path = xmalloc(plen);
    snprintf(s->path, plen, "%s/%s", dir, ms->file);
    if (shard_file_open(s->path, &s->file, err, errlen)) return -1;
    const seek_table *t = &s->file.table;
    uint64_t dtype = (uint64_t)r->m.dtype_bytes;
    if (s->file.size != ms->compressed_bytes) {
        snprintf(err, errlen, "%s: %" PRIu64 " bytes, the manifest says %" PRIu64, s->path, s->file.size, ms->compressed_bytes);
        return -1;
    }
    for (uint32_t f = 0; f < t->nframes; f++)
        if (t->entries[f].dsize > r->m.frame_bytes || t->entries[f].dsize % dtype) {
            snprintf(err, errlen, "%s: seek table entry %u: decompressed size %u is not a whole number of tokens up to %" PRIu64 " bytes",
                     s->path, f, t->entries[f].dsize, r->m.frame_bytes);
            return -1;
        }
    if (t->doffset[t->nframes] != ms->tokens * dtype) {
        snprintf(err, errlen, "%s: seek table holds %" PRIu64 " bytes of tokens, the manifest says %" PRIu64 " tokens",
                 s->path, t->doffset[t->nframes], ms->tokens);
        return -1;
    }
    char *ipath = xmalloc(plen);
    snprintf(ipath, plen, "%s/%s", dir, ms->index);
    size_t len = 0;
    char *bytes = read_file(ipath, &len);
    const char *why = NULL;
    uint64_t where = 0;
    if (!bytes) why = "cannot read";
    else if (shard_index_parse((const uint8_t *)bytes, len, &s->index, &why, &where) == 0) {
        if (s->index.tokens != ms->tokens) why = "token count differs from the manifest";
        else if (s->index.documents != ms->documents) why = "document count differs from the manifest";
        else if (((s->index.flags & SHARD_INDEX_CONTINUES) != 0) != ms->continues) why = "continuation flag differs from the manifest";
        else if (ms->continues && (i == 0 || !r->m.split_docs)) why = "continues a document but there is no earlier shard of a --split-docs run";
    }
    if (why) snprintf(err, errlen, "%s: offset %" PRIu64 ": %s", ipath, where, why);
    free(bytes);
    free(ipath);
    return why ? -1 : 0;
}

shard_reader *shard_reader_open(const char *dir, char *err, size_t errlen)
{
    shard_reader *r = xcalloc(1, sizeof *r);
    if (manifest_load(dir, &r->m, err, errlen)) {
        free(r);
        return NULL;
    }
    r->s = xcalloc(r->m.nshards ? r->m.nshards : 1, sizeof *r->s);
    uint64_t tokens = 0, docs = 0;
    for (uint32_t i = 0; i < r->m.nshards; i++) {
        r->n = i + 1;
        if (open_shard(r, dir, i, err, errlen)) {
            shard_reader_close(r);
            return NULL;
        }
        r->s[i].first_token = tokens;
        r->s[i].first_doc = docs;
        tokens += r->m.shards[i].tokens;
        docs += r->m.shards[i].documents - (r->m.shards[i].continues ? 1 : 0);
    }
    if (tokens != r->m.tokens || docs != r->m.documents) {
        snprintf(err, errlen, "%s/%s: totals (%" PRIu64 " tokens, %" PRIu64 " documents) do not match the shards (%" PRIu64
                 ", %" PRIu64 ")", dir, SHARD_MANIFEST, r->m.tokens, r->m.documents, tokens, docs);
        shard_reader_close(r);
        return NULL;
    }
    r->documents = docs;
    r->dctx = ZSTD_createDCtx();
    r->frame = xmalloc(r->m.frame_bytes ? r->m.frame_bytes : 1);
    r->frame_shard = r->frame_no = NO_FRAME;
    return r;
}

const shard_manifest *shard_reader_manifest(const shard_reader *r)
{
    return &r->m;
}

uint64_t shard_reader_tokens(const shard_reader *r)
{
    return r->m.tokens;
}

uint64_t shard_reader_documents(const shard_reader *r)
{
    return r->documents;
}

const char *shard_reader_error(const shard_reader *r)
{
    return r->err;
}

void shard_tokens_free(shard_tokens *t)
{
    free(t->ids);
    memset(t, 0, sizeof *t);
}

/* Last shard whose first token is <= tok. */
static uint32_t shard_of_token(const shard_reader *r, uint64_t tok)
{
    uint32_t lo = 0, hi = r->n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->s[mid].first_token <= tok) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* True (with the message in r->err) when the frame just read holds an id
 * not below the manifest's vocabulary size: every reader refuses such ids
 * as `shards verify` does, rather than handing them to a trainer. */
static bool frame_id_out_of_range(shard_reader *r, uint32_t si, uint32_t fi)
{
    const seek_table *t = &r->s[si].file.table;
    size_t width = (size_t)r->m.dtype_bytes;
    uint64_t ntok = (t->doffset[fi + 1] - t->doffset[fi]) / width;
    uint32_t top = 0;
    for (uint64_t k = 0; k < ntok; k++) {
        uint32_t id = width == 2 ? get_le16(r->frame + 2 * k) : get_le32(r->frame + 4 * k);
        if (id > top) top = id;
    }
    if (ntok == 0 || top < r->m.vocab_size) return false;
    snprintf(r->err, sizeof r->err, "%s: frame %u holds id %u, not below the vocabulary size %" PRIu64, r->s[si].path, fi,
             top, r->m.vocab_size);
    return true;
}

static int load_frame(shard_reader *r, uint32_t si, uint32_t fi)
{
    if (r->frame_shard == si && r->frame_no == fi) return 0;
    char why[ERR_MAX - 128];
    r->frame_shard = r->frame_no = NO_FRAME;
    if (shard_file_read_frame(&r->s[si].file, fi, r->dctx, r->frame, why, sizeof why)) {
        snprintf(r->err, sizeof r->err, "%s: %s", r->s[si].path, why);
        return -1;
    }
    if (frame_id_out_of_range(r, si, fi)) return -1;
    r->frame_shard = si;
    r->frame_no = fi;
    return 0;
}

static void reserve(shard_tokens *t, size_t n)
{
    if (n <= t->cap) return;
    t->cap = n > 2 * t->cap ? n : 2 * t->cap;
    t->ids = xrealloc(t->ids, t->cap * sizeof *t->ids);
}

int shard_reader_read_tokens(shard_reader *r, uint64_t start, uint64_t n, shard_tokens *out)
{
    if (start > r->m.tokens || n > r->m.tokens - start) {
        snprintf(r->err, sizeof r->err, "tokens %" PRIu64 "..%" PRIu64 " are outside the %" PRIu64 " tokens",
                 start, start + n, r->m.tokens);
        return -1;
    }
    reserve(out, (size_t)n);
    out->len = 0;
    size_t width = (size_t)r->m.dtype_bytes;
    while (n) {
        uint32_t si = shard_of_token(r, start);
        const seek_table *t = &r->s[si].file.table;
        uint64_t pos = (start - r->s[si].first_token) * width;
        uint32_t fi = seek_table_find(t, pos);
        if (load_frame(r, si, fi)) return -1;
        const uint8_t *p = r->frame + (pos - t->doffset[fi]);
        uint64_t avail = (t->doffset[fi + 1] - pos) / width;
        uint64_t k = n < avail ? n : avail;
        uint32_t *dst = out->ids + out->len;
        if (width == 2)
            for (uint64_t i = 0; i < k; i++) dst[i] = get_le16(p + 2 * i);
        else
            for (uint64_t i = 0; i < k; i++) dst[i] = get_le32(p + 4 * i);
        out->len += (size_t)k;
        start += k;
        n -= k;
    }
    return 0;
}

int shard_reader_document_range(const shard_reader *r, uint64_t doc, uint64_t *start, uint64_t *end)
{
    if (doc >= r->documents) return -1;
    uint32_t lo = 0, hi = r->n; /* last shard whose first_doc <= doc: where doc begins */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->s[mid].first_doc <= doc) lo = mid;
        else hi = mid;
    }
    const rshard *s = &r->s[lo];
    uint64_t j = doc - s->first_doc + ((s->index.flags & SHARD_INDEX_CONTINUES) ? 1 : 0);
    *start = s->first_token + (j ? s->index.ends[j - 1] : 0);
    *end = s->first_token + s->index.ends[j];
    /* A document cut by --split-docs goes on in the next shards. */
    for (uint32_t i = lo; j + 1 == r->s[i].index.documents && i + 1 < r->n &&
                          (r->s[i + 1].index.flags & SHARD_INDEX_CONTINUES); i++, j = 0)
        *end = r->s[i + 1].first_token + r->s[i + 1].index.ends[0];
    return 0;
}

int shard_reader_read_document(shard_reader *r, uint64_t doc, shard_tokens *out)
{
    uint64_t start, end;
    if (shard_reader_document_range(r, doc, &start, &end)) {
        snprintf(r->err, sizeof r->err, "document %" PRIu64 " is outside the %" PRIu64 " documents", doc, r->documents);
        return -1;
    }
    return shard_reader_read_tokens(r, start, end - start, out);
}

void shard_iter_init(shard_doc_iter *it, uint64_t first)
{
    memset(it, 0, sizeof *it);
    it->next_doc = first;
}

bool shard_iter_next(shard_reader *r, shard_doc_iter *it)
{
    if (it->failed || it->next_doc >= r->documents) return false;
    if (shard_reader_read_document(r, it->next_doc, &it->tokens)) {
        it->failed = true;
        return false;
    }
    it->doc = it->next_doc++;
    return true;
}

void shard_iter_free(shard_doc_iter *it)
{
    shard_tokens_free(&it->tokens);
}
