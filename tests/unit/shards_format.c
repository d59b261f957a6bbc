/* shards_format.c - the shard writer and reader against each other and the format. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "core/buf.h"
#include "core/input.h"
#include "core/util.h"
#include "shards/manifest.h"
#include "shards/seek_table.h"
#include "shards/shard_file.h"
#include "shards/shard_format.h"
#include "shards/shard_index.h"
#include "shards/shard_parts.h"
#include "shards/shard_reader.h"
#include "shards/shard_writer.h"
#include "tests/tap.h"

typedef struct {
    uint32_t **ids;
    size_t *len;
    size_t n;
} corpus;

static uint64_t rng_state = 42;
static uint32_t next_rand(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

/* Documents of assorted sizes: empty, tiny, typical, and larger than a frame. */
static corpus synthetic(size_t ndocs, uint32_t vocab)
{
    corpus c = {xcalloc(ndocs, sizeof(uint32_t *)), xcalloc(ndocs, sizeof(size_t)), ndocs};
    for (size_t d = 0; d < ndocs; d++) {
        size_t n = d % 97 == 5 ? 0 : d % 211 == 7 ? 700000 + next_rand() % 1000 : next_rand() % 3000;
        c.ids[d] = xmalloc((n ? n : 1) * sizeof(uint32_t));
        for (size_t i = 0; i < n; i++) c.ids[d][i] = (next_rand() % 7 == 0) ? vocab - 1 : next_rand() % (vocab < 500 ? vocab : 500);
        c.len[d] = n;
    }
    return c;
}

/* The tokref reference ids: per document a u32 count then the ids. */
static corpus tokref(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tokref/%s", shared_dir(), name);
    require_file(path);
    corpus c = {NULL, NULL, 0};
    winput *in = input_open(path);
    if (!in) return c;
    size_t cap = 0;
    uint32_t count;
    while (input_read(in, &count, 4) == 4) {
        if (c.n == cap) {
            cap = cap ? 2 * cap : 1024;
            c.ids = xrealloc(c.ids, cap * sizeof *c.ids);
            c.len = xrealloc(c.len, cap * sizeof *c.len);
        }
        c.ids[c.n] = xmalloc((count ? count : 1) * sizeof(uint32_t));
        size_t got = 0;
        while (got < count * 4u) {
            size_t k = input_read(in, (char *)c.ids[c.n] + got, count * 4u - got);
            if (!k) break;
            got += k;
        }
        c.len[c.n++] = count;
    }
    input_close(in);
    return c;
}

static void free_corpus(corpus *c)
{
    for (size_t i = 0; i < c->n; i++) free(c->ids[i]);
    free(c->ids);
    free(c->len);
}

static int write_corpus(const char *dir, const corpus *c, const shard_writer_options *o)
{
    shard_writer *w = shard_writer_open(dir, o);
    if (!w) return -1;
    for (size_t d = 0; d < c->n; d++)
        if (shard_writer_add_document(w, c->ids[d], c->len[d])) return -1;
    return shard_writer_close(w);
}

/* Every document read back equals what went in, with bos/eos where the options put them. */
static void check_roundtrip(const char *dir, const corpus *c, const shard_writer_options *o, const char *what)
{
    char err[1024];
    shard_reader *r = shard_reader_open(dir, err, sizeof err);
    if (!ok(r != NULL, "%s: reader opens", what)) {
        diag("%s", err);
        return;
    }
    is_int(shard_reader_documents(r), c->n, "%s: document count", what);
    size_t extra = (o->prepend_bos ? 1 : 0) + (o->append_eos ? 1 : 0), front = o->prepend_bos ? 1 : 0;
    uint64_t total = 0, bad = 0;
    shard_doc_iter it;
    shard_iter_init(&it, 0);
    while (shard_iter_next(r, &it)) {
        size_t d = (size_t)it.doc;
        total += c->len[d] + extra;
        if (it.tokens.len != c->len[d] + extra || memcmp(it.tokens.ids + front, c->ids[d], c->len[d] * 4) != 0 ||
            (o->append_eos && it.tokens.ids[it.tokens.len - 1] != (uint32_t)o->eos_id) ||
            (o->prepend_bos && it.tokens.ids[0] != (uint32_t)o->bos_id))
            bad++;
    }
    ok(!it.failed, "%s: iteration reads every frame", what);
    is_int(bad, 0, "%s: every document read in order equals its input", what);
    is_int(shard_reader_tokens(r), total, "%s: token count", what);
    /* random access, in a scrambled order, with a fresh cache position each time */
    bad = 0;
    shard_tokens t = {0};
    for (int k = 0; k < 300 && c->n; k++) {
        size_t d = next_rand() % c->n;
        if (shard_reader_read_document(r, d, &t) || t.len != c->len[d] + extra ||
            memcmp(t.ids + front, c->ids[d], c->len[d] * 4) != 0)
            bad++;
    }
    is_int(bad, 0, "%s: 300 random documents match", what);
    /* token ranges across frame and shard boundaries equal the concatenation */
    bad = 0;
    for (int k = 0; k < 50 && total > 1; k++) {
        uint64_t start = next_rand() % total, n = next_rand() % 400000;
        if (n > total - start) n = total - start;
        if (shard_reader_read_tokens(r, start, n, &t)) {
            bad++;
            continue;
        }
        uint64_t s0, e0; /* compare against documents */
        uint64_t doc = 0;
        for (doc = 0; doc < c->n; doc++) {
            shard_reader_document_range(r, doc, &s0, &e0);
            if (e0 > start) break;
        }
        for (uint64_t i = 0; i < n;) {
            shard_reader_document_range(r, doc, &s0, &e0);
            uint64_t pos = start + i;
            if (pos >= e0) {
                doc++;
                continue;
            }
            uint64_t off = pos - s0;
            uint32_t want = off < front ? (uint32_t)o->bos_id
                            : off - front < c->len[doc] ? c->ids[doc][off - front] : (uint32_t)o->eos_id;
            if (t.ids[i] != want) {
                bad++;
                break;
            }
            i++;
        }
    }
    is_int(bad, 0, "%s: 50 random token ranges match", what);
    ok(shard_reader_read_tokens(r, total, 1, &t) == -1, "%s: reading past the end fails", what);
    ok(shard_reader_read_document(r, c->n, &t) == -1, "%s: document past the end fails", what);
    shard_tokens_free(&t);
    shard_iter_free(&it);
    shard_reader_close(r);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    wbuf b = WBUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&b, chunk, n);
    fclose(f);
    *len = b.len;
    return b.data;
}

/* Same file set, same bytes. */
static int same_dirs(const char *a, const char *b)
{
    DIR *d = opendir(a);
    if (!d) return 0;
    int same = 1, files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char pa[8192], pb[8192];
        snprintf(pa, sizeof pa, "%s/%s", a, e->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, e->d_name);
        size_t la = 0, lb = 0;
        char *x = slurp(pa, &la), *y = slurp(pb, &lb);
        if (!x || !y || la != lb || memcmp(x, y, la)) same = 0;
        free(x);
        free(y);
        files++;
    }
    closedir(d);
    return same && files > 0;
}

static void test_seek_table(void)
{
    seek_entry e[3] = {{100, 1048576, 0xdeadbeef}, {50, 200, 1}, {7, 0, 0}};
    wbuf b = WBUF_INIT;
    buf_append(&b, "x", 1); /* stands for 157 bytes of frames */
    b.len = 0;
    char frames[157] = {0};
    buf_append(&b, frames, sizeof frames);
    seek_table_encode(e, 3, &b);
    is_int(b.len, 157 + 8 + 3 * 12 + 9, "seek table: size is header + 12 per frame + footer");
    const uint8_t *tab = (const uint8_t *)b.data + 157;
    is_int(get_le32(tab), 0x184D2A5E, "seek table: skippable magic");
    is_int(get_le32(tab + 4), 3 * 12 + 9, "seek table: frame size excludes magic and size");
    is_int(get_le32(tab + 8 + 36 + 5), 0x8F92EAB1, "seek table: seekable magic last");
    is_int(tab[8 + 36 + 4], 0x80, "seek table: descriptor has only the checksum flag");
    seek_table t;
    const char *err = NULL;
    uint64_t pos;
    ok(seek_table_parse(tab, b.len - 157, b.len, &t, &err, &pos) == 0, "seek table: parses back");
    is_int(t.nframes, 3, "seek table: 3 frames");
    is_int(t.entries[0].checksum, 0xdeadbeef, "seek table: checksum kept");
    is_int(t.doffset[3], 1048776, "seek table: decompressed offsets add up");
    is_int(seek_table_find(&t, 1048575), 0, "seek table: last byte of frame 0");
    is_int(seek_table_find(&t, 1048576), 1, "seek table: first byte of frame 1");
    seek_table_free(&t);
    ((uint8_t *)b.data)[157 + 8 + 12] ^= 1; /* frame 1's compressed size */
    ok(seek_table_parse(tab, b.len - 157, b.len, &t, &err, &pos) == -1 && pos == 157 + 8,
       "seek table: sizes that do not add up are refused at the entries (%s)", err ? err : "");
    ((uint8_t *)b.data)[157 + 8 + 12] ^= 1;
    ((uint8_t *)b.data)[b.len - 5] |= 0x04; /* a reserved descriptor bit */
    ok(seek_table_parse(tab, b.len - 157, b.len, &t, &err, &pos) == -1, "seek table: reserved bits refused");
    buf_free(&b);
    is_int(seek_checksum("", 0), (uint32_t)0xEF46DB3751D8E999ull, "XXH64 of nothing, low 32 bits (xxHash's published value)");

    /* xxHash's own sanity vectors (cli/xsum_sanity_check.c): XXH64 with seed 0
     * of the first len bytes of its test buffer; the seekable format's
     * checksum is the low 32 bits of that digest */
    static const struct { size_t len; uint64_t xxh64; } vec[] = {
        {1, 0xE934A84ADB052768ull}, {4, 0x9136A0DCA57457EEull}, {14, 0x8282DCC4994E35C8ull}, {222, 0xB641AE8CB691C174ull}};
    uint8_t sanity[222];
    uint64_t gen = 2654435761u; /* xxHash's PRIME32_1 */
    for (size_t i = 0; i < sizeof sanity; i++) {
        sanity[i] = (uint8_t)(gen >> 56);
        gen *= 11400714785074694797ull; /* PRIME64_1 */
    }
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        is_int(seek_checksum(sanity, vec[i].len), (uint32_t)vec[i].xxh64,
               "frame checksum of %zu bytes: XXH64's published value, low 32 bits", vec[i].len);
}

/* Every frame of every shard in dir, decompressed with libzstd, has the
 * checksum the seekable format defines: the low 32 bits of XXH64 (seed 0) of
 * the frame's decompressed bytes, computed here with libxxhash directly. */
static void frames_match_format(const char *dir, const char *what)
{
    char err[512], path[8192];
    shard_reader *r = shard_reader_open(dir, err, sizeof err);
    if (!ok(r != NULL, "%s: opens for the checksum check", what)) return;
    const shard_manifest *m = shard_reader_manifest(r);
    uint64_t frames = 0, bad = 0;
    for (uint32_t i = 0; i < m->nshards; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, m->shards[i].file);
        size_t len;
        uint8_t *file = (uint8_t *)slurp(path, &len);
        shard_file f;
        if (!file || shard_file_open(path, &f, err, sizeof err)) {
            bad++;
            free(file);
            continue;
        }
        for (uint32_t k = 0; k < f.table.nframes; k++, frames++) {
            const seek_entry *e = &f.table.entries[k];
            void *out = xmalloc(e->dsize ? e->dsize : 1);
            size_t got = ZSTD_decompress(out, e->dsize, file + f.table.coffset[k], e->csize);
            if (ZSTD_isError(got) || got != e->dsize || e->checksum != (uint32_t)XXH64(out, got, 0)) bad++;
            free(out);
        }
        shard_file_close(&f);
        free(file);
    }
    ok(frames > 0 && bad == 0, "%s: all %" PRIu64 " frame checksums are XXH64's low 32 bits of the frame (%" PRIu64 " differ)",
       what, frames, bad);
    shard_reader_close(r);
}

static void test_index(void)
{
    uint64_t ends[3] = {5, 5, 9};
    shard_index x = {SHARD_INDEX_CONTINUES, 3, 9, ends}, y;
    wbuf b = WBUF_INIT;
    shard_index_encode(&x, &b);
    is_int(b.len, 32 + 3 * 8 + 8, "index: header + ends + checksum");
    const char *err;
    uint64_t pos;
    ok(shard_index_parse((uint8_t *)b.data, b.len, &y, &err, &pos) == 0 && y.documents == 3 && y.ends[2] == 9 &&
           y.flags == SHARD_INDEX_CONTINUES,
       "index: parses back");
    shard_index_free(&y);
    int caught = 0;
    for (size_t i = 0; i < b.len; i++) {
        b.data[i] ^= 0x10;
        if (shard_index_parse((uint8_t *)b.data, b.len, &y, &err, &pos) == -1) caught++;
        else shard_index_free(&y);
        b.data[i] ^= 0x10;
    }
    is_int(caught, b.len, "index: a flipped bit anywhere is caught");
    /* well-checksummed but inconsistent (docs/shards.md: end offsets never
     * decrease, the last is the shard's token count) */
    uint64_t down[3] = {5, 4, 9}, short_end[3] = {2, 5, 8}, past[3] = {2, 10, 9};
    uint64_t *bad[] = {down, short_end, past};
    const char *what[] = {"a decreasing end offset", "a last end short of the token count", "an end past the token count"};
    for (int k = 0; k < 3; k++) {
        shard_index z = {0, 3, 9, bad[k]};
        buf_clear(&b);
        shard_index_encode(&z, &b);
        int r = shard_index_parse((uint8_t *)b.data, b.len, &y, &err, &pos);
        ok(r == -1, "index: %s is refused (%s)", what[k], r ? err : "accepted");
        if (r == 0) shard_index_free(&y);
    }
    buf_free(&b);
}

static void test_manifest(void)
{
    manifest_shard s[2] = {{"shard_00000.tok.zst", "shard_00000.idx", 10, 2, 99, 0x0123456789abcdefull, 42, false},
                           {"shard_00001.tok.zst", "shard_00001.idx", 5, 1, 50, 1, 0xffffffffffffffffull, true}};
    shard_manifest m = {1, "cl\"100k", NULL, 100277, 4, 100257, -1, true, false, true, 1 << 20, 10, 3, 15, 2, 149, s, 2};
    wbuf b = WBUF_INIT;
    manifest_write_json(&m, &b);
    shard_manifest p;
    char err[256];
    ok(manifest_parse(b.data, b.len, &p, err, sizeof err) == 0, "manifest: parses back");
    ok(strcmp(p.tokenizer, "cl\"100k") == 0 && !p.vocab_sha256 && p.vocab_size == 100277 && p.dtype_bytes == 4 &&
           p.eos == 100257 && p.bos == -1 && p.eos_appended && !p.bos_prepended && p.split_docs,
       "manifest: header fields kept");
    ok(p.nshards == 2 && p.shards[0].xxh3 == 0x0123456789abcdefull && p.shards[1].file_xxh3 == 0xffffffffffffffffull &&
           p.shards[1].continues && strcmp(p.shards[1].index, "shard_00001.idx") == 0,
       "manifest: shard fields kept");
    manifest_free(&p);
    /* a negative (fast) zstd level is written and read back as it is */
    m.zstd_level = -5;
    buf_clear(&b);
    manifest_write_json(&m, &b);
    ok(strstr(b.data, "\"zstd_level\": -5,") != NULL, "manifest: a negative zstd level is written as it is");
    int got = manifest_parse(b.data, b.len, &p, err, sizeof err);
    ok(got == 0 && p.zstd_level == -5, "manifest: a negative zstd level reads back (%s)", got ? err : "read");
    if (got == 0) manifest_free(&p);
    /* ... but a level that is no integer is refused */
    const char *level = strstr(b.data, "-5,");
    wbuf edited = WBUF_INIT;
    buf_append(&edited, b.data, (size_t)(level - b.data));
    buf_puts(&edited, "-5.5");
    buf_puts(&edited, level + 2);
    got = manifest_parse(edited.data, edited.len, &p, err, sizeof err);
    ok(got == -1 && strstr(err, "zstd_level"), "manifest: a zstd level of -5.5 is refused (%s)", got ? err : "read");
    if (got == 0) manifest_free(&p);
    buf_free(&edited);
    /* numbers follow JSON's grammar (RFC 8259, 6; Python's json refuses these too): not "+N", not "0N" */
    const char *vocab = strstr(b.data, "100277");
    const char *malformed[] = {"+100277", "0100277", "100277.", "100277e"};
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
        wbuf e = WBUF_INIT;
        buf_append(&e, b.data, (size_t)(vocab - b.data));
        buf_puts(&e, malformed[i]);
        buf_puts(&e, vocab + 6);
        got = manifest_parse(e.data, e.len, &p, err, sizeof err);
        ok(got == -1 && strstr(err, "malformed number"), "manifest: vocab_size %s is refused (%s)", malformed[i],
           got ? err : "read");
        if (got == 0) manifest_free(&p);
        buf_free(&e);
    }
    m.zstd_level = 3;
    const char *bad[] = {"{", "{\"format\":\"winnow-shards\",\"version\":2}", "[]", "{\"format\":\"other\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ok(manifest_parse(bad[i], strlen(bad[i]), &p, err, sizeof err) == -1, "manifest: refuses %s (%s)", bad[i], err);
    /* the same complete manifest as another format version */
    m.version = 2;
    buf_clear(&b);
    manifest_write_json(&m, &b);
    int r = manifest_parse(b.data, b.len, &p, err, sizeof err);
    ok(r == -1 && strstr(err, "version"), "manifest: a complete manifest of version 2 is refused (%s)", r ? err : "read");
    if (r == 0) manifest_free(&p);
    buf_free(&b);
}

/* zstd levels for shards: zstd's range, not 0 (zstd's "default" names no level). */
static void test_levels(void)
{
    char lowest[32], below[32];
    snprintf(lowest, sizeof lowest, "%d", ZSTD_minCLevel());
    snprintf(below, sizeof below, "%d", ZSTD_minCLevel() - 1);
    const char *good[] = {"1", "3", "22", "-1", "-5", lowest};
    const int want[] = {1, 3, 22, -1, -5, ZSTD_minCLevel()};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        int level = 0;
        ok(shard_level_parse(good[i], &level) && level == want[i], "level %s accepted", good[i]);
    }
    const char *bad[] = {"0", "-0", "23", "", "x", "1x", "-1x", " 1", "1.5", below};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int level = 7;
        ok(!shard_level_parse(bad[i], &level) && level == 7, "level '%s' refused", bad[i]);
    }
    ok(!shard_level_parse(NULL, &(int){0}), "no level text refused");
}

/* shard_parts_merge: two parts written with the same settings become one
 * directory that reads as the parts' documents in part order; parts whose
 * settings differ in one field (the vocabulary size, the dtype, the EOS id,
 * --split-docs) are refused naming the part, and nothing is moved. */
static void test_merge_parts(const char *tmp)
{
    corpus c = synthetic(300, 1000);
    corpus halves[2] = {{c.ids, c.len, 150}, {c.ids + 150, c.len + 150, 150}};
    shard_writer_options o;
    shard_writer_options_init(&o);
    o.vocab_size = 1000;
    o.eos_id = 999;
    o.shard_tokens = 100000;
    char part[2][4096], out[4096], err[1024], path[8192];
    shard_manifest m[2];
    for (int k = 0; k < 2; k++) {
        snprintf(part[k], sizeof part[k], "%s/part%d", tmp, k);
        ok(write_corpus(part[k], &halves[k], &o) == 0 && manifest_load(part[k], &m[k], err, sizeof err) == 0, "merge: part %d written", k);
    }
    snprintf(out, sizeof out, "%s/merged", tmp);
    if (mkdir(out, 0755) != 0) diag("cannot make %s", out);
    shard_part parts[2] = {{part[0], &m[0]}, {part[1], &m[1]}};
    /* one setting changed in part 1's manifest at a time */
    static const char *const fields[] = {"vocab_size", "dtype", "eos", "split_docs"};
    for (int f = 0; f < 4; f++) {
        shard_manifest other = m[1];
        if (f == 0) other.vocab_size = 50257;
        else if (f == 1) other.dtype_bytes = 4;
        else if (f == 2) other.eos = 998;
        else other.split_docs = !other.split_docs;
        shard_part mixed[2] = {{part[0], &m[0]}, {part[1], &other}};
        int rc = shard_parts_merge(out, mixed, 2, err, sizeof err);
        snprintf(path, sizeof path, "%s/%s", out, SHARD_MANIFEST);
        ok(rc == -1 && strstr(err, part[1]) && strstr(err, "other settings") && access(path, F_OK) != 0,
           "merge: a part with another %s is refused, nothing written (%s)", fields[f], rc ? err : "merged");
    }
    snprintf(path, sizeof path, "%s/%s", part[1], m[1].shards[0].file);
    ok(access(path, F_OK) == 0, "merge: the refused parts' shards are where they were");
    uint32_t want_shards = m[0].nshards + m[1].nshards;
    ok(shard_parts_merge(out, parts, 2, err, sizeof err) == 0, "merge: parts of the same settings merge (%u shards)", want_shards);
    shard_reader *r = shard_reader_open(out, err, sizeof err);
    if (ok(r != NULL, "merge: the merged directory opens (%s)", r ? "" : err)) {
        is_int(shard_reader_manifest(r)->nshards, want_shards, "merge: every part's shards");
        check_roundtrip(out, &c, &o, "merged parts");
        shard_reader_close(r);
    }
    for (int k = 0; k < 2; k++) manifest_free(&m[k]);
    free_corpus(&c);
}

int main(void)
{
    test_levels();
    test_seek_table();
    test_index();
    test_manifest();

    char tmpl[] = "/tmp/winnow-shards-unit.XXXXXX";
    char *tmp = mkdtemp(tmpl);
    char dir[4096], dir2[4096];

    /* synthetic, uint16, whole documents, several threads */
    corpus c = synthetic(1200, 50257);
    shard_writer_options o;
    shard_writer_options_init(&o);
    o.vocab_size = 50257;
    o.eos_id = 50256;
    o.shard_tokens = 1500000;
    o.threads = 3;
    snprintf(dir, sizeof dir, "%s/a", tmp);
    ok(write_corpus(dir, &c, &o) == 0, "synthetic: written");
    check_roundtrip(dir, &c, &o, "synthetic uint16");
    frames_match_format(dir, "synthetic uint16");
    {
        char err[512];
        shard_reader *r = shard_reader_open(dir, err, sizeof err);
        const shard_manifest *m = shard_reader_manifest(r);
        ok(m->nshards > 1 && m->dtype_bytes == 2, "synthetic: %u shards of uint16", m->nshards);
        int over = 0, split = 0;
        for (uint32_t i = 0; i < m->nshards; i++) {
            if (m->shards[i].tokens > o.shard_tokens && m->shards[i].documents > 1) over++;
        }
        /* a document that fits in a frame lies in one frame */
        for (uint64_t d = 0; d < shard_reader_documents(r); d++) {
            uint64_t s, e;
            shard_reader_document_range(r, d, &s, &e);
            if ((e - s) * 2 <= SHARD_FRAME_BYTES && e > s) {
                /* find the shard and frame of the first and last token */
                uint64_t base = 0;
                uint32_t k = 0;
                while (base + m->shards[k].tokens <= s) base += m->shards[k++].tokens;
                char path[8192];
                snprintf(path, sizeof path, "%s/%s", dir, m->shards[k].file);
                shard_file f;
                shard_file_open(path, &f, err, sizeof err);
                if (seek_table_find(&f.table, (s - base) * 2) != seek_table_find(&f.table, (e - 1 - base) * 2)) split++;
                shard_file_close(&f);
            }
        }
        is_int(over, 0, "synthetic: only single-document shards exceed --shard-tokens");
        is_int(split, 0, "synthetic: no document that fits a frame is split across frames");
        shard_reader_close(r);
    }
    o.threads = 1;
    snprintf(dir2, sizeof dir2, "%s/a1", tmp);
    write_corpus(dir2, &c, &o);
    ok(same_dirs(dir, dir2), "synthetic: 1 thread writes the same bytes as 3");

    /* split documents across shards smaller than some documents, with bos */
    o.split_docs = true;
    o.shard_tokens = 300007;
    o.prepend_bos = true;
    o.bos_id = 50255;
    o.threads = 2;
    snprintf(dir, sizeof dir, "%s/b", tmp);
    ok(write_corpus(dir, &c, &o) == 0, "split: written");
    check_roundtrip(dir, &c, &o, "split-docs uint16");
    {
        char err[512];
        shard_reader *r = shard_reader_open(dir, err, sizeof err);
        const shard_manifest *m = shard_reader_manifest(r);
        int exact = 1, spans3 = 0;
        for (uint32_t i = 0; i + 1 < m->nshards; i++) {
            if (m->shards[i].tokens != o.shard_tokens) exact = 0;
            if (m->shards[i].continues && m->shards[i].documents == 1 && m->shards[i + 1].continues) spans3 = 1;
        }
        ok(exact, "split: every shard but the last holds exactly --shard-tokens");
        ok(spans3, "split: some document spans three shards");
        shard_reader_close(r);
    }

    /* bad ids are refused without writing anything of the document */
    shard_writer_options_init(&o);
    o.vocab_size = 1000;
    o.eos_id = 999;
    snprintf(dir, sizeof dir, "%s/c", tmp);
    shard_writer *w = shard_writer_open(dir, &o);
    uint32_t good[3] = {1, 2, 3}, badids[3] = {4, 1000, 5};
    ok(shard_writer_add_document(w, badids, 3) == -1, "bad id: refused");
    ok(strstr(shard_writer_error(w), "token 1 of 3 is id 1000") != NULL, "bad id: message names it (%s)", shard_writer_error(w));
    shard_writer_add_document(w, good, 3);
    is_int(shard_writer_tokens(w), 4, "bad id: only the good document was written");
    shard_writer_close(w);
    o.append_eos = true;
    o.eos_id = -1;
    ok(shard_writer_open(dir, &o) == NULL, "options: appending EOS without an eos id refused");
    free_corpus(&c);

    /* real ids: tiktoken cl100k_base (uint32) and gpt2 (uint16) references */
    const char *names[] = {"multi.cl100k_base.bin.zst", "edge.gpt2.bin.zst"};
    const uint64_t vocab[] = {100277, 50257}, eos[] = {100257, 50256};
    for (int i = 0; i < 2; i++) {
        corpus t = tokref(names[i]);
        if (!ok(t.n > 0, "tokref %s: %zu documents read", names[i], t.n)) continue;
        shard_writer_options_init(&o);
        o.vocab_size = vocab[i];
        o.eos_id = (int64_t)eos[i];
        o.tokenizer_name = i ? "gpt2" : "cl100k_base";
        o.shard_tokens = 2000000;
        o.threads = 2;
        snprintf(dir, sizeof dir, "%s/t%d", tmp, i);
        ok(write_corpus(dir, &t, &o) == 0, "tokref %s: written", names[i]);
        check_roundtrip(dir, &t, &o, names[i]);
        frames_match_format(dir, names[i]);
        /* a fast (negative) level: the same ids, each frame's checksum still the format's */
        o.zstd_level = -5;
        snprintf(dir, sizeof dir, "%s/t%d-fast", tmp, i);
        char what[128];
        snprintf(what, sizeof what, "%s at level -5", names[i]);
        ok(write_corpus(dir, &t, &o) == 0, "%s: written", what);
        check_roundtrip(dir, &t, &o, what);
        frames_match_format(dir, what);
        free_corpus(&t);
    }
    test_merge_parts(tmp);
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd)) diag("could not remove %s", tmp);
    return done_testing();
}
