/* fingerprint.h - the per-batch work both dedup modes share: every document
 * of a stage batch gets its fingerprint, signature and band keys. */
#ifndef WINNOW_DEDUP_FINGERPRINT_H
#define WINNOW_DEDUP_FINGERPRINT_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/gpu_verdict.h"
#include "core/stage.h"
#include "dedup/sign.h"
#include "gpu/gpu.h"

/* With --device auto, signatures move to the GPU only once a run has signed
 * this much text: starting a CUDA context costs about a second, which a
 * smaller input (a pipeline's per-task slice, a test) would not win back.
 * CPU and GPU give the same signatures, so the switch changes nothing else. */
#define DEDUP_AUTO_GPU_MIN_BYTES (256u << 20)
/* ... and only when its documents hold at least this much text on average.
 * Measured on the H200 machine (bench/results/dedup-2026-11-27.md, 16 cores,
 * unique documents): 2 M documents of 40 words (~340 bytes of text) took
 * 1.28 s on the CPU against 1.57-1.64 s with the GPU, 460,460 documents of
 * ~12 KB (~1,300 shingles) took 2.96 s against 1.84-2.08 s. A line through
 * those wall times per document (CPU 0.48 us + 4.6 ns per shingle, GPU
 * 0.71 us + 2.7 ns per shingle, 16 workers) crosses at ~120 shingles, about
 * 0.85 KB of text; the rule asks for 1 KiB. Each GPU call carries
 * per-document costs (its signature back, a block) that a short text's
 * signature on the CPU does not. */
#define DEDUP_AUTO_GPU_MIN_DOC_BYTES 1024u

/* What dedup needs from one run: shape, seed, and where signatures run. */
typedef struct {
    minhash_params params;
    wdevice device;         /* DEVICE_GPU: the run checks the GPU (signer_set_init) and exits 1 without one */
    uint64_t expected_docs; /* 0: unknown */
    bool mark;              /* keep duplicates, annotate metadata.dup_of */
    double verify;          /* 0: off; else the Jaccard estimate needed to drop */
} dedup_config;

/* Fingerprints of a batch's documents, index i for document i (documents
 * that failed to scan get nshingles 0 and are not looked at). */
typedef struct {
    int n;
    dedup_fp *fp;
    uint64_t *sigs; /* n * k */
    uint64_t *keys; /* n * bands */
    /* kept for the next batch (a batch's worth of fresh memory per batch
     * costs page faults and, with many threads, the kernel's time) */
    int cap;
    uint64_t *packed; /* signatures of the documents signed, back to back */
    int *signed_doc;
} batch_prints;

/* Frees what signer_set_prints() made. */
void batch_prints_free(batch_prints *bp);

/* Where --device auto stands: not yet decided, being decided, decided. */
enum { AUTO_UNDECIDED, AUTO_DECIDING, AUTO_GPU, AUTO_CPU };

/* Where the workers' time went, summed over workers, in nanoseconds; kept
 * when WINNOW_DEDUP_TIMES is set (see dedup_times_report()). */
typedef struct {
    bool on;
    atomic_uint_fast64_t add_ns;    /* normalising, exact hash, shingle hashes (CPU) or keeping the text (GPU) */
    atomic_uint_fast64_t finish_ns; /* signatures: the GPU call (copies, kernel, wait) or the CPU loop */
    atomic_uint_fast64_t keys_ns;   /* band keys */
    atomic_uint_fast64_t index_ns;  /* index lookups */
    atomic_uint_fast64_t map_ns;    /* all of map() */
    atomic_uint_fast64_t kernel_us; /* the GPU's signature kernels (its own clock) */
    atomic_uint_fast64_t gpu_calls; /* batches signed on the GPU */
    uint64_t check_ns;              /* --device gpu: from signer_set_init() until the GPU was checked */
    uint64_t warm_ns;               /* --device gpu: from signer_set_init() until the GPU was ready */
    double run_began_s;             /* the process's age when the stage began (start-up, GPU probe) */
} dedup_times;

/* Per-thread signers for a stage run: one per worker, made on first use. */
typedef struct {
    const dedup_config *config;
    dedup_signer **by_worker;
    bool *gpu_offered;               /* --device auto or gpu: worker's signer was offered the GPU */
    int nworkers;
    atomic_uint_fast64_t text_bytes; /* signed so far by all workers */
    atomic_uint_fast64_t text_docs;  /* documents signed so far by all workers */
    atomic_int gpu_state;            /* --device auto: AUTO_* */
    pthread_t warm;                  /* --device gpu: checks the GPU and makes its contexts meanwhile */
    bool warming;                    /* warm was started */
    atomic_bool gpu_ready;           /* --device gpu: the GPU is usable and the warm-up is over */
    gpu_verdict gpu_verdict;         /* --device gpu: the check's answer, waited for before the first output */
    dedup_times times;
} signer_set;

/* Nanoseconds on a monotonic clock, for dedup_times. */
uint64_t dedup_now_ns(void);

/* Seconds since this process started (10 ms steps: /proc/self/stat), or -1
 * where that cannot be read; for dedup_times. */
double dedup_process_age_s(void);

/* Prints times to stderr (one line) for a run of threads workers over
 * wall_s seconds: each part in worker-seconds, the workers' time outside
 * map() (reading, splitting and scanning lines, waiting for the engine),
 * when the run began and the GPU was checked and ready, how long freeing
 * the index and the signers (free_s) took, and the process's age at the
 * report (a wall time beyond it is the process's exit), and the GPU's
 * kernel time and calls. */
void dedup_times_report(const dedup_times *t, int threads, double wall_s, double free_s);

/* --device auto's rule once DEDUP_AUTO_GPU_MIN_BYTES are signed: whether
 * docs documents of text_bytes in all are long enough for the GPU to pay. */
bool dedup_auto_gpu_pays(uint64_t text_bytes, uint64_t docs);

/* Makes room for threads workers' signers; with --device gpu, starts
 * checking the GPU (gpu_usable(): the driver's start, ~0.12 s on the H200
 * machine) and then making its contexts on a thread of its own (about as
 * long again): the workers read and sign on the CPU meanwhile, with the same
 * results, and take the GPU once it is ready. Whether the run may go on
 * without a GPU is for signer_set_require_gpu() to say. */
void signer_set_init(signer_set *ss, const dedup_config *c, int threads);

/* With --device gpu: waits for the check signer_set_init() began and exits
 * 1 with "--device gpu: REASON" when no GPU is usable. A run calls it before
 * its first output (and at its end, for an input without documents), so an
 * unusable GPU still leaves no output. Returns at once for other devices
 * and once the check has passed. */
void signer_set_require_gpu(signer_set *ss);

/* With --device gpu: checks the GPU now, on this thread, and exits 1 with
 * "--device gpu: REASON" when none is usable (for runs that write before
 * their first batch, like the staged signatures step). */
void dedup_require_gpu(const dedup_config *c);

/* Computes the fingerprints of b's documents with worker's signer (made on
 * its first call; on the GPU as the config's device says). */
batch_prints *signer_set_prints(signer_set *ss, int worker, stage_batch *b);

/* The same into bp (zeroed, or used before: its memory is reused). */
void signer_set_prints_into(signer_set *ss, int worker, stage_batch *b, batch_prints *bp);

/* Frees the memory of a batch_prints that signer_set_prints_into() filled. */
void batch_prints_release(batch_prints *bp);

/* Frees the signers. */
void signer_set_free(signer_set *ss);

#endif
