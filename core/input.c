/* input.c - a file or stdin, decoded whatever its compression. */
#include "input.h"

#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "gzmembers.h"
#include "json_array.h"
#include "parquet_jsonl.h"
#include "util.h"
#include "xzbz.h"

#define RAW_CHUNK (256 * 1024)
#define DECODED_CHUNK (256 * 1024)
/* Output room offered to a gzip member decoded in one call (a member that
 * decodes to more is read by zlib instead). */
#define WHOLE_MEMBER_ROOM (2 * 1024 * 1024)
/* FLG bit of a gzip header that says a header CRC follows (zlib checks it, libdeflate does not). */
#define GZIP_FHCRC 0x02
/* FLG bits that must be zero (RFC 1952; zlib refuses a member with one set). */
#define GZIP_FRESERVED 0xe0
/* The longest signature the codec is found from (bzip2's). */
#define SIGNATURE_BYTES 10

/* Threads that inflate the members of one gzip file (input_set_threads). */
static int inflate_threads = 1;

static const unsigned char GZIP_MAGIC[2] = {0x1f, 0x8b};
static const unsigned char ZSTD_MAGIC[4] = {0x28, 0xb5, 0x2f, 0xfd};
static const unsigned char PARQUET_MAGIC[4] = {'P', 'A', 'R', '1'};
/* A zstd skippable frame's magic is 0x184D2A50 to 0x184D2A5F (RFC 8878
 * 3.1.2), little-endian: the first byte's low nibble is free. */
#define ZSTD_SKIPPABLE_FIRST_HIGH 0x50
static const unsigned char ZSTD_SKIPPABLE_REST[3] = {0x2a, 0x4d, 0x18};

struct winput {
    int fd;
    char *name;
    input_codec codec;
    int errors;
    bool eof; /* no more decoded bytes will come */

    unsigned char *raw; /* compressed bytes read from fd, not yet decoded */
    size_t raw_pos, raw_len;
    bool raw_eof;
    uint64_t raw_consumed;

    char *buf; /* decoded bytes: [start, end) not yet consumed */
    size_t start, end, cap;
    size_t scanned; /* getline: bytes after start known to hold no '\n' */
    uint64_t offset;

    z_stream z;
    bool z_live, z_in_member;
    bool member_fresh; /* at the start of a gzip member, zlib's state just reset */
    struct libdeflate_decompressor *ld;
    ZSTD_DCtx *zd;
    bool zd_in_frame;
    struct archive *ar;
    xzbz *xb;     /* xz, bzip2 or lz4 legacy, decoded here rather than by libarchive (core/xzbz.h) */
    pq_jsonl *pq; /* Parquet: rows as JSON lines (core/parquet_jsonl.h) */

    uint64_t member_start; /* decoded offset where the current gzip member or zstd frame began */
    uint64_t member_raw_start; /* and its compressed offset */
    char tail;             /* the last decoded byte (0 before the first) */
    int lost_members;      /* damage that cut no partial line: see input_lost_members() */
    int64_t lost_rows;     /* rows of unreadable Parquet row groups: see input_losses */
    int64_t unusable_rows; /* rows of a Parquet file with no readable text column (input_losses) */
    bool binary;           /* records are not lines: no '\n' after damage (input_set_binary) */
    uint64_t checked;      /* decoded offset where the last gzip member or zstd frame ended whole */
    uint64_t *damage;      /* decoded offsets where a damaged member's partial output ends */
    size_t ndamage, damage_cap;

    jarray *ja;         /* a JSON array read as its elements, one a line (input_json_array) */
    bool ja_ended;      /* and the end of its stream was seen */
    gzmembers *members; /* a file of many gzip members inflated on several threads */
    void *map;          /* the file, mapped for them */
    size_t map_len;
};

/* Decoded bytes produced so far (consumed or not). */
static uint64_t decoded_total(const winput *in) { return in->offset + (in->end - in->start); }

static void make_room(winput *in, size_t want);

/* Damage skipped bytes here. Where the damaged member gave output, its end
 * is remembered for record readers and a partial line is ended with '\n', so
 * the next member starts a line of its own (line readers count the partial
 * one as failed); a member that gave nothing lost at least one record
 * unseen, counted in lost_members for the reader to count as failed. A
 * binary input gets no '\n' and remembers every place (input_set_binary). */
static void mark_damage(winput *in)
{
    uint64_t total = decoded_total(in);
    bool gave_nothing = total == in->member_start;
    if (gave_nothing) in->lost_members++;
    if (gave_nothing && !in->binary) return;
    if (in->ndamage == in->damage_cap) {
        in->damage_cap = in->damage_cap ? 2 * in->damage_cap : 8;
        in->damage = xrealloc(in->damage, in->damage_cap * sizeof *in->damage);
    }
    in->damage[in->ndamage++] = total;
    if (!in->binary && in->tail != '\n') {
        make_room(in, 1);
        in->buf[in->end++] = '\n';
        in->tail = '\n';
    }
}

/* A gzip member or zstd frame ended whole, its check passed (input_checked_to). */
static void member_checked(winput *in) { in->checked = decoded_total(in); }

/* Notes the start of a gzip member or zstd frame (for mark_damage). */
static void member_begins(winput *in)
{
    in->member_start = decoded_total(in);
    in->member_raw_start = in->raw_consumed;
}

/* Reports damage (each place once) and counts it. */
static void input_report(winput *in, const char *what)
{
    warnf("%s: %s at offset %llu (compressed), %llu bytes decoded before it", in->name, what,
          (unsigned long long)in->raw_consumed, (unsigned long long)(in->offset + (in->end - in->start)));
    in->errors++;
}

/* Damage that ends the input: nothing after it can be decoded. */
static void input_fail(winput *in, const char *what)
{
    input_report(in, what);
    in->eof = true;
}

static bool raw_fill(winput *in);
static size_t raw_avail(const winput *in);
static void raw_consume(winput *in, size_t n);

/* After bad deflate data: skips to the next gzip member header (1f 8b 08,
 * no reserved flag) so that the members after a damaged one are still read.
 * False at the end. */
static bool gzip_resync(winput *in)
{
    /* Damaged deflate data may have run on into the next members: look for
     * the next header from just after the damaged member's own header when
     * its bytes are still buffered. */
    uint64_t back = in->raw_consumed - in->member_raw_start;
    if (back <= in->raw_pos) {
        in->raw_pos -= (size_t)back;
        in->raw_consumed -= back;
    }
    raw_consume(in, raw_avail(in) ? 1 : 0);
    for (;;) {
        const unsigned char *p = in->raw + in->raw_pos;
        size_t n = raw_avail(in);
        /* ID1 ID2 CM FLG of a member zlib can read: fewer false starts in damaged data */
        for (size_t i = 0; i + 4 <= n; i++) {
            if (p[i] == 0x1f && p[i + 1] == 0x8b && p[i + 2] == 0x08 && !(p[i + 3] & GZIP_FRESERVED)) {
                raw_consume(in, i);
                inflateReset(&in->z);
                in->z_in_member = true;
                in->member_fresh = true;
                member_begins(in);
                return true;
            }
        }
        size_t keep = n < 3 ? n : 3; /* a header may straddle the refill */
        raw_consume(in, n - keep);
        if (!raw_fill(in)) {
            raw_consume(in, raw_avail(in));
            return false;
        }
    }
}

/* Reads more raw bytes; returns false at end of file. */
static bool raw_fill(winput *in)
{
    if (in->raw_eof) return false;
    if (in->raw_pos > 0) {
        memmove(in->raw, in->raw + in->raw_pos, in->raw_len - in->raw_pos);
        in->raw_len -= in->raw_pos;
        in->raw_pos = 0;
    }
    for (;;) {
        ssize_t r = read(in->fd, in->raw + in->raw_len, RAW_CHUNK - in->raw_len);
        if (r > 0) { in->raw_len += (size_t)r; return true; }
        if (r == 0) { in->raw_eof = true; return false; }
        if (errno == EINTR) continue;
        warnf("%s: read error: %s", in->name, strerror(errno));
        in->errors++;
        in->raw_eof = true;
        return false;
    }
}

static size_t raw_avail(const winput *in) { return in->raw_len - in->raw_pos; }

static void raw_consume(winput *in, size_t n)
{
    in->raw_pos += n;
    in->raw_consumed += n;
}

/* Room for at least `want` more decoded bytes at buf + end. */
static void make_room(winput *in, size_t want)
{
    if (in->start > 0 && in->start == in->end) {
        in->start = in->end = 0;
        in->scanned = 0;
    }
    if (in->cap - in->end >= want) return;
    if (in->start > 0) {
        memmove(in->buf, in->buf + in->start, in->end - in->start);
        in->end -= in->start;
        in->start = 0;
    }
    if (in->cap - in->end < want) {
        size_t cap = in->cap ? in->cap : DECODED_CHUNK;
        while (cap - in->end < want) cap *= 2;
        in->buf = xrealloc(in->buf, cap + 1);
        in->cap = cap;
    }
}

/* At the start of a gzip member: decodes the whole member in one call with
 * libdeflate (several times faster than zlib's inflate) when all its bytes
 * are buffered and it inflates to at most GZM_MEMBER_MAX, as block_units.c
 * and the member threads take members. False, with nothing consumed, when it
 * cannot (a big or damaged member, or one with a header CRC): zlib then reads
 * the member from the same place, so damage is found and reported as before. */
static bool whole_member(winput *in)
{
    if (raw_avail(in) < RAW_CHUNK / 2) raw_fill(in);
    const unsigned char *p = in->raw + in->raw_pos;
    size_t n = raw_avail(in);
    if (n < 4 || (p[3] & GZIP_FHCRC)) return false;
    size_t used_in, used_out;
    for (size_t room = WHOLE_MEMBER_ROOM;; room *= 2) { /* room grows as the member threads' does */
        make_room(in, room);
        enum libdeflate_result r =
            libdeflate_gzip_decompress_ex(in->ld, p, n, in->buf + in->end, in->cap - in->end, &used_in, &used_out);
        if (r == LIBDEFLATE_SUCCESS && used_out <= GZM_MEMBER_MAX) break;
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE || room >= GZM_MEMBER_MAX) return false;
    }
    raw_consume(in, used_in);
    in->end += used_out;
    if (used_out) in->tail = in->buf[in->end - 1];
    in->z_in_member = false;
    member_checked(in);
    return true;
}

/* The next piece from the member threads. False when they stopped: serial
 * decoding then goes on at the member where their chain broke (or finds the
 * end of the file there), exactly as if it had read everything before. */
static bool members_more(winput *in)
{
    char *p;
    size_t n;
    uint64_t raw_end;
    if (gzm_next(in->members, &p, &n, &raw_end)) {
        in->raw_consumed = raw_end;
        size_t held = in->end - in->start;
        if (held > GZM_HEADROOM) { /* a record longer than the headroom: copied on */
            make_room(in, n);
            memcpy(in->buf + in->end, p, n);
            in->end += n;
            member_checked(in); /* a piece is whole members */
            return true;
        }
        /* no copy of the piece: the bytes still held go in front of it, and
         * its buffer becomes ours (ours goes to the threads) */
        char *first = p - held;
        if (held) memcpy(first, in->buf + in->start, held);
        char *buf = in->buf;
        size_t size = buf ? in->cap + 1 : 0;
        gzm_swap(in->members, &buf, &size);
        in->buf = buf;
        in->cap = size - 1; /* one byte spare, as make_room keeps */
        in->start = (size_t)(first - buf);
        in->end = in->start + held + n;
        member_checked(in);
        return true;
    }
    gzm_stop(in->members);
    in->members = NULL;
    munmap(in->map, in->map_len);
    in->map = NULL;
    in->raw_pos = in->raw_len = 0;
    in->raw_consumed = raw_end;
    in->raw_eof = false;
    in->z_in_member = false;
    in->member_fresh = false;
    if (lseek(in->fd, (off_t)raw_end, SEEK_SET) < 0) {
        warnf("%s: cannot seek: %s", in->name, strerror(errno));
        in->errors++;
        in->raw_eof = true;
    }
    return false;
}

/* A regular gzip file whose first member is a small one (inflated in one call
 * from the bytes read at open) is taken to hold many: its members are
 * inflated on the input threads. A file that is one big member (gzip of a
 * whole file) stays with the serial decoder. */
static void start_members(winput *in)
{
    struct stat st;
    if (inflate_threads < 2 || in->fd == STDIN_FILENO || fstat(in->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size < 2 * GZM_STRETCH)
        return;
    make_room(in, WHOLE_MEMBER_ROOM);
    size_t used_in, used_out;
    if (libdeflate_gzip_decompress_ex(in->ld, in->raw, in->raw_len, in->buf + in->end, in->cap - in->end, &used_in,
                                      &used_out) != LIBDEFLATE_SUCCESS)
        return;
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
    if (map == MAP_FAILED) return;
    in->map = map;
    in->map_len = (size_t)st.st_size;
    in->members = gzm_start(map, in->map_len, inflate_threads);
}

void input_set_threads(int threads) { inflate_threads = threads < 1 ? 1 : threads; }

static ssize_t archive_read_cb(struct archive *a, void *ctx, const void **out)
{
    (void)a;
    winput *in = ctx;
    if (!raw_avail(in) && !raw_fill(in)) return 0;
    *out = in->raw + in->raw_pos;
    size_t n = raw_avail(in);
    raw_consume(in, n);
    return (ssize_t)n;
}

/* One step of an xz, bzip2 or lz4 legacy input (decode_more). */
static bool xzbz_more(winput *in, size_t room)
{
    if (raw_avail(in) < RAW_CHUNK / 2) raw_fill(in);
    if (xzbz_between_streams(in->xb)) member_begins(in); /* a stream that gives nothing is a lost member */
    size_t used, made;
    const char *what;
    xzbz_result r = xzbz_step(in->xb, in->raw + in->raw_pos, raw_avail(in), in->raw_eof, in->buf + in->end, room,
                              &used, &made, &what);
    raw_consume(in, used);
    in->end += made;
    if (made) in->tail = in->buf[in->end - 1];
    if (r == XZBZ_MORE) return true;
    if (r == XZBZ_ERROR) {
        input_fail(in, what);
        mark_damage(in);
        return false;
    }
    in->eof = true;
    return made > 0;
}

/* Decodes one step into the buffer; false when nothing more will come. */
static bool decode_step(winput *in)
{
    if (in->eof) return false;
    make_room(in, DECODED_CHUNK);
    size_t room = in->cap - in->end;
    switch (in->codec) {
    case CODEC_PLAIN: {
        if (raw_avail(in)) { /* the bytes read while sniffing */
            size_t n = raw_avail(in) < room ? raw_avail(in) : room;
            memcpy(in->buf + in->end, in->raw + in->raw_pos, n);
            raw_consume(in, n);
            in->end += n;
            return true;
        }
        if (in->raw_eof) { /* the reading at open met the end, or a read error (reported once) */
            in->eof = true;
            return false;
        }
        for (;;) { /* then straight into the decoded buffer, no copy */
            ssize_t r = read(in->fd, in->buf + in->end, room);
            if (r > 0) {
                in->end += (size_t)r;
                in->raw_consumed += (uint64_t)r;
                return true;
            }
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                warnf("%s: read error: %s", in->name, strerror(errno));
                in->errors++;
            }
            in->eof = true;
            return false;
        }
    }
    case CODEC_GZIP: {
        if (in->members && members_more(in)) return true;
        if (!raw_avail(in) && !raw_fill(in)) {
            if (in->z_in_member) {
                input_report(in, "truncated gzip member");
                mark_damage(in);
                /* a member cut short (a concatenation of a cut .gz and others)
                 * has its deflate stream run on into the members after it:
                 * they are read from the next header after its own */
                if (gzip_resync(in)) {
                    warnf("%s: reading on from the next gzip member at offset %llu (compressed)", in->name,
                          (unsigned long long)in->raw_consumed);
                    return true;
                }
            }
            in->eof = true;
            return false;
        }
        if (!in->z_in_member) {
            /* between members: another member, NUL padding, or trailing junk */
            if (raw_avail(in) < 2) raw_fill(in);
            const unsigned char *p = in->raw + in->raw_pos;
            if (raw_avail(in) >= 2 && p[0] == GZIP_MAGIC[0] && p[1] == GZIP_MAGIC[1]) {
                inflateReset(&in->z);
                in->z_in_member = true;
                in->member_fresh = true;
                member_begins(in);
            } else if (p[0] == 0) {
                size_t k = 0;
                while (k < raw_avail(in) && p[k] == 0) k++;
                raw_consume(in, k); /* NUL padding after the last member is harmless */
                return true;
            } else { /* a member whose header is damaged, or junk: one lost member, as for xz and bzip2 */
                input_fail(in, "data after the last gzip member is not gzip");
                member_begins(in);
                mark_damage(in);
                return false;
            }
        }
        if (in->member_fresh) {
            in->member_fresh = false;
            if (whole_member(in)) return true;
            room = in->cap - in->end;
        }
        in->z.next_in = in->raw + in->raw_pos;
        in->z.avail_in = (uInt)raw_avail(in);
        in->z.next_out = (Bytef *)in->buf + in->end;
        in->z.avail_out = (uInt)room;
        int r = inflate(&in->z, Z_NO_FLUSH);
        raw_consume(in, raw_avail(in) - in->z.avail_in);
        in->end += room - in->z.avail_out;
        if (room - in->z.avail_out) in->tail = in->buf[in->end - 1];
        if (r == Z_STREAM_END) {
            in->z_in_member = false;
            member_checked(in);
        }
        else if (r == Z_BUF_ERROR && !in->z.avail_in) raw_fill(in);
        else if (r != Z_OK && r != Z_BUF_ERROR) {
            input_report(in, in->z.msg ? in->z.msg : "bad gzip data");
            mark_damage(in);
            if (!gzip_resync(in)) {
                in->eof = true;
                return false;
            }
            warnf("%s: reading on from the next gzip member at offset %llu (compressed)", in->name,
                  (unsigned long long)in->raw_consumed);
        }
        return true;
    }
    case CODEC_ZSTD: {
        if (!raw_avail(in) && !raw_fill(in)) {
            if (in->zd_in_frame) {
                input_fail(in, "truncated zstd frame");
                mark_damage(in);
            }
            in->eof = true;
            return false;
        }
        ZSTD_inBuffer ib = {in->raw + in->raw_pos, raw_avail(in), 0};
        ZSTD_outBuffer ob = {in->buf + in->end, room, 0};
        size_t r = ZSTD_decompressStream(in->zd, &ob, &ib);
        raw_consume(in, ib.pos);
        in->end += ob.pos;
        if (ob.pos) in->tail = in->buf[in->end - 1];
        if (ZSTD_isError(r)) {
            input_fail(in, ZSTD_getErrorName(r));
            mark_damage(in);
            return false;
        }
        in->zd_in_frame = r != 0;
        if (!in->zd_in_frame) { /* a frame ended: the next begins here (mark_damage) */
            member_checked(in);
            member_begins(in);
        }
        return true;
    }
    case CODEC_PARQUET: {
        const char *p;
        size_t n;
        if (!in->pq || !pq_jsonl_next(in->pq, &p, &n)) {
            if (in->pq) {
                in->errors += pq_jsonl_errors(in->pq);
                in->lost_rows = pq_jsonl_lost_rows(in->pq);
            }
            in->eof = true;
            return false;
        }
        make_room(in, n);
        memcpy(in->buf + in->end, p, n);
        in->end += n;
        return true;
    }
    case CODEC_OTHER: {
        if (in->xb) return xzbz_more(in, room);
        la_ssize_t r = archive_read_data(in->ar, in->buf + in->end, room);
        if (r > 0) {
            in->end += (size_t)r;
            in->tail = in->buf[in->end - 1];
            return true;
        }
        if (r < 0) {
            input_fail(in, archive_error_string(in->ar) ? archive_error_string(in->ar) : "bad compressed data");
            mark_damage(in);
        }
        in->eof = true;
        return false;
    }
    }
    return false;
}

/* Decodes one step into the buffer, through the JSON array transform when
 * it is on (the bytes of the step, rewritten in place); false when nothing
 * more will come. */
static bool decode_more(winput *in)
{
    if (!in->ja) return decode_step(in);
    size_t held = in->end - in->start;
    bool more = decode_step(in);
    char *fresh = in->buf ? in->buf + in->start + held : NULL;
    if (fresh) in->end = in->start + held + jarray_step(in->ja, fresh, in->end - in->start - held);
    if (more && jarray_damaged(in->ja)) in->eof = true; /* data after the array: not read on */
    if (!more && !in->ja_ended) {
        in->ja_ended = true;
        char tail;
        size_t k = jarray_end(in->ja, &tail);
        if (jarray_damaged(in->ja)) in->errors++; /* cut short, or data after the array */
        if (k) { /* the '\n' after an element cut short: one more step */
            make_room(in, 1);
            in->buf[in->end++] = tail;
            return true;
        }
    }
    return more;
}

bool input_json_array(winput *in, bool objects_only)
{
    if (in->ja || in->binary || in->codec == CODEC_PARQUET || in->offset) return in->ja != NULL;
    size_t want = 64, need;
    for (;;) {
        const char *p;
        size_t n = input_peek(in, want, &p);
        if (jarray_starts(p, n, objects_only, &need)) break;
        if (!need || n < want) return false;
        want = need;
    }
    in->ja = jarray_new(in->name);
    in->end = in->start + jarray_step(in->ja, in->buf + in->start, in->end - in->start);
    in->scanned = 0;
    return true;
}

bool input_is_json_array(const winput *in) { return in->ja != NULL; }

bool input_path_is_json_array(const char *path)
{
    warn_mute(true);
    winput *in = input_open(path);
    bool array = in && input_json_array(in, false);
    input_close(in);
    warn_mute(false);
    return array;
}

int input_bad_elements(const winput *in) { return in->ja ? jarray_bad_elements(in->ja) : 0; }

static bool has_prefix(const unsigned char *p, size_t n, const void *magic, size_t k)
{
    return n >= k && memcmp(p, magic, k) == 0;
}

/* A zstd stream: a frame, or a skippable frame before one (pzstd starts its
 * files with one; `zstd -d` reads them). */
static bool zstd_stream(const unsigned char *p, size_t n)
{
    return has_prefix(p, n, ZSTD_MAGIC, 4) ||
           (n >= 4 && (p[0] & 0xf0) == ZSTD_SKIPPABLE_FIRST_HIGH && has_prefix(p + 1, n - 1, ZSTD_SKIPPABLE_REST, 3));
}

static const char XZ_MAGIC[6] = "\xFD" "7zXZ\0";
static const char BZIP2_MAGIC[3] = "BZh";
/* After "BZh" and the block size: the magic of the first block (pi in BCD),
 * or of the end of a stream that holds no block (sqrt(pi)). */
static const char BZIP2_BLOCK_MAGIC[6] = "1AY&SY";
static const char BZIP2_END_MAGIC[6] = "\x17rE8P\x90";

bool input_bzip2_signature(const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    return n >= SIGNATURE_BYTES && has_prefix(p, n, BZIP2_MAGIC, 3) && p[3] >= '1' && p[3] <= '9' &&
           (has_prefix(p + 4, n - 4, BZIP2_BLOCK_MAGIC, 6) || has_prefix(p + 4, n - 4, BZIP2_END_MAGIC, 6));
}

/* Other compressions, which libarchive's filters read: lz4, compress, lzma. */
static bool other_compression(const unsigned char *p, size_t n)
{
    return has_prefix(p, n, "\x04\x22\x4D\x18", 4) || has_prefix(p, n, "\x1F\x9D", 2) ||
           has_prefix(p, n, "\x5D\x00\x00", 3);
}

winput *input_open(const char *path)
{
    bool is_stdin = !path || strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        warnf("%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    if (is_stdin) pipe_widen(fd);
    winput *in = xcalloc(1, sizeof *in);
    in->fd = fd;
    in->name = xstrdup(is_stdin ? "stdin" : path);
    in->raw = xmalloc(RAW_CHUNK);
    while (in->raw_len < SIGNATURE_BYTES && raw_fill(in)) {}
    const unsigned char *p = in->raw;
    size_t n = in->raw_len;
    if (has_prefix(p, n, GZIP_MAGIC, 2)) {
        in->codec = CODEC_GZIP;
        if (inflateInit2(&in->z, 15 + 16) != Z_OK) dief(EXIT_FATAL, "zlib init failed");
        in->z_live = true;
        in->z_in_member = true;
        in->member_fresh = true;
        in->ld = libdeflate_alloc_decompressor();
        if (!in->ld) dief(EXIT_FATAL, "libdeflate init failed");
        start_members(in);
    } else if (zstd_stream(p, n)) {
        in->codec = CODEC_ZSTD;
        in->zd = ZSTD_createDCtx();
        in->zd_in_frame = true;
    } else if (has_prefix(p, n, PARQUET_MAGIC, 4)) {
        in->codec = CODEC_PARQUET;
        in->pq = pq_jsonl_open(fd, in->raw, in->raw_len, in->name, &in->unusable_rows);
        in->raw_pos = in->raw_len; /* the Parquet reader has the file from its start */
        if (!in->pq) {
            in->errors++;
            in->eof = true;
        }
    } else if (has_prefix(p, n, XZ_MAGIC, 6) || input_bzip2_signature(p, n) || xzbz_lz4_legacy_signature(p, n)) {
        in->codec = CODEC_OTHER;
        in->xb = xzbz_new(has_prefix(p, n, XZ_MAGIC, 6) ? XZBZ_XZ
                          : input_bzip2_signature(p, n) ? XZBZ_BZIP2
                                                        : XZBZ_LZ4_LEGACY);
    } else if (other_compression(p, n)) {
        in->codec = CODEC_OTHER;
        in->ar = archive_read_new();
        archive_read_support_filter_all(in->ar);
        archive_read_support_format_raw(in->ar);
        struct archive_entry *entry;
        if (archive_read_open(in->ar, in, NULL, archive_read_cb, NULL) != ARCHIVE_OK ||
            archive_read_next_header(in->ar, &entry) != ARCHIVE_OK) {
            input_fail(in, "unreadable compressed data");
        }
    } else {
        in->codec = CODEC_PLAIN;
    }
    return in;
}

winput *input_open_at(const char *path, uint64_t raw_offset, uint64_t decoded_offset)
{
    winput *in = input_open(path);
    if (!in || raw_offset == 0) return in;
    if (in->codec != CODEC_GZIP && in->codec != CODEC_ZSTD) {
        warnf("%s: cannot go on at offset %llu: not gzip or zstd", in->name, (unsigned long long)raw_offset);
        input_close(in);
        return NULL;
    }
    if (in->members) { /* from here on the serial decoder, as after members_more stops */
        gzm_stop(in->members);
        in->members = NULL;
        munmap(in->map, in->map_len);
        in->map = NULL;
    }
    if (lseek(in->fd, (off_t)raw_offset, SEEK_SET) < 0) {
        warnf("%s: cannot seek: %s", in->name, strerror(errno));
        input_close(in);
        return NULL;
    }
    in->raw_pos = in->raw_len = 0;
    in->raw_eof = false;
    in->raw_consumed = raw_offset;
    in->start = in->end = in->scanned = 0;
    in->offset = decoded_offset;
    in->z_in_member = in->member_fresh = false; /* between members */
    in->zd_in_frame = false;                    /* between frames */
    member_checked(in); /* the bytes before are the whole file decoder's */
    member_begins(in);  /* a zstd frame begins here; a gzip member where its header is */
    return in;
}

size_t input_peek(winput *in, size_t n, const char **p)
{
    while (in->end - in->start < n && decode_more(in)) {}
    *p = in->buf ? in->buf + in->start : "";
    return in->end - in->start;
}

/* Plain input with nothing buffered: read() straight into dst, no copy. */
static size_t read_plain_direct(winput *in, char *dst, size_t n)
{
    while (!in->raw_eof) { /* (the reading at open met the end, or a read error, reported once) */
        ssize_t r = read(in->fd, dst, n);
        if (r > 0) {
            in->raw_consumed += (uint64_t)r;
            in->offset += (uint64_t)r;
            return (size_t)r;
        }
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            warnf("%s: read error: %s", in->name, strerror(errno));
            in->errors++;
        }
        in->eof = true;
        return 0;
    }
    in->eof = true;
    return 0;
}

size_t input_read(winput *in, void *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (in->start == in->end && in->codec == CODEC_PLAIN && !in->ja && !raw_avail(in) && n - got >= DECODED_CHUNK) {
            if (in->eof) break;
            size_t k = read_plain_direct(in, (char *)dst + got, n - got);
            if (!k) break;
            got += k;
            in->scanned = 0;
            continue;
        }
        /* damage that ends the input may still have ended its partial line (mark_damage) */
        if (in->start == in->end && !decode_more(in) && in->start == in->end) break;
        size_t k = in->end - in->start;
        if (k > n - got) k = n - got;
        memcpy((char *)dst + got, in->buf + in->start, k);
        in->start += k;
        in->offset += k;
        got += k;
        in->scanned = 0;
    }
    return got;
}

size_t input_skip(winput *in, size_t n)
{
    size_t done = 0;
    while (done < n) {
        /* damage that ends the input may still have ended its partial line (mark_damage) */
        if (in->start == in->end && !decode_more(in) && in->start == in->end) break;
        size_t k = in->end - in->start;
        if (k > n - done) k = n - done;
        in->start += k;
        in->offset += k;
        done += k;
        in->scanned = 0;
    }
    return done;
}

bool input_getline(winput *in, const char **line, size_t *len)
{
    for (;;) {
        char *from = in->buf ? in->buf + in->start + in->scanned : NULL;
        size_t avail = in->end - in->start - in->scanned;
        char *nl = avail ? memchr(from, '\n', avail) : NULL;
        if (nl) {
            char *s = in->buf + in->start;
            size_t n = (size_t)(nl - s);
            in->start += n + 1;
            in->offset += n + 1;
            in->scanned = 0;
            if (n && s[n - 1] == '\r') n--;
            s[n] = 0;
            *line = s;
            *len = n;
            return true;
        }
        in->scanned = in->end - in->start;
        if (!decode_more(in)) {
            size_t n = in->end - in->start;
            if (!n) return false;
            char *s = in->buf + in->start; /* last line without '\n' */
            in->start = in->end;
            in->offset += n;
            in->scanned = 0;
            if (s[n - 1] == '\r') n--;
            s[n] = 0;
            *line = s;
            *len = n;
            return true;
        }
    }
}

const char *input_name(const winput *in) { return in->name; }
uint64_t input_offset(const winput *in) { return in->offset; }
uint64_t input_raw_offset(const winput *in) { return in->raw_consumed; }
input_codec input_get_codec(const winput *in) { return in->codec; }
int input_errors(const winput *in) { return in->errors; }
int input_lost_members(const winput *in) { return in->lost_members; }
void input_add_losses(input_losses *sum, const winput *in)
{
    sum->members += in->lost_members;
    sum->bad_elements += input_bad_elements(in);
    sum->damaged_rows += in->lost_rows;
    sum->unusable_rows += in->unusable_rows;
}

void input_count_losses(wstats *st, const input_losses *l)
{
    stats_lost(st, "damaged_member", (uint64_t)l->members);
    stats_lost(st, "bad_json", (uint64_t)l->bad_elements);
    stats_lost(st, "damaged_row_group", (uint64_t)l->damaged_rows);
    stats_lost(st, "no_text_column", (uint64_t)l->unusable_rows);
    stats_lost(st, "unreadable_input", (uint64_t)l->unreadable);
}

void input_set_binary(winput *in) { in->binary = true; }

uint64_t input_checked_to(const winput *in)
{
    return in->codec == CODEC_GZIP || in->codec == CODEC_ZSTD ? in->checked : decoded_total(in);
}

bool input_damage_from(const winput *in, uint64_t from, uint64_t *at)
{
    for (size_t i = 0; i < in->ndamage; i++) /* in decoded order */
        if (in->damage[i] >= from) {
            *at = in->damage[i];
            return true;
        }
    return false;
}

bool input_damaged_within(const winput *in, uint64_t from, uint64_t to)
{
    for (size_t i = 0; i < in->ndamage; i++)
        if (in->damage[i] > from && in->damage[i] <= to) return true;
    return false;
}

const char *input_codec_name(input_codec c)
{
    switch (c) {
    case CODEC_PLAIN: return "plain";
    case CODEC_GZIP: return "gzip";
    case CODEC_ZSTD: return "zstd";
    case CODEC_PARQUET: return "parquet";
    default: return "other";
    }
}

void input_close(winput *in)
{
    if (!in) return;
    gzm_stop(in->members);
    if (in->map) munmap(in->map, in->map_len);
    if (in->z_live) inflateEnd(&in->z);
    if (in->ld) libdeflate_free_decompressor(in->ld);
    if (in->zd) ZSTD_freeDCtx(in->zd);
    if (in->ar) archive_read_free(in->ar);
    xzbz_free(in->xb);
    pq_jsonl_close(in->pq);
    jarray_free(in->ja);
    if (in->fd != STDIN_FILENO) close(in->fd);
    free(in->raw);
    free(in->damage);
    free(in->buf);
    free(in->name);
    free(in);
}
