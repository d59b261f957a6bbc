/* input.h - reading a file or stdin whatever its compression.
 *
 * The codec is found from the first bytes, never from the file name: gzip
 * (any number of concatenated members), zstd (any number of frames, the
 * first of them may be a skippable frame, as pzstd writes), xz and bzip2
 * (any number of streams; core/xzbz.h), lz4's legacy frames (`lz4 -l`;
 * core/xzbz.h), and what libarchive's filters read (lz4 frames, compress,
 * lzma); other bytes are read as they are. A Parquet file (PAR1) reads as its rows in JSON Lines
 * (core/parquet_jsonl.h). Damage is reported with its position and counted in
 * input_errors(); everything decoded before it is delivered. Bad deflate data
 * inside a gzip member skips to the next member header, so the members after
 * a damaged one are still read; any other damage ends the input there. */
#ifndef WINNOW_INPUT_H
#define WINNOW_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"

typedef struct winput winput;

typedef enum { CODEC_PLAIN, CODEC_GZIP, CODEC_ZSTD, CODEC_OTHER, CODEC_PARQUET } input_codec;

/* Inputs opened from now on inflate the members of a gzip file of many
 * members (a WARC compressed record by record) on up to threads threads
 * (default 1); the bytes read are the same for any number. A file that is
 * one gzip member, stdin, and other codecs are decoded on the reading thread. */
void input_set_threads(int threads);

/* Opens path ("-" for stdin). Returns NULL and prints why when it cannot. */
winput *input_open(const char *path);

/* Opens path (a regular gzip or zstd file) to go on decoding at the
 * compressed offset raw_offset, a member or frame boundary that a decoder of
 * the whole file reached after decoded_offset decoded bytes: the bytes,
 * messages, offsets and lost members from there are those of input_open's
 * decoder at that point. Returns NULL and prints why when it cannot. */
winput *input_open_at(const char *path, uint64_t raw_offset, uint64_t decoded_offset);

/* Reads up to n decoded bytes into dst; returns how many (0 at the end). */
size_t input_read(winput *in, void *dst, size_t n);

/* Consumes up to n decoded bytes without copying them; returns how many.
 * Bytes made visible by input_peek stay where they are until the next call
 * that decodes more. */
size_t input_skip(winput *in, size_t n);

/* Makes at least n decoded bytes visible without consuming them (fewer at the
 * end of input); returns how many are visible and points *p at them. */
size_t input_peek(winput *in, size_t n, const char **p);

/* Next line without its '\n' (and without a '\r' before it). The pointer is
 * valid until the next call. Returns false at the end of input. */
bool input_getline(winput *in, const char **line, size_t *len);

/* The name to print in messages: the path, or "stdin". */
const char *input_name(const winput *in);

/* Decoded bytes consumed so far (the offset of the next byte to read). */
uint64_t input_offset(const winput *in);

/* Bytes of the underlying file consumed so far (compressed offset). */
uint64_t input_raw_offset(const winput *in);

/* Codec found for this input. */
input_codec input_get_codec(const winput *in);

/* Short name of a codec: "plain", "gzip", "zstd", "other", "parquet". */
const char *input_codec_name(input_codec c);

/* Number of damaged-stream errors met. */
int input_errors(const winput *in);

/* Damage ends a damaged member's partial line with an inserted '\n', so the
 * next member starts on a line of its own and a line reader counts the
 * partial line as a failed record. A damaged gzip member or zstd frame that
 * gave no output (or damaged xz, bzip2, lz4... that gave none at all) lost
 * records no reader saw: this is how many times that happened, and readers
 * count one failed record (`damaged_member`) for each. */
int input_lost_members(const winput *in);

/* What inputs lost that no line shows, as readers count it: each lost
 * member one failed `damaged_member`; each problem of a JSON array file's
 * structure (input_bad_elements) one failed `bad_json`; each row of a Parquet row group that
 * could not be read (reported, and counted in input_errors) one failed
 * `damaged_row_group`; each row of a Parquet file whose text column is
 * missing or not a flat string (the whole file refused) one failed
 * `no_text_column`; each input that could not be opened one failed
 * `unreadable_input` (as ingest counts it). Not lumped together: a lost
 * member lost an unknown number of records, counted as one, while rows are
 * known exactly from the footer, and the name says which kind of input lost
 * them. */
typedef struct {
    int64_t members, bad_elements, damaged_rows, unusable_rows, unreadable;
} input_losses;

/* Adds in's losses to sum. */
void input_add_losses(input_losses *sum, const winput *in);

/* Counts l in st: each lost document one more in, failed by its kind. */
void input_count_losses(wstats *st, const input_losses *l);

/* Makes in a binary input (call before the first read): damage inserts no
 * '\n', and every place where damage skipped bytes is remembered for
 * input_damage_from, a damaged member that gave nothing included (still
 * counted in input_lost_members too). For records that have no marker to
 * find the next one by, such as the --format bin id stream. */
void input_set_binary(winput *in);

/* True when damage met so far skipped bytes at a decoded offset >= from: the
 * first such offset goes to *at. The bytes before it came from the damaged
 * member, those from it on from the next intact member (or none). */
bool input_damage_from(const winput *in, uint64_t from, uint64_t *at);

/* Decoded offset up to which the bytes decoded so far come from gzip members
 * or zstd frames that ended whole, their checks (CRC, checksum) passed;
 * bytes after it belong to a member not yet finished, whose damage may still
 * be found. Other codecs: all bytes decoded so far. */
uint64_t input_checked_to(const winput *in);

/* True when the partial output of a damaged member ends in (from, to] of the
 * decoded stream: the record read from those bytes is incomplete. */
bool input_damaged_within(const winput *in, uint64_t from, uint64_t to);

/* True when the n bytes at p start a bzip2 stream: "BZh", the block size
 * '1' to '9', then the magic of a block or of the stream's end (the 10 bytes
 * libarchive's bzip2 filter checks). A text that starts with "BZh" is text,
 * which libbz2 refuses to decode. */
bool input_bzip2_signature(const void *p, size_t n);

/* Looks at the first decoded bytes (call before reading anything): when the
 * first that is not whitespace is '[' (and, with objects_only, the first
 * after it that is not whitespace is '{'), the input reads from now on as
 * that JSON array's elements, one a line, each written compactly (whitespace
 * outside strings dropped), so line N is element N (core/json_array.h says
 * what is reported). Returns whether it does. A binary or Parquet input
 * never does. Decoded offsets (input_offset) then count the lines' bytes. */
bool input_json_array(winput *in, bool objects_only);

/* True when input_json_array turned the transform on. */
bool input_is_json_array(const winput *in);

/* True when path, opened now, would read as a JSON array (input_json_array
 * without objects_only). Prints nothing, whatever it meets (damage at the
 * start is for the reader that opens it for real to report). */
bool input_path_is_json_array(const char *path);

/* Problems of a JSON array input's structure (an empty element, data after
 * its ']', no closing ']' after a whole element), each reported: readers
 * count each as one failed record (`bad_json`). An array cut short counts in
 * input_errors too (the file was not read whole), as does data after ']'. */
int input_bad_elements(const winput *in);

/* Closes the input and frees it. */
void input_close(winput *in);

#endif
