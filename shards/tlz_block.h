/* tlz_block.h - winnow's token encoder: one zstd block (RFC 8878) of
 * little-endian token ids, the same code on the host and on a CUDA device.
 *
 * A shard frame holds whole tokens of 2 or 4 bytes. The encoder looks for
 * repeats only at token positions, in the block itself (so every block is a
 * job of its own, for a CPU thread or a GPU thread alike):
 * - matches: the last position of each hash of the key at a token (two u32
 *   or three u16 tokens) in a table of 2^TLZ_HASH_LOG entries, two
 *   positions looked up a round, the last match's offset tried first;
 *   greedy, extended a word at a time and back over the literals before
 *   them, whole tokens only; runs without a match are stepped through
 *   faster, as zstd's fast strategy does;
 * - literals: Huffman-coded in 4 streams (code lengths by Huffman's
 *   algorithm, limited to 11 bits; the weights FSE-coded, or written
 *   directly when that is smaller or FSE cannot describe them), stored raw
 *   when that is not smaller;
 * - sequences: per code table (literal lengths, offsets, match lengths) the
 *   cheapest of RLE (one code), zstd's predefined table, or a table of the
 *   block's own (FSE_Compressed_Mode), by an integer estimate of the bits;
 *   offsets equal to one of the block's three recent ones as repeat codes
 *   (the history before the block is taken as unknown).
 * A block that does not get smaller is stored raw. The output is a pure
 * function of the input bytes: no floating point, every tie broken by
 * symbol number, so the host and the device write the same bytes.
 *
 * Plain C99 that nvcc also compiles: no library calls (a little-endian
 * host's 8-byte loads and stores are the compiler's __builtin_memcpy), no
 * allocation (the caller gives a tlz_scratch), TLZ_FN on every function. */
#ifndef WINNOW_TLZ_BLOCK_H
#define WINNOW_TLZ_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define TLZ_FN static __host__ __device__ inline
#define TLZ_FN_ALWAYS_INLINE static __host__ __device__ __forceinline__
#else
#define TLZ_FN static inline
#define TLZ_FN_ALWAYS_INLINE static inline __attribute__((always_inline))
#endif

#define TLZ_BLOCK_BYTES (128u * 1024u) /* zstd's largest block */
#define TLZ_HASH_LOG 13
#define TLZ_KEY_BYTES 8
#define TLZ_KEY_BYTES_U16 6
#define TLZ_SKIP_LOG 6     /* the step grows by a token every 2^SKIP_LOG bytes without a match */
#define TLZ_MAX_SEQS (TLZ_BLOCK_BYTES / TLZ_KEY_BYTES + 1)
#define TLZ_BLOCK_BOUND (TLZ_BLOCK_BYTES + 3) /* a raw block: what tlz_block() writes at most */
#define TLZ_HUF_MAX_BITS 11
#define TLZ_MIN_HUF_LITERALS 64 /* fewer literals are stored raw */
#define TLZ_HUF_PER_FLUSH 5     /* literal codes added between flushes: 7 + 5 * 11 bits fit 64 */
#define TLZ_HUF_WEIGHT_LOG 6    /* the accuracy log of the FSE-coded Huffman weights */

typedef struct {
    uint32_t lit_len, match_len, offset; /* bytes */
} tlz_seq;

/* Once the matches are found the hash table is spent: the literals and the
 * sequences work in it (on a GPU it is in shared memory), at most: */
#define TLZ_ROOM (1u << TLZ_HASH_LOG)

/* What tlz_block() works in: the caller's, reused from block to block. */
typedef struct {
    uint16_t *table;   /* 1 << TLZ_HASH_LOG entries: token index in the block */
    uint8_t *literals; /* TLZ_BLOCK_BYTES */
    tlz_seq *seqs;     /* TLZ_MAX_SEQS */
    uint8_t *work;     /* TLZ_BLOCK_BOUND: the compressed block before it is known to be smaller */
} tlz_scratch;

/* ---- loads and stores ---- */

TLZ_FN uint32_t tlz_load32(const uint8_t *p) /* on a device: as wide loads as p's alignment allows */
{
#ifdef __CUDA_ARCH__
    if (((uintptr_t)p & 3) == 0) return *(const uint32_t *)p;
    if (((uintptr_t)p & 1) == 0) return (uint32_t)*(const uint16_t *)p | (uint32_t)*(const uint16_t *)(p + 2) << 16;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

/* The 8 bytes at p, little-endian. */
TLZ_FN uint64_t tlz_load64(const uint8_t *p)
{
    return (uint64_t)tlz_load32(p) | (uint64_t)tlz_load32(p + 4) << 32;
}

/* The number of trailing zero bits of v (> 0). */
TLZ_FN int tlz_ctz64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    return __ffsll((long long)v) - 1;
#else
    return __builtin_ctzll(v);
#endif
}

TLZ_FN int tlz_highbit(uint32_t v) /* v > 0 */
{
#ifdef __CUDA_ARCH__
    return 31 - __clz(v);
#else
    return 31 - __builtin_clz(v);
#endif
}

/* Stores the low `bytes` bytes of v at p, little-endian. */
TLZ_FN void tlz_put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* tlz_put_le(p, v, 8): on a little-endian host one unaligned store (the compiler's builtin, no call). */
TLZ_FN void tlz_store64(uint8_t *p, uint64_t v)
{
#if !defined(__CUDA_ARCH__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    __builtin_memcpy(p, &v, 8);
#else
    tlz_put_le(p, v, 8);
#endif
}

/* Copies n bytes: on the host 8 at a time while 8 are left; on a device
 * byte by byte, as src or dst may be odd (the block is copied from work + 3). */
TLZ_FN void tlz_copy(uint8_t *dst, const uint8_t *src, uint32_t n)
{
    uint32_t i = 0;
#ifndef __CUDA_ARCH__
    for (; i + 8 <= n; i += 8) tlz_store64(dst + i, tlz_load64(src + i));
#endif
    for (; i < n; i++) dst[i] = src[i];
}

/* ---- the forward bit writer zstd's backward readers read ---- */

typedef struct {
    uint64_t acc;
    unsigned n;
    uint8_t *p, *end;
    int overflow;
} tlz_bits;

/* Starts a stream at p, to end at most. */
TLZ_FN void tlz_bits_init(tlz_bits *b, uint8_t *p, uint8_t *end)
{
    b->acc = 0;
    b->n = 0;
    b->p = p;
    b->end = end;
    b->overflow = 0;
}

/* Appends the nb (<= 32) low bits of v (which has no others). */
TLZ_FN void tlz_bits_put(tlz_bits *b, uint64_t v, unsigned nb)
{
    b->acc |= v << b->n;
    b->n += nb;
    if (b->n < 32) return;
    if (b->end - b->p >= 4) {
        tlz_put_le(b->p, b->acc, 4);
        b->p += 4;
    } else {
        b->overflow = 1;
    }
    b->acc >>= 32;
    b->n -= 32;
}

/* Appends the nb low bits of v (which has no others) without writing any
 * out: the caller keeps the bits held at 64 at most, flushing in between. */
TLZ_FN void tlz_bits_add(tlz_bits *b, uint64_t v, unsigned nb)
{
    b->acc |= v << b->n;
    b->n += nb;
}

/* Writes the whole bytes held out, leaving fewer than 8 bits held; as one
 * 8-byte store while there is room (the bytes past the whole ones are
 * written again by what follows). */
TLZ_FN void tlz_bits_flush(tlz_bits *b)
{
    unsigned bytes = b->n >> 3;
    if (b->end - b->p >= 8) {
        tlz_store64(b->p, b->acc);
        b->p += bytes;
    } else if (b->end - b->p >= (long)bytes) {
        tlz_put_le(b->p, b->acc, (int)bytes);
        b->p += bytes;
    } else {
        b->overflow = 1;
    }
    b->acc = bytes == 8 ? 0 : b->acc >> (8 * bytes);
    b->n &= 7;
}

/* Ends a stream: the 1 bit that marks its end, then zeros to a byte. Returns its end. */
TLZ_FN uint8_t *tlz_bits_close(tlz_bits *b)
{
    tlz_bits_flush(b);
    tlz_bits_put(b, 1, 1);
    while (b->n > 0) {
        if (b->p < b->end) *b->p++ = (uint8_t)b->acc;
        else b->overflow = 1;
        b->acc >>= 8;
        b->n = b->n > 8 ? b->n - 8 : 0;
    }
    return b->p;
}

/* ---- FSE (tANS) encoding from a normalized distribution ---- */

#define TLZ_FSE_MAX_LOG 9      /* the largest accuracy log of a sequence table (literal and match lengths) */
#define TLZ_FSE_MAX_SYMBOLS 53 /* the most codes of a table (match lengths) */

typedef struct {
    int log;
    uint16_t *state_of; /* 2^log, the caller's: per symbol from first[s], encoder states */
                        /* (decoder's + table size) by next-state number */
    uint16_t first[TLZ_FSE_MAX_SYMBOLS];
    uint32_t delta_bits[TLZ_FSE_MAX_SYMBOLS]; /* (state + delta_bits[s]) >> 16: the bits state writes for s */
    int32_t delta_state[TLZ_FSE_MAX_SYMBOLS]; /* first[s] - count[s]: where state >> those bits finds the next */
} tlz_fse;

/* Builds the encoding table of a normalized distribution (-1: "less than
 * one") of n symbols at accuracy log, laid out as RFC 8878 4.1.1 spreads it;
 * its states go to room (2^log entries). */
TLZ_FN void tlz_fse_build(tlz_fse *t, const int16_t *norm, int n, int log, uint16_t *room)
{
    int size = 1 << log, high = size - 1;
    uint8_t symbol_at[1 << TLZ_FSE_MAX_LOG];
    t->log = log;
    t->state_of = room;
    for (int s = 0; s < n; s++)
        if (norm[s] == -1) symbol_at[high--] = (uint8_t)s;
    int step = (size >> 1) + (size >> 3) + 3, pos = 0;
    for (int s = 0; s < n; s++)
        for (int i = 0; i < norm[s]; i++) {
            symbol_at[pos] = (uint8_t)s;
            do pos = (pos + step) & (size - 1);
            while (pos > high);
        }
    int next[TLZ_FSE_MAX_SYMBOLS], at = 0;
    for (int s = 0; s < n; s++) {
        int count = norm[s] == -1 ? 1 : norm[s];
        t->first[s] = (uint16_t)at;
        t->delta_state[s] = at - count;
        next[s] = count;
        at += count;
        /* a state x writes log - highbit(count - 1) bits from count << that on, one fewer below
         * (modulo 2^32: at log 0, one symbol, state 1 + delta_bits is 0, no bits; an absent
         * symbol's entry is never read) */
        int most = count <= 1 ? log : log - tlz_highbit((uint32_t)count - 1);
        uint32_t from = count <= 1 ? (uint32_t)size : (uint32_t)count << most;
        t->delta_bits[s] = ((uint32_t)most << 16) - from;
    }
    /* the decoder gives state u the next-state number next[s]++ in state order */
    for (int u = 0; u < size; u++) {
        int s = symbol_at[u];
        t->state_of[t->delta_state[s] + next[s]++] = (uint16_t)(u + size);
    }
}

/* The encoder's state is the decoder's state + table size. */
TLZ_FN uint32_t tlz_fse_start(const tlz_fse *t, int s)
{
    return t->state_of[t->first[s]];
}

/* Moves the state to symbol s, adding the bits the decoder reads to come
 * back (at most the table's log; the caller flushes). */
TLZ_FN void tlz_fse_encode(const tlz_fse *t, uint32_t *state, int s, tlz_bits *b)
{
    uint32_t nb = (*state + t->delta_bits[s]) >> 16;
    tlz_bits_add(b, *state & ((1u << nb) - 1), nb);
    *state = t->state_of[(int32_t)(*state >> nb) + t->delta_state[s]];
}

/* Writes the final state, which the decoder reads first as its initial one. */
TLZ_FN void tlz_fse_flush(const tlz_fse *t, uint32_t state, tlz_bits *b)
{
    tlz_bits_put(b, state - (1u << t->log), (unsigned)t->log);
}

/* Writes a normalized distribution as RFC 8878 4.1.1 reads it; returns its end. */
TLZ_FN uint8_t *tlz_fse_write_counts(const int16_t *norm, int n, int log, tlz_bits *b)
{
    tlz_bits_put(b, (uint64_t)(log - 5), 4);
    int remaining = (1 << log) + 1, threshold = 1 << log, nbits = log + 1;
    int last = n - 1;
    while (last > 0 && norm[last] == 0) last--;
    for (int s = 0; s <= last;) {
        int value = norm[s] + 1, max = 2 * threshold - 1 - remaining;
        if (value < max) {
            tlz_bits_put(b, (uint64_t)value, (unsigned)(nbits - 1));
        } else {
            tlz_bits_put(b, (uint64_t)(value >= threshold ? value + max : value), (unsigned)nbits);
        }
        remaining -= norm[s] < 0 ? 1 : norm[s];
        while (remaining < threshold) {
            nbits--;
            threshold >>= 1;
        }
        s++;
        if (norm[s - 1] != 0) continue;
        int zeros = 0;
        while (s + zeros <= last && norm[s + zeros] == 0) zeros++;
        s += zeros;
        for (; zeros >= 3; zeros -= 3) tlz_bits_put(b, 3, 2);
        tlz_bits_put(b, (uint64_t)zeros, 2);
    }
    while (b->n % 8) tlz_bits_put(b, 0, 1); /* whole bytes */
    while (b->n) {
        if (b->p < b->end) *b->p++ = (uint8_t)b->acc;
        else b->overflow = 1;
        b->acc >>= 8;
        b->n -= 8;
    }
    return b->p;
}

/* Normalizes the counts of n symbols (total of them: total > 0) to sum to
 * 2^log: every present symbol gets at least 1 and at most cap, then the one
 * furthest under (over) its share gains (loses) one until the sum is right;
 * ties go to the lower symbol. */
TLZ_FN void tlz_fse_normalize(const uint32_t *count, int n, uint32_t total, int log, int cap, int16_t *norm)
{
    const int size = 1 << log;
    int sum = 0;
    for (int s = 0; s < n; s++) {
        int v = count[s] ? (int)((uint64_t)count[s] * (uint32_t)size / total) : 0;
        if (count[s] && v < 1) v = 1;
        if (v > cap) v = cap;
        norm[s] = (int16_t)v;
        sum += v;
    }
    while (sum != size) {
        int best = -1;
        int64_t best_gap = 0;
        for (int s = 0; s < n; s++) {
            if (!count[s]) continue;
            int64_t gap = (int64_t)count[s] * size - (int64_t)norm[s] * total; /* share - norm, times total */
            if (sum < size ? (norm[s] < cap && (best < 0 || gap > best_gap)) : (norm[s] > 1 && (best < 0 || gap < best_gap))) {
                best = s;
                best_gap = gap;
            }
        }
        norm[best] = (int16_t)(norm[best] + (sum < size ? 1 : -1));
        sum += sum < size ? 1 : -1;
    }
}

/* ---- Huffman-coded literals ---- */

/* Sorts symbols by (count, symbol), rising: a Shell sort, the same on every device. */
TLZ_FN void tlz_sort_by_count(uint16_t *sym, const uint32_t *count, int n)
{
    const int gaps[] = {57, 23, 10, 4, 1};
    for (int g = 0; g < 5; g++)
        for (int i = gaps[g]; i < n; i++) {
            uint16_t v = sym[i];
            int j = i;
            while (j >= gaps[g]) {
                uint16_t u = sym[j - gaps[g]];
                if (count[u] < count[v] || (count[u] == count[v] && u < v)) break;
                sym[j] = u;
                j -= gaps[g];
            }
            sym[j] = v;
        }
}

/* Code lengths of the n (>= 2) symbols in sym (sorted by count, rising) by
 * Huffman's algorithm, then limited to TLZ_HUF_MAX_BITS keeping the code
 * complete. Returns the longest length. */
TLZ_FN int tlz_huf_lengths(const uint16_t *sym, const uint32_t *count, int n, uint8_t *len)
{
    uint32_t weight[512];
    int16_t parent[512];
    uint8_t depth[512];
    int leaf = 0, inner = n, made = n; /* inner nodes n.. are made in rising weight */
    for (int i = 0; i < n; i++) weight[i] = count[sym[i]];
    for (; made < 2 * n - 1; made++) {
        int pick[2];
        for (int k = 0; k < 2; k++) {
            if (leaf < n && (inner == made || weight[leaf] <= weight[inner])) pick[k] = leaf++;
            else pick[k] = inner++;
        }
        weight[made] = weight[pick[0]] + weight[pick[1]];
        parent[pick[0]] = parent[pick[1]] = (int16_t)made;
    }
    depth[2 * n - 2] = 0;
    for (int i = 2 * n - 3; i >= 0; i--) depth[i] = (uint8_t)(depth[parent[i]] + 1 > 31 ? 31 : depth[parent[i]] + 1);
    int longest = 0;
    for (int i = 0; i < n; i++) {
        len[i] = depth[i];
        longest = len[i] > longest ? len[i] : longest;
    }
    if (longest <= TLZ_HUF_MAX_BITS) return longest;
    /* clamp, then lengthen the shortest-but-longest codes until Kraft's sum is 2^11 again */
    const int L = TLZ_HUF_MAX_BITS;
    int64_t kraft = 0;
    for (int i = 0; i < n; i++) {
        if (len[i] > L) len[i] = (uint8_t)L;
        kraft += (int64_t)1 << (L - len[i]);
    }
    while (kraft > ((int64_t)1 << L)) { /* lengthen the least frequent of the longest codes below L */
        int best = -1;
        for (int i = 0; i < n; i++)
            if (len[i] < L && (best < 0 || len[i] > len[best])) best = i;
        kraft -= (int64_t)1 << (L - len[best] - 1);
        len[best]++;
    }
    while (kraft < ((int64_t)1 << L)) { /* shorten the most frequent of the longest codes that fit */
        int64_t gap = ((int64_t)1 << L) - kraft;
        int best = -1;
        for (int i = n - 1; i >= 0; i--)
            if (len[i] > 1 && ((int64_t)1 << (L - len[i])) <= gap && (best < 0 || len[i] > len[best])) best = i;
        kraft += (int64_t)1 << (L - len[best]);
        len[best]--;
    }
    return L;
}

/* Writes the weights of symbols 0..last-1 FSE-coded (RFC 8878 4.2.1.2).
 * Returns the bytes written (header byte included), or 0 when this form
 * cannot describe them (fewer than 2 weights, one value only, or 128 bytes
 * or more). */
TLZ_FN int tlz_huf_weights_fse(const uint8_t *w, int last, uint8_t *dst, uint8_t *end, uint16_t *room)
{
    if (last < 2) return 0;
    uint32_t count[TLZ_HUF_MAX_BITS + 1] = {0};
    for (int i = 0; i < last; i++) count[w[i]]++;
    int present = 0, top = 0;
    for (int s = 0; s <= TLZ_HUF_MAX_BITS; s++) {
        present += count[s] > 0;
        if (count[s]) top = s;
    }
    if (present < 2) return 0;
    /* each present value at least 1, at most half the table (so every state reads a bit) */
    const int log = TLZ_HUF_WEIGHT_LOG;
    int16_t norm[TLZ_HUF_MAX_BITS + 1];
    tlz_fse_normalize(count, top + 1, (uint32_t)last, log, (1 << log) / 2, norm);
    tlz_fse t;
    tlz_fse_build(&t, norm, top + 1, log, room);
    tlz_bits b;
    tlz_bits_init(&b, dst + 1, end);
    tlz_fse_write_counts(norm, top + 1, log, &b);
    /* state 1 codes the even weights, state 2 the odd; both start at the last two */
    uint32_t st[2];
    st[(last - 1) & 1] = tlz_fse_start(&t, w[last - 1]);
    st[(last - 2) & 1] = tlz_fse_start(&t, w[last - 2]);
    for (int i = last - 3; i >= 0; i--) {
        tlz_fse_encode(&t, &st[i & 1], w[i], &b);
        tlz_bits_flush(&b);
    }
    tlz_fse_flush(&t, st[1], &b);
    tlz_fse_flush(&t, st[0], &b);
    uint8_t *stop = tlz_bits_close(&b);
    long bytes = stop - (dst + 1);
    if (b.overflow || bytes >= 128) return 0;
    dst[0] = (uint8_t)bytes;
    return (int)bytes + 1;
}

typedef char tlz_room_holds_the_histogram[4 * 256 <= TLZ_ROOM ? 1 : -1];

/* Counts the bytes of lit[0..n) (n <= TLZ_BLOCK_BYTES) into count[256]: in
 * four tables in room (4 x 256 entries), so that runs of one byte do not
 * wait on one counter; each counts a quarter of the bytes at most, so 16
 * bits hold it. */
TLZ_FN void tlz_histogram(const uint8_t *lit, uint32_t n, uint32_t *count, uint16_t *room)
{
    uint16_t(*part)[256] = (uint16_t(*)[256])room;
    for (int s = 0; s < 4 * 256; s++) room[s] = 0;
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t four = tlz_load32(lit + i); /* loaded before the counts change (which may alias lit) */
        part[0][four & 0xFF]++;
        part[1][four >> 8 & 0xFF]++;
        part[2][four >> 16 & 0xFF]++;
        part[3][four >> 24]++;
    }
    for (; i < n; i++) part[0][lit[i]]++;
    for (int s = 0; s < 256; s++) count[s] = (uint32_t)part[0][s] + part[1][s] + part[2][s] + part[3][s];
}

/* Huffman-codes n literal bytes into dst: tree description, jump table,
 * 4 streams; room is TLZ_ROOM entries to work in. Returns the bytes
 * written, or 0 when raw literals are as small or the literals cannot be
 * coded so; the caller writes the section header. */
TLZ_FN int tlz_huf_literals(const uint8_t *lit, uint32_t n, uint8_t *dst, uint8_t *end, uint16_t *room)
{
    uint32_t count[256];
    tlz_histogram(lit, n, count, room);
    uint16_t sym[256];
    int nsym = 0, last = 0;
    for (int s = 0; s < 256; s++)
        if (count[s]) {
            sym[nsym++] = (uint16_t)s;
            last = s;
        }
    if (nsym < 2) return 0;
    tlz_sort_by_count(sym, count, nsym);
    uint8_t len_sorted[256], len[256] = {0};
    int max_bits = tlz_huf_lengths(sym, count, nsym, len_sorted);
    for (int i = 0; i < nsym; i++) len[sym[i]] = len_sorted[i];
    uint8_t w[256];
    for (int s = 0; s < 256; s++) w[s] = len[s] ? (uint8_t)(max_bits + 1 - len[s]) : 0;

    /* the tree description: FSE-coded weights, or direct 4-bit ones when smaller */
    uint8_t *p = dst;
    int fse = tlz_huf_weights_fse(w, last, p, end, room);
    int direct = last <= 128 ? 1 + (last + 1) / 2 : 0;
    if (direct && (!fse || direct < fse)) {
        if (end - p < direct) return 0;
        p[0] = (uint8_t)(127 + last);
        for (int i = 0; i < last; i += 2) p[1 + i / 2] = (uint8_t)(w[i] << 4 | (i + 1 < last ? w[i + 1] : 0));
        p += direct;
    } else if (fse) {
        p += fse;
    } else {
        return 0;
    }

    /* canonical codes: by weight rising, then symbol; the first code is all zeros */
    uint16_t code[256];
    uint32_t next = 0;
    int prev_len = -1;
    for (int weight = 1; weight <= max_bits; weight++)
        for (int s = 0; s < 256; s++) {
            if (w[s] != weight) continue;
            int l = max_bits + 1 - weight;
            if (prev_len >= 0) next >>= prev_len - l;
            code[s] = (uint16_t)next++;
            prev_len = l;
        }

    /* four streams of (n + 3) / 4 literals, the last shorter; each written last symbol first */
    if (end - p < 6) return 0;
    uint8_t *jump = p;
    p += 6;
    uint32_t part = (n + 3) / 4;
    for (int k = 0; k < 4; k++) {
        uint32_t from = part * (uint32_t)k, to = k == 3 ? n : part * (uint32_t)(k + 1);
        tlz_bits b;
        tlz_bits_init(&b, p, end);
        uint32_t i = to;
        for (; i >= from + TLZ_HUF_PER_FLUSH; i -= TLZ_HUF_PER_FLUSH) {
            for (int j = 1; j <= TLZ_HUF_PER_FLUSH; j++) tlz_bits_add(&b, code[lit[i - j]], len[lit[i - j]]);
            tlz_bits_flush(&b);
        }
        for (; i > from; i--) tlz_bits_put(&b, code[lit[i - 1]], len[lit[i - 1]]);
        uint8_t *stop = tlz_bits_close(&b);
        if (b.overflow) return 0;
        if (k < 3) {
            if (stop - p > 0xFFFF) return 0;
            tlz_put_le(jump + 2 * k, (uint64_t)(stop - p), 2);
        }
        p = stop;
    }
    if ((uint32_t)(p - dst) >= n) return 0;
    return (int)(p - dst);
}

/* ---- sequences ---- */

/* The three code tables of a sequences section, in the order of their modes and descriptions. */
#define TLZ_LL 0 /* literal lengths */
#define TLZ_OF 1 /* offsets */
#define TLZ_ML 2 /* match lengths */
#define TLZ_TABLES 3
#define TLZ_REPEATS 3 /* recent offsets a repeat code can name */

#define TLZ_LL_CODES 36
#define TLZ_OF_CODES 29 /* the predefined table's; a block's offsets need 18 */
#define TLZ_ML_CODES 53
#define TLZ_LL_MAX_LOG 9 /* the largest accuracy logs RFC 8878 allows */
#define TLZ_OF_MAX_LOG 8
#define TLZ_ML_MAX_LOG 9
#define TLZ_FSE_MIN_LOG 5

/* Symbol compression modes (RFC 8878 3.1.1.3.2.1). */
#define TLZ_MODE_PREDEFINED 0
#define TLZ_MODE_RLE 1
#define TLZ_MODE_COMPRESSED 2

#define TLZ_COST_NEVER UINT64_MAX /* the cost of a table that cannot code a symbol */

/* How many codes a table has. */
TLZ_FN int tlz_table_codes(int which)
{
    return which == TLZ_LL ? TLZ_LL_CODES : which == TLZ_OF ? TLZ_OF_CODES : TLZ_ML_CODES;
}

/* The largest accuracy log of a table. */
TLZ_FN int tlz_table_max_log(int which)
{
    return which == TLZ_LL ? TLZ_LL_MAX_LOG : which == TLZ_OF ? TLZ_OF_MAX_LOG : TLZ_ML_MAX_LOG;
}

/* The predefined distributions (RFC 8878 3.1.1.3.2.2). */
TLZ_FN const int16_t *tlz_default_norm(int which)
{
    static const int16_t ll[TLZ_LL_CODES] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2,
                                             2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
    static const int16_t ml[TLZ_ML_CODES] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                             1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                             1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
    static const int16_t of[TLZ_OF_CODES] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1,
                                             1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};
    return which == TLZ_LL ? ll : which == TLZ_OF ? of : ml;
}

/* The accuracy log of a predefined distribution. */
TLZ_FN int tlz_default_log(int which)
{
    return which == TLZ_OF ? 5 : 6;
}

/* The code of a literal length (RFC 8878 3.1.1.3.2.1.1). */
TLZ_FN int tlz_ll_code(uint32_t v)
{
    static const uint8_t small[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                      16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 20, 20, 21, 21, 21, 21,
                                      22, 22, 22, 22, 22, 22, 22, 22, 23, 23, 23, 23, 23, 23, 23, 23,
                                      24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24};
    return v < 64 ? small[v] : tlz_highbit(v) + 19; /* from 64 on, a code per power of two */
}

/* The baseline of a literal length code. */
TLZ_FN uint32_t tlz_ll_base(int code)
{
    static const uint32_t base[TLZ_LL_CODES] = {0,  1,  2,  3,  4,   5,   6,   7,    8,    9,    10,   11,
                                                12, 13, 14, 15, 16,  18,  20,  22,   24,   28,   32,   40,
                                                48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
    return base[code];
}

/* The extra bits of a literal length code. */
TLZ_FN int tlz_ll_extra(int code)
{
    static const uint8_t bits[TLZ_LL_CODES] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  1,  1,
                                               1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    return bits[code];
}

/* The code of a match length (>= 3). */
TLZ_FN int tlz_ml_code(uint32_t v)
{
    static const uint8_t small[128] = {
        0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
        22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 32, 33, 33, 34, 34, 35, 35, 36, 36, 36, 36,
        37, 37, 37, 37, 38, 38, 38, 38, 38, 38, 38, 38, 39, 39, 39, 39, 39, 39, 39, 39, 40, 40,
        40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 41, 41, 41, 41, 41, 41, 41, 41,
        41, 41, 41, 41, 41, 41, 41, 41, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42,
        42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42};
    uint32_t above = v - 3;
    return above < 128 ? small[above] : tlz_highbit(above) + 36; /* from 131 on, a code per power of two */
}

/* The baseline of a match length code. */
TLZ_FN uint32_t tlz_ml_base(int code)
{
    static const uint32_t base[TLZ_ML_CODES] = {
        3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14,  15,  16,  17,   18,   19,   20,
        21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,  33,  34,  35,   37,   39,   41,
        43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
    return base[code];
}

/* The extra bits of a match length code. */
TLZ_FN int tlz_ml_extra(int code)
{
    static const uint8_t bits[TLZ_ML_CODES] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
                                               2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    return bits[code];
}

/* 256 log2(x) for x >= 1, linear between powers of two (less than 0.09 bit off). */
TLZ_FN uint32_t tlz_log2_256(uint32_t x)
{
    int h = tlz_highbit(x);
    return (uint32_t)h * 256 + (uint32_t)(((uint64_t)x << 8 >> h) - 256);
}

/* About the bits, times 256, that coding count[0..n) with a normalized
 * distribution at accuracy log takes; TLZ_COST_NEVER when one is missing. */
TLZ_FN uint64_t tlz_fse_cost(const uint32_t *count, int n, const int16_t *norm, int log)
{
    uint64_t cost = 0;
    for (int s = 0; s < n; s++) {
        if (!count[s]) continue;
        if (norm[s] == 0) return TLZ_COST_NEVER;
        uint32_t share = norm[s] < 0 ? 1u : (uint32_t)norm[s];
        cost += (uint64_t)count[s] * ((uint32_t)log * 256 - tlz_log2_256(share));
    }
    return cost;
}

/* The accuracy log of a table for total symbols with `top` the highest:
 * about a quarter of a state per symbol, as few states as describe them all,
 * within RFC 8878's bounds. */
TLZ_FN int tlz_table_log(uint32_t total, int top, int max_log)
{
    int log = tlz_highbit(total - 1) - 2; /* total >= 2 */
    int need = tlz_highbit(total) + 1, need_symbols = tlz_highbit((uint32_t)top) + 2;
    if (need_symbols < need) need = need_symbols;
    if (log < need) log = need;
    if (log < TLZ_FSE_MIN_LOG) log = TLZ_FSE_MIN_LOG;
    return log > max_log ? max_log : log;
}

/* Picks the cheapest mode for the codes counted in count (total of them):
 * RLE for one code, else the predefined table or a table of the block's own
 * (its description written at *p, which moves past it); builds the table in
 * t. Returns the mode, or -1 when the output is full. */
TLZ_FN int tlz_choose_table(const uint32_t *count, uint32_t total, int which, tlz_fse *t, uint16_t *room, uint8_t **p,
                            uint8_t *end)
{
    int n = tlz_table_codes(which), present = 0, top = 0;
    for (int s = 0; s < n; s++)
        if (count[s]) {
            present++;
            top = s;
        }
    int16_t norm[TLZ_FSE_MAX_SYMBOLS];
    if (present == 1) { /* as a table of one state, log 0: its symbols write no bits */
        if (*p >= end) return -1;
        *(*p)++ = (uint8_t)top;
        for (int s = 0; s < top; s++) norm[s] = 0;
        norm[top] = 1;
        tlz_fse_build(t, norm, top + 1, 0, room);
        return TLZ_MODE_RLE;
    }
    int log = tlz_table_log(total, top, tlz_table_max_log(which));
    tlz_fse_normalize(count, top + 1, total, log, (1 << log) - 1, norm);
    tlz_bits b;
    tlz_bits_init(&b, *p, end);
    uint8_t *described = tlz_fse_write_counts(norm, top + 1, log, &b);
    if (b.overflow) return -1;
    uint64_t own = tlz_fse_cost(count, top + 1, norm, log) + (uint64_t)(described - *p) * 8 * 256;
    uint64_t predefined = tlz_fse_cost(count, top + 1, tlz_default_norm(which), tlz_default_log(which));
    if (predefined <= own) {
        tlz_fse_build(t, tlz_default_norm(which), n, tlz_default_log(which), room);
        return TLZ_MODE_PREDEFINED;
    }
    tlz_fse_build(t, norm, top + 1, log, room);
    *p = described;
    return TLZ_MODE_COMPRESSED;
}

/* The offset_value (RFC 8878 "Offset codes") that codes a match offset
 * after lit_len literals: a repeat code (1..3) when the offset is one of the
 * recent ones, else offset + 3; updates recent as the decoder does. recent
 * starts as zeros, "not known": the decoder's history at a block's start is
 * what the blocks before it left, and a block must not depend on them. */
TLZ_FN uint32_t tlz_offset_value(uint32_t offset, uint32_t lit_len, uint32_t *recent)
{
    uint32_t value;
    if (lit_len && offset == recent[0]) return 1; /* the history stays */
    /* with no literals, codes 1 and 2 name the second and third */
    if (offset == recent[1]) {
        value = lit_len ? 2 : 1;
    } else if (offset == recent[2]) {
        value = lit_len ? 3 : 2;
        recent[2] = recent[1];
    } else {
        value = offset + 3; /* a new offset pushes the oldest out */
        recent[2] = recent[1];
    }
    recent[1] = recent[0];
    recent[0] = offset;
    return value;
}

typedef char tlz_room_holds_the_code_tables[(TLZ_TABLES << TLZ_FSE_MAX_LOG) <= TLZ_ROOM ? 1 : -1];

/* Writes the sequences section: count, modes, table descriptions,
 * bitstream; each sequence's offset becomes its offset_value. codes (3
 * bytes a sequence) is room for the sequences' codes, room (TLZ_ROOM
 * entries) for the code tables' states. Returns its end, or NULL when
 * full. */
TLZ_FN uint8_t *tlz_write_sequences(tlz_seq *seqs, uint32_t n, uint8_t *codes, uint16_t *room, uint8_t *p, uint8_t *end)
{
    if (end - p < 4) return NULL;
    if (n < 128) {
        *p++ = (uint8_t)n;
    } else if (n < 0x7F00) {
        *p++ = (uint8_t)((n >> 8) + 0x80);
        *p++ = (uint8_t)n;
    } else {
        *p++ = 255;
        tlz_put_le(p, n - 0x7F00, 2);
        p += 2;
    }
    if (n == 0) return p;

    uint32_t count[TLZ_TABLES][TLZ_FSE_MAX_SYMBOLS] = {{0}};
    uint32_t recent[TLZ_REPEATS] = {0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t value = tlz_offset_value(seqs[i].offset, seqs[i].lit_len, recent);
        int ll = tlz_ll_code(seqs[i].lit_len), of = tlz_highbit(value), ml = tlz_ml_code(seqs[i].match_len);
        seqs[i].offset = value;
        codes[TLZ_TABLES * i + TLZ_LL] = (uint8_t)ll;
        codes[TLZ_TABLES * i + TLZ_OF] = (uint8_t)of;
        codes[TLZ_TABLES * i + TLZ_ML] = (uint8_t)ml;
        count[TLZ_LL][ll]++;
        count[TLZ_OF][of]++;
        count[TLZ_ML][ml]++;
    }
    uint8_t *modes = p++;
    *modes = 0;
    tlz_fse t[TLZ_TABLES];
    for (int k = 0; k < TLZ_TABLES; k++) {
        int mode = tlz_choose_table(count[k], n, k, &t[k], room + (k << TLZ_FSE_MAX_LOG), &p, end);
        if (mode < 0) return NULL;
        *modes = (uint8_t)(*modes | mode << (6 - 2 * k));
    }

    tlz_bits b;
    tlz_bits_init(&b, p, end);
    const uint8_t *c = codes + TLZ_TABLES * (n - 1);
    uint32_t ll_state = tlz_fse_start(&t[TLZ_LL], c[TLZ_LL]), of_state = tlz_fse_start(&t[TLZ_OF], c[TLZ_OF]),
             ml_state = tlz_fse_start(&t[TLZ_ML], c[TLZ_ML]);
    for (uint32_t i = n; i-- > 0;) {
        const tlz_seq *q = &seqs[i];
        int ll = codes[TLZ_TABLES * i + TLZ_LL], of = codes[TLZ_TABLES * i + TLZ_OF], ml = codes[TLZ_TABLES * i + TLZ_ML];
        if (i < n - 1) { /* the decoder updates LL, ML, OF after each sequence but the last; written backwards */
            tlz_fse_encode(&t[TLZ_OF], &of_state, of, &b);
            tlz_fse_encode(&t[TLZ_ML], &ml_state, ml, &b);
            tlz_fse_encode(&t[TLZ_LL], &ll_state, ll, &b);
            tlz_bits_flush(&b); /* 7 + 8 + 9 + 9 bits at most */
        }
        /* it reads the extra bits of OF, ML, LL in that order: 7 + 16 + 16 + 17 bits at most */
        tlz_bits_add(&b, q->lit_len - tlz_ll_base(ll), (unsigned)tlz_ll_extra(ll));
        tlz_bits_add(&b, q->match_len - tlz_ml_base(ml), (unsigned)tlz_ml_extra(ml));
        tlz_bits_add(&b, q->offset - (1u << of), (unsigned)of);
        tlz_bits_flush(&b);
    }
    /* the decoder reads the initial states LL, OF, ML */
    tlz_fse_flush(&t[TLZ_ML], ml_state, &b);
    tlz_fse_flush(&t[TLZ_OF], of_state, &b);
    tlz_fse_flush(&t[TLZ_LL], ll_state, &b);
    uint8_t *stop = tlz_bits_close(&b);
    return b.overflow ? NULL : stop;
}

/* ---- matches ---- */

/* Whether the tokens of `width` bytes at a and b are equal. */
TLZ_FN int tlz_same_token(const uint8_t *a, const uint8_t *b, int width)
{
    return width == 4 ? tlz_load32(a) == tlz_load32(b) : (a[0] == b[0] && a[1] == b[1]);
}

/* How many bytes from a and b on are equal, b stopping at b_end (a < b). */
TLZ_FN uint32_t tlz_common(const uint8_t *a, const uint8_t *b, const uint8_t *b_end)
{
    const uint8_t *start = b;
    while (b + 8 <= b_end) {
        uint64_t diff = tlz_load64(a) ^ tlz_load64(b);
        if (diff) return (uint32_t)(b - start) + (uint32_t)tlz_ctz64(diff) / 8;
        a += 8;
        b += 8;
    }
    while (b < b_end && *a == *b) a++, b++;
    return (uint32_t)(b - start);
}

/* The table slot of a key. */
TLZ_FN uint32_t tlz_hash(uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - TLZ_HASH_LOG));
}

/* tlz_find() for one width, a constant where it is inlined. */
TLZ_FN_ALWAYS_INLINE uint32_t tlz_find_width(const uint8_t *src, uint32_t len, int width, tlz_scratch *s, uint32_t *nlit)
{
    for (uint32_t i = 0; i < (1u << TLZ_HASH_LOG); i++) s->table[i] = 0;
    uint32_t ns = 0, lits = 0, anchor = 0, p = (uint32_t)width, last_off = 0;
    const int shift = width == 4 ? 2 : 1;
    const uint32_t key_bytes = width == 4 ? TLZ_KEY_BYTES : TLZ_KEY_BYTES_U16;
    const uint64_t key_mask = ~0ull >> (64 - 8 * key_bytes);
    /* two positions a round, p and the token after it, so that their table
     * and candidate loads overlap; the table holds earlier positions only */
    while (p + (uint32_t)width + TLZ_KEY_BYTES <= len && ns < TLZ_MAX_SEQS - 1) {
        uint32_t q = p + (uint32_t)width;
        uint64_t key = tlz_load64(src + p) & key_mask, key_next = tlz_load64(src + q) & key_mask;
        uint16_t *slot = &s->table[tlz_hash(key)];
        uint32_t cand = (uint32_t)*slot << shift;
        *slot = (uint16_t)(p >> shift);
        slot = &s->table[tlz_hash(key_next)];
        uint32_t cand_next = (uint32_t)*slot << shift;
        *slot = (uint16_t)(q >> shift);
        if (last_off && p >= last_off && (tlz_load64(src + p - last_off) & key_mask) == key) {
            cand = p - last_off;
        } else if ((tlz_load64(src + cand) & key_mask) != key) {
            if ((tlz_load64(src + cand_next) & key_mask) != key_next) {
                p = q + (uint32_t)width + (((p - anchor) >> TLZ_SKIP_LOG) & ~(uint32_t)(width - 1));
                continue;
            }
            p = q;
            cand = cand_next;
        }
        uint32_t off = p - cand;
        uint32_t m = key_bytes + tlz_common(src + cand + key_bytes, src + p + key_bytes, src + len);
        m &= ~(uint32_t)(width - 1);
        while (p > anchor && p - off >= (uint32_t)width && tlz_same_token(src + p - width, src + p - off - width, width)) {
            p -= (uint32_t)width;
            m += (uint32_t)width;
        }
        tlz_copy(s->literals + lits, src + anchor, p - anchor);
        lits += p - anchor;
        s->seqs[ns].lit_len = p - anchor;
        s->seqs[ns].match_len = m;
        s->seqs[ns].offset = off;
        last_off = off;
        ns++;
        p += m;
        anchor = p;
    }
    tlz_copy(s->literals + lits, src + anchor, len - anchor);
    lits += len - anchor;
    *nlit = lits;
    return ns;
}

/* Finds the block's sequences and copies its literals; returns the count. */
TLZ_FN uint32_t tlz_find(const uint8_t *src, uint32_t len, int width, tlz_scratch *s, uint32_t *nlit)
{
    return width == 4 ? tlz_find_width(src, len, 4, s, nlit) : tlz_find_width(src, len, 2, s, nlit);
}

/* ---- the block ---- */

/* Writes a Raw_Literals_Block section; returns its end, or NULL when full. */
TLZ_FN uint8_t *tlz_write_raw_literals(const uint8_t *lit, uint32_t n, uint8_t *p, uint8_t *end)
{
    int h = n < 32 ? 1 : n < 4096 ? 2 : 3;
    if (end - p < (long)(h + n)) return NULL;
    if (h == 1) p[0] = (uint8_t)(n << 3);
    else if (h == 2) tlz_put_le(p, 1u << 2 | n << 4, 2);
    else tlz_put_le(p, 3u << 2 | n << 4, 3);
    p += h;
    tlz_copy(p, lit, n);
    return p + n;
}

/* Writes src[0..len) (at most TLZ_BLOCK_BYTES, whole tokens of `width`
 * bytes, 2 or 4) as one zstd block, its 3-byte header included (last: the
 * frame's last block), at dst (TLZ_BLOCK_BOUND bytes). Returns its size. */
TLZ_FN uint32_t tlz_block(const uint8_t *src, uint32_t len, int width, int last, tlz_scratch *s, uint8_t *dst)
{
    uint32_t nlit;
    uint32_t ns = tlz_find(src, len, width, s, &nlit);
    uint8_t *body = s->work + 3, *end = s->work + 3 + len; /* smaller than len, or stored raw */
    uint8_t *p = NULL;
    if (nlit >= TLZ_MIN_HUF_LITERALS) {
        int h = nlit < 1024 ? 3 : nlit < 16384 ? 4 : 5;
        int coded = tlz_huf_literals(s->literals, nlit, body + h, end, s->table);
        if (coded > 0 && coded < 1024 * (h == 3) + 16384 * (h == 4) + 262144 * (h == 5)) {
            uint64_t sf = (uint64_t)(h - 2), size_bits = h == 3 ? 10 : h == 4 ? 14 : 18;
            uint64_t header = 2 | sf << 2 | (uint64_t)nlit << 4 | (uint64_t)coded << (4 + size_bits);
            tlz_put_le(body, header, h);
            p = body + h + coded;
        }
    }
    if (!p) p = tlz_write_raw_literals(s->literals, nlit, body, end);
    /* the literals are written: their room holds the codes; the hash table is spent: it holds the code tables */
    if (p) p = tlz_write_sequences(s->seqs, ns, s->literals, s->table, p, end);
    uint32_t size;
    const uint8_t *content;
    uint32_t type;
    if (p && p < end) {
        size = (uint32_t)(p - body);
        content = body;
        type = 2;
    } else {
        size = len;
        content = src;
        type = 0;
    }
    tlz_put_le(dst, (uint32_t)(last ? 1 : 0) | type << 1 | size << 3, 3);
    tlz_copy(dst + 3, content, size);
    return size + 3;
}

/* ---- the frame around the blocks ---- */

#define TLZ_FRAME_HEADER_MAX 9 /* magic, descriptor, a 4-byte content size */
#define TLZ_CHECKSUM_BYTES 4

/* Writes a frame's magic number and header for len bytes of content (a
 * single segment: the window is the frame; the content checksum follows the
 * last block). Returns its size. */
TLZ_FN uint32_t tlz_frame_header(uint32_t len, uint8_t *dst)
{
    tlz_put_le(dst, 0xFD2FB528u, 4);
    int fcs = len < 256 ? 0 : len < 65536 + 256 ? 1 : 2; /* flag: 1, 2 or 4 bytes with a single segment */
    dst[4] = (uint8_t)(fcs << 6 | 1 << 5 | 1 << 2);
    if (fcs == 0) dst[5] = (uint8_t)len;
    else if (fcs == 1) tlz_put_le(dst + 5, len - 256, 2);
    else tlz_put_le(dst + 5, len, 4);
    return 5 + (fcs == 0 ? 1 : fcs == 1 ? 2 : 4);
}

/* How many blocks a frame of len bytes has (an empty frame has one). */
TLZ_FN uint32_t tlz_frame_blocks(uint32_t len)
{
    return len ? (len + TLZ_BLOCK_BYTES - 1) / TLZ_BLOCK_BYTES : 1;
}

#endif
