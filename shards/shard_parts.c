/* shard_parts.c - merging part directories into one shard directory. */
#include "shards/shard_parts.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/output.h"
#include "core/util.h"
#include "shards/shard_format.h"

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* True when part b was written with the settings of part a. */
static bool same_settings(const shard_manifest *a, const shard_manifest *b)
{
    return a->version == b->version && same_text(a->tokenizer, b->tokenizer) &&
           same_text(a->vocab_sha256, b->vocab_sha256) && a->vocab_size == b->vocab_size &&
           a->dtype_bytes == b->dtype_bytes && a->eos == b->eos && a->bos == b->bos &&
           a->eos_appended == b->eos_appended && a->bos_prepended == b->bos_prepended &&
           a->split_docs == b->split_docs && a->frame_bytes == b->frame_bytes && a->shard_tokens == b->shard_tokens &&
           a->zstd_level == b->zstd_level;
}

static char *join(const char *dir, const char *name)
{
    char *path = xmalloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    return path;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Moves dir_from/from to dir_to/to, or finds it moved already. */
static int move_file(const char *dir_from, const char *from, const char *dir_to, const char *to, char *err,
                     size_t errlen)
{
    char *src = join(dir_from, from), *dst = join(dir_to, to);
    int rc = 0;
    if (rename(src, dst) != 0) {
        int e = errno;
        if (e != ENOENT || !exists(dst)) rc = fail_msg(err, errlen, "cannot move %s to %s: %s", src, dst, strerror(e));
    }
    free(src);
    free(dst);
    return rc;
}

/* Removes shard files numbered from `from` on (an earlier, larger run's). */
static void remove_stale_shards(const char *dir, uint32_t from)
{
    for (uint32_t no = from;; no++) {
        char name[64];
        snprintf(name, sizeof name, SHARD_NAME_FMT SHARD_TOKENS_SUFFIX, no);
        char *tok = join(dir, name);
        snprintf(name, sizeof name, SHARD_NAME_FMT SHARD_INDEX_SUFFIX, no);
        char *idx = join(dir, name);
        bool found = unlink(tok) == 0;
        found |= unlink(idx) == 0;
        free(tok);
        free(idx);
        if (!found) break;
    }
}

int shard_parts_merge(const char *dir, const shard_part *parts, int nparts, char *err, size_t errlen)
{
    if (nparts < 1) return fail_msg(err, errlen, "%s: no parts to merge", dir);
    uint64_t total = 0;
    for (int k = 0; k < nparts; k++) {
        if (!same_settings(parts[0].m, parts[k].m))
            return fail_msg(err, errlen, "%s: part %d was written with other settings than part 0 (tokenizer, dtype, "
                        "special ids or shard options differ)", parts[k].dir, k);
        total += parts[k].m->nshards;
    }
    if (total > UINT32_MAX) return fail_msg(err, errlen, "%s: too many shards (%llu)", dir, (unsigned long long)total);

    shard_manifest m = *parts[0].m; /* the settings; the shards and totals are the merge's */
    m.nshards = (uint32_t)total;
    m.shards = xcalloc(total ? total : 1, sizeof *m.shards);
    m.tokens = m.documents = m.compressed_bytes = 0;
    uint32_t no = 0;
    int rc = 0;
    for (int k = 0; k < nparts && rc == 0; k++) {
        const shard_manifest *pm = parts[k].m;
        m.tokens += pm->tokens;
        m.documents += pm->documents;
        m.compressed_bytes += pm->compressed_bytes;
        for (uint32_t i = 0; i < pm->nshards && rc == 0; i++, no++) {
            manifest_shard *s = &m.shards[no];
            *s = pm->shards[i];
            char name[64];
            snprintf(name, sizeof name, SHARD_NAME_FMT SHARD_TOKENS_SUFFIX, no);
            s->file = xstrdup(name);
            snprintf(name, sizeof name, SHARD_NAME_FMT SHARD_INDEX_SUFFIX, no);
            s->index = xstrdup(name);
            rc = move_file(parts[k].dir, pm->shards[i].file, dir, s->file, err, errlen);
            if (rc == 0) rc = move_file(parts[k].dir, pm->shards[i].index, dir, s->index, err, errlen);
        }
    }
    if (rc == 0) {
        wbuf json = WBUF_INIT;
        manifest_write_json(&m, &json);
        char *path = join(dir, SHARD_MANIFEST);
        woutput *out = output_open(path, 0);
        output_write(out, json.data, json.len);
        output_close(out);
        free(path);
        buf_free(&json);
        remove_stale_shards(dir, m.nshards);
    }
    for (uint32_t i = 0; i < no; i++) {
        free(m.shards[i].file);
        free(m.shards[i].index);
    }
    free(m.shards);
    return rc;
}
