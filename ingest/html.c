/* html.c - charset, walk, selection, composition. */
#include "ingest/html.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ingest/extract.h"
#include "ingest/html_walk.h"

/* Per-thread buffers above this size are released after a page, so one huge
 * page does not pin its memory for the rest of the run. */
#define SCRATCH_KEEP_BYTES (16u << 20)
/* A page is read as without scripts when its <noscript>s hold this many times
 * more text than it shows with them. */
#define NOSCRIPT_TEXT_RATIO 2

static _Thread_local html_walk tl_walk;
static _Thread_local wbuf tl_utf8, tl_text;
static _Thread_local unsigned char *tl_keep;
static _Thread_local size_t tl_keep_cap;

/* Per-thread buffers are released when their thread exits (a pthread key
 * destructor), so worker threads leave nothing behind. */
static pthread_key_t thread_key;
static pthread_once_t thread_key_once = PTHREAD_ONCE_INIT;
static _Thread_local int tl_registered;

static void release_thread_state(void *unused)
{
    (void)unused;
    html_walk_free(&tl_walk);
    buf_free(&tl_utf8);
    buf_free(&tl_text);
    free(tl_keep);
    tl_keep = NULL;
    tl_keep_cap = 0;
    extract_thread_free();
}

static void make_thread_key(void)
{
    pthread_key_create(&thread_key, release_thread_state);
}

static void register_thread(void)
{
    if (tl_registered) return;
    pthread_once(&thread_key_once, make_thread_key);
    pthread_setspecific(thread_key, &tl_registered);
    tl_registered = 1;
}

int extract_mode_parse(const char *s, extract_mode *mode)
{
    if (!strcmp(s, "main")) *mode = EXTRACT_MAIN;
    else if (!strcmp(s, "full")) *mode = EXTRACT_FULL;
    else return -1;
    return 0;
}

void html_result_clear(html_result *r)
{
    buf_clear(&r->text);
    buf_clear(&r->title);
    buf_clear(&r->lang);
    buf_clear(&r->meta);
    memset(&r->charset, 0, sizeof r->charset);
}

void html_result_free(html_result *r)
{
    buf_free(&r->text);
    buf_free(&r->title);
    buf_free(&r->lang);
    buf_free(&r->meta);
}

/* Joins the kept blocks: a newline between lines, a blank line between paragraphs. */
static void compose(const html_walk *w, const unsigned char *keep, wbuf *out)
{
    int first = 1;
    for (size_t i = 0; i < w->nblocks; i++) {
        if (!keep[i]) continue;
        const walk_block *b = &w->blocks[i];
        if (!first) buf_append(out, b->brk >= 2 ? "\n\n" : "\n", b->brk >= 2 ? 2 : 1);
        first = 0;
        const char *s = w->text.data + b->off;
        size_t n = b->len;
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t')) n--;
        buf_append(out, s, n);
    }
}

static void release_if_huge(wbuf *b)
{
    if (b->cap > SCRATCH_KEEP_BYTES) buf_free(b);
}

/* Walks the page (in tl_utf8) and puts the text that mode selects in tl_text;
 * scripting_off reads <noscript> as a browser without scripts does. */
static void walk_and_select(html_walk *w, extract_mode mode, int scripting_off, int class_hiding_off)
{
    w->scripting_off = scripting_off;
    w->class_hiding_off = class_hiding_off;
    html_walk_run(w, tl_utf8.data, tl_utf8.len);
    w->scripting_off = w->class_hiding_off = 0;
    if (tl_keep_cap < w->nblocks + 1) {
        tl_keep_cap = w->nblocks + 1;
        free(tl_keep);
        tl_keep = xmalloc(tl_keep_cap);
    }
    if (mode == EXTRACT_FULL) memset(tl_keep, 1, w->nblocks);
    else extract_main(w, tl_keep);
    buf_clear(&tl_text);
    compose(w, tl_keep, &tl_text);
}

int html_extract(const char *html, size_t n, const char *http_charset, extract_mode mode, html_result *r)
{
    register_thread();
    html_result_clear(r);
    buf_clear(&tl_utf8);
    text_to_utf8_raw(html ? html : "", html ? n : 0, http_charset, 1, &tl_utf8, &r->charset);
    /* a NUL is never text, and attribute values reach the walk as C strings */
    for (char *p = tl_utf8.len ? memchr(tl_utf8.data, 0, tl_utf8.len) : NULL; p;
         p = memchr(p, 0, tl_utf8.len - (size_t)(p - tl_utf8.data)))
        *p = ' ';

    html_walk *w = &tl_walk;
    walk_and_select(w, mode, 0, 0);
    /* A page whose <noscript>s hold more than twice the text it shows is built
     * by its scripts, and what it has for readers without them is the page
     * (Discourse forums serve each thread so): read it as a browser without
     * scripts does. (Some pages repeat their text in a <noscript>: no more.) */
    int scripting_off = tl_text.len * NOSCRIPT_TEXT_RATIO < w->noscript_text;
    if (scripting_off) walk_and_select(w, mode, 1, 0);
    /* Main content, next to no text shown, and an element hidden only by its
     * class: a page whose scripts take the class away once they run (a blog
     * under <div class="root hide">); read it with such classes shown. (Full
     * text is what shows without scripts.) */
    if (mode == EXTRACT_MAIN && tl_text.len < EXTRACT_MIN_CONTENT_BYTES && w->hidden_by_class)
        walk_and_select(w, mode, scripting_off, 1);
    utf8_append_nfc(&r->text, tl_text.data ? tl_text.data : "", tl_text.len);
    utf8_append_nfc(&r->title, w->title.data ? w->title.data : "", w->title.len);
    buf_append(&r->lang, w->lang.data ? w->lang.data : "", w->lang.len);
    extract_metadata(w, &r->meta);

    release_if_huge(&tl_utf8);
    release_if_huge(&tl_text);
    if (w->text.cap > SCRATCH_KEEP_BYTES || w->parser.atts.cap > SCRATCH_KEEP_BYTES) html_walk_free(w);
    return 0;
}
