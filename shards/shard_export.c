/* shard_export.c - Megatron-LM, llm.c and datatrove files from a shard directory. */
#include "shard_export.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/output.h"
#include "core/util.h"
#include "shards/shard_format.h"

static const char MEGATRON_MAGIC[9] = {'M', 'M', 'I', 'D', 'I', 'D', 'X', 0, 0};
#define MEGATRON_VERSION 1
#define MEGATRON_DTYPE_INT32 4
#define MEGATRON_DTYPE_UINT16 8
#define LLMC_MAX_ID 65535u

int export_format_parse(const char *name)
{
    if (strcmp(name, "megatron") == 0) return EXPORT_MEGATRON;
    if (strcmp(name, "llmc") == 0) return EXPORT_LLMC;
    if (strcmp(name, "datatrove") == 0) return EXPORT_DATATROVE;
    return -1;
}

static char *with_suffix(const char *prefix, const char *suffix)
{
    wbuf b = WBUF_INIT;
    buf_printf(&b, "%s%s", prefix, suffix);
    return b.data;
}

/* Appends ids to b as little-endian integers of width bytes. */
static void encode_ids(wbuf *b, const uint32_t *ids, size_t n, int width)
{
    buf_reserve(b, n * (size_t)width);
    uint8_t *p = (uint8_t *)b->data + b->len;
    for (size_t i = 0; i < n; i++, p += width) {
        if (width == 2) put_le16(p, (uint16_t)ids[i]);
        else put_le32(p, ids[i]);
    }
    b->len += n * (size_t)width;
    b->data[b->len] = 0;
}

static void put_u64(woutput *o, uint64_t v)
{
    uint8_t b[8];
    put_le64(b, v);
    output_write(o, b, 8);
}

static int read_failed(shard_reader *r)
{
    warnf("%s", shard_reader_error(r));
    output_abort_all();
    return EXIT_FATAL;
}

static int export_megatron(shard_reader *r, const char *prefix)
{
    const shard_manifest *m = shard_reader_manifest(r);
    if (m->dtype_bytes == 4 && m->vocab_size > (uint64_t)INT32_MAX + 1) {
        warnf("megatron: ids are stored as int32; the vocabulary size %" PRIu64 " does not fit", m->vocab_size);
        return EXIT_USAGE;
    }
    uint64_t ndocs = shard_reader_documents(r);
    char *bin_path = with_suffix(prefix, ".bin"), *idx_path = with_suffix(prefix, ".idx");
    woutput *bin = output_open(bin_path, 0);
    wbuf sizes = WBUF_INIT, bytes = WBUF_INIT;
    int status = 0;
    shard_doc_iter it;
    shard_iter_init(&it, 0);
    while (shard_iter_next(r, &it)) {
        if (it.tokens.len > INT32_MAX) {
            warnf("megatron: document %" PRIu64 " has %zu tokens; sequence lengths are int32", it.doc, it.tokens.len);
            status = EXIT_USAGE;
            break;
        }
        uint8_t len[4];
        put_le32(len, (uint32_t)it.tokens.len);
        buf_append(&sizes, len, 4);
        buf_clear(&bytes);
        encode_ids(&bytes, it.tokens.ids, it.tokens.len, m->dtype_bytes);
        output_write(bin, bytes.data, bytes.len);
    }
    if (it.failed) status = read_failed(r);
    if (status) {
        output_abort(bin);
    } else {
        woutput *idx = output_open(idx_path, 0);
        output_write(idx, MEGATRON_MAGIC, sizeof MEGATRON_MAGIC);
        put_u64(idx, MEGATRON_VERSION);
        uint8_t code = m->dtype_bytes == 2 ? MEGATRON_DTYPE_UINT16 : MEGATRON_DTYPE_INT32;
        output_write(idx, &code, 1);
        put_u64(idx, ndocs);     /* sequences: one per document */
        put_u64(idx, ndocs + 1); /* document_indices: 0, 1, ..., ndocs */
        output_write(idx, sizes.data, sizes.len);
        uint64_t p = 0;
        for (uint64_t d = 0; d < ndocs; d++) {
            put_u64(idx, p);
            p += (uint64_t)get_le32((const uint8_t *)sizes.data + 4 * d) * (uint64_t)m->dtype_bytes;
        }
        for (uint64_t d = 0; d <= ndocs; d++) put_u64(idx, d);
        output_close(bin);
        output_close(idx);
    }
    shard_iter_free(&it);
    buf_free(&sizes);
    buf_free(&bytes);
    free(bin_path);
    free(idx_path);
    return status;
}

/* One llm.c shard being filled. */
typedef struct {
    const char *prefix;
    uint64_t shard_tokens, remaining; /* tokens still to write overall */
    uint32_t no;
    uint64_t in_shard, shard_size;
    woutput *out;
    wbuf bytes;
} llmc_writer;

static void llmc_put(llmc_writer *w, const uint32_t *ids, size_t n)
{
    while (n) {
        if (!w->out) {
            char name[64];
            snprintf(name, sizeof name, "_%06u.bin", w->no++);
            char *path = with_suffix(w->prefix, name);
            w->out = output_open(path, 0);
            free(path);
            w->shard_size = w->remaining < w->shard_tokens ? w->remaining : w->shard_tokens;
            w->in_shard = 0;
            uint8_t header[LLMC_HEADER_INTS * 4] = {0};
            put_le32(header, LLMC_MAGIC);
            put_le32(header + 4, LLMC_VERSION);
            put_le32(header + 8, (uint32_t)w->shard_size);
            output_write(w->out, header, sizeof header);
        }
        uint64_t k = w->shard_size - w->in_shard;
        if (k > n) k = n;
        buf_clear(&w->bytes);
        encode_ids(&w->bytes, ids, (size_t)k, 2);
        output_write(w->out, w->bytes.data, w->bytes.len);
        w->in_shard += k;
        w->remaining -= k;
        ids += k;
        n -= (size_t)k;
        if (w->in_shard == w->shard_size) {
            output_close(w->out);
            w->out = NULL;
        }
    }
}

static int export_llmc(shard_reader *r, const char *prefix, const export_options *o)
{
    const shard_manifest *m = shard_reader_manifest(r);
    if (m->dtype_bytes != 2) {
        warnf("llmc: llm.c shards hold uint16 ids (at most %u), but this directory's vocabulary has %" PRIu64
              " ids (stored as uint32); export it as megatron or datatrove instead",
              LLMC_MAX_ID, m->vocab_size);
        return EXIT_USAGE;
    }
    int64_t eot = o->eot >= 0 ? o->eot : m->eos;
    if (eot < 0 || eot > (int64_t)LLMC_MAX_ID) {
        warnf("llmc: needs an EOT id below 65536 to put before each document; the manifest has no eos: pass --eot ID");
        return EXIT_USAGE;
    }
    uint64_t ndocs = shard_reader_documents(r);
    size_t strip_front = m->bos_prepended ? 1 : 0, strip_back = m->eos_appended ? 1 : 0;
    llmc_writer w = {prefix, o->llmc_shard_tokens, 0, 0, 0, 0, NULL, WBUF_INIT};
    for (uint64_t d = 0; d < ndocs; d++) { /* exact total first: each header says its shard's size */
        uint64_t start, end;
        shard_reader_document_range(r, d, &start, &end);
        w.remaining += 1 + (end - start) - strip_front - strip_back;
    }
    uint32_t eot_id = (uint32_t)eot;
    shard_doc_iter it;
    shard_iter_init(&it, 0);
    while (shard_iter_next(r, &it)) {
        llmc_put(&w, &eot_id, 1);
        llmc_put(&w, it.tokens.ids + strip_front, it.tokens.len - strip_front - strip_back);
    }
    int status = it.failed ? read_failed(r) : 0;
    if (w.out) output_close(w.out);
    shard_iter_free(&it);
    buf_free(&w.bytes);
    return status;
}

static int export_datatrove(shard_reader *r, const char *prefix)
{
    const shard_manifest *m = shard_reader_manifest(r);
    char *ds_path = with_suffix(prefix, ".ds"), *index_path = with_suffix(prefix, ".ds.index"),
         *meta_path = with_suffix(prefix, ".ds.metadata");
    woutput *ds = output_open(ds_path, 0), *index = output_open(index_path, 0);
    wbuf bytes = WBUF_INIT;
    uint64_t end = 0;
    shard_doc_iter it;
    shard_iter_init(&it, 0);
    while (shard_iter_next(r, &it)) {
        buf_clear(&bytes);
        encode_ids(&bytes, it.tokens.ids, it.tokens.len, m->dtype_bytes);
        output_write(ds, bytes.data, bytes.len);
        end += it.tokens.len;
        put_u64(index, end);
    }
    int status = 0;
    if (it.failed) {
        status = read_failed(r);
    } else {
        output_close(ds);
        output_close(index);
        woutput *meta = output_open(meta_path, 0);
        wbuf text = WBUF_INIT;
        buf_printf(&text, "%s\n%" PRIu64 "\n", m->tokenizer[0] ? m->tokenizer : "unknown", end);
        output_write(meta, text.data, text.len);
        output_close(meta);
        buf_free(&text);
    }
    shard_iter_free(&it);
    buf_free(&bytes);
    free(ds_path);
    free(index_path);
    free(meta_path);
    return status;
}

int shard_export(shard_reader *r, const char *out, const export_options *o)
{
    switch (o->format) {
    case EXPORT_MEGATRON: return export_megatron(r, out);
    case EXPORT_LLMC: return export_llmc(r, out, o);
    case EXPORT_DATATROVE: return export_datatrove(r, out);
    }
    return EXIT_USAGE;
}
