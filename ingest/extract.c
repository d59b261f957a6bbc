/* extract.c - main-content selection.
 *
 * Every block gets a weight: its own non-link text counts for it, link text
 * (in link-dense elements) and a fixed cost per paragraph count against it,
 * and blocks under boilerplate hints (nav, footer, share, comments, ...) count
 * against it entirely. The main content is the element whose blocks have the
 * largest total weight (a maximum-sum subtree; block ranges of elements are
 * contiguous, so prefix sums give every element's weight in O(1)), or a run of
 * consecutive children of one element when that weighs much more (Kadane over
 * each element's children). Inside it, blocks that are boilerplate by hint,
 * captions, the title heading, link lists, and labels of dropped sections go.
 * Everything is linear in blocks + elements. */
#include "ingest/extract.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "core/utf8.h"
#include "core/util.h"

/* Cost of a block in bytes of text: many short lines lose to few long ones.
 * Table cells and list items are parts of one structure and cost less. */
#define BLOCK_COST 30
#define ITEM_COST 3
#define CELL_COST 0
/* Each byte of link text counts against a block this many times when the
 * element it belongs to is mostly links (a linked phrase in a sentence is
 * content; a list of links is navigation). */
#define LINK_PENALTY 1
/* A caption/byline/author hint on an element with more prose than this is a
 * class name that happens to contain the word (class="entry author-jane"). */
#define BYLINE_MAX_BYTES 300
/* Longest advertisement label looked at ("sponsored content" in any script). */
#define AD_LABEL_MAX_BYTES 24
/* Lines shorter than this may be labels of the section that follows them. */
#define LABEL_MAX_BYTES 40
/* A run of siblings replaces the best single element only when its weight is
 * this many times larger (an element's boundary is a strong signal). */
#define RUN_ADVANTAGE 2
/* Content with less text than this is not an article: the page is filtered as a whole. */
#define MIN_CONTENT_BYTES EXTRACT_MIN_CONTENT_BYTES
/* A selection inside the page's <main> holding less than this share of its
 * prose (outside boilerplate) is widened to all of <main>. */
#define MAIN_SHARE 0.5
/* Prose under comment hints this many times the content's, when the content
 * has no sentences, makes the comments the content (a forum thread); prose
 * under class/id boilerplate words as many times, the words wrong. */
#define HINTED_OVER_CONTENT 4
/* Headings shorter than this, or than this share of the <title>, are never
 * taken for the page title (a section heading may share words with it). */
#define TITLE_MIN_BYTES 10
#define TITLE_MIN_SHARE 0.3
/* Text outside <p> (div text, list items, cells) counts this fraction: articles
 * are written in paragraphs, teasers and widgets mostly are not. */
#define NON_PARAGRAPH_SHARE 0.7
/* A list item that opens with a link of at least this many bytes is a teaser
 * (linked headline plus summary), not content. */
#define TEASER_LEAD_LINK 15
/* Extra weight for a block that reads like prose (ends a sentence, long enough). */
#define SENTENCE_BONUS 30
#define SENTENCE_MIN_BYTES 60
/* Inside the content, a block is dropped as a link list when more than this
 * share of it is link text. */
#define LINK_DENSITY_MAX 0.5
/* A link-dense block is kept all the same when it has this much text outside
 * its links (a linked headline followed by its summary). */
#define LINKED_PROSE_MIN 80
/* Link text in a paragraph of sentences counts this fraction as text. */
#define LINKED_PROSE_SHARE 0.5
/* A boilerplate hint is ignored on an element holding more than this share of
 * the page's prose: it is a page wrapper with an unlucky class name. */
#define WRAPPER_SHARE 0.5
/* A page left with next to no content (or HINTED_OVER_CONTENT times less)
 * but this many bytes of paragraphs of sentences under class/id boilerplate
 * words is read again without those words: they were on the content's own
 * wrappers. */
#define BOILER_FALLBACK_MIN 1000
/* Blocks this long that repeat one kept before them, byte for byte, are a
 * second copy of the content (a layout per screen size, both in the source)
 * when they are more than REPEAT_SHARE of the kept text, and go; fewer are
 * the article repeating itself (a disclaimer under each offer), and stay. */
#define REPEAT_MIN_BYTES 100
#define REPEAT_SHARE 0.3

/* Code points that end a sentence in some script. */
static const uint32_t sentence_ends[] = {
    '.', '!', '?', ':', ';',
    0x2026,                 /* … */
    0x3002, 0xFF01, 0xFF1F, /* 。！？ (CJK) */
    0xFF0E, 0xFF61,         /* ．｡ */
    0x0964, 0x0965,         /* । ॥ (Devanagari, Bengali) */
    0x061F, 0x06D4,         /* ؟ ۔ (Arabic, Urdu) */
    0x0589,                 /* ։ (Armenian) */
    0x1362,                 /* ። (Ethiopic) */
    0x104B,                 /* ။ (Myanmar) */
};

/* Closing quotes and brackets that may follow the sentence end. */
static int is_closer(uint32_t cp)
{
    return cp == '"' || cp == '\'' || cp == ')' || cp == ' ' || cp == 0x201D || cp == 0x2019 || cp == 0x00BB ||
           cp == 0x300D || cp == 0x300F || cp == 0xFF09;
}

/* True when s[0..n) ends like a sentence, in any script. */
static int ends_sentence(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    while (n) {
        size_t start = n - 1; /* back to the lead byte of the last code point */
        while (start && (u[start] & 0xC0) == 0x80 && n - start < 4) start--;
        size_t len;
        uint32_t cp = utf8_decode(u + start, n - start, &len);
        if (is_closer(cp)) {
            n = start;
            continue;
        }
        for (size_t i = 0; i < sizeof sentence_ends / sizeof sentence_ends[0]; i++)
            if (cp == sentence_ends[i]) return 1;
        return 0;
    }
    return 0;
}

/* Prose value of a block regardless of hints (>= 0). */
static long prose_value(const walk_block *b)
{
    long nonlink = (long)b->len - (long)b->link_len;
    return nonlink > 0 ? nonlink : 0;
}

typedef struct {
    long *prefix_w;     /* prefix sums of block weights */
    long *prefix_prose; /* prefix sums of prose values */
    long *prefix_len;   /* prefix sums of block lengths */
    long *prefix_link;  /* prefix sums of link bytes */
    uint8_t *hints;     /* effective inherited hints per node */
    int32_t *first_child, *next_sibling;
    uint32_t *repeat_slot; /* repeat_set's table: block index + 1, 0 empty */
    size_t cap_blocks, cap_nodes, cap_repeat;
} extract_scratch;

static _Thread_local extract_scratch tl_x;

void extract_thread_free(void)
{
    extract_scratch *x = &tl_x;
    free(x->prefix_w);
    free(x->prefix_prose);
    free(x->prefix_len);
    free(x->prefix_link);
    free(x->hints);
    free(x->first_child);
    free(x->next_sibling);
    free(x->repeat_slot);
    memset(x, 0, sizeof *x);
}

static void reserve(extract_scratch *x, size_t blocks, size_t nodes)
{
    if (x->cap_blocks < blocks + 1) {
        x->cap_blocks = blocks + 1;
        x->prefix_w = xrealloc(x->prefix_w, x->cap_blocks * sizeof(long));
        x->prefix_prose = xrealloc(x->prefix_prose, x->cap_blocks * sizeof(long));
        x->prefix_len = xrealloc(x->prefix_len, x->cap_blocks * sizeof(long));
        x->prefix_link = xrealloc(x->prefix_link, x->cap_blocks * sizeof(long));
    }
    if (x->cap_nodes < nodes + 1) {
        x->cap_nodes = nodes + 1;
        x->hints = xrealloc(x->hints, x->cap_nodes);
        x->first_child = xrealloc(x->first_child, x->cap_nodes * sizeof(int32_t));
        x->next_sibling = xrealloc(x->next_sibling, x->cap_nodes * sizeof(int32_t));
    }
}

static long range_sum(const long *prefix, uint32_t first, uint32_t end)
{
    return prefix[end] - prefix[first];
}

/* Share of link text in the element a block belongs to (its paragraph, item, cell). */
static double node_link_density(const html_walk *w, const extract_scratch *x, const walk_block *b)
{
    if (b->node < 0) return b->len ? (double)b->link_len / b->len : 0;
    const walk_node *n = &w->nodes[b->node];
    long len = range_sum(x->prefix_len, n->first_block, n->end_block);
    return len > 0 ? (double)range_sum(x->prefix_link, n->first_block, n->end_block) / (double)len : 0;
}

static int is_boiler(uint8_t hints)
{
    return (hints & (HINT_BOILER | HINT_BOILER_NAME | HINT_CONSENT | HINT_COMMENTS)) != 0;
}

/* True when heading b repeats the page's <title> (the article's headline is
 * metadata, not body text). */
static int is_page_title(const html_walk *w, const walk_block *b)
{
    if (b->len < TITLE_MIN_BYTES || !w->title.len || b->len < TITLE_MIN_SHARE * (double)w->title.len) return 0;
    return memmem(w->title.data, w->title.len, w->text.data + b->off, b->len) != NULL;
}

/* Lines that only label an advertisement slot, in a few languages. */
#define AD_LABEL(s) {s, sizeof s - 1}
static const struct {
    const char *s;
    size_t n;
} ad_labels[] = {
    AD_LABEL("advertisement"), AD_LABEL("advertisements"), AD_LABEL("advert"), AD_LABEL("ad"), AD_LABEL("ads"),
    AD_LABEL("sponsored"), AD_LABEL("sponsored content"), AD_LABEL("anzeige"), AD_LABEL("werbung"),
    AD_LABEL("publicité"), AD_LABEL("publicidad"), AD_LABEL("pubblicità"), AD_LABEL("publicidade"),
    AD_LABEL("reclame"), AD_LABEL("reklama"), AD_LABEL("реклама"), AD_LABEL("Реклама"), AD_LABEL("广告"),
    AD_LABEL("広告"), AD_LABEL("광고"),
};
#undef AD_LABEL

/* True when block b is nothing but an advertisement label. */
static int is_ad_label(const html_walk *w, const walk_block *b)
{
    if (b->len > AD_LABEL_MAX_BYTES) return 0;
    char low[AD_LABEL_MAX_BYTES + 1];
    size_t n = b->len;
    const char *s = w->text.data + b->off;
    while (n && (s[n - 1] == ' ' || s[n - 1] == ':')) n--;
    for (size_t i = 0; i < n; i++) low[i] = (char)tolower((unsigned char)s[i]);
    for (size_t i = 0; i < sizeof ad_labels / sizeof ad_labels[0]; i++)
        if (ad_labels[i].n == n && !memcmp(low, ad_labels[i].s, n)) return 1;
    return 0;
}

/* True for a heading, or a short line without sentence punctuation or links. */
static int is_label(const html_walk *w, const walk_block *b)
{
    if (b->kind == BLOCK_HEADING) return 1;
    return b->kind == BLOCK_TEXT && b->len < LABEL_MAX_BYTES && !b->link_len && !ends_sentence(w->text.data + b->off, b->len);
}

/* True for a paragraph that reads as sentences: a <p> of some length ending in
 * sentence punctuation. Its links are words of the text (a Wikipedia stub
 * links half its words), not navigation. */
static int is_linked_prose(const html_walk *w, const walk_block *b)
{
    const walk_node *n = b->node >= 0 ? &w->nodes[b->node] : NULL;
    return n && (n->tag & TAG_PARA) && b->kind == BLOCK_TEXT && b->len >= SENTENCE_MIN_BYTES &&
           ends_sentence(w->text.data + b->off, b->len);
}

/* How much block b speaks for the element around it being the main content. */
static long block_weight(const html_walk *w, const extract_scratch *x, const walk_block *b)
{
    uint8_t h = b->node >= 0 ? x->hints[b->node] : 0;
    if (is_boiler(h)) return -(long)b->len - (long)BLOCK_COST;
    if (h & (HINT_BYLINE | HINT_CAPTION)) return 0;
    const walk_node *n = b->node >= 0 ? &w->nodes[b->node] : NULL;
    long nonlink = (long)b->len - (long)b->link_len;
    double cost = b->kind == BLOCK_CELL ? CELL_COST : b->kind == BLOCK_ITEM ? ITEM_COST
                : b->brk < 2 ? 0 : BLOCK_COST;
    double text = (double)nonlink;
    if ((!n || !(n->tag & TAG_PARA)) && b->kind != BLOCK_CELL) text *= NON_PARAGRAPH_SHARE;
    if (b->kind == BLOCK_ITEM && b->lead_link >= TEASER_LEAD_LINK) text = 0;
    if (nonlink >= SENTENCE_MIN_BYTES && ends_sentence(w->text.data + b->off, b->len)) text += SENTENCE_BONUS;
    double links = 0;
    if (is_linked_prose(w, b)) text += LINKED_PROSE_SHARE * (double)b->link_len;
    else if (b->kind != BLOCK_HEADING && node_link_density(w, x, b) > LINK_DENSITY_MAX) links = LINK_PENALTY * (double)b->link_len;
    return (long)(text - cost - links);
}

/* Empties the set of long kept blocks, with room for the blocks [first, end);
 * returns its slot mask. */
static size_t repeat_set_reset(extract_scratch *x, uint32_t first, uint32_t end)
{
    size_t slots = 16;
    while (slots < 2 * (size_t)(end - first)) slots *= 2;
    if (x->cap_repeat < slots) {
        x->cap_repeat = slots;
        x->repeat_slot = xrealloc(x->repeat_slot, slots * sizeof *x->repeat_slot);
    }
    memset(x->repeat_slot, 0, slots * sizeof *x->repeat_slot);
    return slots - 1;
}

/* True when block i repeats, byte for byte, a block already in the set;
 * adds it otherwise. */
static int repeat_set_seen(const html_walk *w, extract_scratch *x, size_t mask, uint32_t i)
{
    const walk_block *b = &w->blocks[i];
    const char *text = w->text.data + b->off;
    for (size_t k = XXH3_64bits(text, b->len) & mask;; k = (k + 1) & mask) {
        uint32_t j = x->repeat_slot[k];
        if (!j) {
            x->repeat_slot[k] = i + 1;
            return 0;
        }
        const walk_block *c = &w->blocks[j - 1];
        if (c->len == b->len && !memcmp(w->text.data + c->off, text, b->len)) return 1;
    }
}

/* Keeps the blocks of [first, end) that are not boilerplate, captions, the
 * page title, link lists or a second copy of the content, then drops labels
 * whose section went; returns the bytes of text kept. */
static long filter_blocks(const html_walk *w, extract_scratch *x, uint32_t first, uint32_t end,
                          unsigned char *keep)
{
    size_t repeat_mask = repeat_set_reset(x, first, end);
    /* verdicts: a block goes as part of a dropped section (boilerplate, byline,
     * link list), or goes aside (caption, title, ad label) without saying
     * anything about its neighbours */
    enum { DROPPED = 0, KEPT = 1, ASIDE = 2, REPEAT = 3 };
    long kept_bytes = 0, repeat_bytes = 0;
    for (uint32_t i = first; i < end; i++) {
        const walk_block *b = &w->blocks[i];
        uint8_t h = b->node >= 0 ? x->hints[b->node] : 0;
        keep[i] = DROPPED;
        if (is_boiler(h) || (h & HINT_BYLINE)) continue;
        keep[i] = ASIDE;
        if ((h & HINT_CAPTION) || (b->kind == BLOCK_HEADING && is_page_title(w, b)) || is_ad_label(w, b)) continue;
        keep[i] = DROPPED;
        if (b->link_len > LINK_DENSITY_MAX * b->len && node_link_density(w, x, b) > LINK_DENSITY_MAX &&
            (long)b->len - (long)b->link_len < LINKED_PROSE_MIN && !is_linked_prose(w, b))
            continue;
        keep[i] = KEPT;
        kept_bytes += b->len;
        if (b->len >= REPEAT_MIN_BYTES && repeat_set_seen(w, x, repeat_mask, i)) {
            keep[i] = REPEAT;
            repeat_bytes += b->len;
        }
    }
    for (uint32_t i = first; i < end; i++)
        if (keep[i] == REPEAT) keep[i] = repeat_bytes > REPEAT_SHARE * (double)kept_bytes ? ASIDE : KEPT;
    /* a heading or short label whose section was dropped goes too ("Related",
     * "Don't miss"): judged backwards on the filter's verdicts of the next
     * block that is not aside, so drops do not cascade */
    long kept = 0;
    int next = -1; /* verdict of the next block that is not aside; -1 at the end */
    for (uint32_t i = end; i-- > first;) {
        const walk_block *b = &w->blocks[i];
        int verdict = keep[i];
        if (verdict == ASIDE) {
            keep[i] = 0;
            continue;
        }
        if (verdict == KEPT && is_label(w, b) && (next == DROPPED || (next < 0 && b->kind == BLOCK_HEADING)))
            keep[i] = 0;
        else if (verdict == KEPT)
            kept += b->len;
        next = verdict;
    }
    return kept;
}

typedef struct {
    long sum;
    uint32_t first, end;
} run;

/* Kadane over one element's units (child elements and its own blocks, in
 * order, covering blocks [first, end)); updates *best with a better run. */
static void best_run(const html_walk *w, const extract_scratch *x, int32_t child, uint32_t first, uint32_t end,
                     run *best)
{
    long cur = 0;
    uint32_t cur_first = first, pos = first;
    while (pos < end) {
        uint32_t unit_end;
        if (child >= 0 && w->nodes[child].first_block <= pos) {
            unit_end = w->nodes[child].end_block;
            child = x->next_sibling[child];
            if (unit_end <= pos) continue; /* an element without text */
        } else {
            unit_end = pos + 1; /* a block of the element's own text */
        }
        long s = range_sum(x->prefix_w, pos, unit_end);
        if (cur <= 0) {
            cur = 0;
            cur_first = pos;
        }
        cur += s;
        if (cur > best->sum) {
            best->sum = cur;
            best->first = cur_first;
            best->end = unit_end;
        }
        pos = unit_end;
    }
}

/* The page's one <main> element, or -1 (none, or several). */
static int32_t main_element(const html_walk *w)
{
    int32_t found = -1;
    for (size_t i = 0; i < w->nnodes; i++) {
        if (strcmp(html_tag_name(w->nodes[i].tag_id), "main")) continue;
        if (found >= 0) return -1;
        found = (int32_t)i;
    }
    return found;
}

/* Widens the selection [*first, *end) to the page's <main> element when it
 * lies inside it but holds less than MAIN_SHARE of its prose outside
 * boilerplate: a landing page's sections, each too small to win alone. */
static void widen_to_main(const html_walk *w, const extract_scratch *x, uint32_t *first, uint32_t *end)
{
    int32_t m = main_element(w);
    if (m < 0) return;
    const walk_node *n = &w->nodes[m];
    if (n->first_block > *first || n->end_block < *end) return;
    long in_main = 0, selected = 0;
    for (uint32_t i = n->first_block; i < n->end_block; i++) {
        const walk_block *b = &w->blocks[i];
        if (b->node >= 0 && is_boiler(x->hints[b->node])) continue;
        in_main += prose_value(b);
        if (i >= *first && i < *end) selected += prose_value(b);
    }
    if (selected < MAIN_SHARE * (double)in_main) {
        *first = n->first_block;
        *end = n->end_block;
    }
}

/* Chooses the main content with the hints in ignored taken off every element
 * and marks its blocks in keep; returns the bytes of text kept. */
static long select_content(const html_walk *w, extract_scratch *x, unsigned char *keep, uint8_t ignored)
{
    size_t nb = w->nblocks, nn = w->nnodes;
    /* effective hints: a wrapper holding most of the prose loses its boilerplate hint */
    long total_prose = x->prefix_prose[nb];
    for (size_t i = 0; i < nn; i++) {
        const walk_node *n = &w->nodes[i];
        uint8_t own = n->hints & (uint8_t)~ignored;
        long inside = range_sum(x->prefix_prose, n->first_block, n->end_block);
        if (is_boiler(own) && inside > WRAPPER_SHARE * (double)total_prose)
            own &= (uint8_t)~(HINT_BOILER | HINT_BOILER_NAME | HINT_COMMENTS);
        int figcaption = !strcmp(html_tag_name(n->tag_id), "figcaption");
        if ((own & (HINT_BYLINE | HINT_CAPTION)) && inside > BYLINE_MAX_BYTES && !figcaption)
            own &= (uint8_t)~(HINT_BYLINE | HINT_CAPTION);
        x->hints[i] = (uint8_t)(own | (n->parent >= 0 ? x->hints[n->parent] : 0));
    }

    x->prefix_w[0] = 0;
    for (size_t i = 0; i < nb; i++) x->prefix_w[i + 1] = x->prefix_w[i] + block_weight(w, x, &w->blocks[i]);

    /* the maximum-weight run of siblings: for each element (and the page
     * root), the contiguous run of its children and direct text blocks
     * with the largest total weight */
    for (size_t i = 0; i < nn; i++) x->first_child[i] = x->next_sibling[i] = -1;
    int32_t root_first = -1;
    for (size_t i = nn; i-- > 0;) { /* backwards, so each list ends up in document order */
        int32_t p = w->nodes[i].parent;
        int32_t *head = p >= 0 ? &x->first_child[p] : &root_first;
        x->next_sibling[i] = *head;
        *head = (int32_t)i;
    }
    run best = {0, 0, 0};
    best_run(w, x, root_first, 0, (uint32_t)nb, &best);
    for (size_t i = 0; i < nn; i++)
        if (x->first_child[i] >= 0 || w->nodes[i].end_block > w->nodes[i].first_block)
            best_run(w, x, x->first_child[i], w->nodes[i].first_block, w->nodes[i].end_block, &best);
    /* the maximum-weight element, preferred unless a run of siblings is much better */
    run whole = {0, 0, 0};
    for (size_t i = 0; i < nn; i++) {
        const walk_node *n = &w->nodes[i];
        long sum = range_sum(x->prefix_w, n->first_block, n->end_block);
        if (sum > whole.sum) whole = (run){sum, n->first_block, n->end_block};
    }
    /* a single block is a weak witness for an element boundary */
    double advantage = whole.end - whole.first > 1 ? RUN_ADVANTAGE : 1;
    if (whole.sum * advantage >= best.sum) best = whole;
    uint32_t first = 0, end = (uint32_t)nb;
    if (best.sum > 0) {
        first = best.first;
        end = best.end;
        widen_to_main(w, x, &first, &end);
    }

    /* inside it, drop boilerplate and link lists; a page whose content is
     * tiny (a portal, a form, an empty article) gets the same filter over
     * the whole page, so it still yields its real text */
    memset(keep, 0, nb);
    long kept_prose = filter_blocks(w, x, first, end, keep);
    if (kept_prose < MIN_CONTENT_BYTES && (first > 0 || end < nb)) {
        memset(keep, 0, nb);
        kept_prose = filter_blocks(w, x, 0, (uint32_t)nb, keep);
    }
    return kept_prose;
}

/* Bytes of prose in blocks under one of hints (x->hints as last set); with
 * sentences_only, of paragraphs of sentences only. */
static long prose_under(const html_walk *w, const extract_scratch *x, uint8_t hints, int sentences_only)
{
    long sum = 0;
    for (size_t i = 0; i < w->nblocks; i++) {
        const walk_block *b = &w->blocks[i];
        if (b->node >= 0 && (x->hints[b->node] & hints) && (!sentences_only || is_linked_prose(w, b)))
            sum += prose_value(b);
    }
    return sum;
}

/* Bytes of prose in the kept blocks that read as sentences (long enough,
 * ending in sentence punctuation), whatever their element. */
static long kept_sentence_prose(const html_walk *w, const unsigned char *keep)
{
    long sum = 0;
    for (size_t i = 0; i < w->nblocks; i++) {
        const walk_block *b = &w->blocks[i];
        if (keep[i] && b->len >= SENTENCE_MIN_BYTES && ends_sentence(w->text.data + b->off, b->len))
            sum += prose_value(b);
    }
    return sum;
}

void extract_main(const html_walk *w, unsigned char *keep)
{
    size_t nb = w->nblocks, nn = w->nnodes;
    memset(keep, 0, nb);
    if (!nb) return;
    extract_scratch *x = &tl_x;
    reserve(x, nb, nn);

    x->prefix_prose[0] = x->prefix_len[0] = x->prefix_link[0] = 0;
    for (size_t i = 0; i < nb; i++) {
        const walk_block *b = &w->blocks[i];
        x->prefix_prose[i + 1] = x->prefix_prose[i] + prose_value(b);
        x->prefix_len[i + 1] = x->prefix_len[i] + (long)b->len;
        x->prefix_link[i + 1] = x->prefix_link[i] + (long)b->link_len;
    }
    long kept_prose = select_content(w, x, keep, 0);
    /* next to nothing but comments, or no sentences beside several times as
     * much comment prose ("Sign in to comment", an app install prompt): a
     * discussion (a forum thread, a Hacker News item), whose posts are its
     * content */
    long comments = prose_under(w, x, HINT_COMMENTS, 0);
    if (comments >= MIN_CONTENT_BYTES &&
        (kept_prose < MIN_CONTENT_BYTES ||
         (kept_sentence_prose(w, keep) < MIN_CONTENT_BYTES && comments >= HINTED_OVER_CONTENT * kept_prose)))
        kept_prose = select_content(w, x, keep, HINT_COMMENTS);
    /* next to nothing, or a few times less than the paragraphs of sentences
     * under boilerplate hints: hint words in the content's class names (CSS
     * modules' WidgetWrapper_..., page builders, "contextmenu" on each <p>) */
    long named = prose_under(w, x, HINT_BOILER_NAME, 1);
    if (named >= BOILER_FALLBACK_MIN && (kept_prose < MIN_CONTENT_BYTES || named >= HINTED_OVER_CONTENT * kept_prose))
        kept_prose = select_content(w, x, keep, HINT_BOILER_NAME | HINT_COMMENTS);
    /* still next to nothing: a page of links; its text is all that is not marked boilerplate */
    if (kept_prose < MIN_CONTENT_BYTES) {
        kept_prose = 0;
        for (size_t i = 0; i < nb; i++) {
            const walk_block *b = &w->blocks[i];
            keep[i] = !is_boiler(b->node >= 0 ? x->hints[b->node] : 0);
            kept_prose += keep[i];
        }
    }
    if (!kept_prose) memset(keep, 1, nb);
}

