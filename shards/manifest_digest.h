/* manifest_digest.h - the manifest's own checksum.
 *
 * Every shard and index file is checksummed in the manifest, but the
 * manifest itself could be edited consistently (a shard listed twice, two
 * swapped, one dropped with the totals fixed) and still agree with the
 * files. manifest_sha256 is the SHA-256 of this canonical text, which the
 * writer records and every reader (C and Python) recomputes and compares:
 *
 *   winnow-shards VERSION\n
 *   tokenizer NAME\n
 *   vocab_sha256 HEX|null\n
 *   vocab_size N\n
 *   dtype uint16|uint32\n
 *   special EOS|null BOS|null\n
 *   flags EOS_APPENDED BOS_PREPENDED SPLIT_DOCS\n            (each true|false)
 *   frames FRAME_BYTES ZSTD_LEVEL SHARD_TOKENS\n
 *   totals SHARDS TOKENS DOCUMENTS COMPRESSED_BYTES\n
 *   shard FILE INDEX TOKENS DOCUMENTS COMPRESSED_BYTES XXH3_64 FILE_XXH3_64 CONTINUES\n   (per shard, in order)
 *
 * Numbers in decimal, hashes as the manifest's 16 lowercase hex digits. */
#ifndef WINNOW_MANIFEST_DIGEST_H
#define WINNOW_MANIFEST_DIGEST_H

#include "shards/manifest.h"

/* Writes the SHA-256 of m's canonical text as 64 lowercase hex digits and a NUL. */
void manifest_digest(const shard_manifest *m, char hex[65]);

#endif
