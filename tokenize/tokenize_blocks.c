/* tokenize_blocks.c - the tokenize stage's path for the GPU (see tokenize_blocks.h).
 *
 * Three threads, each with its own team of workers, pass blocks down two
 * queues: the scanner takes a block from the source and scans it; the main
 * thread encodes it (one GPU call, or its team on the CPU); the writer
 * formats it and writes it. So block k+1 is scanned while block k is on the
 * GPU and block k-1 is written. Blocks (their arrays kept) are reused. */
#include "tokenize/tokenize_blocks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>

#include "core/block_source.h"
#include "core/doc.h"
#include "core/gpu_verdict.h"
#include "core/output.h"
#include "core/pages.h"
#include "core/progress.h"
#include "core/team.h"
#include "core/util.h"
#include "gpu/bpe.h"
#include "tokenize/id_ring.h"
#include "tokenize/token_format.h"

/* JSONL per block once the GPU encodes: one encode call, its batches in flight. */
#define GPU_BLOCK_BYTES ((size_t)256 << 20)
/* JSONL per block while the CPU encodes because the GPU is still starting:
 * small, so that the GPU takes over soon after it is up. */
#define STARTING_BLOCK_BYTES ((size_t)16 << 20)
/* Decoded JSONL per unit of a gzip or zstd file (its members or frames), and per read of another compressed input. */
#define DECODED_BLOCK_BYTES ((size_t)64 << 20)
/* JSONL per block in the test modes (TB_ENCODE_CPU, TB_ENCODE_EMULATE):
 * small, so that small test inputs cross many block boundaries. */
#define TEST_BLOCK_BYTES ((size_t)1 << 20)
/* Blocks waiting between two threads. */
#define QUEUE_BLOCKS 2
/* A pinned text buffer is made 1/PINNED_SLACK larger than the block that
 * first needs it, so that the next blocks (a line longer or shorter) fit. */
#define PINNED_SLACK 8
/* Pinned text buffers made while the GPU starts: one per block that can be
 * between scan and encode (being scanned, queued, being encoded, and the
 * one before it, whose last batches may still be on the GPU). */
#define PINNED_BUFFERS (QUEUE_BLOCKS + 3)
/* Threads that fault in the pinned text buffers' pages while the GPU starts. */
#define TEXT_FAULT_THREADS 4
/* Input (regular files) from which the pinned text buffers are faulted in
 * from the start, beside the driver's own start-up, rather than once the
 * device check is done: enough to fill every buffer. On 8.5 GB this made
 * the run 0.12 s faster than faulting after the check (the library's
 * opening then competes with it), but one document 0.08 s slower (the
 * check competes with it), bench/results/gpu-tokenize-bin-2026-11-27.md. */
#define FAULT_AT_START_MIN_BYTES ((uint64_t)PINNED_BUFFERS * GPU_BLOCK_BYTES)
/* Pinned text buffers are whole huge pages (the driver registers whole pages). */
#define TEXT_PAGE ((size_t)2 << 20)
/* --format bin: the pinned ring the device copies the ids into, where the
 * writer writes them from (no copy on the host). Ids take ~1.1 bytes per
 * byte of JSONL on real text (cl100k), so this holds ~2.7 blocks' ids: the
 * block held for its last batches and the one being encoded, with room to
 * spare; a batch that finds no room waits for the writer to give some back
 * when blocks it has been given hold any, else is copied into the block's
 * own id array, as without the ring. */
#define ID_RING_BYTES ((size_t)768 << 20)
/* ... and in the test modes, with their 1 MiB blocks: small, so that tests
 * see blocks whose ids fit and blocks whose ids do not (copied). */
#define TEST_ID_RING_BYTES ((size_t)1 << 20)
#define THREADS_MAX 64 /* team threads (more make ranges too small to pay) */
/* --format bin goes to the output as pieces (writev: each document's ids
 * straight from the block's id array, no formatting copy) when documents
 * have this many ids on average; shorter ones are formatted into one buffer,
 * which costs less than a piece each. */
#define WRITEV_MIN_IDS 256
/* Environment variable that makes the command print where its time went. */
#define TIMES_ENV "WINNOW_TOKENIZE_TIMES"

/* The GPU library's opening (whether a device is there at all is gpu_start's verdict). */
enum { GPU_STARTING, GPU_READY, GPU_FAILED };

/* A document as the scan finds it. */
typedef struct {
    const char *line;
    size_t len; /* without the line end */
    size_t close_brace;
    const char *text; /* NULL: decoded, at text_off in the range's buffer */
    size_t text_off, text_len;
    const char *fail; /* NULL, or the failure kind */
    const char *err;  /* bad_json: why, and where */
    size_t err_pos;
    uint64_t line_no; /* in the range, from 1 */
} tb_doc;

/* One thread's range of a block. */
typedef struct {
    const char *lo, *hi;
    tb_doc *docs;
    size_t n, cap;
    wbuf decoded; /* texts with escapes, decoded (when the block has no pinned buffer) */
    wbuf renamed; /* with doc_text_renamed(): the range's lines in winnow's shape, scanned instead */
    tb_doc *refused; /* and for each non-blank line, in order, why it could not be (fail NULL: it could) */
    size_t refused_cap;
    char *pinned; /* else every text, back to back, at the range's own offset in the block's pinned buffer */
    uint64_t lines, spans;
    size_t first_doc;
    uint64_t first_line; /* the line number in its file of the range's first line */
} tb_range;

/* Page-locked memory for a block's texts (gpu_bpe_host_register), lent from scan to encode. */
typedef struct tb_pinned {
    char *p;
    size_t cap;
    struct tb_pinned *next_free;
} tb_pinned;

typedef struct tb_block {
    source_block src;
    tb_pinned *pinned; /* NULL: texts point into the input and the ranges' decoded buffers */
    tb_range *ranges; /* the scan's, one per scanner thread: decoded texts live there */
    size_t n, cap; /* documents (non-blank lines) */
    const char **texts, **lines, **fail;
    size_t *lens, *close, *doc_end;
    tok_ids ids;
    gpu_bpe_id_sink sink; /* --format bin on the GPU: runs of ids that lie in the ring, not in ids */
    uint64_t ring_end;    /* the ring's mark to give back once the block is written (0: none) */
    struct tb_block *next_free;
} tb_block;

/* Blocks passed from one thread to the next, in order. */
typedef struct {
    tb_block *items[QUEUE_BLOCKS];
    int head, n;
    bool closed;
} tb_queue;

/* Seconds spent, for TIMES_ENV. */
typedef struct {
    double source, scan, scan_wait, encode_gpu, encode_cpu, encode_wait, format, write, finish, gpu_start, total;
    double ring_wait; /* the main thread waiting for the writer to give ring room back */
    uint64_t blocks_gpu, blocks_cpu, bytes_gpu, bytes_cpu, ids_ring, ids_copied;
} tb_times;

struct tb_ctx;

typedef struct {
    struct tb_ctx *owner;
    const tokenizer *tok;
    gpu_bpe_mode mode;
    gpu_bpe *g;
    wbuf why;
    gpu_verdict verdict; /* GPU_BPE_DEVICE: whether a device is there (gpu_bpe_usable), set before the library opens */
    atomic_int state;
    atomic_bool stop_pinning; /* the run is over: make no more pinned buffers */
    double seconds;
    double check;   /* seconds of the device check (gpu_bpe_usable), part of seconds */
    double faulting; /* seconds the faulting thread took (beside the library's opening) */
    double pinning; /* seconds spent registering the pinned text buffers once the library was open */
    double closing; /* seconds the closing thread spent freeing them and closing the library */
    int npinned;    /* how many were made */
    pthread_t thread;
    bool started;
    /* the pinned text buffers' memory, faulted in by a thread of its own while the GPU starts */
    bool fault_at_start; /* from the start (large input), else once the device check is done */
    char *text_mem[PINNED_BUFFERS];
    size_t text_bytes;
    char *ring_mem; /* --format bin: the id ring's memory, faulted in after the text buffers */
    size_t ring_bytes;
    pthread_t faulter;
    bool faulter_started;
} gpu_start;

typedef struct tb_ctx {
    const tokenizer *tok;
    tokenize_format format;
    uint32_t bos, eos; /* TOKEN_FORMAT_NONE when not added here */
    const tokenize_shard_sink *sink;
    tb_encoder enc;
    bool gpu_required;     /* --device gpu: a GPU that does not start ends the run before any output */
    atomic_bool gpu_checked; /* ... and a device is there */
    block_source *src;
    woutput *out;
    wstats stats, scan_stats;
    tb_times times;
    gpu_start gpu;
    int nt; /* threads of each team */

    /* scanner thread */
    wteam *scan_team;
    tb_block *scanning;
    pthread_t scanner;

    /* main thread: encode */
    wteam *team;
    tok_ids *cpu_ids;
    bpe_scratch *scratch;
    size_t *bounds; /* per thread, its first document (nt + 1) */
    tb_block *cur;
    tb_block *held; /* encoded on the GPU, its last batches maybe still there (gpu_bpe_encode_begin) */

    /* writer thread */
    wteam *wteam;
    wbuf *fmt; /* per writer thread: JSONL lines */
    size_t *fmt_bounds, *fmt_bytes;
    wbuf bin;
    uint32_t *heads;   /* --format bin as pieces: per document its count and BOS */
    struct iovec *iov; /* ... and the pieces */
    size_t heads_cap, iov_cap;
    tb_block *writing;
    pthread_t writer;
    /* the GPU library's own times, for TIMES_ENV */
    double gpu_host[GPU_BPE_HOST_PHASES], gpu_dev[GPU_BPE_PHASES], gpu_kernels;
    char gpu_by_device[256]; /* " device I SECONDS (N batches)" for each device the library used */
    pthread_mutex_t lock; /* the queues and the free blocks */
    pthread_cond_t changed;
    tb_queue scanned, encoded;
    tb_block *free_blocks;
    tb_pinned *free_pinned;
    /* --format bin on the GPU: the id ring (under lock), once its memory is pinned */
    id_ring ring;
    char *ring_mem;           /* registered: the ring is in use */
    uint64_t ring_passed;     /* the ring mark of the last block handed to the writer (main thread) */
    bool writer_done;         /* the writer wrote its last block: the ring's memory can go (under lock) */
} tb_ctx;

/* Whether enc runs blocks of the GPU's sizes (a real GPU, now or later). */
static bool gpu_sized(tb_encoder enc) { return enc == TB_ENCODE_GPU || enc == TB_ENCODE_GPU_LATER; }

/* ---- starting the GPU on a thread of its own ---- */

static void start_faulting(gpu_start *gs);
static void pin_text_buffers(tb_ctx *c);

static void *start_gpu(void *arg)
{
    gpu_start *gs = arg;
    double t0 = now_seconds();
    /* first whether a device is there (~0.1 s of the driver's start-up), which
     * is all the first output waits for; then the library (~0.2-0.3 s more) */
    bool present = gs->mode != GPU_BPE_DEVICE || gpu_bpe_usable(&gs->why);
    if (gs->mode == GPU_BPE_DEVICE) gpu_verdict_set(&gs->verdict, present, gs->why.data);
    gs->check = now_seconds() - t0;
    if (present) {
        start_faulting(gs); /* unless it started with the run */
        gs->g = gpu_bpe_open(gs->tok, gs->mode, &gs->why);
    }
    gs->seconds = now_seconds() - t0;
    atomic_store(&gs->state, gs->g ? GPU_READY : GPU_FAILED);
    pin_text_buffers(gs->owner);
    return NULL;
}

static void gpu_start_begin(tb_ctx *c, gpu_start *gs, const tokenizer *tok, gpu_bpe_mode mode)
{
    gs->owner = c;
    if (gs->fault_at_start) start_faulting(gs);
    gs->tok = tok;
    gs->mode = mode;
    atomic_store(&gs->state, GPU_STARTING);
    if (pthread_create(&gs->thread, NULL, start_gpu, gs)) dief(EXIT_FATAL, "cannot start a thread");
    gs->started = true;
}

/* --device gpu: waits until a device is known to be there (the verdict),
 * and refuses the run when none is or the library already failed. Called before
 * the first output and once every block is encoded, so that a run without a
 * GPU writes nothing (an -o file is removed at exit: core/output.c) while
 * the CPU encodes meanwhile. (A device that is there but whose library
 * fails to open ends the run when the next block finds it: encode_block.) */
static void require_gpu(tb_ctx *c)
{
    if (!c->gpu_required || atomic_load(&c->gpu_checked)) return;
    gpu_verdict_require(&c->gpu.verdict);
    if (atomic_load(&c->gpu.state) == GPU_FAILED) gpu_refuse(c->gpu.why.data);
    atomic_store(&c->gpu_checked, true);
}

/* ---- scan: line ends, JSON, the text's place ---- */

static void put_pinned(tb_ctx *c, tb_pinned *pin)
{
    pthread_mutex_lock(&c->lock);
    pin->next_free = c->free_pinned;
    c->free_pinned = pin;
    pthread_mutex_unlock(&c->lock);
}

/* A free pinned buffer for a block of len bytes of JSONL (its texts fit in
 * as much); NULL when there is none (the GPU is not up, its buffers are
 * still being made or all lent, the block is too long): then the block's
 * texts are packed by the library, as without pinned buffers. */
static tb_pinned *take_pinned(tb_ctx *c, size_t len)
{
    if (c->enc == TB_ENCODE_CPU || atomic_load(&c->gpu.state) != GPU_READY) return NULL;
    pthread_mutex_lock(&c->lock);
    tb_pinned *pin = c->free_pinned;
    if (pin) c->free_pinned = pin->next_free;
    pthread_mutex_unlock(&c->lock);
    if (pin && pin->cap < len) put_pinned(c, pin), pin = NULL;
    return pin;
}

/* Allocates the memory of the pinned text buffers that the blocks between
 * scan and encode need (room for the next, slightly longer blocks too) and
 * faults it in on TEXT_FAULT_THREADS threads, since the driver can only
 * pin pages that exist (~0.2 s for the 1.4 GB). Runs on a thread of its own
 * while the GPU starts, so the buffers are registered (~0.04 s) as soon as
 * the library is up, and the first GPU blocks' texts are scanned straight
 * into them rather than copied into the library's batches. Whatever it
 * runs beside is slowed (page faults and the driver's mappings, we take it, share the
 * process's memory map lock): the device check, 0.10 s alone, took
 * 0.22-0.26 s beside it; the library's opening, 0.2 s alone, ~0.4. */
static void *fault_text_buffers(void *arg)
{
    gpu_start *gs = arg;
    double t0 = now_seconds();
    for (int i = 0; i < PINNED_BUFFERS && !atomic_load(&gs->stop_pinning); i++) {
        gs->text_mem[i] = xmalloc_huge(gs->text_bytes);
        pages_populate(gs->text_mem[i], gs->text_bytes, TEXT_FAULT_THREADS);
    }
    if (gs->ring_bytes && !atomic_load(&gs->stop_pinning)) {
        gs->ring_mem = xmalloc_huge(gs->ring_bytes);
        pages_populate(gs->ring_mem, gs->ring_bytes, TEXT_FAULT_THREADS);
    }
    gs->faulting = now_seconds() - t0;
    return NULL;
}

/* Starts fault_text_buffers() on its thread (once). */
static void start_faulting(gpu_start *gs)
{
    if (gs->faulter_started) return;
    size_t len = gpu_sized(gs->owner->enc) ? GPU_BLOCK_BYTES : TEST_BLOCK_BYTES;
    len += len / PINNED_SLACK;
    gs->text_bytes = (len + TEXT_PAGE - 1) / TEXT_PAGE * TEXT_PAGE;
    if (gs->owner->format == TOKENIZE_BIN) gs->ring_bytes = gpu_sized(gs->owner->enc) ? ID_RING_BYTES : TEST_ID_RING_BYTES;
    gs->faulter_started = pthread_create(&gs->faulter, NULL, fault_text_buffers, gs) == 0;
}

/* Once the library is open (or failed to), on the thread that started it:
 * registers the faulted-in text buffers as pinned memory one by one
 * (~0.02 s per GB on the H200 machine) and lends each to the scanner; frees
 * them when the GPU did not start or the run is already over. */
static void pin_text_buffers(tb_ctx *c)
{
    gpu_start *gs = &c->gpu;
    if (!gs->faulter_started) return;
    double t0 = now_seconds();
    pthread_join(gs->faulter, NULL);
    gs->faulter_started = false;
    for (int i = 0; i < PINNED_BUFFERS; i++) {
        char *m = gs->text_mem[i];
        gs->text_mem[i] = NULL;
        if (!m) continue;
        if (!gs->g || atomic_load(&gs->stop_pinning) || gpu_bpe_host_register(gs->g, m, gs->text_bytes)) {
            free(m);
            continue;
        }
        tb_pinned *pin = xcalloc(1, sizeof *pin);
        pin->p = m;
        pin->cap = gs->text_bytes;
        put_pinned(c, pin);
        gs->npinned++;
    }
    char *m = gs->ring_mem;
    gs->ring_mem = NULL;
    if (m && (!gs->g || atomic_load(&gs->stop_pinning) || gpu_bpe_host_register(gs->g, m, gs->ring_bytes))) {
        free(m);
        m = NULL;
    }
    if (m) {
        pthread_mutex_lock(&c->lock);
        id_ring_init(&c->ring, (uint32_t *)(void *)m, gs->ring_bytes / sizeof(uint32_t));
        c->ring_mem = m;
        pthread_mutex_unlock(&c->lock);
    }
    gs->pinning = now_seconds() - t0;
}

/* Lends block b's pinned buffer (if any) to a block scanned later. */
static void give_pinned(tb_ctx *c, tb_block *b)
{
    if (!b->pinned) return;
    put_pinned(c, b->pinned);
    b->pinned = NULL;
}

/* Frees the pinned buffers; once every block is encoded, before the GPU closes. */
static void free_pinned(tb_ctx *c)
{
    for (tb_pinned *pin = c->free_pinned, *next; pin; pin = next) {
        next = pin->next_free;
        gpu_bpe_host_free(c->gpu.g, pin->p);
        free(pin);
    }
    c->free_pinned = NULL;
}

/* Frees the id ring's memory once the writer is done with it; before the GPU closes. */
static void free_ring(tb_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    while (c->ring_mem && !c->writer_done) pthread_cond_wait(&c->changed, &c->lock);
    char *m = c->ring_mem;
    c->ring_mem = NULL;
    pthread_mutex_unlock(&c->lock);
    if (m) gpu_bpe_host_free(c->gpu.g, m);
}

/* Splits the block into nt ranges of whole lines. */
static void split_ranges(tb_ctx *c, tb_block *b)
{
    const source_block *sb = &b->src;
    const char *p = sb->data, *end = sb->data + sb->len;
    if (!b->ranges) b->ranges = xcalloc((size_t)c->nt, sizeof *b->ranges);
    for (int t = 0; t < c->nt; t++) {
        const char *hi = t + 1 == c->nt ? end : sb->data + sb->len * (size_t)(t + 1) / (size_t)c->nt;
        if (hi < p) hi = p;
        if (hi > p && hi < end) {
            const char *nl = memchr(hi - 1, '\n', (size_t)(end - (hi - 1)));
            hi = nl ? nl + 1 : end;
        }
        b->ranges[t].lo = p;
        b->ranges[t].hi = hi;
        p = hi;
    }
}

/* True when the line holds only spaces and tabs: not a document, neither
 * counted nor written, as in the engine path (core/stage.c) and ingest. */
static bool blank_line(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != ' ' && p[i] != '\t') return false;
    return true;
}

/* Writes range r's lines to r->renamed in winnow's shape (doc_normalize_line),
 * one for one, blank lines and lines that cannot be renamed as they are (why
 * in r->refused); counts the range's input bytes in r->spans. */
static void rename_range(tb_range *r)
{
    buf_clear(&r->renamed);
    size_t k = 0;
    for (const char *p = r->lo; p < r->hi;) {
        const char *nl = memchr(p, '\n', (size_t)(r->hi - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(r->hi - p);
        const char *next = nl ? nl + 1 : r->hi;
        if (len && p[len - 1] == '\r') len--;
        if (len && !blank_line(p, len)) {
            if (k == r->refused_cap) {
                r->refused_cap = r->refused_cap ? 2 * r->refused_cap : 1024;
                r->refused = xrealloc(r->refused, r->refused_cap * sizeof *r->refused);
            }
            tb_doc *why = &r->refused[k++];
            memset(why, 0, sizeof *why);
            why->fail = doc_normalize_line(p, len, &r->renamed, &why->err, &why->err_pos);
            if (why->fail) {
                if (strcmp(why->fail, "bad_json")) why->err = NULL;
                buf_append(&r->renamed, p, len);
                buf_putc(&r->renamed, '\n');
            }
            r->spans += (size_t)(next - p) + (nl ? 0 : 1);
        } else {
            buf_append(&r->renamed, p, len);
            buf_putc(&r->renamed, '\n');
        }
        p = next;
    }
}

static void scan_range(void *arg, int t, int nt)
{
    (void)nt;
    tb_ctx *c = arg;
    tb_range *r = &c->scanning->ranges[t];
    r->n = 0;
    r->lines = r->spans = 0;
    buf_clear(&r->decoded);
    char *pinned = r->pinned; /* where the next text goes, with a pinned buffer */
    block_source_prefault(&c->scanning->src, r->lo, r->hi);
    const char *lo = r->lo, *hi = r->hi;
    bool renamed = doc_text_renamed();
    if (renamed) { /* the lines in winnow's shape are scanned instead (no pinned buffer then) */
        rename_range(r);
        lo = r->renamed.data;
        hi = lo + r->renamed.len;
    }
    for (const char *p = lo; p < hi;) {
        const char *nl = memchr(p, '\n', (size_t)(hi - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(hi - p);
        const char *next = nl ? nl + 1 : hi;
        r->lines++;
        if (len && p[len - 1] == '\r') len--;
        if (len && !blank_line(p, len)) {
            if (r->n == r->cap) {
                r->cap = r->cap ? 2 * r->cap : 1024;
                r->docs = xrealloc(r->docs, r->cap * sizeof *r->docs);
            }
            tb_doc *d = &r->docs[r->n++];
            memset(d, 0, sizeof *d);
            d->line = p;
            d->len = len;
            d->line_no = r->lines;
            if (!renamed) r->spans += (size_t)(next - p) + (nl ? 0 : 1); /* the engine counts a missing last '\n' */
            if (renamed && r->refused[r->n - 1].fail) {
                const tb_doc *why = &r->refused[r->n - 1];
                d->fail = why->fail, d->err = why->err, d->err_pos = why->err_pos;
                p = next;
                continue;
            }
            jdoc j;
            size_t text_len = 0;
            /* with a pinned buffer the scan writes the decoded text there itself: a text never takes
             * more room decoded than in its line, so the line's own room in the buffer (len bytes from
             * the next text's place, which is never past the line's) holds it, whole vectors too */
            int bad = pinned ? json_scan_doc_text(p, len, &j, pinned, &text_len, &d->err, &d->err_pos)
                             : json_scan_doc(p, len, &j, &d->err, &d->err_pos);
            if (bad) {
                d->fail = "bad_json";
            } else if (j.text.kind != JSON_STRING) {
                d->fail = "missing_text";
            } else {
                d->close_brace = j.close_brace;
                if (pinned) {
                    d->text = pinned;
                    d->text_len = text_len;
                    pinned += text_len;
                } else if (j.text.has_escapes) {
                    d->text_off = r->decoded.len;
                    json_unescape(&j.text, &r->decoded);
                    d->text_len = r->decoded.len - d->text_off;
                } else {
                    d->text = j.text.p;
                    d->text_len = j.text.len;
                }
            }
        }
        p = next;
    }
}

static void block_reserve(tb_block *b, size_t n)
{
    if (n <= b->cap) return;
    b->cap = n + n / 2;
    b->texts = xrealloc(b->texts, b->cap * sizeof *b->texts);
    b->lines = xrealloc(b->lines, b->cap * sizeof *b->lines);
    b->fail = xrealloc(b->fail, b->cap * sizeof *b->fail);
    b->lens = xrealloc(b->lens, b->cap * sizeof *b->lens);
    b->close = xrealloc(b->close, b->cap * sizeof *b->close);
    b->doc_end = xrealloc(b->doc_end, b->cap * sizeof *b->doc_end);
}

/* Puts range t's documents at their place in the block's arrays. */
static void place_range(void *arg, int t, int nt)
{
    (void)nt;
    tb_ctx *c = arg;
    tb_block *b = c->scanning;
    const tb_range *r = &b->ranges[t];
    for (size_t i = 0; i < r->n; i++) {
        const tb_doc *d = &r->docs[i];
        size_t k = r->first_doc + i;
        b->lines[k] = d->line;
        b->close[k] = d->close_brace;
        b->fail[k] = d->fail;
        b->texts[k] = d->fail ? "" : d->text ? d->text : r->decoded.data + d->text_off;
        b->lens[k] = d->fail ? 0 : d->text_len;
    }
}

/* Scans block b; reports bad lines in input order; counts them. Returns the
 * number of the line after the block. */
static uint64_t scan_block(tb_ctx *c, tb_block *b, uint64_t line_no)
{
    c->scanning = b;
    split_ranges(c, b);
    b->pinned = doc_text_renamed() ? NULL : take_pinned(c, b->src.len); /* renamed lines are scanned elsewhere */
    for (int t = 0; t < c->nt; t++)
        b->ranges[t].pinned = b->pinned ? b->pinned->p + (b->ranges[t].lo - b->src.data) : NULL;
    team_run(c->scan_team, scan_range, c);
    size_t n = 0;
    uint64_t spans = 0;
    for (int t = 0; t < c->nt; t++) {
        tb_range *r = &b->ranges[t];
        r->first_doc = n;
        r->first_line = line_no;
        n += r->n;
        spans += r->spans;
        for (size_t i = 0; i < r->n; i++) {
            const tb_doc *d = &r->docs[i];
            if (!d->fail) continue;
            unsigned long long at = (unsigned long long)(line_no + d->line_no - 1);
            if (d->err)
                warnf("%s: %s %llu: bad JSON at byte %zu: %s", b->src.file, b->src.unit, at, d->err_pos + 1, d->err);
            else {
                char why[256];
                doc_describe_failure(d->fail, why, sizeof why);
                warnf("%s: %s %llu: %s", b->src.file, b->src.unit, at, why);
            }
            stats_fail(&c->scan_stats, d->fail);
        }
        line_no += r->lines;
    }
    b->n = n;
    block_reserve(b, n);
    team_run(c->scan_team, place_range, c);
    c->scan_stats.in += n;
    c->scan_stats.bytes_in += spans;
    progress_add(n, spans);
    return line_no;
}

/* ---- encode ---- */

/* Sets bounds[0..nt] to split documents [0, n) into nt runs of about equal weight. */
static void balance(const tb_block *b, int nt, size_t *bounds, const size_t *weight_end)
{
    uint64_t total = b->n ? weight_end[b->n - 1] : 0;
    size_t k = 0;
    bounds[0] = 0;
    for (int t = 1; t < nt; t++) {
        uint64_t goal = total * (uint64_t)t / (uint64_t)nt;
        while (k < b->n && weight_end[k] <= goal) k++;
        bounds[t] = k;
    }
    bounds[nt] = b->n;
}

/* The failure kind encode_cpu_range gives a document (its address tells it from the scan's). */
static const char REGEX_FAILED[] = TOKENIZER_REGEX_FAILURE;

/* The line number in its file of block b's document k (of the nt ranges' documents). */
static uint64_t doc_line(const tb_block *b, int nt, size_t k)
{
    int t = 0;
    while (t + 1 < nt && b->ranges[t + 1].first_doc <= k) t++;
    const tb_range *r = &b->ranges[t];
    return r->first_line + r->docs[k - r->first_doc].line_no - 1;
}

/* Block b's document k, which tokenizer_encode refused with error code: reported and marked failed (REGEX_FAILED). */
static void refuse_doc(const tb_ctx *c, tb_block *b, size_t k, int code)
{
    wbuf why = WBUF_INIT;
    tokenizer_encode_error(code, &why);
    warnf("%s: %s %llu: a regex of %s could not finish on the document's text (%s); document skipped", b->src.file,
          b->src.unit, (unsigned long long)doc_line(b, c->nt, k), c->tok->name, why.data);
    buf_free(&why);
    b->fail[k] = REGEX_FAILED;
}

static void encode_cpu_range(void *arg, int t, int nt)
{
    (void)nt;
    tb_ctx *c = arg;
    tb_block *b = c->cur;
    tok_ids *ids = &c->cpu_ids[t];
    ids->n = 0;
    for (size_t k = c->bounds[t]; k < c->bounds[t + 1]; k++) {
        size_t first = ids->n;
        int rc = b->fail[k] ? 0 : tokenizer_encode(c->tok, b->texts[k], b->lens[k], false, &c->scratch[t], ids);
        if (rc) {
            ids->n = first; /* none of its ids stay */
            refuse_doc(c, b, k, rc);
        }
        b->doc_end[k] = ids->n;
    }
}

static void join_cpu_range(void *arg, int t, int nt)
{
    (void)nt;
    tb_ctx *c = arg;
    tb_block *b = c->cur;
    const tok_ids *ids = &c->cpu_ids[t];
    size_t at = 0;
    for (int u = 0; u < t; u++) at += c->cpu_ids[u].n;
    memcpy(b->ids.ids + at, ids->ids, ids->n * sizeof *ids->ids);
    for (size_t k = c->bounds[t]; k < c->bounds[t + 1]; k++) b->doc_end[k] += at;
}

/* Gives block b's id array room for every id its texts can have (one per
 * text byte for byte-level BPE; an encoder that needs more grows it as
 * before) unless it has it: so it is never moved while the block is
 * encoded, and it is reused by later blocks. Its pages are huge where the
 * kernel allows, so that touching them and freeing them at the end cost
 * little (4 KiB pages took 0.12 s to free after 8.5 GB: docs/gpu_tokenize.md). */
static void reserve_ids(tb_block *b)
{
    size_t room = b->n;
    for (size_t k = 0; k < b->n; k++) room += b->lens[k];
    if (b->ids.cap >= room) return;
    ids_free(&b->ids);
    b->ids.cap = room + room / PINNED_SLACK; /* the next blocks are about as long */
    b->ids.ids = xmalloc_huge(b->ids.cap * sizeof *b->ids.ids);
}

/* Encodes block b on the team's threads, the documents split by text bytes. */
static void encode_cpu(tb_ctx *c, tb_block *b)
{
    size_t sum = 0;
    for (size_t k = 0; k < b->n; k++) b->doc_end[k] = sum += b->lens[k] + 1; /* text bytes as weights, for now */
    balance(b, c->nt, c->bounds, b->doc_end);
    team_run(c->team, encode_cpu_range, c);
    for (size_t k = 0; k < b->n; k++)
        if (b->fail[k] == REGEX_FAILED) stats_fail(&c->stats, REGEX_FAILED);
    size_t total = 0;
    for (int t = 0; t < c->nt; t++) total += c->cpu_ids[t].n;
    b->ids.n = 0;
    ids_reserve(&b->ids, total);
    b->ids.n = total;
    team_run(c->team, join_cpu_range, c);
}

static void queue_push(tb_ctx *c, tb_queue *q, tb_block *b);

/* Hands encoded block b to the writer. */
static void pass_on(tb_ctx *c, tb_block *b)
{
    give_pinned(c, b); /* the texts are no longer needed */
    size_t ok = 0;
    for (size_t k = 0; k < b->n; k++) ok += !b->fail[k];
    c->stats.out += ok;
    uint64_t ntokens = b->ids.n + ok * ((c->bos != TOKEN_FORMAT_NONE) + (c->eos != TOKEN_FORMAT_NONE));
    stats_add(&c->stats, "tokens", (double)ntokens);
    double t0 = now_seconds();
    uint64_t ring_end = b->ring_end; /* b is the writer's once pushed */
    queue_push(c, &c->encoded, b);
    if (ring_end > c->ring_passed) c->ring_passed = ring_end;
    c->times.encode_wait += now_seconds() - t0;
}

/* gpu_bpe_id_sink's place for block b (the sink's owner): room for n ids in
 * the ring. When there is none, waits for the writer to give some back if
 * blocks handed to it still hold ring room (they will be written without
 * this thread's help); else NULL (the ids are copied into b's own array):
 * the room is held by b and the block before it, which the writer gets
 * only after this call. */
static uint32_t *ring_place(gpu_bpe_id_sink *sink, size_t n)
{
    tb_ctx *c = sink->ctx;
    tb_block *b = (tb_block *)(void *)((char *)sink - offsetof(tb_block, sink));
    double t0 = now_seconds();
    uint64_t end = 0;
    pthread_mutex_lock(&c->lock);
    uint32_t *p;
    while (!(p = id_ring_take(&c->ring, n, &end)) && id_ring_given_back(&c->ring) < c->ring_passed)
        pthread_cond_wait(&c->changed, &c->lock);
    pthread_mutex_unlock(&c->lock);
    c->times.ring_wait += now_seconds() - t0;
    if (p) {
        b->ring_end = end;
        c->times.ids_ring += n;
    } else {
        c->times.ids_copied += n;
    }
    return p;
}

/* Block b's sink for its GPU call: the ring, when it is in use (--format
 * bin, its memory pinned), else NULL (ids copied into b->ids). */
static gpu_bpe_id_sink *ring_sink(tb_ctx *c, tb_block *b)
{
    pthread_mutex_lock(&c->lock);
    bool ring = c->ring_mem != NULL;
    pthread_mutex_unlock(&c->lock);
    if (!ring) return NULL;
    b->sink.place = ring_place;
    b->sink.ctx = c;
    return &b->sink;
}

/* Encodes block b on the CPU, whatever it holds already (its ring room, if
 * any, is given back once it is written, as always). */
static void encode_on_cpu(tb_ctx *c, tb_block *b)
{
    double t0 = now_seconds();
    tb_block *cur = c->cur;
    c->cur = b;
    b->ids.n = 0;
    b->sink.nruns = 0;
    encode_cpu(c, b);
    c->cur = cur;
    c->times.encode_cpu += now_seconds() - t0;
    c->times.blocks_cpu++;
    c->times.bytes_cpu += b->src.len;
}

/* Completes the held block's batches and hands it on (on a GPU failure,
 * encoded on the CPU instead). */
static void finish_held(tb_ctx *c)
{
    tb_block *b = c->held;
    if (!b) return;
    c->held = NULL;
    double t0 = now_seconds();
    wbuf err = WBUF_INIT;
    int rc = gpu_bpe_finish(c->gpu.g, &err);
    c->times.encode_gpu += now_seconds() - t0;
    if (rc) {
        warnf("tokenize: %s; this block goes to the CPU", err.data);
        encode_on_cpu(c, b);
    }
    buf_free(&err);
    pass_on(c, b);
}

/* Encodes block b and hands it on: on the GPU when it is up, else on the
 * CPU. A block the GPU takes is held until the next block's call has
 * completed its last batches (or finish_held), so that the GPU's pipeline
 * does not drain between blocks. */
static void encode_block(tb_ctx *c, tb_block *b)
{
    double t0 = now_seconds();
    b->ids.n = 0;
    b->sink.nruns = 0;
    b->ring_end = 0;
    int state = c->enc == TB_ENCODE_CPU ? GPU_FAILED : atomic_load(&c->gpu.state);
    if (state == GPU_FAILED && c->gpu_required) gpu_refuse(c->gpu.why.data);
    reserve_ids(b);
    if (state == GPU_READY) {
        wbuf err = WBUF_INIT;
        int rc = gpu_bpe_encode_begin(c->gpu.g, b->texts, b->lens, b->n, b->pinned != NULL, &b->ids, b->doc_end,
                                      ring_sink(c, b), &err);
        c->times.encode_gpu += now_seconds() - t0;
        tb_block *before = c->held;
        c->held = NULL;
        if (rc == 0) {
            c->times.blocks_gpu++;
            c->times.bytes_gpu += b->src.len;
            buf_free(&err);
            c->held = b;
            if (before) pass_on(c, before); /* complete: this call finished its batches first */
            return;
        }
        warnf("tokenize: %s; this block goes to the CPU", err.data);
        buf_free(&err);
        if (before) { /* its last batches may have been the ones that failed */
            encode_on_cpu(c, before);
            pass_on(c, before);
        }
    } else {
        finish_held(c);
    }
    encode_on_cpu(c, b);
    pass_on(c, b);
}

/* Whether q has a block to pop now, or is closed. */
static bool queue_ready(tb_ctx *c, tb_queue *q)
{
    pthread_mutex_lock(&c->lock);
    bool ready = q->n || q->closed;
    pthread_mutex_unlock(&c->lock);
    return ready;
}

/* ---- format and write (the writer thread) ---- */

/* Document k's ids where they lie whole: in b->ids, which holds them all
 * unless the block has ring runs (--format bin on the GPU: then only the
 * count is right; ids_piece finds them). */
static size_t doc_ids(const tb_block *b, size_t k, const uint32_t **ids)
{
    size_t from = k ? b->doc_end[k - 1] : 0;
    *ids = b->ids.ids + from;
    return b->doc_end[k] - from;
}

/* The first run of b's sink that does not end at or before id place from. */
static size_t first_run(const tb_block *b, size_t from)
{
    size_t lo = 0, hi = b->sink.nruns;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->sink.runs[mid].at + b->sink.runs[mid].n <= from) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The first piece of ids [from, to) of block b (from < to), at *p: in the
 * ring where one of the device's runs holds id from, else in b->ids up to
 * the next run. *run is the first run not wholly before from, moved on
 * from where it was (first_run, then the same walk forward). Returns its
 * number of ids. */
static size_t ids_piece(const tb_block *b, size_t *run, size_t from, size_t to, const uint32_t **p)
{
    const gpu_bpe_run *r = b->sink.runs;
    size_t nr = b->sink.nruns, end = to;
    while (*run < nr && r[*run].at + r[*run].n <= from) (*run)++;
    if (*run < nr && r[*run].at <= from) {
        *p = r[*run].ids + (from - r[*run].at);
        if (r[*run].at + r[*run].n < end) end = r[*run].at + r[*run].n;
    } else {
        *p = b->ids.ids + from;
        if (*run < nr && r[*run].at < end) end = r[*run].at;
    }
    return end - from;
}

/* Bytes of --format bin for the writer's range t. */
static void bin_size_range(void *arg, int t, int nt)
{
    (void)nt;
    tb_ctx *c = arg;
    const tb_block *b = c->writing;
    size_t extra = (c->bos != TOKEN_FORMAT_NONE) + (c->eos != TOKEN_FORMAT_NONE), bytes = 0;
    for (size_t k = c->fmt_bounds[t]; k < c->fmt_bounds[t + 1]; k++) {
        if (b->fail[k]) continue;
        const uint32_t *ids;
        bytes += sizeof(uint32_t) * (1 + extra + doc_ids(b, k, &ids));
    }
    c->fmt_bytes[t] = bytes;
}

static void bin_write_range(void *arg, int t, int nt)
{
    (void)nt;
    tb_ctx *c = arg;
    const tb_block *b = c->writing;
    size_t at = 0;
    for (int u = 0; u < t; u++) at += c->fmt_bytes[u];
    uint32_t extra = (c->bos != TOKEN_FORMAT_NONE) + (c->eos != TOKEN_FORMAT_NONE);
    char *p = c->bin.data + at;
    size_t k0 = c->fmt_bounds[t], run = first_run(b, k0 ? b->doc_end[k0 - 1] : 0);
    for (size_t k = k0; k < c->fmt_bounds[t + 1]; k++) {
        if (b->fail[k]) continue;
        size_t from = k ? b->doc_end[k - 1] : 0, to = b->doc_end[k];
        uint32_t count = (uint32_t)(to - from) + extra; /* little-endian hosts only (x86-64, arm64), as the engine path */
        memcpy(p, &count, sizeof count), p += sizeof count;
        if (c->bos != TOKEN_FORMAT_NONE) memcpy(p, &c->bos, sizeof c->bos), p += sizeof c->bos;
        for (size_t at = from; at < to;) {
            const uint32_t *ids;
            size_t n = ids_piece(b, &run, at, to, &ids);
            memcpy(p, ids, n * sizeof *ids), p += n * sizeof *ids;
            at += n;
        }
        if (c->eos != TOKEN_FORMAT_NONE) memcpy(p, &c->eos, sizeof c->eos), p += sizeof c->eos;
    }
}

/* Writes block b in --format bin as pieces: per document its count (and
 * BOS), its ids where they lie (in the ring where the device put them, else
 * in the block's id array), its EOS. */
static void write_bin_pieces(tb_ctx *c, const tb_block *b)
{
    if (c->heads_cap < 2 * b->n) {
        c->heads_cap = 2 * b->n;
        c->heads = xrealloc(c->heads, c->heads_cap * sizeof *c->heads);
    }
    size_t iov_max = 3 * b->n + 2 * b->sink.nruns + 1; /* each run adds a piece at most at each end */
    if (c->iov_cap < iov_max) {
        c->iov_cap = iov_max;
        c->iov = xrealloc(c->iov, c->iov_cap * sizeof *c->iov);
    }
    uint32_t extra = (c->bos != TOKEN_FORMAT_NONE) + (c->eos != TOKEN_FORMAT_NONE);
    size_t niov = 0, head_words = 1 + (c->bos != TOKEN_FORMAT_NONE), run = 0;
    for (size_t k = 0; k < b->n; k++) {
        if (b->fail[k]) continue;
        size_t from = k ? b->doc_end[k - 1] : 0, to = b->doc_end[k];
        uint32_t *head = c->heads + 2 * k;
        head[0] = (uint32_t)(to - from) + extra; /* little-endian hosts only (x86-64, arm64), as the engine path */
        head[1] = c->bos;
        c->iov[niov++] = (struct iovec){head, head_words * sizeof *head};
        for (size_t at = from; at < to;) {
            const uint32_t *ids;
            size_t n = ids_piece(b, &run, at, to, &ids);
            c->iov[niov++] = (struct iovec){(void *)ids, n * sizeof *ids};
            at += n;
        }
        if (c->eos != TOKEN_FORMAT_NONE) c->iov[niov++] = (struct iovec){&c->eos, sizeof c->eos};
    }
    output_writev(c->out, c->iov, niov);
}

static void jsonl_range(void *arg, int t, int nt)
{
    (void)nt;
    tb_ctx *c = arg;
    const tb_block *b = c->writing;
    wbuf *out = &c->fmt[t];
    buf_clear(out);
    for (size_t k = c->fmt_bounds[t]; k < c->fmt_bounds[t + 1]; k++) {
        if (b->fail[k]) continue;
        const uint32_t *ids;
        size_t n = doc_ids(b, k, &ids);
        token_format_jsonl(out, b->lines[k], b->close[k], c->bos, ids, n, c->eos);
    }
}

/* Each document's ids to the shard writer, in input order: lent, not copied
 * here (the writer's threads copy them), and taken back before the block is
 * reused. */
static void write_shards(tb_ctx *c, const tb_block *b)
{
    const tokenize_shard_sink *sink = c->sink;
    for (size_t k = 0; k < b->n; k++) {
        if (b->fail[k]) continue;
        const uint32_t *ids;
        size_t n = doc_ids(b, k, &ids);
        if (sink->stats) shard_writer_add_borrowed_counted(sink->writer, ids, n, sink->stats);
        else shard_writer_add_borrowed(sink->writer, ids, n);
    }
    shard_writer_release(sink->writer);
}

static void write_block(tb_ctx *c, tb_block *b)
{
    require_gpu(c);
    double t0 = now_seconds();
    c->writing = b;
    int nt = team_size(c->wteam);
    for (size_t k = 0; k < b->n; k++) b->doc_end[k] += k; /* weights: ids and one per document */
    balance(b, nt, c->fmt_bounds, b->doc_end);
    for (size_t k = 0; k < b->n; k++) b->doc_end[k] -= k;
    if (c->format == TOKENIZE_SHARDS) {
        write_shards(c, b);
        c->times.format += now_seconds() - t0;
        return;
    }
    size_t ok = 0;
    for (size_t k = 0; k < b->n; k++) ok += !b->fail[k];
    if (c->format == TOKENIZE_BIN && b->ids.n >= (uint64_t)ok * WRITEV_MIN_IDS) {
        double t1 = now_seconds();
        c->times.format += t1 - t0;
        write_bin_pieces(c, b);
        c->times.write += now_seconds() - t1;
        return;
    }
    if (c->format == TOKENIZE_BIN) {
        team_run(c->wteam, bin_size_range, c);
        size_t total = 0;
        for (int t = 0; t < nt; t++) total += c->fmt_bytes[t];
        buf_clear(&c->bin);
        buf_reserve(&c->bin, total);
        team_run(c->wteam, bin_write_range, c);
        double t1 = now_seconds();
        c->times.format += t1 - t0;
        output_write(c->out, c->bin.data, total);
        c->times.write += now_seconds() - t1;
        return;
    }
    team_run(c->wteam, jsonl_range, c);
    double t1 = now_seconds();
    c->times.format += t1 - t0;
    for (int t = 0; t < nt; t++) output_write(c->out, c->fmt[t].data, c->fmt[t].len);
    c->times.write += now_seconds() - t1;
}

/* ---- passing blocks between the threads ---- */

/* Adds b to q, waiting while q is full. */
static void queue_push(tb_ctx *c, tb_queue *q, tb_block *b)
{
    pthread_mutex_lock(&c->lock);
    while (q->n == QUEUE_BLOCKS) pthread_cond_wait(&c->changed, &c->lock);
    q->items[(q->head + q->n) % QUEUE_BLOCKS] = b;
    q->n++;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
}

/* The oldest block of q, waiting for one; NULL once q is closed and empty. */
static tb_block *queue_pop(tb_ctx *c, tb_queue *q)
{
    pthread_mutex_lock(&c->lock);
    while (!q->n && !q->closed) pthread_cond_wait(&c->changed, &c->lock);
    tb_block *b = NULL;
    if (q->n) {
        b = q->items[q->head];
        q->head = (q->head + 1) % QUEUE_BLOCKS;
        q->n--;
        pthread_cond_broadcast(&c->changed);
    }
    pthread_mutex_unlock(&c->lock);
    return b;
}

/* No more blocks will come into q. */
static void queue_close(tb_ctx *c, tb_queue *q)
{
    pthread_mutex_lock(&c->lock);
    q->closed = true;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
}

static tb_block *take_block(tb_ctx *c)
{
    pthread_mutex_lock(&c->lock);
    tb_block *b = c->free_blocks;
    if (b) c->free_blocks = b->next_free;
    pthread_mutex_unlock(&c->lock);
    return b ? b : xcalloc(1, sizeof *b);
}

static void give_block(tb_ctx *c, tb_block *b)
{
    pthread_mutex_lock(&c->lock);
    b->next_free = c->free_blocks;
    c->free_blocks = b;
    pthread_mutex_unlock(&c->lock);
}

static void free_block(tb_block *b, int nt)
{
    for (int t = 0; b->ranges && t < nt; t++) {
        tb_range *r = &b->ranges[t];
        free(r->docs), free(r->refused), buf_free(&r->decoded), buf_free(&r->renamed);
    }
    free(b->ranges);
    free(b->texts), free(b->lines), free(b->fail), free(b->lens), free(b->close), free(b->doc_end);
    free(b->sink.runs);
    ids_free(&b->ids);
    free(b);
}

/* ---- the three threads ---- */

/* JSONL to ask the source for next. */
static size_t block_bytes(const tb_ctx *c)
{
    if (!gpu_sized(c->enc)) return TEST_BLOCK_BYTES;
    return atomic_load(&c->gpu.state) == GPU_READY ? GPU_BLOCK_BYTES : STARTING_BLOCK_BYTES;
}

static void *scanner_main(void *arg)
{
    tb_ctx *c = arg;
    uint64_t line_no = 1;
    for (;;) {
        tb_block *b = take_block(c);
        double t0 = now_seconds();
        if (!block_source_next(c->src, block_bytes(c), &b->src)) {
            give_block(c, b);
            break;
        }
        double t1 = now_seconds();
        if (b->src.file_start) line_no = 1;
        line_no = scan_block(c, b, line_no);
        double t2 = now_seconds();
        queue_push(c, &c->scanned, b);
        c->times.source += t1 - t0;
        c->times.scan += t2 - t1;
        c->times.scan_wait += now_seconds() - t2;
    }
    queue_close(c, &c->scanned);
    return NULL;
}

static void *writer_main(void *arg)
{
    tb_ctx *c = arg;
    for (tb_block *b; (b = queue_pop(c, &c->encoded));) {
        write_block(c, b);
        block_source_release(c->src, &b->src);
        pthread_mutex_lock(&c->lock); /* its ids are written: their ring room can be taken again */
        if (b->ring_end) id_ring_give_back(&c->ring, b->ring_end);
        pthread_cond_broadcast(&c->changed);
        pthread_mutex_unlock(&c->lock);
        give_block(c, b);
    }
    pthread_mutex_lock(&c->lock);
    c->writer_done = true;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

/* The main thread's part: encode each scanned block and pass it on. */
static void encode_blocks(tb_ctx *c)
{
    uint64_t arrived = 0;
    for (;;) {
        if (c->held && !queue_ready(c, &c->scanned)) finish_held(c); /* no next block yet: the writer gets it now */
        tb_block *b = queue_pop(c, &c->scanned);
        if (!b) break;
        c->cur = b;
        if (c->enc == TB_ENCODE_GPU_LATER && !c->gpu.started && (arrived += b->src.len) >= TB_STREAM_GPU_BYTES)
            gpu_start_begin(c, &c->gpu, c->tok, GPU_BPE_DEVICE);
        encode_block(c, b);
    }
    finish_held(c);
    queue_close(c, &c->encoded);
}

static void *close_gpu(void *arg)
{
    gpu_start *gs = arg;
    atomic_store(&gs->stop_pinning, true);
    if (gs->started) pthread_join(gs->thread, NULL);
    gs->started = false;
    double t0 = now_seconds();
    free_pinned(gs->owner);
    free_ring(gs->owner);
    gpu_bpe_close(gs->g);
    gs->closing = now_seconds() - t0;
    return NULL;
}

static void print_times(const tb_ctx *c)
{
    const tb_times *m = &c->times;
    fprintf(stderr,
            "tokenize times (s): total %.3f | scanner: source %.3f scan %.3f wait %.3f | main: encode-gpu %.3f "
            "(%llu blocks, %.0f MB) encode-cpu %.3f (%llu blocks, %.0f MB) wait %.3f | writer: format %.3f write "
            "%.3f | finish %.3f | gpu start %.3f (device check %.3f)\n",
            m->total, m->source, m->scan, m->scan_wait, m->encode_gpu, (unsigned long long)m->blocks_gpu,
            m->bytes_gpu / 1e6, m->encode_cpu, (unsigned long long)m->blocks_cpu, m->bytes_cpu / 1e6, m->encode_wait,
            m->format, m->write, m->finish, m->gpu_start, c->gpu.check);
    struct rusage ru;
    if (!getrusage(RUSAGE_SELF, &ru))
        fprintf(stderr, "tokenize cpu (s): user %.3f sys %.3f, page faults %ld (the whole process so far)\n",
                ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
                ru.ru_minflt + ru.ru_majflt);
    if (m->blocks_gpu) {
        const double *host = c->gpu_host, *dev = c->gpu_dev;
        fprintf(stderr,
                "gpu library (s): pack %.3f wait %.3f unpack %.3f (long pieces %.3f, placing %.3f) launch %.3f | "
                "kernels %.3f: cut %.3f encode %.3f "
                "merge %.3f scan %.3f gather %.3f copy-out %.3f | kernels by%s | pinned text buffers %d: faulted in %.3f "
                "(beside the start), registered in %.3f | closed in %.3f\n",
                host[0], host[1], host[2], host[4], host[5], host[3], c->gpu_kernels, dev[0], dev[1], dev[2], dev[3], dev[4], dev[5],
                c->gpu_by_device, c->gpu.npinned, c->gpu.faulting, c->gpu.pinning, c->gpu.closing);
        if (c->gpu.ring_bytes)
            fprintf(stderr, "id ring (%.0f MB): %llu ids written from it, %llu copied (no room); waited %.3f s\n",
                    c->gpu.ring_bytes / 1e6, (unsigned long long)m->ids_ring, (unsigned long long)m->ids_copied,
                    m->ring_wait);
    }
    /* on the wall clock, so that a caller's own clock shows the process start before and the exit after */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double end = (double)now.tv_sec + now.tv_nsec / 1e9;
    fprintf(stderr, "tokenize clock (s since the epoch): run %.6f to %.6f\n", end - m->total, end);
}

static void ctx_init(tb_ctx *c, const tokenizer *t, const tokenize_options *o, const stage_opts *so,
                     tokenize_format format, const tokenize_shard_sink *sink, tb_encoder enc)
{
    memset(c, 0, sizeof *c);
    c->gpu.owner = c;
    c->tok = t;
    c->format = format;
    c->bos = o->bos ? t->bos : TOKEN_FORMAT_NONE;
    c->eos = o->eos ? t->eos : TOKEN_FORMAT_NONE;
    c->sink = sink;
    c->enc = enc;
    c->gpu_required = enc == TB_ENCODE_GPU && !strcmp(o->device, "gpu");
    c->nt = so->threads < 1 ? 1 : so->threads > THREADS_MAX ? THREADS_MAX : so->threads;
    c->scan_team = team_create(c->nt);
    c->team = team_create(c->nt);
    c->wteam = team_create(c->nt);
    c->cpu_ids = xcalloc((size_t)c->nt, sizeof *c->cpu_ids);
    c->scratch = xcalloc((size_t)c->nt, sizeof *c->scratch);
    c->bounds = xcalloc((size_t)c->nt + 1, sizeof *c->bounds);
    c->fmt = xcalloc((size_t)c->nt, sizeof *c->fmt);
    c->fmt_bounds = xcalloc((size_t)c->nt + 1, sizeof *c->fmt_bounds);
    c->fmt_bytes = xcalloc((size_t)c->nt, sizeof *c->fmt_bytes);
    stats_init(&c->stats);
    stats_init(&c->scan_stats);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->changed, NULL);
    gpu_verdict_init(&c->gpu.verdict);
}

static void ctx_free(tb_ctx *c)
{
    team_destroy(c->scan_team);
    team_destroy(c->team);
    team_destroy(c->wteam);
    for (int t = 0; t < c->nt; t++) {
        ids_free(&c->cpu_ids[t]);
        bpe_scratch_free(&c->scratch[t]);
        buf_free(&c->fmt[t]);
    }
    free(c->cpu_ids), free(c->scratch), free(c->bounds);
    free(c->fmt), free(c->fmt_bounds), free(c->fmt_bytes);
    buf_free(&c->bin);
    free(c->heads), free(c->iov);
    for (tb_block *b = c->free_blocks, *next; b; b = next) next = b->next_free, free_block(b, c->nt);
    buf_free(&c->gpu.why);
    stats_free(&c->stats);
    stats_free(&c->scan_stats);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->changed);
    gpu_verdict_destroy(&c->gpu.verdict);
}

int tokenize_blocks_run(const tokenizer *t, const tokenize_options *o, const stage_opts *so, tokenize_format format,
                        const tokenize_shard_sink *sink, tb_encoder enc)
{
    double started = now_seconds();
    tb_ctx c;
    ctx_init(&c, t, o, so, format, sink, enc);
    uint64_t input_bytes;
    c.gpu.fault_at_start = enc == TB_ENCODE_GPU && tokenize_inputs_sized(so, &input_bytes) &&
                           input_bytes >= FAULT_AT_START_MIN_BYTES;
    if (enc == TB_ENCODE_GPU) gpu_start_begin(&c, &c.gpu, t, GPU_BPE_DEVICE);
    if (enc == TB_ENCODE_EMULATE) { /* tests: every block through the emulated GPU code */
        gpu_start_begin(&c, &c.gpu, t, GPU_BPE_EMULATE);
        pthread_join(c.gpu.thread, NULL);
        c.gpu.started = false;
        if (!c.gpu.g) dief(EXIT_USAGE, "GPU emulation: %s", c.gpu.why.data);
    }
    if (format != TOKENIZE_SHARDS) c.out = output_open(so->output, so->zstd_level);
    woutput *rejects = so->rejects_path ? output_open(so->rejects_path, 0) : NULL; /* tokenize drops nothing */
    c.src = block_source_open(so->inputs, so->ninputs, c.nt, gpu_sized(enc) ? DECODED_BLOCK_BYTES : TEST_BLOCK_BYTES);
    progress_start("tokenize", so->quiet);
    if (pthread_create(&c.scanner, NULL, scanner_main, &c) || pthread_create(&c.writer, NULL, writer_main, &c))
        dief(EXIT_FATAL, "cannot start a thread");

    encode_blocks(&c);
    require_gpu(&c); /* no block came (empty input): the refusal still comes */
    double finish = now_seconds();
    if (c.gpu.g) { /* the statistics wanted for TIMES_ENV, before the library goes */
        gpu_bpe_host_seconds(c.gpu.g, c.gpu_host);
        gpu_bpe_phase_seconds(c.gpu.g, c.gpu_dev);
        c.gpu_kernels = gpu_bpe_kernel_seconds(c.gpu.g);
        size_t at = 0;
        for (int i = 0; i < gpu_bpe_devices(c.gpu.g) && at < sizeof c.gpu_by_device; i++)
            at += (size_t)snprintf(c.gpu_by_device + at, sizeof c.gpu_by_device - at, " device %d %.3f (%zu batches)",
                                   i, gpu_bpe_device_kernel_seconds(c.gpu.g, i), gpu_bpe_device_batches(c.gpu.g, i));
    }
    pthread_t closer; /* the GPU's memory is given back while the writer finishes */
    if (pthread_create(&closer, NULL, close_gpu, &c.gpu)) dief(EXIT_FATAL, "cannot start a thread");
    pthread_join(c.scanner, NULL);
    pthread_join(c.writer, NULL);
    progress_stop();
    input_losses lost = block_source_losses(c.src);
    int status = block_source_close(c.src), skipped = inputs_count_skipped(so->given, &c.stats);
    if (status == EXIT_OK) status = skipped;
    stats_merge(&c.stats, &c.scan_stats);
    input_count_losses(&c.stats, &lost);
    if (c.out) {
        c.stats.bytes_out = output_bytes(c.out);
        output_close(c.out);
    }
    if (rejects) output_close(rejects);
    pthread_join(closer, NULL);
    if (so->stats_path) stats_write_json(&c.stats, "tokenize", so->stats_path);
    if (so->counts) stats_merge(so->counts, &c.stats);
    if (!so->quiet) stats_print_summary(&c.stats, winnow_prog);
    c.times.gpu_start = c.gpu.seconds;
    c.times.total = now_seconds() - started;
    c.times.finish = now_seconds() - finish;
    if (getenv(TIMES_ENV)) print_times(&c);
    ctx_free(&c);
    return status;
}
