/* staged.c - dedup in three stages over partitioned files (see staged.h). */
#include "dedup/staged.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/doc.h"
#include "core/util.h"
#include "dedup/sigfile.h"

/* A record of signatures -> buckets: one key of one document. Exact keys are
 * the 128-bit hash (k0 = high, k1 = low); band keys have k1 = 0. pos holds
 * the file index (bits 40..62), the document's ordinal in its file (bits
 * 0..39), and bit 63 set for band keys. */
typedef struct {
    uint64_t k0, k1, pos;
} key_record;

/* A record of buckets -> apply: document pos is a duplicate of document first. */
typedef struct {
    uint64_t pos, first, exact;
} removal;

#define POS_BAND_BIT (UINT64_C(1) << 63)
#define POS_FILE_SHIFT 40
#define POS_ORDINAL_MASK ((UINT64_C(1) << POS_FILE_SHIFT) - 1)
#define MAX_FILES (1 << 23)
#define PLAN_MAGIC "winnow-dedup-plan 2" /* 2: one signature file per input file (sigfile.h) */

static uint64_t pos_make(int file, uint64_t ordinal) { return (uint64_t)file << POS_FILE_SHIFT | ordinal; }
static int pos_file(uint64_t pos) { return (int)((pos & ~POS_BAND_BIT) >> POS_FILE_SHIFT); }
static uint64_t pos_ordinal(uint64_t pos) { return pos & POS_ORDINAL_MASK; }

/* ---- work directory ---- */

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) dief(EXIT_FATAL, "%s: cannot create directory: %s", path, strerror(errno));
}

static char *pathf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *pathf(const char *fmt, ...)
{
    wbuf b = WBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    char tmp[4096];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    buf_puts(&b, tmp);
    return b.data;
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

/* Writes an empty completion marker atomically. */
static void mark_done(const char *path) { output_close(output_open(path, 0)); }

/* Reads a whole file; NULL (and a message) when it cannot. */
static char *read_file_or_warn(const char *path, size_t *len)
{
    char *data = read_file(path, len);
    if (!data) warnf("%s: %s", path, strerror(errno));
    return data;
}

/* ---- the plan: parameters and files every stage must agree on ---- */

typedef struct {
    int bands, rows, ngram, partitions, nfiles;
    uint64_t seed;
    char **files;
    const char *text_column; /* the inputs' text member (--text-column), or NULL: text */
    char *text;
} plan;

/* The plan's lines; a last line `text-column NAME` when the inputs' text is
 * not "text" (plans without it, older ones too, read "text"). */
static void plan_text(const dedup_config *c, int partitions, char **files, int nfiles, wbuf *out)
{
    buf_printf(out, "%s\nbands %d\nrows %d\nngram %d\nseed %llu\npartitions %d\nfiles %d\n", PLAN_MAGIC,
               c->params.bands, c->params.rows, c->params.ngram, (unsigned long long)c->params.seed, partitions, nfiles);
    for (int i = 0; i < nfiles; i++) buf_printf(out, "%s\n", files[i]);
    if (doc_text_renamed()) buf_printf(out, "text-column %s\n", doc_text_name());
}

static void plan_parse(const char *path, plan *p)
{
    size_t len;
    p->text = read_file_or_warn(path, &len);
    if (!p->text) dief(EXIT_USAGE, "no plan at %s: run `winnow dedup signatures` first", path);
    unsigned long long seed;
    int used = 0;
    if (sscanf(p->text, PLAN_MAGIC "\nbands %d\nrows %d\nngram %d\nseed %llu\npartitions %d\nfiles %d\n%n", &p->bands,
               &p->rows, &p->ngram, &seed, &p->partitions, &p->nfiles, &used) != 6 || !used)
        dief(EXIT_FATAL, "%s: not a dedup plan", path);
    p->seed = seed;
    p->files = xcalloc((size_t)p->nfiles + 1, sizeof *p->files);
    char *s = p->text + used;
    for (int i = 0; i < p->nfiles; i++) {
        char *nl = strchr(s, '\n');
        if (!nl) dief(EXIT_FATAL, "%s: truncated file list", path);
        *nl = 0;
        p->files[i] = s;
        s = nl + 1;
    }
    p->text_column = NULL;
    if (!strncmp(s, "text-column ", 12)) {
        char *nl = strchr(s, '\n');
        if (!nl) dief(EXIT_FATAL, "%s: truncated text-column line", path);
        *nl = 0;
        p->text_column = s + 12;
    }
}

/* Reads the inputs as the plan's signatures did: with its text member. A
 * --text-column given here must be the same. */
static void plan_use_text_column(const plan *p, const char *path)
{
    const char *want = p->text_column ? p->text_column : "text";
    if (doc_text_renamed() && strcmp(doc_text_name(), want))
        dief(EXIT_USAGE, "--text-column %s: the signatures of %s read the text from \"%s\"", doc_text_name(), path,
             want);
    doc_set_text_name(want);
}

static void plan_free(plan *p)
{
    free(p->files);
    free(p->text);
}

/* The output name of input path: its base name without a compression suffix. */
static char *output_base(const char *path)
{
    char *copy = xstrdup(path);
    char *base = xstrdup(basename(copy));
    free(copy);
    static const char *suffixes[] = {".gz", ".zst", ".zstd", ".bz2", ".xz", ".lz4"};
    size_t n = strlen(base);
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t m = strlen(suffixes[i]);
        if (n > m && !strcmp(base + n - m, suffixes[i])) {
            base[n - m] = 0;
            break;
        }
    }
    return base;
}

/* ---- step 1: signatures ---- */

typedef struct {
    const dedup_config *config;
    signer_set signers;
    sig_writer *sig; /* the current input file's */
    int partitions, file;
    wbuf scratch;
} sig_ctx;

static void sig_map(void *ctx, int worker, stage_batch *b)
{
    sig_ctx *s = ctx;
    b->user = signer_set_prints(&s->signers, worker, b);
}

static int partition_of(uint64_t key, int partitions)
{
    return (int)(((unsigned __int128)key * (unsigned)partitions) >> 64);
}

static void put_record(sig_ctx *s, uint64_t k0, uint64_t k1, uint64_t pos, uint64_t route)
{
    key_record r = {k0, k1, pos};
    sig_writer_add(s->sig, partition_of(route, s->partitions), &r, sizeof r);
}

/* Writes each document's keys to the partitions and its id to out. */
static void sig_emit(void *ctx, stage_batch *b, woutput *out)
{
    sig_ctx *s = ctx;
    batch_prints *bp = b->user;
    const minhash_params *p = &s->config->params;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        buf_clear(&s->scratch);
        if (d->verdict == DOC_FAIL || d->json.id.kind != JSON_STRING) {
            buf_puts(&s->scratch, "null\n");
        } else {
            wbuf tmp = WBUF_INIT;
            size_t len;
            const char *id = json_string(&d->json.id, &tmp, &len);
            json_put_string(&s->scratch, id, len);
            buf_putc(&s->scratch, '\n');
            buf_free(&tmp);
        }
        output_write(out, s->scratch.data, s->scratch.len);
        if (d->verdict == DOC_FAIL) continue;
        uint64_t pos = pos_make(s->file, d->ordinal);
        const dedup_fp *fp = &bp->fp[i];
        put_record(s, fp->exact[0], fp->exact[1], pos, fp->exact[0]);
        for (int j = 0; j < p->bands && fp->nshingles; j++) {
            uint64_t key = bp->keys[(size_t)i * p->bands + j];
            put_record(s, key, 0, pos | POS_BAND_BIT, key);
        }
    }
    batch_prints_free(bp);
    b->user = NULL;
}

typedef struct {
    char *base; /* output_base */
    int index;  /* in the inputs */
} input_base;

static int compare_bases(const void *x, const void *y)
{
    const input_base *a = x, *b = y;
    int c = strcmp(a->base, b->base);
    return c ? c : a->index - b->index;
}

/* Exits 1 when two of the n inputs would have the same output name in apply
 * (one file per input, named by its base name: a/x.jsonl and b/x.jsonl.gz,
 * say, from two directories of one input directory). */
static void refuse_same_names(char **inputs, int n)
{
    input_base *v = xcalloc((size_t)n, sizeof *v);
    for (int i = 0; i < n; i++) v[i] = (input_base){output_base(inputs[i]), i};
    if (n > 1) qsort(v, (size_t)n, sizeof *v, compare_bases);
    for (int i = 1; i < n; i++)
        if (!strcmp(v[i - 1].base, v[i].base))
            dief(EXIT_USAGE, "%s and %s would have the same output name %s (apply writes one file per input, named by "
                 "its base name); rename one", inputs[v[i - 1].index], inputs[v[i].index], v[i].base);
    for (int i = 0; i < n; i++) free(v[i].base);
    free(v);
}

int dedup_staged_signatures(const stage_opts *o, const dedup_config *c, const staged_opts *so)
{
    bool named = o->ninputs > 0;
    for (int i = 0; i < o->ninputs; i++) named &= strcmp(o->inputs[i], "-") != 0;
    if (!named) dief(EXIT_USAGE, "dedup signatures needs the input files, not stdin (the same list on every rank)");
    if (o->ninputs > MAX_FILES) dief(EXIT_USAGE, "at most %d input files", MAX_FILES);
    dedup_require_gpu(c); /* before the plan is written */
    refuse_same_names(o->inputs, o->ninputs);
    make_dir(so->work);
    char *dirs[] = {pathf("%s/sig", so->work), pathf("%s/ids", so->work), pathf("%s/rm", so->work), pathf("%s/done", so->work)};
    for (int i = 0; i < 4; i++) make_dir(dirs[i]), free(dirs[i]);

    wbuf want = WBUF_INIT;
    plan_text(c, so->partitions, o->inputs, o->ninputs, &want);
    char *plan_path = pathf("%s/plan", so->work);
    if (exists(plan_path)) {
        size_t len;
        char *have = read_file_or_warn(plan_path, &len);
        if (!have || len != want.len || memcmp(have, want.data, len) != 0)
            dief(EXIT_USAGE, "%s belongs to a run with other parameters or files; use a new --work", so->work);
        free(have);
    } else {
        woutput *w = output_open(plan_path, 0);
        output_write(w, want.data, want.len);
        output_close(w);
    }
    buf_free(&want);
    free(plan_path);

    int status = inputs_status(o->given); /* what was skipped is named; signatures keep no counts */
    sig_ctx s = {.config = c, .partitions = so->partitions};
    signer_set_init(&s.signers, c, o->threads);
    for (int f = so->rank; f < o->ninputs; f += so->world_size) {
        char *marker = pathf("%s/done/signatures.f%06d", so->work, f);
        if (exists(marker)) {
            if (!o->quiet) warnf("%s: signatures already done, skipped", o->inputs[f]);
            free(marker);
            continue;
        }
        s.file = f;
        char *path = pathf("%s/sig/f%06d", so->work, f);
        s.sig = sig_writer_open(path, so->partitions);
        free(path);
        stage_opts one = *o;
        char *ids = pathf("%s/ids/f%06d", so->work, f);
        one.inputs = &o->inputs[f];
        one.ninputs = 1;
        one.given = NULL;
        one.output = ids;
        one.zstd_level = 0;
        one.rejects_path = NULL;
        one.stats_path = NULL;
        stage_ops ops = {.name = "dedup", .ctx = &s, .map = sig_map, .emit = sig_emit};
        int st = stage_run(&one, &ops);
        st == EXIT_OK ? sig_writer_close(s.sig) : sig_writer_abort(s.sig);
        if (st == EXIT_OK) mark_done(marker);
        else status = st;
        free(ids);
        free(marker);
    }
    signer_set_free(&s.signers);
    buf_free(&s.scratch);
    return status;
}

/* ---- step 2: buckets ---- */

/* WORK/rm/pPPPPP, partition p's removal list (the caller frees). */
static char *removals_path(const staged_opts *so, int p) { return pathf("%s/rm/p%05d", so->work, p); }

static int compare_records(const void *x, const void *y)
{
    const key_record *a = x, *b = y;
    uint64_t ka = a->pos & POS_BAND_BIT, kb = b->pos & POS_BAND_BIT;
    if (ka != kb) return ka < kb ? -1 : 1;
    if (a->k0 != b->k0) return a->k0 < b->k0 ? -1 : 1;
    if (a->k1 != b->k1) return a->k1 < b->k1 ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int compare_removals(const void *x, const void *y)
{
    const removal *a = x, *b = y;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int bucket_partition(const staged_opts *so, const plan *pl, int p)
{
    wbuf all = WBUF_INIT;
    for (int f = 0; f < pl->nfiles; f++) {
        char *path = pathf("%s/sig/f%06d", so->work, f), err[512];
        size_t before = all.len;
        if (sig_file_read(path, p, &all, err, sizeof err) != 0) {
            warnf("%s", err);
            free(path);
            buf_free(&all);
            return EXIT_FATAL;
        }
        if ((all.len - before) % sizeof(key_record))
            dief(EXIT_FATAL, "%s: damaged (partition %d holds %zu bytes)", path, p, all.len - before);
        free(path);
    }
    key_record *recs = (key_record *)all.data; /* malloc's alignment */
    size_t n = all.len / sizeof(key_record);
    if (n) qsort(recs, n, sizeof *recs, compare_records);
    removal *rm = xmalloc((n + 1) * sizeof *rm);
    size_t nrm = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && recs[j].k0 == recs[i].k0 && recs[j].k1 == recs[i].k1 &&
               (recs[j].pos & POS_BAND_BIT) == (recs[i].pos & POS_BAND_BIT))
            j++;
        for (size_t m = i + 1; m < j; m++) {
            /* a document's own keys never repeat within a kind except by a
             * 64-bit collision of two of its band keys: not a duplicate */
            if ((recs[m].pos & ~POS_BAND_BIT) == (recs[i].pos & ~POS_BAND_BIT)) continue;
            rm[nrm++] = (removal){recs[m].pos & ~POS_BAND_BIT, recs[i].pos & ~POS_BAND_BIT, !(recs[m].pos & POS_BAND_BIT)};
        }
        i = j;
    }
    buf_free(&all);
    qsort(rm, nrm, sizeof *rm, compare_removals);
    char *path = removals_path(so, p);
    woutput *w = output_open(path, 0);
    output_write(w, rm, nrm * sizeof *rm);
    output_close(w);
    free(path);
    free(rm);
    return EXIT_OK;
}

int dedup_staged_buckets(const stage_opts *o, const staged_opts *so)
{
    char *plan_path = pathf("%s/plan", so->work);
    plan pl;
    plan_parse(plan_path, &pl);
    free(plan_path);
    for (int f = 0; f < pl.nfiles; f++) {
        char *marker = pathf("%s/done/signatures.f%06d", so->work, f);
        if (!exists(marker)) dief(EXIT_FATAL, "signatures of %s are not done (no %s)", pl.files[f], marker);
        free(marker);
    }
    int status = EXIT_OK;
    for (int p = so->rank; p < pl.partitions; p += so->world_size) {
        char *removals = removals_path(so, p); /* renamed into place when complete: its own marker */
        if (exists(removals)) {
            if (!o->quiet) warnf("partition %d already done, skipped", p);
        } else if (bucket_partition(so, &pl, p) != EXIT_OK) {
            status = EXIT_FATAL;
        }
        free(removals);
    }
    plan_free(&pl);
    return status;
}

/* ---- step 3: apply ---- */

/* The ids of one input file, loaded when first needed. */
typedef struct {
    char *data;
    size_t *line_start;
    size_t nlines;
} id_list;

typedef struct {
    const staged_opts *so;
    removal *rm;
    size_t nrm, next;
    id_list *ids;   /* one per input file */
    int nfiles;
    wbuf extra;
} apply_ctx;

static const id_list *ids_of(apply_ctx *a, int f)
{
    id_list *l = &a->ids[f];
    if (l->data) return l;
    char *path = pathf("%s/ids/f%06d", a->so->work, f);
    size_t len;
    l->data = read_file_or_warn(path, &len);
    if (!l->data) dief(EXIT_FATAL, "%s: cannot read ids", path);
    free(path);
    size_t cap = 1024;
    l->line_start = xmalloc(cap * sizeof *l->line_start);
    for (size_t i = 0; i < len;) {
        if (l->nlines == cap) l->line_start = xrealloc(l->line_start, (cap *= 2) * sizeof *l->line_start);
        l->line_start[l->nlines++] = i;
        char *nl = memchr(l->data + i, '\n', len - i);
        if (!nl) break;
        *nl = 0;
        i = (size_t)(nl - l->data) + 1;
    }
    return l;
}

static void apply_reduce(void *ctx, stage_batch *b)
{
    apply_ctx *a = ctx;
    for (int i = 0; i < b->n; i++) {
        stage_doc *d = &b->docs[i];
        while (a->next < a->nrm && pos_ordinal(a->rm[a->next].pos) < d->ordinal) a->next++;
        if (a->next == a->nrm || pos_ordinal(a->rm[a->next].pos) != d->ordinal || d->verdict == DOC_FAIL) continue;
        const removal *r = &a->rm[a->next];
        const id_list *l = ids_of(a, pos_file(r->first));
        uint64_t ord = pos_ordinal(r->first);
        buf_clear(&a->extra);
        json_put_key(&a->extra, "dup_of");
        buf_puts(&a->extra, ord < l->nlines && strcmp(l->data + l->line_start[ord], "null") ? l->data + l->line_start[ord] : "\"\"");
        stage_doc_drop(b, i, r->exact ? "exact_dup" : "near_dup", a->extra.data);
    }
}

#define REMOVALS_CHUNK 4096 /* removals read at a time */

/* Reads removals [i, i + k) of the list open as fd. */
static void read_removals(int fd, const char *path, removal *dst, size_t i, size_t k)
{
    if (pread_full(fd, dst, k * sizeof *dst, (uint64_t)i * sizeof *dst))
        dief(EXIT_FATAL, "%s: cannot read removals: %s", path, errno ? strerror(errno) : "too short");
}

/* Appends file f's removals from the removal list at path: the list is
 * sorted by position, so a binary search finds the first and the rest
 * follow it (a rank reads its files' share of each list, not all of it
 * once per file). */
static void append_removals_of(apply_ctx *a, const char *path, int f, size_t *cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) dief(EXIT_FATAL, "%s: cannot read removals: %s", path, strerror(errno));
    size_t n = (size_t)st.st_size / sizeof(removal), lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        removal r;
        read_removals(fd, path, &r, mid, 1);
        if (pos_file(r.pos) < f) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < n;) {
        size_t k = n - i < REMOVALS_CHUNK ? n - i : REMOVALS_CHUNK, take = 0;
        if (a->nrm + k > *cap) a->rm = xrealloc(a->rm, (*cap = 2 * (a->nrm + k)) * sizeof *a->rm);
        read_removals(fd, path, a->rm + a->nrm, i, k);
        while (take < k && pos_file(a->rm[a->nrm + take].pos) == f) take++;
        a->nrm += take;
        i += k;
        if (take < k) break;
    }
    close(fd);
}

/* Collects file f's removals from every partition, one per document:
 * exact when any of its entries is, first = the earliest named. */
static void load_removals(apply_ctx *a, const plan *pl, int f)
{
    a->nrm = a->next = 0;
    size_t cap = 0;
    for (int p = 0; p < pl->partitions; p++) {
        char *path = removals_path(a->so, p);
        append_removals_of(a, path, f, &cap);
        free(path);
    }
    if (a->nrm > 1) qsort(a->rm, a->nrm, sizeof *a->rm, compare_removals);
    size_t out = 0;
    for (size_t i = 0; i < a->nrm; i++) {
        if (out && a->rm[out - 1].pos == a->rm[i].pos) {
            removal *m = &a->rm[out - 1];
            m->exact |= a->rm[i].exact;
            if (a->rm[i].first < m->first) m->first = a->rm[i].first;
        } else {
            a->rm[out++] = a->rm[i];
        }
    }
    a->nrm = out;
}

int dedup_staged_apply(const stage_opts *o, const staged_opts *so)
{
    if (!o->output || !strcmp(o->output, "-")) dief(EXIT_USAGE, "dedup apply needs -o OUTDIR");
    char *plan_path = pathf("%s/plan", so->work);
    plan pl;
    plan_parse(plan_path, &pl);
    plan_use_text_column(&pl, plan_path);
    free(plan_path);
    for (int p = 0; p < pl.partitions; p++) {
        char *removals = removals_path(so, p);
        if (!exists(removals)) dief(EXIT_FATAL, "buckets of partition %d are not done (no %s)", p, removals);
        free(removals);
    }
    make_dir(o->output);
    if (o->rejects_path) make_dir(o->rejects_path);
    if (o->stats_path) make_dir(o->stats_path);
    apply_ctx a = {.so = so, .nfiles = pl.nfiles};
    a.ids = xcalloc((size_t)pl.nfiles, sizeof *a.ids);
    int status = EXIT_OK;
    for (int f = so->rank; f < pl.nfiles; f += so->world_size) {
        char *marker = pathf("%s/done/apply.f%06d", so->work, f);
        if (exists(marker)) {
            if (!o->quiet) warnf("%s: already applied, skipped", pl.files[f]);
            free(marker);
            continue;
        }
        load_removals(&a, &pl, f);
        char *base = output_base(pl.files[f]);
        char *out = pathf("%s/%s%s", o->output, base, o->zstd_level ? ".zst" : "");
        char *rej = o->rejects_path ? pathf("%s/%s.rejects.jsonl", o->rejects_path, base) : NULL;
        char *st = o->stats_path ? pathf("%s/%s.stats.json", o->stats_path, base) : NULL;
        stage_opts one = *o;
        one.inputs = &pl.files[f];
        one.ninputs = 1;
        one.given = NULL;
        one.output = out;
        one.rejects_path = rej;
        one.stats_path = st;
        stage_ops ops = {.name = "dedup", .ctx = &a, .reduce = apply_reduce};
        int rc = stage_run(&one, &ops);
        if (rc == EXIT_OK) mark_done(marker);
        else status = rc;
        free(base), free(out), free(rej), free(st), free(marker);
    }
    for (int f = 0; f < pl.nfiles; f++) free(a.ids[f].data), free(a.ids[f].line_start);
    free(a.ids);
    free(a.rm);
    buf_free(&a.extra);
    plan_free(&pl);
    return status;
}
