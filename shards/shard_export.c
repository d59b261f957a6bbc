/* shard_export.c - Megatron-LM, llm.c and datatrove files from a shard directory. */
#include "shard_export.h"

#include <inttypes.h>
#include <math.h>
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
#define MEGATRON_UINT16_BELOW 65500 /* DType.optimal_dtype: uint16 when the vocabulary is smaller */
#define LLMC_MAX_TOKENS_PER_FILE ((uint64_t)INT32_MAX) /* header[2] is an int32 */
#define LLMC_NAME_MAX 64
#define HUMANIZE_PRECISION 3 /* humanize.metric's default number of digits */

void export_options_init(export_options *o)
{
    o->format = EXPORT_MEGATRON;
    o->llmc_shard_tokens = LLMC_DEFAULT_SHARD_TOKENS;
    o->llmc_val_tokens = -1;
    o->eot = -1;
}

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

/* Megatron-LM's tools/preprocess_data.py --append-eod: Encoder.encode appends
 * the EOD only to a document with tokens, and IndexedDatasetBuilder.add_document
 * (megatron/core/datasets/indexed_dataset.py) adds its sequence lengths (none
 * for an empty document) and then len(sequence_lengths) to document_indices. */
static int export_megatron(shard_reader *r, const char *prefix)
{
    const shard_manifest *m = shard_reader_manifest(r);
    if (m->vocab_size > (uint64_t)INT32_MAX + 1) {
        warnf("megatron: ids are stored as int32; the vocabulary size %" PRIu64 " does not fit", m->vocab_size);
        return EXIT_USAGE;
    }
    int width = m->vocab_size < MEGATRON_UINT16_BELOW ? 2 : 4;
    size_t added = (m->bos_prepended ? 1 : 0) + (m->eos_appended ? 1 : 0);
    char *bin_path = with_suffix(prefix, ".bin"), *idx_path = with_suffix(prefix, ".idx");
    woutput *bin = output_open(bin_path, 0);
    wbuf sizes = WBUF_INIT, doc_indices = WBUF_INIT, bytes = WBUF_INIT;
    uint64_t nseq = 0;
    uint8_t le[8];
    put_le64(le, 0);
    buf_append(&doc_indices, le, 8);
    int status = 0;
    shard_doc_iter it;
    shard_iter_init(&it, 0);
    while (shard_iter_next(r, &it)) {
        if (it.tokens.len > INT32_MAX) {
            warnf("megatron: document %" PRIu64 " has %zu tokens; sequence lengths are int32", it.doc, it.tokens.len);
            status = EXIT_USAGE;
            break;
        }
        if (it.tokens.len > added) { /* an empty document (only what the writer added) has no sequence */
            put_le32(le, (uint32_t)it.tokens.len);
            buf_append(&sizes, le, 4);
            nseq++;
            buf_clear(&bytes);
            encode_ids(&bytes, it.tokens.ids, it.tokens.len, width);
            output_write(bin, bytes.data, bytes.len);
        }
        put_le64(le, nseq);
        buf_append(&doc_indices, le, 8);
    }
    if (it.failed) status = read_failed(r);
    if (status) {
        output_abort(bin);
    } else {
        woutput *idx = output_open(idx_path, 0);
        output_write(idx, MEGATRON_MAGIC, sizeof MEGATRON_MAGIC);
        put_u64(idx, MEGATRON_VERSION);
        uint8_t code = width == 2 ? MEGATRON_DTYPE_UINT16 : MEGATRON_DTYPE_INT32;
        output_write(idx, &code, 1);
        put_u64(idx, nseq);
        put_u64(idx, doc_indices.len / 8);
        output_write(idx, sizes.data, sizes.len);
        uint64_t p = 0;
        for (uint64_t q = 0; q < nseq; q++) {
            put_u64(idx, p);
            p += (uint64_t)get_le32((const uint8_t *)sizes.data + 4 * q) * (uint64_t)width;
        }
        output_write(idx, doc_indices.data, doc_indices.len);
        output_close(bin);
        output_close(idx);
    }
    shard_iter_free(&it);
    buf_free(&sizes);
    buf_free(&doc_indices);
    buf_free(&bytes);
    free(bin_path);
    free(idx_path);
    return status;
}

/* One llm.c file being filled (dev/data/fineweb.py's loop; data_common.py write_datafile). */
typedef struct {
    const char *prefix;
    uint64_t shard_tokens, val_tokens, remaining; /* remaining: tokens still to write overall */
    int width;                                    /* 2 (version 1) or 4 (version 7) */
    uint32_t no;                                  /* the next file's number: 0 is the val file */
    uint64_t in_shard, shard_size;
    woutput *out;
    wbuf bytes;
} llmc_writer;

static void llmc_open_next(llmc_writer *w)
{
    if (w->no == 0 && w->val_tokens == 0) w->no = 1; /* no val file: train files still count from 1 */
    char name[LLMC_NAME_MAX];
    snprintf(name, sizeof name, "_%s_%06u.bin", w->no == 0 ? "val" : "train", w->no);
    char *path = with_suffix(w->prefix, name);
    w->out = output_open(path, 0);
    free(path);
    uint64_t size = w->no == 0 ? w->val_tokens : w->shard_tokens;
    w->shard_size = w->remaining < size ? w->remaining : size;
    w->in_shard = 0;
    w->no++;
    uint8_t header[LLMC_HEADER_INTS * 4] = {0};
    put_le32(header, w->width == 2 ? LLMC_MAGIC_UINT16 : LLMC_MAGIC_UINT32);
    put_le32(header + 4, w->width == 2 ? LLMC_VERSION_UINT16 : LLMC_VERSION_UINT32);
    put_le32(header + 8, (uint32_t)w->shard_size);
    output_write(w->out, header, sizeof header);
}

static void llmc_put(llmc_writer *w, const uint32_t *ids, size_t n)
{
    while (n) {
        if (!w->out) llmc_open_next(w);
        uint64_t k = w->shard_size - w->in_shard;
        if (k > n) k = n;
        buf_clear(&w->bytes);
        encode_ids(&w->bytes, ids, (size_t)k, w->width);
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
    int64_t eot = o->eot >= 0 ? o->eot : m->bos >= 0 ? m->bos : m->eos;
    if (eot < 0) {
        warnf("llmc: needs a delimiter id to put before each document; the manifest has no bos or eos: pass --eot ID");
        return EXIT_USAGE;
    }
    if ((uint64_t)eot >= m->vocab_size) {
        warnf("llmc: --eot %" PRId64 " is not below the vocabulary size %" PRIu64, eot, m->vocab_size);
        return EXIT_USAGE;
    }
    uint64_t val = o->llmc_val_tokens < 0 ? o->llmc_shard_tokens : (uint64_t)o->llmc_val_tokens;
    if (o->llmc_shard_tokens < 1 || o->llmc_shard_tokens > LLMC_MAX_TOKENS_PER_FILE || val > LLMC_MAX_TOKENS_PER_FILE) {
        warnf("llmc: a file holds 1 to %" PRIu64 " tokens (its header counts them in an int32)", LLMC_MAX_TOKENS_PER_FILE);
        return EXIT_USAGE;
    }
    uint64_t ndocs = shard_reader_documents(r);
    size_t strip_front = m->bos_prepended ? 1 : 0, strip_back = m->eos_appended ? 1 : 0;
    llmc_writer w = {prefix, o->llmc_shard_tokens, val, 0, m->dtype_bytes, 0, 0, 0, NULL, WBUF_INIT};
    for (uint64_t d = 0; d < ndocs; d++) { /* exact total first: each header says its file's size */
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

/* humanize.metric(value, unit) (python-humanize, number.py) for a count: three
 * significant digits and an SI prefix, e.g. 1234567 -> "1.23 MT". */
static void humanize_metric(wbuf *b, uint64_t value, const char *unit)
{
    static const char prefixes[] = "kMGTPEZYRQ";
    int exponent = value ? (int)floor(log10((double)value)) : 0;
    int group = exponent / 3;
    double scaled = (double)value / pow(10.0, 3.0 * group);
    int digits = HUMANIZE_PRECISION - exponent % 3 - 1;
    if (digits < 0) digits = 0;
    buf_printf(b, "%.*f ", digits, scaled);
    if (group > 0) buf_printf(b, "%c", prefixes[group - 1]);
    buf_puts(b, unit);
}

/* datatrove's TokenizedFile (pipeline/tokens/tokenizer.py): the tokens, the
 * uint64 document ends (close) and the final metadata (write_final_metadata),
 * read by DocumentTokenizerMerger and DatatroveFileDataset. */
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
        /* TokenizedFile.write_final_metadata: "\n".join([name + "|" + str(token_size),
         * str(token_count), humanize.metric(token_count, unit="T")]), no final newline */
        buf_printf(&text, "%s|%d\n%" PRIu64 "\n", m->tokenizer[0] ? m->tokenizer : "Unknown Tokenizer", m->dtype_bytes, end);
        humanize_metric(&text, end, "T");
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
