/* manifest_digest.c - SHA-256 over the manifest's canonical text (see manifest_digest.h). */
#include "shards/manifest_digest.h"

#include <inttypes.h>
#include <openssl/evp.h>
#include <stdio.h>

#include "core/buf.h"

static const char *truth(bool b) { return b ? "true" : "false"; }

static void put_id(wbuf *t, int64_t id)
{
    if (id < 0) buf_puts(t, "null");
    else buf_printf(t, "%" PRId64, id);
}

void manifest_digest(const shard_manifest *m, char hex[65])
{
    wbuf t = WBUF_INIT;
    buf_printf(&t, "winnow-shards %d\ntokenizer %s\nvocab_sha256 %s\nvocab_size %" PRIu64 "\ndtype %s\nspecial ",
               m->version, m->tokenizer ? m->tokenizer : "", m->vocab_sha256 ? m->vocab_sha256 : "null", m->vocab_size,
               manifest_dtype_name(m->dtype_bytes));
    put_id(&t, m->eos);
    buf_putc(&t, ' ');
    put_id(&t, m->bos);
    buf_printf(&t, "\nflags %s %s %s\nframes %" PRIu64 " %d %" PRIu64 "\n", truth(m->eos_appended),
               truth(m->bos_prepended), truth(m->split_docs), m->frame_bytes, m->zstd_level, m->shard_tokens);
    buf_printf(&t, "totals %u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", m->nshards, m->tokens, m->documents,
               m->compressed_bytes);
    for (uint32_t i = 0; i < m->nshards; i++) {
        const manifest_shard *s = &m->shards[i];
        buf_printf(&t, "shard %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %016" PRIx64 " %016" PRIx64 " %s\n", s->file,
                   s->index, s->tokens, s->documents, s->compressed_bytes, s->xxh3, s->file_xxh3, truth(s->continues));
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(t.data, t.len, digest, &len, EVP_sha256(), NULL);
    for (unsigned i = 0; i < len && i < 32; i++) sprintf(hex + 2 * i, "%02x", digest[i]);
    hex[64] = 0;
    buf_free(&t);
}
