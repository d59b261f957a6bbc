/* shard_format.h - the constants of the winnow shard format (docs/shards.md).
 *
 * A shard directory holds manifest.json and, per shard, two files:
 *   shard_NNNNN.tok.zst  token ids, little-endian uint16 or uint32, in
 *                        independent zstd frames followed by a seek table in
 *                        a skippable frame (zstd's seekable format), so plain
 *                        `zstd -d` gives back the raw id array;
 *   shard_NNNNN.idx      the document end offsets of that shard (uint64, in
 *                        tokens), with a small header and an XXH3-64 trailer. */
#ifndef WINNOW_SHARD_FORMAT_H
#define WINNOW_SHARD_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "core/util.h" /* put_le16/32/64, get_le16/32/64 */

#define SHARD_FORMAT_VERSION 1
#define SHARD_FORMAT_NAME "winnow-shards"
#define SHARD_MANIFEST "manifest.json"
#define SHARD_TOKENS_SUFFIX ".tok.zst"
#define SHARD_INDEX_SUFFIX ".idx"
#define SHARD_NAME_FMT "shard_%05u"

/* Frames hold this many bytes of decompressed tokens (the last frame of a
 * shard, and frames closed early to keep a document whole, hold fewer). */
#define SHARD_FRAME_BYTES (1u << 20)
#define SHARD_DEFAULT_TOKENS 100000000ull
/* zstd level 1: on real u32 ids about 35% fewer CPU-seconds than level 3 for
 * 7% larger frames; negative levels save little more and cost much more size
 * (docs/shards.md, "Compression level"). */
#define SHARD_DEFAULT_LEVEL 1
#define SHARD_LEVEL_TLZ 0 /* --level tlz: frames by winnow's token encoder (shards/tlz.h), "zstd_level": 0 in the manifest */

/* zstd seekable format (contrib/seekable_format in the zstd sources). */
#define SEEK_SKIPPABLE_MAGIC 0x184D2A5Eu
#define SEEK_MAGIC 0x8F92EAB1u
#define SEEK_FOOTER_BYTES 9
#define SEEK_FRAME_HEADER_BYTES 8 /* skippable magic + frame size */
#define SEEK_ENTRY_BYTES 12       /* compressed size, decompressed size, checksum */
#define SEEK_CHECKSUM_FLAG 0x80
#define SEEK_RESERVED_BITS 0x7C

/* The .idx file: header, uint64 ends[documents], uint64 XXH3-64 of all before. */
#define SHARD_INDEX_MAGIC "WNWDOCS1"
#define SHARD_INDEX_MAGIC_BYTES 8
#define SHARD_INDEX_VERSION 1
#define SHARD_INDEX_HEADER_BYTES 32 /* magic, u32 version, u32 flags, u64 documents, u64 tokens */
#define SHARD_INDEX_CONTINUES 1u    /* flag: the first entry ends a document begun in the previous shard */

#endif
