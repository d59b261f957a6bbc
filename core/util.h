/* util.h - allocation that never returns NULL, clocks, error reporting.
 *
 * Every message winnow prints has one shape:
 *     winnow ingest: crawl.warc.gz: record 17 at offset 81234: bad Content-Length
 * The program part ("winnow ingest") is set once by the entry point. */
#ifndef WINNOW_UTIL_H
#define WINNOW_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses shared by every subcommand (DESIGN.md). */
enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_FATAL = 2 };

/* Name printed in front of every message, e.g. "winnow ingest". */
extern const char *winnow_prog;

/* malloc/calloc/realloc/strdup that print a message and exit(2) when memory runs out. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* count * size zeroed bytes for a large table read at random: aligned to
 * 2 MiB and, where the kernel allows, backed by huge pages (fewer TLB misses).
 * Free with free(). Exits(2) when memory runs out. */
void *xcalloc_huge(size_t count, size_t size);
/* n bytes, not zeroed, aligned to 2 MiB and, where the kernel allows, backed
 * by huge pages as they are first written (pages never written cost nothing;
 * touching and freeing huge pages takes ~1/512 of the faults and page frees
 * of 4 KiB ones). Free with free(); realloc() works on it. */
void *xmalloc_huge(size_t n);

/* Little- and big-endian integers at p, whatever the host's byte order or
 * p's alignment (file formats: shards, id streams, Parquet, gzip). */
static inline void put_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
    return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static inline uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ASCII lower case of byte c: 'A'-'Z' only, other bytes unchanged (tolower()
 * of the "C" locale, which winnow never leaves, without the call). */
static inline unsigned char ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* Seconds on a monotonic clock. */
double now_seconds(void);

/* CPU seconds (user + system) the calling thread has used. */
double thread_cpu_seconds(void);

/* CPU seconds (user + system) this process has used, all its threads together. */
double process_cpu_seconds(void);

/* Prints "winnow STAGE: message" on stderr (nothing while muted). */
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Mutes (on) or unmutes warnf on the calling thread, for a look at an input
 * that the reader which opens it for real will report on. Nests. */
void warn_mute(bool on);

/* Prints "winnow STAGE: message" and exits with status (EXIT_USAGE or EXIT_FATAL). */
void dief(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

/* Formats a message into err (size errlen) and returns -1: the error
 * return of functions that report through a caller's buffer. */
int fail_msg(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* When fd is a pipe, asks for a pipe buffer of 1 MiB (the most an ordinary
 * user may set by default): a stage's 1 MiB write to the next stage then
 * returns at once instead of waiting for 16 reads of 64 KiB on the other
 * side. A refusal leaves the pipe as it was. */
void pipe_widen(int fd);

/* Reads a whole file into a NUL-terminated heap buffer and stores its size in
 * *len (len may be NULL). Returns NULL with errno set when it cannot. */
char *read_file(const char *path, size_t *len);

/* Reads exactly n bytes at offset of fd into dst (pread, again after EINTR
 * and short reads). Returns 0, or -1 with errno set, errno 0 when the file
 * ends first. */
int pread_full(int fd, void *dst, size_t n, uint64_t offset);

/* Number of online CPU cores (at least 1). */
int cpu_count(void);

/* True when two option names are the same, '-' and '_' alike ("min-words" == "min_words"). */
bool option_name_equal(const char *a, const char *b);

/* Parses a non-negative integer with optional k/M/G suffix (powers of 1000); -1 when malformed. */
long long parse_count(const char *s);

/* s without the white space (isspace) at both ends: the end is cut in place. */
char *trim_space(char *s);

/* Narrows p[0..*n) to leave out spaces and tabs at both ends and carriage
 * returns at the end (a header line's value). */
void trim_blanks(const char **p, size_t *n);

/* Cuts a config line s at its comment: a byte of markers that starts the
 * line or follows a space or tab (so "x = data.gz   # a glob" is the value
 * alone, while a value such as "a#b" keeps its '#'). */
void cut_comment(char *s, const char *markers);

#endif
