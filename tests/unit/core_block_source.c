/* core_block_source - compressed inputs through the block source (the GPU
 * tokenize path's reader, core/block_source.c): zstd frames and gzip members
 * decoded at once by several threads, whole or damaged, give the bytes, the
 * warnings and the exit status of the serial decoder (core/input.c), as
 * whole lines cut to about the size asked for. Real JSONL (DCLM) inside. */
#include <fcntl.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "core/block_source.h"
#include "core/block_units.h"
#include "core/buf.h"
#include "core/input.h"
#include "core/output.h"
#include "tests/tap.h"

static char dir[512];

/* ---- making compressed files ---- */

static void zstd_frame(wbuf *out, const char *p, size_t n, int with_size)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, with_size);
    size_t cap = ZSTD_compressBound(n);
    buf_reserve(out, out->len + cap);
    if (with_size) ZSTD_CCtx_setPledgedSrcSize(c, n);
    ZSTD_inBuffer ib = {p, n, 0};
    ZSTD_outBuffer ob = {out->data + out->len, cap, 0};
    while (ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end) != 0) {}
    out->len += ob.pos;
    ZSTD_freeCCtx(c);
}

static void gzip_member(wbuf *out, const char *p, size_t n)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    size_t cap = libdeflate_gzip_compress_bound(c, n);
    buf_reserve(out, out->len + cap);
    out->len += libdeflate_gzip_compress(c, p, n, out->data + out->len, cap);
    libdeflate_free_compressor(c);
}

/* A gzip member whose header has a header CRC (FHCRC: zlib checks it, libdeflate does not). */
static void gzip_member_hcrc(wbuf *out, const char *p, size_t n)
{
    wbuf m = WBUF_INIT;
    gzip_member(&m, p, n);
    m.data[3] |= 0x02;
    uLong crc = crc32(0, (const Bytef *)m.data, 10);
    unsigned char hcrc[2] = {(unsigned char)(crc & 0xff), (unsigned char)(crc >> 8 & 0xff)};
    buf_append(out, m.data, 10);
    buf_append(out, (const char *)hcrc, 2);
    buf_append(out, m.data + 10, m.len - 10);
    buf_free(&m);
}

static void write_file(const char *path, const wbuf *b)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f)) {
        ok(0, "cannot write %s", path);
        exit(1);
    }
}

/* ---- reading them ---- */

static int saved_stderr = -1;
static char err_path[600];

static void capture_begin(void)
{
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open(err_path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    dup2(fd, 2);
    close(fd);
}

static void capture_end(wbuf *err)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    buf_clear(err);
    FILE *f = fopen(err_path, "rb");
    char chunk[4096];
    size_t n;
    while (f && (n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(err, chunk, n);
    if (f) fclose(f);
    buf_append(err, "", 1);
}

/* Damaged members or frames that gave no output, as the last read_serial or
 * read_blocks counted them (input_lost_members, block_source_losses). */
static int lost_members;
/* Problems of a JSON array file's structure, as they counted them
 * (input_bad_elements, block_source_losses). */
static int bad_elements;

/* The serial decoder's bytes (a JSON array file's elements, one a line, as
 * the stages read it), warnings and exit status. */
static int read_serial(const char *path, wbuf *out, wbuf *err)
{
    buf_clear(out);
    lost_members = bad_elements = 0;
    capture_begin();
    winput *in = input_open(path);
    int status = 2;
    if (in) {
        input_json_array(in, false);
        char chunk[65536];
        size_t n;
        while ((n = input_read(in, chunk, sizeof chunk)) > 0) buf_append(out, chunk, n);
        status = input_errors(in) ? 2 : 0;
        lost_members = input_lost_members(in);
        bad_elements = input_bad_elements(in);
        input_close(in);
    }
    capture_end(err);
    return status;
}

typedef struct {
    size_t blocks, longest, not_whole, bad_start, bad_index;
} cut_facts;

/* The block source's bytes (all inputs, in order), warnings and status. */
static int read_blocks(char **paths, int n, int decoders, size_t decoded, size_t want, wbuf *out, wbuf *err,
                       cut_facts *f)
{
    buf_clear(out);
    memset(f, 0, sizeof *f);
    capture_begin();
    block_source *s = block_source_open(paths, n, decoders, decoded);
    source_block b, prev = {0};
    int prev_index = -1;
    bool have_prev = false;
    while (block_source_next(s, want, &b)) {
        f->blocks++;
        if (b.len > f->longest) f->longest = b.len;
        if (b.file_start != (b.file_index != prev_index)) f->bad_start++;
        if (b.file_index < prev_index) f->bad_index++;
        /* only the last block of an input may end without a line end */
        if (have_prev && prev.file_index == b.file_index && prev.data[prev.len - 1] != '\n') f->not_whole++;
        prev_index = b.file_index;
        buf_append(out, b.data, b.len);
        prev = b;
        prev.data = out->data + out->len - b.len; /* the block's bytes stay readable in out */
        have_prev = true;
        block_source_release(s, &b);
    }
    input_losses lost = block_source_losses(s);
    lost_members = (int)lost.members;
    bad_elements = (int)lost.bad_elements;
    int status = block_source_close(s);
    capture_end(err);
    return status;
}

static size_t longest_line(const wbuf *b)
{
    size_t longest = 0;
    for (const char *p = b->data, *end = b->data + b->len; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
        if (len > longest) longest = len;
        p += len;
    }
    return longest;
}

/* One file through the block source in several ways against the serial decoder. */
/* Bits of a deflate stream, least significant first (RFC 1951 3.1.1). */
typedef struct {
    wbuf *out;
    uint32_t acc;
    int n;
} bit_writer;

static void put_bits(bit_writer *w, uint32_t v, int n)
{
    w->acc |= v << w->n;
    w->n += n;
    for (; w->n >= 8; w->n -= 8, w->acc >>= 8) buf_putc(w->out, (char)(w->acc & 0xff));
}

/* A Huffman code of n bits, sent most significant bit first. */
static void put_code(bit_writer *w, uint32_t code, int n)
{
    uint32_t r = 0;
    for (int i = 0; i < n; i++) r = r << 1 | (code >> i & 1);
    put_bits(w, r, n);
}

/* A gzip member of one dynamic block that declares nlit literal/length codes
 * (RFC 1951 allows 257-286; 288 is what zlib refuses, "too many length or
 * distance symbols", and libdeflate accepts) and inflates to reps lines of
 * 10,321 'a's: four litlen codes of 2 bits ('\n' 00, 'a' 01, end 10, length
 * 258 11) and one distance code (distance 1, code 0). Its text goes to *text. */
static void gzip_member_nlit(wbuf *out, int nlit, int reps, wbuf *text)
{
    static const unsigned char cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
    wbuf m = WBUF_INIT;
    buf_append(&m, (const char *)header, 10);
    bit_writer w = {&m, 0, 0};
    put_bits(&w, 1, 1), put_bits(&w, 2, 2); /* the last block, dynamic */
    put_bits(&w, (uint32_t)(nlit - 257), 5), put_bits(&w, 0, 5), put_bits(&w, 19 - 4, 4);
    /* code length codes: 0, 1, 2 and 18 (a run of zeros), 2 bits each: 00 01 10 11 */
    for (int i = 0; i < 19; i++) {
        int sym = cl_order[i];
        put_bits(&w, sym == 0 || sym == 1 || sym == 2 || sym == 18 ? 2 : 0, 3);
    }
    int lens[300] = {0};
    lens[10] = lens[97] = lens[256] = lens[285] = 2;
    lens[nlit] = 1; /* the one distance code */
    for (int i = 0; i < nlit + 1;) {
        int run = 0;
        while (i + run < nlit + 1 && !lens[i + run] && run < 138) run++;
        if (run >= 11) {
            put_code(&w, 3, 2), put_bits(&w, (uint32_t)(run - 11), 7);
            i += run;
        } else if (run) {
            put_code(&w, 0, 2), i++;
        } else {
            put_code(&w, (uint32_t)lens[i], 2), i++;
        }
    }
    for (int r = 0; r < reps; r++) {
        put_code(&w, 1, 2), buf_putc(text, 'a');
        for (int k = 0; k < 40; k++) {
            put_code(&w, 3, 2), put_code(&w, 0, 1);
            for (int j = 0; j < 258; j++) buf_putc(text, 'a');
        }
        put_code(&w, 0, 2), buf_putc(text, '\n');
    }
    put_code(&w, 2, 2);
    if (w.n) put_bits(&w, 0, 8 - w.n);
    uint32_t crc = (uint32_t)crc32(0, (const Bytef *)text->data, (uInt)text->len), size = (uint32_t)text->len;
    unsigned char trailer[8] = {crc & 0xff, crc >> 8 & 0xff, crc >> 16 & 0xff, crc >> 24,
                                size & 0xff, size >> 8 & 0xff, size >> 16 & 0xff, size >> 24};
    buf_append(&m, (const char *)trailer, 8);
    buf_append(out, m.data, m.len);
    buf_free(&m);
}

static void check_file(const char *name, const wbuf *file)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_file(path, file);
    wbuf ref = WBUF_INIT, ref_err = WBUF_INIT, got = WBUF_INIT, got_err = WBUF_INIT;
    int ref_status = read_serial(path, &ref, &ref_err), ref_lost = lost_members, ref_bad = bad_elements;
    static const struct {
        int decoders;
        size_t decoded, want;
    } ways[] = {{1, 1 << 20, 1 << 20}, {4, 300000, 100000}, {4, 300000, 1}, {3, 64 << 10, (size_t)1 << 30}};
    char *paths[] = {path};
    for (size_t w = 0; w < sizeof ways / sizeof *ways; w++) {
        cut_facts f;
        int status = read_blocks(paths, 1, ways[w].decoders, ways[w].decoded, ways[w].want, &got, &got_err, &f);
        char how[96];
        snprintf(how, sizeof how, "%s (%d threads, units %zu, blocks %zu)", name, ways[w].decoders, ways[w].decoded,
                 ways[w].want);
        ok(got.len == ref.len && !memcmp(got.data, ref.data, ref.len), "%s: the serial decoder's %zu bytes", how,
           ref.len);
        is_str(got_err.data, ref_err.data, "%s: its warnings", how);
        is_int(status, ref_status, "%s: its exit status", how);
        is_int(lost_members, ref_lost, "%s: its damaged members that gave no output", how);
        is_int(bad_elements, ref_bad, "%s: its JSON array problems", how);
        ok(!f.not_whole && !f.bad_start, "%s: whole lines, the input's first block marked", how);
        if (ways[w].want == 100000) {
            ok(f.longest <= ways[w].want + longest_line(&ref), "%s: blocks cut to about the size asked (longest %zu)",
               how, f.longest);
            ok(f.blocks <= ref.len / (ways[w].want / 2) + 8, "%s: and not much smaller (%zu blocks)", how, f.blocks);
        }
    }
    buf_free(&ref), buf_free(&ref_err), buf_free(&got), buf_free(&got_err);
}

int main(void)
{
    char majority[1024], agreement[1024];
    snprintf(majority, sizeof majority, "%s/jsonl/dclm/data/majority_data.jsonl", shared_dir());
    snprintf(agreement, sizeof agreement, "%s/jsonl/dclm/data/agreement_data.jsonl", shared_dir());
    require_file(majority);
    require_file(agreement);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/winnow-blocks-XXXXXX", tmp);
    if (!mkdtemp(dir)) skip_all("cannot make a temporary directory");
    snprintf(err_path, sizeof err_path, "%s/stderr", dir);

    wbuf text = WBUF_INIT, part = WBUF_INIT;
    char *srcs[] = {majority, agreement};
    for (int i = 0; i < 2; i++) {
        wbuf err = WBUF_INIT;
        read_serial(srcs[i], &part, &err);
        buf_append(&text, part.data, part.len);
        buf_free(&err);
    }
    size_t n = text.len, q = n / 4;
    /* cut points inside lines, so that units end mid-line */
    size_t cut[5] = {0, q + 17, 2 * q + 5, 3 * q + 101, n};
    ok(n > (size_t)2 << 20, "test text: %zu bytes of DCLM JSONL", n);

    wbuf f = WBUF_INIT;
    /* zstd: 4 frames with content sizes, as zstd writes files; then without */
    size_t frame_at[4];
    for (int i = 0; i < 4; i++) frame_at[i] = f.len, zstd_frame(&f, text.data + cut[i], cut[i + 1] - cut[i], 1);
    check_file("frames.jsonl.zst", &f);
    unit_span *spans;
    size_t nspans;
    uint64_t covered;
    units_plan(UNITS_ZSTD, (const unsigned char *)f.data, f.len, 1, (size_t)1 << 30, &spans, &nspans, &covered);
    ok(nspans == 4 && covered == f.len && spans[1].start == frame_at[1] && spans[3].start == frame_at[3] &&
           spans[2].out_hint == cut[3] - cut[2],
       "zstd plan: one unit a frame, at the frames' offsets, with their sizes (%zu units)", nspans);
    free(spans);
    units_plan(UNITS_ZSTD, (const unsigned char *)f.data, f.len, (size_t)1 << 30, (size_t)1 << 30, &spans, &nspans,
               &covered);
    ok(nspans == 1 && spans[0].end == f.len, "zstd plan: small frames are grouped up to the target");
    free(spans);
    buf_clear(&f);
    for (int i = 0; i < 4; i++) zstd_frame(&f, text.data + cut[i], cut[i + 1] - cut[i], 0);
    check_file("frames-nosize.jsonl.zst", &f);
    /* a skippable frame and an empty frame between them */
    buf_clear(&f);
    zstd_frame(&f, text.data, cut[1], 1);
    static const unsigned char skippable[] = {0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'};
    buf_append(&f, (const char *)skippable, sizeof skippable);
    zstd_frame(&f, "", 0, 1);
    zstd_frame(&f, text.data + cut[1], n - cut[1], 1);
    check_file("skippable.jsonl.zst", &f);
    /* pzstd's layout: a skippable frame (holding the next frame's size) before every frame,
     * so the file starts with one */
    buf_clear(&f);
    for (int i = 0; i < 4; i++) {
        wbuf frame = WBUF_INIT;
        zstd_frame(&frame, text.data + cut[i], cut[i + 1] - cut[i], 0);
        unsigned char head[12] = {0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0};
        for (int k = 0; k < 4; k++) head[8 + k] = (unsigned char)(frame.len >> (8 * k));
        buf_append(&f, (const char *)head, sizeof head);
        buf_append(&f, frame.data, frame.len);
        buf_free(&frame);
    }
    check_file("pzstd.jsonl.zst", &f);
    {
        wbuf whole = WBUF_INIT, err = WBUF_INIT;
        char path[700];
        snprintf(path, sizeof path, "%s/pzstd.jsonl.zst", dir);
        int status = read_serial(path, &whole, &err);
        ok(status == 0 && whole.len == n && !memcmp(whole.data, text.data, n),
           "pzstd's layout (a skippable frame first): the text, as zstd -d reads it");
        buf_free(&whole), buf_free(&err);
    }
    /* truncated last frame; a damaged middle frame; junk after the last */
    buf_clear(&f);
    for (int i = 0; i < 4; i++) zstd_frame(&f, text.data + cut[i], cut[i + 1] - cut[i], 1);
    size_t whole = f.len;
    f.len -= 1000;
    check_file("truncated.jsonl.zst", &f);
    f.len = whole;
    for (size_t k = frame_at[2] + 5000; k < frame_at[2] + 5040; k++) f.data[k] ^= 0x5a;
    check_file("damaged.jsonl.zst", &f);
    for (size_t k = frame_at[2] + 5000; k < frame_at[2] + 5040; k++) f.data[k] ^= 0x5a;
    /* a frame whose magic is damaged, after one that ends mid-line: nothing of
     * it decodes, a frame that gave no output, also where the units stop there
     * and decoding goes on serially from that frame */
    f.data[frame_at[2]] ^= 0x5a;
    check_file("damaged-magic.jsonl.zst", &f);
    f.data[frame_at[2]] ^= 0x5a;
    buf_append(&f, "junk after", 10);
    check_file("junk.jsonl.zst", &f);

    /* gzip: 4 members; one member of it all */
    buf_clear(&f);
    size_t member_at[4];
    for (int i = 0; i < 4; i++) member_at[i] = f.len, gzip_member(&f, text.data + cut[i], cut[i + 1] - cut[i]);
    check_file("members.jsonl.gz", &f);
    units_plan(UNITS_GZIP, (const unsigned char *)f.data, f.len, 1, (size_t)1 << 30, &spans, &nspans, &covered);
    size_t found = 0;
    for (size_t i = 0; i < nspans; i++)
        for (int m = 0; m < 4; m++) found += spans[i].start == member_at[m];
    ok(found == 4 && nspans >= 4, "gzip plan: every member is a candidate (%zu candidates)", nspans);
    ok(spans[0].out_hint == cut[1], "gzip plan: a member's size from the length before the next");
    free(spans);
    /* a target over the whole file: the members (under it) are still planned, as one unit to the file's end */
    units_plan(UNITS_GZIP, (const unsigned char *)f.data, f.len, (size_t)1 << 30, (size_t)1 << 30, &spans, &nspans,
               &covered);
    ok(nspans == 1 && spans[0].start == 0 && spans[0].end == f.len && spans[0].out_hint >= n,
       "gzip plan: the last run of members, under the target, is a unit to the file's end (%zu units)", nspans);
    free(spans);
    /* one unit of all 4 members: the chain goes on at each member boundary, at
     * the output of the members before it (RFC 1952: members simply concatenate),
     * and at no offset inside a member */
    {
        units_decoder *d = units_decoder_new();
        unit_span all = {0, f.len, n};
        unit_out out;
        ok(units_decode(d, UNITS_GZIP, (const unsigned char *)f.data, f.len, &all, (size_t)1 << 30, &out) &&
               out.len == n && memcmp(out.mem + UNIT_HEADROOM, text.data, n) == 0,
           "gzip: a unit of all 4 members decodes to the text");
        int right = 0;
        for (int m = 0; m < 4; m++) {
            size_t off = SIZE_MAX;
            right += units_output_from(&out, member_at[m], &off) && off == cut[m];
        }
        size_t off;
        ok(right == 4 && !units_output_from(&out, member_at[2] + 1, &off),
           "gzip: output offsets at the 4 member starts (%d right), none inside a member", right);
        units_out_free(&out);
        units_decoder_free(d);
    }
    whole = f.len;
    f.len -= 700;
    check_file("truncated.jsonl.gz", &f);
    f.len = whole;
    for (size_t k = member_at[2] + 3000; k < member_at[2] + 3040; k++) f.data[k] ^= 0x5a;
    check_file("damaged.jsonl.gz", &f);
    for (size_t k = member_at[2] + 3000; k < member_at[2] + 3040; k++) f.data[k] ^= 0x5a;
    buf_append(&f, "\0\0\0\0", 4); /* NUL padding, then more members (a concatenation of .gz files) */
    gzip_member(&f, "", 0);
    gzip_member(&f, text.data, cut[1]);
    check_file("padded.jsonl.gz", &f);
    buf_append(&f, "junk after", 10);
    check_file("junk.jsonl.gz", &f);
    buf_clear(&f);
    gzip_member(&f, text.data, cut[2]);
    gzip_member_hcrc(&f, text.data + cut[2], n - cut[2]);
    gzip_member(&f, text.data, cut[1]);
    check_file("hcrc.jsonl.gz", &f);
    buf_clear(&f);
    gzip_member(&f, text.data, n);
    check_file("one-member.jsonl.gz", &f);

    /* each line its own member (small members make units of many); one of them damaged */
    buf_clear(&f);
    size_t line_at[1000], nlines = 0;
    for (const char *p = text.data, *end = text.data + n; p < end && nlines < 1000; nlines++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
        line_at[nlines] = f.len;
        gzip_member(&f, p, len);
        p += len;
    }
    check_file("lines.jsonl.gz", &f);
    for (size_t k = line_at[600] + 20; k < line_at[600] + 40; k++) f.data[k] ^= 0x5a;
    check_file("lines-damaged.jsonl.gz", &f);

    /* a line of 3 MB across three frames and three members (more than a unit's free room);
     * no line end at the end */
    wbuf line = WBUF_INIT;
    buf_append(&line, "{\"text\":\"", 9);
    while (line.len < (size_t)3 << 20) buf_append(&line, "long line ", 10);
    buf_append(&line, "\"}\n", 3);
    buf_append(&line, text.data, cut[1]);
    buf_append(&line, "{\"text\":\"no line end\"}", 22);
    size_t third = line.len / 3;
    buf_clear(&f);
    for (int i = 0; i < 3; i++) zstd_frame(&f, line.data + i * third, i == 2 ? line.len - 2 * third : third, 1);
    check_file("long-line.jsonl.zst", &f);
    buf_clear(&f);
    for (int i = 0; i < 3; i++) gzip_member(&f, line.data + i * third, i == 2 ? line.len - 2 * third : third);
    check_file("long-line.jsonl.gz", &f);

    /* a member that declares 288 litlen codes, which zlib refuses and libdeflate reads, inflating to
     * 2.7 MB (past the serial reader's first 2 MiB of room), between two good members: every path
     * gives it one verdict (all of them take such a member with libdeflate up to GZM_MEMBER_MAX) */
    for (int nlit = 286; nlit <= 288; nlit += 2) {
        wbuf bent = WBUF_INIT;
        buf_clear(&f);
        gzip_member(&f, "{\"text\":\"before\"}\n", 19);
        gzip_member_nlit(&f, nlit, 260, &bent);
        gzip_member(&f, "{\"text\":\"after\"}\n", 18);
        char name[700]; /* the test's directory and a file name */
        snprintf(name, sizeof name, "litlen-%d.jsonl.gz", nlit);
        check_file(name, &f);
        wbuf whole = WBUF_INIT, err = WBUF_INIT;
        snprintf(name, sizeof name, "%s/litlen-%d.jsonl.gz", dir, nlit);
        read_serial(name, &whole, &err);
        ok(whole.len == 19 + bent.len + 18 && bent.len == 2683720, "%s: the member's 2683720 bytes are read (%zu in all)",
           name, whole.len);
        buf_free(&bent), buf_free(&whole), buf_free(&err);
    }

    /* a Parquet file (written here from DCLM's documents) is rows as JSON lines, never its raw bytes */
    {
        char pq_path[700];
        snprintf(pq_path, sizeof pq_path, "%s/dclm.parquet", dir);
        woutput *o = output_open(pq_path, 0);
        size_t whole_lines = (size_t)((const char *)memrchr(text.data, '\n', cut[1]) - text.data) + 1;
        output_write(o, text.data, whole_lines);
        output_close(o);
        wbuf pq = WBUF_INIT, rows = WBUF_INIT, err = WBUF_INIT;
        FILE *fp = fopen(pq_path, "rb");
        char chunk[65536];
        size_t got;
        while (fp && (got = fread(chunk, 1, sizeof chunk, fp)) > 0) buf_append(&pq, chunk, got);
        if (fp) fclose(fp);
        int status = read_serial(pq_path, &rows, &err);
        size_t docs = 0, lines = 0;
        for (const char *p = text.data, *end = text.data + whole_lines; (p = memchr(p, '\n', (size_t)(end - p))); p++) docs++;
        for (const char *p = rows.data, *end = rows.data + rows.len; p && (p = memchr(p, '\n', (size_t)(end - p))); p++)
            lines++;
        ok(status == 0 && pq.len > 4 && !memcmp(pq.data, "PAR1", 4) && lines == docs && !strncmp(rows.data, "{\"text\":", 8),
           "a Parquet file of %zu documents reads serially as %zu JSON lines", docs, lines);
        check_file("dclm.parquet", &pq);
        buf_free(&pq), buf_free(&rows), buf_free(&err);
    }

    /* JSON arrays of the documents (pretty-printed: each line of the text an
     * element after a line of indent; a broken one too), plain, as gzip
     * members and zstd frames cut inside elements: read serially, never
     * mapped or cut into units, as their elements one a line */
    {
        wbuf arr = WBUF_INIT, lines = WBUF_INIT, err = WBUF_INIT;
        buf_append(&arr, "[\n", 2);
        size_t docs = 0;
        for (const char *p = text.data, *end = text.data + cut[2]; p < end;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            if (!nl) break;
            buf_append(&arr, docs ? ",\n  " : "  ", docs ? 4 : 2);
            buf_append(&arr, p, (size_t)(nl - p));
            docs++;
            p = nl + 1;
        }
        buf_append(&arr, "\n]\n", 3);
        check_file("array.json", &arr);
        char apath[700];
        snprintf(apath, sizeof apath, "%s/array.json", dir);
        int status = read_serial(apath, &lines, &err);
        size_t got_lines = 0;
        for (const char *p = lines.data, *end = lines.data + lines.len; p && (p = memchr(p, '\n', (size_t)(end - p))); p++)
            got_lines++;
        ok(status == 0 && got_lines == docs && bad_elements == 0 && lines.len && lines.data[0] == '{',
           "a JSON array of %zu documents reads serially as %zu lines", docs, got_lines);
        size_t acut[5] = {0, arr.len / 4 + 3, arr.len / 2 + 11, 3 * arr.len / 4 + 1, arr.len};
        buf_clear(&f);
        for (int i = 0; i < 4; i++) gzip_member(&f, arr.data + acut[i], acut[i + 1] - acut[i]);
        check_file("array.json.gz", &f);
        buf_clear(&f);
        for (int i = 0; i < 4; i++) zstd_frame(&f, arr.data + acut[i], acut[i + 1] - acut[i], 1);
        check_file("array.json.zst", &f);
        buf_clear(&f);
        buf_append(&f, arr.data, acut[3]); /* cut short inside an element */
        buf_append(&f, ",\n,\n", 4);
        check_file("array-cut.json", &f);
        buf_free(&arr), buf_free(&lines), buf_free(&err);
    }

    /* several files, compressed and plain, in order */
    char paths[4][700];
    wbuf want = WBUF_INIT, want_err = WBUF_INIT, got = WBUF_INIT, got_err = WBUF_INIT, one = WBUF_INIT;
    const char *names[] = {"members.jsonl.gz", "frames.jsonl.zst", "plain.jsonl", "long-line.jsonl.gz"};
    buf_clear(&f);
    buf_append(&f, text.data, cut[1]);
    snprintf(paths[2], sizeof paths[2], "%s/plain.jsonl", dir);
    write_file(paths[2], &f);
    int want_status = 0;
    for (int i = 0; i < 4; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, names[i]);
        want_status |= read_serial(paths[i], &one, &want_err);
        buf_append(&want, one.data, one.len);
    }
    char *list[] = {paths[0], paths[1], paths[2], paths[3]};
    cut_facts facts;
    int status = read_blocks(list, 4, 4, 300000, 200000, &got, &got_err, &facts);
    ok(got.len == want.len && !memcmp(got.data, want.data, want.len), "4 files: the bytes of each in turn (%zu)",
       want.len);
    is_int(status, want_status, "4 files: exit status");
    ok(!facts.not_whole && !facts.bad_start && !facts.bad_index, "4 files: whole lines, in input order");

    /* an input that cannot be opened between two plain ones: reported, the others
     * read, and the source closes with status 2 */
    {
        char absent[720];
        snprintf(absent, sizeof absent, "%s/absent.jsonl", dir);
        char *with_absent[] = {paths[2], absent, paths[2]};
        status = read_blocks(with_absent, 3, 2, 300000, 200000, &got, &got_err, &facts);
        ok(status == 2 && got.len == 2 * cut[1] && !memcmp(got.data, text.data, cut[1]) &&
               !memcmp(got.data + cut[1], text.data, cut[1]) && got_err.data && strstr(got_err.data, "absent.jsonl: cannot open"),
           "an input that cannot be opened: said, the two others read (%zu bytes), status 2 (%d)", got.len, status);
    }
    /* blocks of mapped plain files held until every input is passed (as the GPU
     * path holds them): each stays readable until released */
    {
        char *twice[] = {paths[2], paths[2]};
        block_source *s = block_source_open(twice, 2, 2, 300000);
        source_block held[64];
        size_t nheld = 0;
        while (nheld < 64 && block_source_next(s, 100000, &held[nheld])) nheld++;
        buf_clear(&got);
        for (size_t i = 0; i < nheld; i++) buf_append(&got, held[i].data, held[i].len);
        for (size_t i = 0; i < nheld; i++) block_source_release(s, &held[i]);
        status = block_source_close(s);
        ok(status == 0 && nheld > 4 && nheld < 64 && got.len == 2 * cut[1] && !memcmp(got.data, text.data, cut[1]) &&
               !memcmp(got.data + cut[1], text.data, cut[1]),
           "%zu blocks of two plain files held past their ends: their bytes readable until released", nheld);
    }

    buf_free(&text), buf_free(&part), buf_free(&f), buf_free(&line), buf_free(&want), buf_free(&want_err);
    buf_free(&got), buf_free(&got_err), buf_free(&one);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (!getenv("KEEP") && system(cmd) != 0) diag("could not remove %s", dir);
    return done_testing();
}
