/* shards_writer_rules.c - the shard writer's rules from docs/shards.md at
 * their edges: a shard's size counts the bos and eos the writer adds, an id
 * equal to the vocabulary size is refused, special ids are recorded as given
 * (id 0 included, bos without --prepend-bos), an eos id not below the
 * vocabulary size is refused even when only recorded, a smaller rerun
 * removes every shard of an earlier run, one that lost its .idx included, and
 * a tokenizer name that is not UTF-8 is refused by the writer and the reader
 * (JSON text is UTF-8, RFC 8259 8.1; Python's json.load refuses it). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "shards/manifest.h"
#include "shards/manifest_digest.h"
#include "shards/shard_writer.h"
#include "tests/tap.h"

#define VOCAB 1000
#define EOS 999
#define BOS 998

static char tmp[64];

static void path_in(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s/%s", tmp, dir, name);
}

static bool exists(const char *dir, const char *name)
{
    char p[256];
    path_in(p, sizeof p, dir, name);
    return access(p, F_OK) == 0;
}

static shard_writer_options options(uint64_t shard_tokens)
{
    shard_writer_options o;
    shard_writer_options_init(&o);
    o.vocab_size = VOCAB;
    o.eos_id = EOS;
    o.shard_tokens = shard_tokens;
    return o;
}

/* Writes ndocs documents of the given lengths (ids 1, 2, ...) into tmp/dir. */
static int write_docs(const char *dir, const shard_writer_options *o, const size_t *lens, size_t ndocs)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmp, dir);
    shard_writer *w = shard_writer_open(p, o);
    if (!w) return -1;
    uint32_t ids[64];
    for (size_t i = 0; i < 64; i++) ids[i] = (uint32_t)(i + 1);
    for (size_t d = 0; d < ndocs; d++)
        if (shard_writer_add_document(w, ids, lens[d])) return -1;
    return shard_writer_close(w);
}

static bool load(const char *dir, shard_manifest *m)
{
    char p[256], err[512];
    snprintf(p, sizeof p, "%s/%s", tmp, dir);
    if (manifest_load(p, m, err, sizeof err) == 0) return true;
    diag("%s", err);
    return false;
}

/* Without --split-docs a shard ends before a document that would take it past
 * --shard-tokens, the bos and eos the writer adds counted: 4 ids + bos + eos
 * is 6 tokens, and 3 more ids + bos + eos (5) would make 11 > 10. */
static void test_shard_size_counts_bos(void)
{
    shard_writer_options o = options(10);
    o.bos_id = BOS;
    o.prepend_bos = true;
    size_t lens[] = {4, 3, 3};
    ok(write_docs("bos", &o, lens, 3) == 0, "bos: written");
    shard_manifest m;
    if (!load("bos", &m)) {
        ok(0, "bos: manifest read");
        return;
    }
    ok(m.nshards == 2, "bos: 6 + 5 tokens is more than 10: two shards (%u)", m.nshards);
    ok(m.nshards == 2 && m.shards[0].tokens == 6 && m.shards[0].documents == 1 && m.shards[1].tokens == 10 &&
           m.shards[1].documents == 2,
       "bos: shards of 6 tokens (1 document) and 10 (2)");
    for (uint32_t i = 0; i < m.nshards; i++)
        ok(m.shards[i].tokens <= o.shard_tokens, "bos: shard %u holds %" PRIu64 " tokens, at most 10", i,
           m.shards[i].tokens);
    ok(m.tokens == 4 + 3 + 3 + 3 * 2, "bos: %" PRIu64 " tokens in all, bos and eos included", m.tokens);
    manifest_free(&m);
}

/* An id equal to the vocabulary size is not below it: the document is refused
 * and nothing of it is written. */
static void test_id_equal_vocab_size(void)
{
    shard_writer_options o = options(100);
    char p[256];
    snprintf(p, sizeof p, "%s/badid", tmp);
    shard_writer *w = shard_writer_open(p, &o);
    uint32_t good[] = {1, 2, 3}, bad[] = {5, VOCAB, 6}, top[] = {VOCAB - 1};
    ok(shard_writer_add_document(w, good, 3) == 0, "bad id: a good document is taken");
    ok(shard_writer_add_document(w, bad, 3) == -1, "bad id: id %d, the vocabulary size, is refused", VOCAB);
    ok(strstr(shard_writer_error(w), "token 1 of 3 is id 1000") != NULL, "bad id: the message names it (%s)",
       shard_writer_error(w));
    ok(shard_writer_add_document(w, top, 1) == 0, "bad id: id %d, one below, is taken", VOCAB - 1);
    ok(shard_writer_documents(w) == 2 && shard_writer_tokens(w) == 3 + 1 + 1 + 1,
       "bad id: 2 documents, 6 tokens written (%" PRIu64 ", %" PRIu64 ")", shard_writer_documents(w),
       shard_writer_tokens(w));
    shard_writer_close(w);
}

/* The special ids are recorded as given: eos 0 (gpt-neox's <|endoftext|> is
 * id 0) is 0, not null, and --bos without --prepend-bos is still recorded. */
static void test_special_ids_recorded(void)
{
    shard_writer_options o = options(100);
    o.eos_id = 0;
    o.bos_id = BOS;
    size_t lens[] = {2};
    ok(write_docs("special", &o, lens, 1) == 0, "special: written");
    char p[256];
    path_in(p, sizeof p, "special", "manifest.json");
    FILE *f = fopen(p, "rb");
    char text[4096] = {0};
    if (f) {
        size_t got = fread(text, 1, sizeof text - 1, f);
        text[got] = 0;
        fclose(f);
    }
    ok(strstr(text, "\"special\": {\"eos\": 0, \"bos\": 998}") != NULL, "special: written as eos 0, bos 998");
    shard_manifest m;
    if (load("special", &m)) {
        ok(m.eos == 0 && m.bos == BOS && m.eos_appended && !m.bos_prepended,
           "special: read back as eos 0 (appended), bos 998 (not prepended)");
        manifest_free(&m);
    } else {
        ok(0, "special: manifest read");
    }
}

/* A recorded eos id must be below the vocabulary size even when the writer
 * does not append it: exports use it as a delimiter. */
static void test_recorded_eos_checked(void)
{
    shard_writer_options o = options(100);
    o.append_eos = false;
    o.eos_id = VOCAB;
    ok(!shard_writer_options_valid(&o), "eos: id %d, the vocabulary size, refused though not appended", VOCAB);
    o.eos_id = VOCAB - 1;
    ok(shard_writer_options_valid(&o), "eos: id %d taken", VOCAB - 1);
    o.bos_id = VOCAB;
    ok(!shard_writer_options_valid(&o), "bos: id %d, the vocabulary size, refused though not prepended", VOCAB);
}

/* A rerun writing fewer shards removes the earlier run's later shards, both
 * files of each, also past a shard whose .idx is missing (a writer killed
 * between its two renames leaves one). */
static void test_stale_shards_removed(void)
{
    shard_writer_options o = options(10);
    size_t lens[] = {8, 8, 8, 8, 8};
    ok(write_docs("stale", &o, lens, 5) == 0, "stale: first run written");
    ok(exists("stale", "shard_00004.tok.zst") && exists("stale", "shard_00004.idx"), "stale: first run has 5 shards");
    char p[256];
    path_in(p, sizeof p, "stale", "shard_00002.idx");
    ok(unlink(p) == 0, "stale: shard 2's index taken away");
    ok(write_docs("stale", &o, lens, 1) == 0, "stale: second run written");
    ok(exists("stale", "shard_00000.tok.zst") && exists("stale", "shard_00000.idx"), "stale: shard 0 written");
    for (int no = 1; no <= 4; no++) {
        char tok[64], idx[64];
        snprintf(tok, sizeof tok, "shard_%05d.tok.zst", no);
        snprintf(idx, sizeof idx, "shard_%05d.idx", no);
        ok(!exists("stale", tok) && !exists("stale", idx), "stale: shard %d of the first run removed", no);
    }
    shard_manifest m;
    if (load("stale", &m)) {
        ok(m.nshards == 1 && m.documents == 1, "stale: the manifest lists one shard of one document");
        manifest_free(&m);
    } else {
        ok(0, "stale: manifest read");
    }
}

/* The manifest is JSON, so UTF-8: the writer once wrote such a name repaired
 * (U+FFFD) but checksummed it as given, so that every reader refused its own
 * directory; the C reader took raw bytes that Python's json.load refuses. */
static void test_tokenizer_name_utf8(void)
{
    shard_writer_options o = options(100);
    o.tokenizer_name = "x\xff";
    ok(!shard_writer_options_valid(&o), "utf-8: the writer refuses the tokenizer name x\\xff");
    o.tokenizer_name = "t\xc3\xa9st";
    ok(shard_writer_options_valid(&o), "utf-8: the writer takes t\\xc3\\xa9st (U+00E9)");

    /* a manifest whose name is the raw byte 0xff, its checksum made to match */
    manifest_shard none[1];
    shard_manifest m = {1, "x\xff", NULL, VOCAB, 2, EOS, -1, true, false, false, 1 << 20, 1, 100, 0, 0, 0, none, 0};
    wbuf b = WBUF_INIT;
    manifest_write_json(&m, &b);
    char *name = strstr(b.data, "\"x\xef\xbf\xbd\""); /* json_put_string wrote U+FFFD */
    ok(name != NULL, "utf-8: the JSON writer put U+FFFD for 0xff");
    if (name) {
        name[2] = '\xff';
        memmove(name + 3, name + 5, strlen(name + 5) + 1);
        b.len -= 2;
    }
    shard_manifest p;
    char err[256] = "";
    int got = manifest_parse(b.data, b.len, &p, err, sizeof err);
    ok(got == -1 && strstr(err, "not UTF-8"), "utf-8: the reader refuses the raw byte 0xff in a string (%s)",
       got ? err : "read");
    if (got == 0) manifest_free(&p);
    /* the same manifest with the name t\u00e9st as two UTF-8 bytes reads */
    m.tokenizer = "t\xc3\xa9st";
    buf_clear(&b);
    manifest_write_json(&m, &b);
    got = manifest_parse(b.data, b.len, &p, err, sizeof err);
    ok(got == 0 && strcmp(p.tokenizer, "t\xc3\xa9st") == 0, "utf-8: a UTF-8 name reads back (%s)", got ? err : "read");
    if (got == 0) manifest_free(&p);
    buf_free(&b);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/winnow-writer-rules.XXXXXX");
    if (!mkdtemp(tmp)) {
        ok(0, "temporary directory");
        return done_testing();
    }
    test_shard_size_counts_bos();
    test_id_equal_vocab_size();
    test_special_ids_recorded();
    test_recorded_eos_checked();
    test_stale_shards_removed();
    test_tokenizer_name_utf8();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) diag("cannot remove %s", tmp);
    return done_testing();
}
