/* manifest.h - DIR/manifest.json: what a shard directory holds.
 *
 *   {"format":"winnow-shards","version":1,
 *    "tokenizer":{"name":..,"vocab_sha256":..|null,"vocab_size":N},
 *    "dtype":"uint16"|"uint32","special":{"eos":N|null,"bos":N|null},
 *    "eos_appended":bool,"bos_prepended":bool,"split_docs":bool,
 *    "frame_bytes":N,"zstd_level":N,"shard_tokens":N,
 *    "totals":{"shards":N,"tokens":N,"documents":N,"compressed_bytes":N},
 *    "shards":[{"file":..,"index":..,"tokens":N,"documents":N,
 *               "compressed_bytes":N,"xxh3_64":"16 hex digits",
 *               "file_xxh3_64":"16 hex digits","continues_document":bool},..],
 *    "manifest_sha256":"64 hex digits"}
 * xxh3_64 hashes the decompressed token bytes of the shard; file_xxh3_64 the
 * compressed file as stored. Per shard, documents counts the entries of its
 * index (a document split across shards is counted in each); totals.documents
 * counts whole documents. manifest_sha256 checksums the rest (manifest_digest.h);
 * a reader refuses a manifest whose checksum differs, or with a key twice. */
#ifndef WINNOW_MANIFEST_H
#define WINNOW_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

#define MANIFEST_NO_ID (-1)

typedef struct {
    char *file;  /* shard file name, relative to the directory */
    char *index; /* its document index file name */
    uint64_t tokens, documents, compressed_bytes;
    uint64_t xxh3;      /* XXH3-64 of the decompressed tokens */
    uint64_t file_xxh3; /* XXH3-64 of the compressed file */
    bool continues;     /* first entry ends a document begun in the previous shard */
} manifest_shard;

typedef struct {
    int version;
    char *tokenizer;    /* tokenizer name ("" when unknown) */
    char *vocab_sha256; /* 64 hex digits, or NULL when unknown */
    uint64_t vocab_size;
    int dtype_bytes; /* 2 (uint16) or 4 (uint32) */
    int64_t eos, bos; /* MANIFEST_NO_ID when none */
    bool eos_appended, bos_prepended, split_docs;
    uint64_t frame_bytes, shard_tokens;
    int zstd_level;
    uint64_t tokens, documents, compressed_bytes;
    manifest_shard *shards;
    uint32_t nshards;
} shard_manifest;

/* Appends the manifest as pretty-printed JSON (ending in a newline). */
void manifest_write_json(const shard_manifest *m, wbuf *out);

/* Parses manifest JSON. Returns 0, or -1 with a reason in err. */
int manifest_parse(const char *text, size_t len, shard_manifest *m, char *err, size_t errlen);

/* Reads and parses DIR/manifest.json. Returns 0, or -1 with a reason in err. */
int manifest_load(const char *dir, shard_manifest *m, char *err, size_t errlen);

/* Frees what manifest_parse() allocated. */
void manifest_free(shard_manifest *m);

/* "uint16" or "uint32". */
const char *manifest_dtype_name(int dtype_bytes);

#endif
