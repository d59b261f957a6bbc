/* score_extraction.c - `winnow score-extraction`: the article-extraction
 * benchmark metric for winnow and for every other extractor's output.
 *
 * Metric (issue 3): tokens are the runs of Unicode word characters (Python's
 * \w: letters, numbers, underscore), case kept; shingles are 4-grams of
 * tokens (a text of 1..3 tokens is one shingle, an empty text none); per page
 * tp/fp/fn are the multiset intersection and differences of predicted and
 * true shingles; precision = tp/(tp+fp), recall = tp/(tp+fn); a page is
 * left out of the precision mean when tp+fp = 0 and out of the recall mean
 * when tp+fn = 0 (as evaluate.py does: a page with both texts empty counts in
 * neither); F1 = 2PR/(P+R) of the means. tests/ref/article_metric.py is a
 * second implementation that tests/e2e/extract_articles.sh compares with. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <utf8proc.h>
#include <xxhash.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/util.h"
#include "ingest/html.h"
#include "ingest/meta_json.h"
#include "tools/commands.h"

#define SHINGLE_TOKENS 4

typedef struct {
    char *id;
    wbuf truth;
    int found; /* for a tool's output: the page was in it */
} page;

typedef struct {
    page *pages;
    size_t n, cap;
} page_set;

/* ---- reading ---- */

static int read_whole(const char *path, wbuf *out, int gz)
{
    buf_clear(out);
    if (gz) {
        gzFile f = gzopen(path, "rb");
        if (!f) return -1;
        char chunk[1 << 16];
        int r;
        while ((r = gzread(f, chunk, sizeof chunk)) > 0) buf_append(out, chunk, (size_t)r);
        gzclose(f);
        return r < 0 ? -1 : 0;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char chunk[1 << 16];
    size_t r;
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(out, chunk, r);
    fclose(f);
    return 0;
}

typedef struct {
    page_set *set;
    int create; /* add unknown ids (ground truth) or only fill known ones */
} body_visit;

static page *find_page(page_set *s, const char *id, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->pages[i].id) == len && !memcmp(s->pages[i].id, id, len)) return &s->pages[i];
    return NULL;
}

/* {"<id>": {"articleBody": "...", ...}, ...} */
static void on_body(void *ctx, const jvalue *keys, int depth, const jvalue *value)
{
    body_visit *bv = ctx;
    if (depth != 2 || !json_is(&keys[1], "articleBody") || value->kind != JSON_STRING) return;
    page *p = find_page(bv->set, keys[0].p, keys[0].len);
    if (!p) {
        if (!bv->create) return;
        if (bv->set->n == bv->set->cap) {
            bv->set->cap = bv->set->cap ? bv->set->cap * 2 : 128;
            bv->set->pages = xrealloc(bv->set->pages, bv->set->cap * sizeof *bv->set->pages);
        }
        p = &bv->set->pages[bv->set->n++];
        memset(p, 0, sizeof *p);
        p->id = xmalloc(keys[0].len + 1);
        memcpy(p->id, keys[0].p, keys[0].len);
        p->id[keys[0].len] = 0;
    }
    buf_clear(&p->truth);
    json_unescape(value, &p->truth);
    p->found = 1;
}

static int load_bodies(const char *path, page_set *set, int create)
{
    wbuf text = WBUF_INIT;
    if (read_whole(path, &text, 0)) {
        buf_free(&text);
        return -1;
    }
    body_visit bv = {set, create};
    int r = json_visit(text.data, text.len, on_body, &bv);
    buf_free(&text);
    return r;
}

/* ---- the metric ---- */

typedef struct {
    uint64_t *h;
    size_t n, cap;
} hashes;

static void push_hash(hashes *a, uint64_t h)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 1024;
        a->h = xrealloc(a->h, a->cap * sizeof *a->h);
    }
    a->h[a->n++] = h;
}

static int is_word_char(utf8proc_int32_t cp)
{
    if (cp == '_') return 1;
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_NO:
        return 1;
    default:
        return 0;
    }
}

/* Token hashes of text, in order. */
static void tokenize(const char *s, size_t n, hashes *tokens)
{
    tokens->n = 0;
    size_t i = 0, start = 0;
    int in_word = 0;
    while (i <= n) {
        utf8proc_int32_t cp = -1;
        utf8proc_ssize_t len = 1;
        if (i < n) {
            len = utf8proc_iterate((const utf8proc_uint8_t *)s + i, (utf8proc_ssize_t)(n - i), &cp);
            if (len <= 0) len = 1, cp = -1;
        }
        int w = i < n && cp >= 0 && is_word_char(cp);
        if (w && !in_word) start = i;
        if (!w && in_word) push_hash(tokens, XXH3_64bits(s + start, i - start));
        in_word = w;
        i += (size_t)len;
    }
}

/* Sorted shingle hashes of a token sequence. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void shingles(const hashes *tokens, hashes *out)
{
    out->n = 0;
    if (!tokens->n) return;
    if (tokens->n < SHINGLE_TOKENS) {
        push_hash(out, XXH3_64bits(tokens->h, tokens->n * sizeof(uint64_t)));
    } else {
        for (size_t i = 0; i + SHINGLE_TOKENS <= tokens->n; i++)
            push_hash(out, XXH3_64bits(tokens->h + i, SHINGLE_TOKENS * sizeof(uint64_t)));
    }
    qsort(out->h, out->n, sizeof *out->h, cmp_u64);
}

typedef struct {
    double p_sum, r_sum;
    size_t p_pages, r_pages, pages;
} score;

/* Scores one page; stores its precision and recall (-1 when left out). */
static void score_page(const char *pred, size_t pred_len, const char *truth, size_t truth_len, score *sc,
                       double *page_p, double *page_r)
{
    static hashes tok, ps, ts;
    tokenize(pred, pred_len, &tok);
    shingles(&tok, &ps);
    tokenize(truth, truth_len, &tok);
    shingles(&tok, &ts);
    size_t i = 0, j = 0, tp = 0;
    while (i < ps.n && j < ts.n) {
        if (ps.h[i] == ts.h[j]) tp++, i++, j++;
        else if (ps.h[i] < ts.h[j]) i++;
        else j++;
    }
    size_t fp = ps.n - tp, fn = ts.n - tp;
    double p = tp + fp ? (double)tp / (double)(tp + fp) : -1;
    double r = tp + fn ? (double)tp / (double)(tp + fn) : -1;
    if (p >= 0) sc->p_sum += p, sc->p_pages++;
    if (r >= 0) sc->r_sum += r, sc->r_pages++;
    sc->pages++;
    if (page_p) *page_p = p;
    if (page_r) *page_r = r;
}

typedef struct {
    char name[128];
    double p, r, f1;
    size_t pages;
} table_row;

static void finish_row(table_row *row, const char *name, const score *sc)
{
    snprintf(row->name, sizeof row->name, "%s", name);
    row->p = sc->p_pages ? sc->p_sum / (double)sc->p_pages : 0;
    row->r = sc->r_pages ? sc->r_sum / (double)sc->r_pages : 0;
    row->f1 = row->p + row->r > 0 ? 2 * row->p * row->r / (row->p + row->r) : 0;
    row->pages = sc->pages;
}

static int cmp_row(const void *a, const void *b)
{
    double x = ((const table_row *)a)->f1, y = ((const table_row *)b)->f1;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: winnow score-extraction [options] ARTICLES_DIR\n\n"
               "Scores winnow's main-content extraction on an article benchmark directory\n"
               "(html/<id>.html.gz, ground-truth.json, output/<extractor>.json) with the\n"
               "shingle precision/recall/F1 metric, next to every extractor in output/,\n"
               "and prints one markdown table sorted by F1.\n\n"
               "options:\n"
               "  --extract=MODE   main (default) or full\n"
               "  --per-page FILE  write winnow's per-page precision and recall (TSV)\n"
               "  --dump DIR       write winnow's text of each page to DIR/<id>.txt\n"
               "  --only-winnow    do not score output/\n"
               "  -h, --help       this help\n");
}

int cmd_score_extraction(int argc, char **argv)
{
    enum { OPT_EXTRACT = 0x100, OPT_PER_PAGE, OPT_DUMP, OPT_ONLY };
    static const struct option longopts[] = {
        {"extract", required_argument, 0, OPT_EXTRACT}, {"per-page", required_argument, 0, OPT_PER_PAGE},
        {"dump", required_argument, 0, OPT_DUMP},       {"only-winnow", no_argument, 0, OPT_ONLY},
        {"help", no_argument, 0, 'h'},                  {0, 0, 0, 0},
    };
    extract_mode mode = EXTRACT_MAIN;
    const char *per_page = NULL, *dump = NULL;
    int only = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_EXTRACT:
            if (extract_mode_parse(optarg, &mode)) {
                fprintf(stderr, "%s: --extract must be main or full\n", winnow_prog);
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case OPT_PER_PAGE: per_page = optarg; break;
        case OPT_DUMP: dump = optarg; break;
        case OPT_ONLY: only = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *dir = argv[optind];
    char path[4096];
    page_set truth = {0};
    snprintf(path, sizeof path, "%s/ground-truth.json", dir);
    if (load_bodies(path, &truth, 1) || !truth.n) {
        warnf("%s: cannot read ground truth", path);
        return EXIT_FATAL;
    }
    qsort(truth.pages, truth.n, sizeof *truth.pages, cmp_str);

    table_row rows[64];
    int nrows = 0;
    score sc = {0};
    FILE *pp = per_page ? fopen(per_page, "w") : NULL;
    if (per_page && !pp) dief(EXIT_FATAL, "%s: cannot write", per_page);
    if (dump) mkdir(dump, 0777);
    html_result r = {0};
    wbuf html = WBUF_INIT;
    size_t bytes = 0;
    double extract_seconds = 0;
    for (size_t i = 0; i < truth.n; i++) {
        page *pg = &truth.pages[i];
        snprintf(path, sizeof path, "%s/html/%s.html.gz", dir, pg->id);
        if (read_whole(path, &html, 1)) {
            warnf("%s: cannot read; scored as empty output", path);
            buf_clear(&html);
        }
        double t = thread_cpu_seconds();
        html_extract(html.data ? html.data : "", html.len, NULL, mode, &r);
        extract_seconds += thread_cpu_seconds() - t;
        bytes += html.len;
        double p, rc;
        score_page(r.text.data ? r.text.data : "", r.text.len, pg->truth.data, pg->truth.len, &sc, &p, &rc);
        if (pp) fprintf(pp, "%s\t%.4f\t%.4f\n", pg->id, p, rc);
        if (dump) {
            snprintf(path, sizeof path, "%s/%s.txt", dump, pg->id);
            FILE *f = fopen(path, "w");
            if (f) {
                fwrite(r.text.data ? r.text.data : "", 1, r.text.len, f);
                fclose(f);
            }
        }
    }
    finish_row(&rows[nrows++], mode == EXTRACT_MAIN ? "winnow" : "winnow (--extract=full)", &sc);
    if (pp) fclose(pp);

    snprintf(path, sizeof path, "%s/output", dir);
    DIR *d = only ? NULL : opendir(path);
    char *names[64];
    int nnames = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".json") && nnames < 63) names[nnames++] = xstrdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)nnames, sizeof *names, cmp_str);
    for (int k = 0; k < nnames; k++) {
        page_set out = truth; /* same ids; swap in each tool's bodies */
        out.pages = xcalloc(truth.n, sizeof *out.pages);
        for (size_t i = 0; i < truth.n; i++) out.pages[i].id = truth.pages[i].id;
        snprintf(path, sizeof path, "%s/output/%s", dir, names[k]);
        if (load_bodies(path, &out, 0)) warnf("%s: not valid JSON; pages after the error count as empty", path);
        score s = {0};
        for (size_t i = 0; i < truth.n; i++)
            score_page(out.pages[i].truth.data ? out.pages[i].truth.data : "", out.pages[i].truth.len,
                       truth.pages[i].truth.data, truth.pages[i].truth.len, &s, NULL, NULL);
        names[k][strlen(names[k]) - 5] = 0;
        finish_row(&rows[nrows++], names[k], &s);
        for (size_t i = 0; i < truth.n; i++) buf_free(&out.pages[i].truth);
        free(out.pages);
        free(names[k]);
    }
    qsort(rows, (size_t)nrows, sizeof *rows, cmp_row);
    printf("| extractor | pages | precision | recall | F1 |\n|---|---:|---:|---:|---:|\n");
    for (int k = 0; k < nrows; k++)
        printf("| %s | %zu | %.3f | %.3f | %.3f |\n", rows[k].name, rows[k].pages, rows[k].p, rows[k].r, rows[k].f1);
    fprintf(stderr, "%s: winnow extracted %zu pages, %.1f MB of HTML in %.2f CPU seconds (%.1f MB per CPU-second, 1 thread)\n", winnow_prog,
            truth.n, (double)bytes / 1e6, extract_seconds, (double)bytes / 1e6 / (extract_seconds > 0 ? extract_seconds : 1));
    for (size_t i = 0; i < truth.n; i++) {
        free(truth.pages[i].id);
        buf_free(&truth.pages[i].truth);
    }
    free(truth.pages);
    buf_free(&html);
    html_result_free(&r);
    return EXIT_OK;
}
