/* dedup_stream.c - the streaming dedup (partitioned index, filled by the
 * workers) removes exactly what the rule says, whatever the thread count and
 * batch size: a document goes when its exact hash or a band key was had by
 * an earlier document, naming the earliest one.
 *
 * Input: every real document of the Dolma CC, C4 and DCLM samples, with
 * exact copies right after their original (same batch), edited copies (near
 * duplicates, one word inserted), documents whose normal form is empty, a
 * bad line, and at the end copies and edited copies of the first documents
 * (other batches). The reference applies the rule by sorting (key,
 * document) pairs, the way the staged mode does, with no hash table; the
 * stage runs with 1, 2 and 8 threads and batches of 4 KiB, 64 KiB and the
 * default 1 MiB, and its kept ids and rejects (reason, dup_of) must equal the
 * reference's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/json.h"
#include "core/util.h"
#include "dedup/stream.h"
#include "tests/tap.h"
#include "tests/unit/jsonl_texts.h"

#define EDITED_WORD "zqxj"
#define TAIL_COPIES 300 /* documents repeated at the end, other batches */

typedef struct {
    char **texts;
    size_t n, cap;
} texts;

static void add_text(const char *text, size_t len, void *ctx)
{
    texts *t = ctx;
    if (t->n == t->cap) t->texts = xrealloc(t->texts, (t->cap = t->cap ? 2 * t->cap : 1024) * sizeof *t->texts);
    char *s = xmalloc(len + 1);
    memcpy(s, text, len);
    s[len] = 0;
    t->texts[t->n++] = s;
}

/* The input documents, in order: id and text (NULL text: a bad line). */
typedef struct {
    char **ids, **texts;
    size_t n, cap;
} docs;

static void add_doc(docs *d, const char *prefix, size_t i, const char *text)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 1024;
        d->ids = xrealloc(d->ids, d->cap * sizeof *d->ids);
        d->texts = xrealloc(d->texts, d->cap * sizeof *d->texts);
    }
    char id[64];
    snprintf(id, sizeof id, "%s%zu", prefix, i);
    d->ids[d->n] = xstrdup(id);
    d->texts[d->n] = text ? xstrdup(text) : NULL;
    d->n++;
}

/* text with EDITED_WORD inserted at its middle space (or at its end). */
static char *edited(const char *text)
{
    size_t len = strlen(text);
    const char *space = strchr(text + len / 2, ' ');
    size_t at = space ? (size_t)(space - text) : len;
    char *s = xmalloc(len + sizeof EDITED_WORD + 2);
    memcpy(s, text, at);
    sprintf(s + at, " " EDITED_WORD "%s", text + at);
    return s;
}

static void build_docs(const texts *real, docs *d)
{
    for (size_t i = 0; i < real->n; i++) {
        add_doc(d, "r", i, real->texts[i]);
        if (i % 5 == 0) add_doc(d, "x", i, real->texts[i]);
        if (i % 7 == 0) {
            char *e = edited(real->texts[i]);
            add_doc(d, "n", i, e);
            free(e);
        }
        if (i % 50 == 0) {
            add_doc(d, "e", i, i % 100 ? "" : "!!! ... ---");
        }
        if (i == 100) add_doc(d, "bad", i, NULL);
    }
    for (size_t i = 0; i < TAIL_COPIES && i < real->n; i++) {
        add_doc(d, "y", i, real->texts[i]);
        if (i % 3 == 0) {
            char *e = edited(real->texts[i]);
            add_doc(d, "m", i, e);
            free(e);
        }
    }
}

static void write_docs(const docs *d, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) dief(EXIT_FATAL, "%s: cannot write", path);
    wbuf line = WBUF_INIT;
    for (size_t i = 0; i < d->n; i++) {
        buf_clear(&line);
        buf_puts(&line, "{\"id\":");
        json_put_string(&line, d->ids[i], strlen(d->ids[i]));
        if (d->texts[i]) {
            buf_puts(&line, ",\"text\":");
            json_put_string(&line, d->texts[i], strlen(d->texts[i]));
            buf_puts(&line, "}\n");
        } else {
            buf_puts(&line, ",\"text\":\"broken\n");
        }
        fwrite(line.data, 1, line.len, f);
    }
    fclose(f);
    buf_free(&line);
}

/* (key, document) pairs of the reference. */
typedef struct {
    uint64_t k0, k1;
    uint32_t doc;
} pair;

static int by_key_then_doc(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->k0 != y->k0) return x->k0 < y->k0 ? -1 : 1;
    if (x->k1 != y->k1) return x->k1 < y->k1 ? -1 : 1;
    return x->doc < y->doc ? -1 : x->doc > y->doc;
}

/* Sorts the pairs; first[i] = the earliest document of pair i's key. */
static void first_holders(pair *pairs, size_t n, uint32_t *first)
{
    qsort(pairs, n, sizeof *pairs, by_key_then_doc);
    for (size_t i = 0, group = 0; i < n; i++) {
        if (pairs[i].k0 != pairs[group].k0 || pairs[i].k1 != pairs[group].k1) group = i;
        first[i] = pairs[group].doc;
    }
}

/* The expected output: kept ids, one a line; rejects as "id reason dup_of". */
static void reference(const docs *d, const minhash_params *p, wbuf *kept, wbuf *rejects, int *nexact, int *nnear)
{
    dedup_signer *s = dedup_signer_create(p);
    size_t n = 0;
    uint32_t *doc_of = xmalloc(d->n * sizeof *doc_of); /* good documents' input positions */
    dedup_fp *fp = xcalloc(d->n, sizeof *fp);
    uint64_t *keys = xmalloc(d->n * (size_t)p->bands * sizeof *keys);
    uint64_t *sig = xmalloc((size_t)p->k * sizeof *sig);
    for (size_t i = 0; i < d->n; i++) {
        if (!d->texts[i]) continue;
        dedup_signer_add(s, d->texts[i], strlen(d->texts[i]), &fp[n]);
        dedup_signer_finish(s, sig);
        if (fp[n].nshingles) minhash_band_keys(p, sig, keys + n * (size_t)p->bands);
        doc_of[n++] = (uint32_t)i;
    }
    pair *exact = xmalloc(n * sizeof *exact), *band = xmalloc(n * (size_t)p->bands * sizeof *band);
    size_t nband = 0;
    for (size_t i = 0; i < n; i++) {
        exact[i] = (pair){fp[i].exact[0], fp[i].exact[1], (uint32_t)i};
        for (int j = 0; j < p->bands && fp[i].nshingles; j++) band[nband++] = (pair){keys[i * p->bands + j], 0, (uint32_t)i};
    }
    uint32_t *exact_first = xmalloc(n * sizeof *exact_first), *band_first = xmalloc((nband + 1) * sizeof *band_first);
    first_holders(exact, n, exact_first);
    first_holders(band, nband, band_first);
    uint32_t *exact_earliest = xmalloc(n * sizeof *exact_earliest), *near_earliest = xmalloc(n * sizeof *near_earliest);
    for (size_t i = 0; i < n; i++) exact_earliest[exact[i].doc] = exact_first[i];
    for (size_t i = 0; i < n; i++) near_earliest[i] = UINT32_MAX;
    for (size_t i = 0; i < nband; i++)
        if (band_first[i] < band[i].doc && band_first[i] < near_earliest[band[i].doc]) near_earliest[band[i].doc] = band_first[i];
    *nexact = *nnear = 0;
    for (size_t i = 0; i < n; i++) {
        const char *id = d->ids[doc_of[i]];
        bool is_exact = exact_earliest[i] < i;
        uint32_t first = fp[i].nshingles ? near_earliest[i] : exact_earliest[i];
        if (!is_exact && near_earliest[i] == UINT32_MAX) {
            buf_puts(kept, id);
            buf_putc(kept, '\n');
            continue;
        }
        *(is_exact ? nexact : nnear) += 1;
        char line[256];
        snprintf(line, sizeof line, "%s %s %s\n", id, is_exact ? "exact_dup" : "near_dup", d->ids[doc_of[first]]);
        buf_puts(rejects, line);
    }
    dedup_signer_destroy(s);
    free(doc_of), free(fp), free(keys), free(sig), free(exact), free(band);
    free(exact_first), free(band_first), free(exact_earliest), free(near_earliest);
}

/* The value of "key":"..." in line (a plain string, as ours are), or "". */
static void member(const char *line, const char *key, char *out, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *at = strstr(line, pat);
    out[0] = 0;
    if (!at) return;
    at += strlen(pat);
    const char *end = strchr(at, '"');
    size_t len = end ? (size_t)(end - at) : 0;
    if (len >= n) len = n - 1;
    memcpy(out, at, len);
    out[len] = 0;
}

/* Reads the stage's outputs back in the reference's form. */
static void read_outputs(const char *out_path, const char *rej_path, wbuf *kept, wbuf *rejects)
{
    char *line = NULL;
    size_t cap = 0;
    FILE *f = fopen(out_path, "r");
    while (f && getline(&line, &cap, f) > 0) {
        char id[64];
        member(line, "id", id, sizeof id);
        buf_puts(kept, id);
        buf_putc(kept, '\n');
    }
    if (f) fclose(f);
    f = fopen(rej_path, "r");
    while (f && getline(&line, &cap, f) > 0) {
        char id[64], reason[64], dup_of[64], text[256];
        member(line, "id", id, sizeof id); /* the reject object has no "id" member */
        member(line, "reason", reason, sizeof reason);
        member(line, "dup_of", dup_of, sizeof dup_of);
        snprintf(text, sizeof text, "%s %s %s\n", id, reason, dup_of);
        buf_puts(rejects, text);
    }
    if (f) fclose(f);
    free(line);
}

/* The first line where a and b differ, for the diagnostics. */
static void show_difference(const wbuf *got, const wbuf *want)
{
    size_t i = 0, line_start = 0;
    while (i < got->len && i < want->len && got->data[i] == want->data[i]) {
        if (got->data[i] == '\n') line_start = i + 1;
        i++;
    }
    diag("first difference at byte %zu: got '%.60s' want '%.60s'", i, got->data ? got->data + line_start : "",
         want->data ? want->data + line_start : "");
}

int main(void)
{
    char path[4096];
    const char *files[] = {"jsonl/dolma/tests/data/formats/gz/CC-MAIN-20190717121559-20190717143559-00140.jsonl.gz",
                           "jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz",
                           "jsonl/dclm/data/majority_data.jsonl"};
    texts real = {0};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        snprintf(path, sizeof path, "%s/%s", shared_dir(), files[f]);
        long got = jsonl_for_each_text(path, add_text, &real);
        ok(got > 0, "read %ld documents from %s", got, files[f]);
    }
    docs d = {0};
    build_docs(&real, &d);
    char dir[] = "/tmp/winnow-dedup-stream-XXXXXX";
    if (!mkdtemp(dir)) dief(EXIT_FATAL, "mkdtemp failed");
    char in_path[256], out_path[256], rej_path[256];
    snprintf(in_path, sizeof in_path, "%s/in.jsonl", dir);
    snprintf(out_path, sizeof out_path, "%s/out.jsonl", dir);
    snprintf(rej_path, sizeof rej_path, "%s/rejects.jsonl", dir);
    write_docs(&d, in_path);

    dedup_config c = {.device = DEVICE_CPU};
    minhash_params_init(&c.params, MINHASH_DEFAULT_BANDS, MINHASH_DEFAULT_ROWS, MINHASH_DEFAULT_NGRAM, MINHASH_DEFAULT_SEED);
    wbuf want_kept = WBUF_INIT, want_rejects = WBUF_INIT;
    int nexact, nnear;
    reference(&d, &c.params, &want_kept, &want_rejects, &nexact, &nnear);
    ok(nexact > 500 && nnear > 100, "%zu documents: the reference finds %d exact and %d near duplicates", d.n, nexact, nnear);

    const int threads[] = {1, 2, 8};
    const size_t batch[] = {4096, 65536, 0};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
        for (size_t b = 0; b < sizeof batch / sizeof *batch; b++)
            for (int presized = 0; presized <= (t == 2 && b == 0); presized++) {
                char *inputs[] = {in_path};
                stage_opts o;
                stage_opts_init_quiet(&o, threads[t], inputs, 1);
                o.output = out_path;
                o.rejects_path = rej_path;
                o.batch_bytes = batch[b];
                c.expected_docs = presized ? d.n : 0;
                int status = dedup_stream_run(&o, &c);
                wbuf kept = WBUF_INIT, rejects = WBUF_INIT;
                read_outputs(out_path, rej_path, &kept, &rejects);
                bool same_kept = kept.len == want_kept.len && !memcmp(kept.data, want_kept.data, kept.len);
                bool same_rejects = rejects.len == want_rejects.len && !memcmp(rejects.data, want_rejects.data, rejects.len);
                ok(status == 0 && same_kept && same_rejects, "-j%d, %zu-byte batches%s: kept documents and rejects (reason, dup_of) as the rule says",
                   threads[t], batch[b] ? batch[b] : (size_t)1 << 20, presized ? ", presized" : "");
                if (!same_kept) show_difference(&kept, &want_kept);
                if (!same_rejects) show_difference(&rejects, &want_rejects);
                buf_free(&kept);
                buf_free(&rejects);
            }
    unlink(in_path), unlink(out_path), unlink(rej_path), rmdir(dir);
    for (size_t i = 0; i < real.n; i++) free(real.texts[i]);
    for (size_t i = 0; i < d.n; i++) free(d.ids[i]), free(d.texts[i]);
    free(real.texts), free(d.ids), free(d.texts);
    buf_free(&want_kept), buf_free(&want_rejects);
    minhash_params_free(&c.params);
    return done_testing();
}
