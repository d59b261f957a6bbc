/* hf_pipeline.h - the Hugging Face tokenizers pipeline of a tokenizer.json:
 * added tokens, normalizer, pre-tokenizer, model (BPE, WordPiece, WordLevel, Unigram),
 * post-processor BOS/EOS and decoder, each as HF tokenizers 0.23 does it
 * (see docs/tokenize.md).
 *
 * Loading refuses, naming the JSON path, anything it does not implement, so
 * a file either encodes exactly as HF's encode(text, add_special_tokens=
 * false) or does not load. The pipeline is read-only after loading; each
 * thread keeps its working memory in an hf_scratch. */
#ifndef WINNOW_TOKENIZE_HF_PIPELINE_H
#define WINNOW_TOKENIZE_HF_PIPELINE_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "tokenize/bpe.h"
#include "tokenize/hf_json.h"
#include "tokenize/vocab.h"

typedef struct hf_scratch hf_scratch;

/* Strings by id, for decoding (hf_decode.c): put in any order, then sorted once. */
typedef struct {
    uint32_t id;
    uint32_t len;
    char *s;
} hf_id_string;

typedef struct {
    hf_id_string *items;
    size_t n, cap;
} hf_id_strings;

/* ---- normalizers ---- */
typedef enum {
    HN_NFC, HN_NFD, HN_NFKC, HN_NFKD, HN_LOWERCASE, HN_STRIP, HN_STRIP_ACCENTS, HN_REPLACE, HN_PREPEND,
    HN_BERT_CLEAN,   /* BertNormalizer's clean_text (left) and handle_chinese_chars (right) */
    HN_STRIP_NONSPACING, /* BertNormalizer's strip_accents after its NFD: drops Mn only */
    HN_PRECOMPILED, HN_NMT /* SentencePiece's charsmap and NMT rules (hf_precompiled.c) */
} hf_norm_kind;

typedef struct {
    hf_norm_kind kind;
    char *pattern, *content; /* Replace: literal pattern (re NULL) or regex; content; Prepend: content */
    size_t pattern_len, content_len;
    pcre2_code *re, *re_fast; /* re_fast: hf_regex_compile's, or NULL */
    bool left, right; /* Strip */
    struct hf_charsmap *charsmap; /* Precompiled */
} hf_norm_step;

/* ---- pre-tokenizers ---- */
typedef enum { HB_REMOVED, HB_ISOLATED, HB_MERGED_PREVIOUS, HB_MERGED_NEXT, HB_CONTIGUOUS } hf_behavior;
typedef enum {
    HM_REGEX,      /* PCRE2 with onig's meaning of \s \S \w \W */
    HM_FAMILY,     /* one of the hand-written tiktoken scanners (its matches tile the text) */
    HM_STRING,     /* a literal */
    HM_DIGIT,      /* each character of general category N (Rust char::is_numeric) */
    HM_PUNCT,      /* each punctuation character (ASCII punctuation or category P) */
    HM_WHITESPACE, /* each White_Space character */
    HM_SCANNER,    /* a pretok_hf.h scanner standing for the step(s) it replaces (tiles the text) */
} hf_match_kind;
typedef enum { HP_SPLIT, HP_BYTE_LEVEL, HP_METASPACE } hf_pretok_kind;
typedef enum { HF_PREPEND_ALWAYS, HF_PREPEND_FIRST, HF_PREPEND_NEVER } hf_prepend_scheme;

typedef struct {
    hf_pretok_kind kind;
    hf_match_kind match;
    hf_behavior behavior;
    bool invert;
    pcre2_code *re, *re_fast; /* re_fast: hf_regex_compile's, or NULL */
    char *literal;
    size_t literal_len;
    int family;            /* HM_FAMILY: a pretok_family */
    bool single_digits;    /* HM_FAMILY: the pattern has \p{N} where the family's has \p{N}{1,3} (Qwen) */
    int scanner;           /* HM_SCANNER: a pretok_hf_scanner */
    bool add_prefix_space; /* ByteLevel */
    bool use_regex;        /* ByteLevel: split with GPT-2's pattern first */
    char replacement[8];   /* Metaspace: the replacement character (UTF-8) */
    size_t replacement_len;
    hf_prepend_scheme prepend;
    bool split;            /* Metaspace: split before each replacement character */
    bool never_matches;    /* Split: its literal cannot be in the normalized text (skipped: the piece stays whole) */
    bool byte_chars;       /* Split after a ByteLevel: it sees each byte of a piece as its byte-level character */
} hf_pretok_step;

/* ---- added tokens ---- */
typedef struct {
    char *content; /* normalized content for normalized tokens */
    size_t len;
    uint32_t id;
    bool special, lstrip, rstrip, single_word, normalized;
} hf_added_token;

#define HF_ADDED_FIRSTS 6 /* first bytes looked for 16 text bytes at a time (Gemma's added tokens have 5) */
#define HF_ADDED_PREFIX 4 /* a place is tried for the longer added tokens only when these bytes begin one */

/* The added tokens matched in one pass (those normalized, or those not). */
typedef struct {
    tok_vocab by_content; /* content -> index in the pipeline's added array */
    uint32_t *lengths;    /* distinct content lengths, longest first */
    int nlengths;
    int nlong; /* lengths[0..nlong) are HF_ADDED_PREFIX or more */
    bool first_byte[256];
    uint8_t firsts[HF_ADDED_FIRSTS]; /* the distinct first bytes, when there are no more (nfirsts) */
    int nfirsts;                     /* -1: more than HF_ADDED_FIRSTS */
    uint8_t short_lengths[256]; /* by first byte: bit L set when a token of L < HF_ADDED_PREFIX bytes starts so */
    uint64_t seconds[256][4];   /* bit b of seconds[a]: a token of two bytes or more starts with bytes a, b */
    uint32_t one_byte[256];     /* index + 1 of the token that is this one byte (0: none) */
    tok_vocab prefixes;         /* the first HF_ADDED_PREFIX bytes of the longer tokens */
} hf_added_set;

/* ---- the model: BPE (or WordPiece, Unigram with their fields below) ---- */
#define HF_CUT_CHARS 0x10000 /* characters a word may be cut beside: the BMP */
#define HF_CHAR_KNOWN 1      /* a vocab token is this one character */
#define HF_CHAR_NEXT 2       /* a merge's left part ends with it */
#define HF_CHAR_PREV 4       /* a merge's right part starts with it */
#define HF_CHAR_BYTES 8      /* no token: it becomes its byte tokens, which no merge joins (cut_beside_bytes) */
typedef struct {
    uint64_t key; /* left id << 32 | right id; 0 with value 0: empty (ids are < 2^24) */
    uint64_t value; /* rank << 32 | new id */
} hf_merge_slot;

/* A merge's rank and new id (rank UINT32_MAX: no merge). */
typedef struct {
    uint32_t rank, new_id;
} hf_merge_value;

typedef struct {
    hf_merge_slot *merges;
    /* instead, for a model that is not byte-level whose ids and ranks are
     * small enough (Llama 2, Gemma): the same table in 8-byte slots, a tag
     * above the rank above the new id. A pair's hash (hf_bpe.c's
     * packed_hash) is one to one: its high bits pick the first slot to
     * probe, and the tag holds its low rem_bits and how far the slot lies
     * from that first one (plus one; 0 is an empty slot), which together
     * name the pair. Half the memory to miss in */
    uint64_t *packed;
    /* (64-bit and 16-bit fields: no uint32_t store of the merge loop can
     * change them, so it keeps them in registers) */
    uint16_t id_bits, rank_bits, rem_bits, tag_shift;
    uint64_t pair_mask, id_mask, rank_mask, rem_mask; /* 2^(2 id_bits) - 1, 2^id_bits - 1, ... */
    uint32_t merges_mask;
    /* and a filter of its pairs: the bit a pair hashes to is set for every
     * merge, so a clear bit proves a pair has no merge without waiting on
     * the table (most pairs looked up have none); with it a cache of recent
     * pair lookups was 5-15% slower */
    uint64_t *pair_filter;
    uint16_t pair_filter_shift; /* 64 - log2 of its bits */
    hf_merge_value *byte_pairs; /* byte-level: the merge of bytes b0, b1 at b0 << 8 | b1 */
    bool byte_level, byte_fallback, ignore_merges, fuse_unk;
    /* continuing_subword_prefix before each character but the word's first
     * and end_of_word_suffix after its last (as bytes: byte-level ones
     * decoded), when either is not empty: such a word merges by merge_word
     * alone (no cut words, no byte pair table) */
    bool affixes;
    char *prefix, *suffix;
    size_t prefix_len, suffix_len;
    uint32_t unk;             /* VOCAB_NO_TOKEN: none */
    uint32_t byte_token[256]; /* byte_fallback: the id of "<0xXX>" (VOCAB_NO_TOKEN: none) */
    uint32_t vocab_size;      /* entries of model.vocab (HF's get_vocab_size) */
    /* a long word splits before each U+2581 that no merge joins to what
     * comes before it (SentencePiece-style models, whose words are whole
     * texts: the BPE models with cut_words; see next_part in hf_bpe.c) */
    bool split_at_space;
    bool unknown_before_mark; /* also after a character that is no token */
    uint64_t ascii_before_mark[2]; /* bit c: also after ASCII character c (a token no merge joins to U+2581) */
    bool mark_before_mark;         /* also after U+2581 itself */
    /* a word that is not remembered is cut where two characters meet that
     * no merge joins: no merge can make a token across that place, so the
     * pieces merge alone (hf_bpe.c's cut_word) and are remembered one by
     * one (BPE models that are not byte-level and have no ignore_merges,
     * whose merges are all valid UTF-8) */
    bool cut_words;
    /* also beside a character that is no token: byte_fallback has a byte
     * token for every byte that is not a token itself (so nothing becomes
     * the unknown token, which HF moves past byte tokens) and no merge part
     * starts or ends with a byte token, so its bytes stay alone and in place */
    bool cut_beside_bytes;
    uint8_t *char_flags;   /* by code point below HF_CUT_CHARS: HF_CHAR_* */
    uint64_t *ascii_pairs; /* bit b of word 2a + b / 64: a merge joins a part ending in ASCII a to one starting with b */
    uint64_t *char_pairs;  /* a filter of the other pairs merges join (a << 16 | b: two bits of a word) */
    uint32_t char_pairs_mask;
    uint64_t ascii_cuts[2 * 128]; /* bit b of word 2a + b / 64: cut_word cuts between ASCII a and b */
    /* a WordPiece model instead (hf_wordpiece.c): greedy longest match,
     * later pieces with the prefix, unk for a word that does not split */
    bool wordpiece;
    bool byte_chars; /* WordPiece or WordLevel after a ByteLevel: it sees each byte as its byte-level character */
    char *wp_prefix;
    size_t wp_prefix_len;
    size_t wp_max_chars;
    /* a WordLevel model instead (hf_wordlevel.c): the word's id, else unk
     * (with ignore_merges set, the whole word is looked up first) */
    bool wordlevel;
    /* a Unigram model instead (hf_unigram.c): Viterbi over the vocab pieces' scores */
    bool unigram;
    double *ug_score;      /* by id */
    double ug_unk_score;   /* the lowest score - 10, for a character no piece covers */
    uint32_t *ug_lengths;  /* distinct piece lengths in bytes, shortest first */
    int ug_nlengths;
    tok_vocab odd_keys;       /* byte-level: vocab strings outside the byte alphabet, as they are */
    hf_id_strings odd_names;  /* decoding: those strings (and an empty one) by id */
} hf_bpe;

/* ---- decoder steps ---- */
typedef enum {
    HD_REPLACE,
    HD_BYTE_FALLBACK,
    HD_FUSE,
    HD_STRIP,
    HD_METASPACE,
    HD_BYTE_LEVEL,
    HD_WORDPIECE,
    HD_BPE_SUFFIX,
    HD_CTC
} hf_decode_kind;

typedef struct {
    hf_decode_kind kind;
    /* Replace: from -> to; Strip, Metaspace: the character (from);
     * WordPiece: the prefix (from); BPEDecoder: the suffix (from); CTC:
     * the pad token (from) and the word delimiter (to) */
    char *from, *to;
    size_t from_len, to_len;
    /* Strip: how many to take off each end; Metaspace: start 1 = the first
     * token's replacements go; WordPiece, CTC: start 1 = cleanup */
    size_t start, stop;
} hf_decode_step;

typedef struct hf_pipeline {
    hf_norm_step *norm;
    int nnorm;
    hf_pretok_step *pre;
    int npre;
    hf_bpe bpe;
    hf_added_token *added;
    int nadded;
    hf_added_set raw_set, normalized_set; /* matched before / after normalizing */
    uint32_t bos, eos; /* what post_processor puts around a single text (VOCAB_NO_TOKEN: nothing) */
    hf_decode_step *dec;
    int ndec;
    bool decoder_none;        /* no decoder: HF joins the token strings with spaces */
    bool decoder_bytes;       /* byte-level: the decoder starts with ByteLevel, which hf_decode does on the ids */
    bool decoder_unsupported; /* decoding is refused: the decoder has a step not implemented */
    char decoder_type[96];    /* ... what of it ("the decoder CTC without pad_token, ...") */
    hf_id_strings added_names; /* decoding: an added token's string (HF's AddedVocabulary::simple_id_to_token) */
    bool has_template; /* post_processor is a TemplateProcessing, BertProcessing or RobertaProcessing */
} hf_pipeline;

/* One symbol of a word being merged (HF's Symbol). */
typedef struct {
    uint32_t id;
    int32_t prev, next;
    uint32_t len; /* 0: merged into the symbol before it */
} hf_symbol;

/* A candidate merge in the queue (HF's Merge). */
typedef struct {
    uint32_t rank, pos, new_id;
    uint32_t left, right; /* the pair's ids when it was queued */
} hf_merge_item;

#define HF_CACHE_BYTES 26 /* words of up to this many bytes ... */
#define HF_CACHE_IDS 8    /* ... and ids are remembered, in one cache line */
/* remembered words per thread: 2^17 (8 MB) and 2^15 longer ones (4 MB); on
 * tokref multi twice 2^16 and 2^14 leave 8% fewer words to merge and were
 * 0-11% faster (Gemma, Llama 2, GPT-4o); four times as many gained nothing more */
#define HF_CACHE_SLOTS (1u << 17)

#define HF_CHAR_BITS 12 /* recent lookups of multi-byte characters: 2^12 */
#define HF_CHAR_SLOTS (1u << HF_CHAR_BITS)

/* A recent character lookup: its UTF-8 bytes packed little-endian (0: empty) and id. */
typedef struct {
    uint32_t bytes, id;
} hf_char_entry;

/* One remembered word and its ids (len 0: empty). */
typedef struct {
    uint32_t hash; /* the low half of the word's vocab_hash */
    uint8_t len, nids;
    uint8_t bytes[HF_CACHE_BYTES];
    uint32_t ids[HF_CACHE_IDS];
} hf_cache_entry;

#define HF_MID_BYTES 74 /* longer words of up to this many bytes ... */
#define HF_MID_IDS 12   /* ... and ids are remembered too, in two cache lines */
#define HF_MID_SLOTS (1u << 15)

/* One remembered longer word (len 0: empty). */
typedef struct {
    uint32_t hash;
    uint8_t len, nids;
    uint8_t bytes[HF_MID_BYTES];
    uint32_t ids[HF_MID_IDS];
} hf_mid_entry;

/* A span of text that is an added token (index >= 0) or ordinary text (-1). */
typedef struct {
    size_t start, end;
    int index;
} hf_added_span;


/* Builds the pipeline of a parsed tokenizer.json (root) into p, the model's
 * tokens into vocab (by id, for decoding) and the added tokens as specials.
 * Returns 0, or -1 with a message naming the JSON path in err. */
int hf_pipeline_load(hf_pipeline *p, const hj_node *root, tok_vocab *vocab, wbuf *err);

/* Frees p. */
void hf_pipeline_free(hf_pipeline *p);

/* Appends the ids of text s[0..n) to out, as HF's encode without special
 * tokens added; with match_added, added tokens written in the text become
 * their ids (HF's encode), else all text is ordinary. Returns 0, or the
 * PCRE2 error code of a normalizer or pre-tokenizer regex that could not
 * finish on the text (match, depth or heap limit, memory): out's ids are
 * then incomplete and must not be used. */
int hf_encode(const hf_pipeline *p, const tok_vocab *vocab, const char *s, size_t n, bool match_added, bpe_scratch *scratch, tok_ids *out);

/* Makes h's regex working memory ready (idempotent). */
void hf_scratch_init(hf_scratch *h);

/* Frees what h holds. */
void hf_scratch_free(hf_scratch *h);

/* pcre2_match of re on s[0..n) from pos with h's match data and JIT stack;
 * an error other than PCRE2_ERROR_NOMATCH is kept in h->regex_error (the
 * callers stop matching at any negative result). */
int hf_match(const pcre2_code *re, const char *s, size_t n, size_t pos, hf_scratch *h);

/* ---- parts, each in its own file ---- */

/* hf_normalize.c: loads node (path for messages) into steps; 0 or -1. */
int hf_normalizer_load(hf_pipeline *p, const hj_node *node, const char *path, wbuf *err);
/* Applies p's normalizers to s[0..n) into out (replaced); false when out no
 * longer starts at s's offset 0 (a step removed the first character: Strip,
 * a Replace by nothing, a dropped mark or control). */
bool hf_normalize(const hf_pipeline *p, const char *s, size_t n, hf_scratch *h, wbuf *out, wbuf *tmp);
/* hf_normalize, tracking HF's alignments at the document's start: z is how
 * many leading bytes of s lie at original offset 0 (its first character
 * when s starts the document, else 0); returns how many of out do (the
 * inserted text of a Prepend or Metaspace shares the first character's
 * offset; a Replace's content that of its match's last character). */
size_t hf_normalize_aligned(const hf_pipeline *p, const char *s, size_t n, size_t z, hf_scratch *h, wbuf *out,
                            wbuf *tmp);
/* The bytes of s's first character (1 for a byte that is none; 0 when n is 0). */
size_t hf_first_char_len(const char *s, size_t n);

/* Reads a {"String": s} or {"Regex": r} pattern (node pat, at path); 0 or -1. */
int hf_pattern_load(const hj_node *pat, const char *path, char **literal, size_t *literal_len, pcre2_code **re,
                    pcre2_code **re_fast, wbuf *err);

/* hf_unicode.c: HF's classes from its crates' old Unicode tables. Rust's
 * is_ascii_punctuation, or general category P in Unicode 8.0 (Punctuation,
 * BertPreTokenizer). */
bool hf_is_punctuation(uint32_t cp);
/* Cc, Cf, Co or Cs in Unicode 8.0 (BertNormalizer's clean_text; \t \n \r are the caller's). */
bool hf_is_control(uint32_t cp);
/* Mn in Unicode 8.0 (BertNormalizer's accent stripping). */
bool hf_is_nonspacing_mark(uint32_t cp);
/* Mn, Mc or Me in Unicode 9.0 (StripAccents). */
bool hf_is_combining_mark(uint32_t cp);
/* Whether HF's normalization forms know cp (Unicode 11.0): a later
 * character stays as it is and composes with nothing. */
bool hf_normalization_knows(uint32_t cp);

/* Writes s[0..n) into out (replaced) as ByteLevel writes it: each byte as
 * its character of GPT-2's bytes_to_unicode alphabet, in UTF-8. */
void hf_byte_chars(const uint8_t *s, size_t n, wbuf *out);
/* The byte that ByteLevel writes as code point cp, or -1 for none. */
int hf_byte_of_char(uint32_t cp);
/* Appends to out the bytes that ByteLevel's characters s[0..n) stand for;
 * false (out part written) when one is not of its alphabet or not UTF-8. */
bool hf_bytes_of_chars(const char *s, size_t n, wbuf *out);

/* hf_pretok.c: loads the pre_tokenizer node; 0 or -1. */
int hf_pretok_load(hf_pipeline *p, const hj_node *node, const char *path, wbuf *err);

/* Marks the Split steps whose one-byte literal the normalizers leave
 * nowhere in the text (Gemma's Split on " " after Replace " " -> U+2581):
 * not inverted, such a step keeps each piece whole, so it is skipped. */
void hf_pretok_skip_unmatchable(hf_pipeline *p);

/* Appends a zeroed pre-tokenizer step of this kind (behavior Isolated) to p and returns it. */
hf_pretok_step *hf_pretok_add_step(hf_pipeline *p, hf_pretok_kind kind);

/* One span of a piece while it is split: [start, end), a match of the pattern or not. */
typedef struct {
    size_t start, end;
    bool match;
} hf_span;

/* A list of pieces: piece i is at off[i] in hf_piece_text() (len[i] bytes):
 * in base, the pre-tokenized text itself, when base is set (the steps only
 * split it), else in text; spans is working room for splitting. */
typedef struct {
    const char *base;
    wbuf text;
    size_t *off, *len;
    size_t *aligned; /* per piece: its first bytes that lie at the document's original offset 0 */
    size_t n, cap;
    hf_span *spans;
    size_t nspans, spans_cap;
} hf_pieces;

/* Frees what a piece list holds (not the list itself). */
void hf_pieces_free(hf_pieces *p);

/* Per-thread working memory (allocated on first use, freed with bpe_scratch). */
struct hf_scratch {
    const void *owner; /* the pipeline the cache holds results of */
    pcre2_jit_stack *jit;
    pcre2_match_context *mctx;
    pcre2_match_data *md;
    wbuf norm, norm_tmp, piece;
    hf_pieces pieces, pieces_tmp;
    wbuf byte_chars;        /* a piece written in the byte-level alphabet (splits and models after a ByteLevel) */
    wbuf affixed;           /* a BPE word's character with its prefix or suffix */
    hf_pieces byte_pieces;  /* the pieces of a split of byte_chars */
    hf_added_span *raw_spans, *norm_spans;
    size_t raw_cap, norm_cap;
    hf_symbol *sym;
    size_t sym_cap;
    hf_merge_item *heap;
    size_t heap_cap;
    size_t *cuts;       /* where the pieces of a cut word end */
    uint64_t *cut_hash; /* and their hf_word_hash */
    size_t cuts_cap;
    hf_cache_entry *cache;
    hf_mid_entry *mid;
    hf_char_entry *chars;
    void *lattice; /* Unigram: the best path ending at each byte */
    size_t lattice_cap;
    int regex_error; /* 0, or the first PCRE2 error (not "no match") hf_match met since hf_encode began */
};

/* Where the pieces of p lie (their offsets count from there). */
static inline const char *hf_piece_text(const hf_pieces *p) { return p->base ? p->base : p->text.data; }

/* Splits s[0..n) by p's pre-tokenizers into out (cleared first); z: how
 * many leading bytes of s lie at the document's original offset 0
 * (Metaspace's "first" scheme asks it of each piece). Stops early once
 * h->regex_error is set (hf_encode clears it): out is then not to be used. */
void hf_pretokenize(const hf_pipeline *p, const char *s, size_t n, size_t z, hf_scratch *h, hf_pieces *out,
                    hf_pieces *tmp);

/* hf_regex.c: compiles an onig-syntax pattern for PCRE2 with onig's meaning;
 * NULL with a message when the pattern uses what cannot be carried over.
 * With fast: *fast gets the same pattern without the characters onig knows
 * and PCRE2 does not (faster; for texts without them: hf_regex_for), or
 * NULL when it would be the same. */
pcre2_code *hf_regex_compile(const char *pattern, size_t len, pcre2_code **fast, wbuf *err);
/* Whether s[0..n) has a character onig's classes know and PCRE2's do not. */
bool hf_text_has_newer(const char *s, size_t n);
/* The regex to run on s[0..n): fast when there is one and s has no such character, else exact. */
const pcre2_code *hf_regex_for(const pcre2_code *exact, const pcre2_code *fast, const char *s, size_t n);
/* Appends PCRE2's message for error code (a match's) to out, "PCRE2: ..." */
void hf_regex_error_text(int code, wbuf *out);

/* hf_added.c: loads added_tokens (after the normalizer and the model:
 * normalized tokens are matched by their normalized content, ids are given
 * out as HF does) and registers each id's content in vocab; 0 or -1. */
int hf_added_load(hf_pipeline *p, const hj_node *node, tok_vocab *vocab, wbuf *err);
void hf_added_free(hf_pipeline *p);
/* Splits s[0..n) at the added tokens of set (HF's split_with_indices):
 * *spans (grown as needed) gets the spans in order; returns how many. */
size_t hf_added_split(const hf_pipeline *p, const hf_added_set *set, const char *s, size_t n, hf_added_span **spans,
                      size_t *cap);

/* hf_wordpiece.c: loads a WordPiece model into m and its tokens into vocab; 0 or -1. */
int hf_wordpiece_load(hf_bpe *m, const hj_node *model, tok_vocab *vocab, wbuf *err);
/* Appends the ids of one word (HF's WordPiece::tokenize). */
void hf_wordpiece_word(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, wbuf *tmp, tok_ids *out);

/* hf_wordlevel.c: loads a WordLevel model into m and its tokens into vocab; 0 or -1. */
int hf_wordlevel_load(hf_bpe *m, const hj_node *model, tok_vocab *vocab, wbuf *err);

/* hf_unigram.c: loads a Unigram model into m and its pieces into vocab; 0 or -1. */
int hf_unigram_load(hf_bpe *m, const hj_node *model, tok_vocab *vocab, wbuf *err);
/* Appends the ids of one word (HF's Unigram::tokenize, Viterbi). */
void hf_unigram_word(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, hf_scratch *h, tok_ids *out);

/* hf_decode.c: loads the decoder node (never fails: an unsupported decoder
 * only makes decoding refused). */
void hf_decoder_load(hf_pipeline *p, const hj_node *node);
void hf_decoder_free(hf_pipeline *p);
/* Puts (a copy of) s[0..len) as id's string (an id is put once). */
void hf_id_strings_put(hf_id_strings *t, uint32_t id, const char *s, size_t len);
/* Sorts t by id; call after the last put, before the first get. */
void hf_id_strings_finish(hf_id_strings *t);
/* id's string (*len its length), or NULL. */
const char *hf_id_strings_get(const hf_id_strings *t, uint32_t id, size_t *len);
void hf_id_strings_free(hf_id_strings *t);
/* True when hf_decode knows id: an added token's, the model's, or a vocab string the model cannot make. */
bool hf_decode_knows(const hf_pipeline *p, const tok_vocab *vocab, uint32_t id);
/* Appends the text of ids to out through the decoder; counts unknown ids. */
void hf_decode(const hf_pipeline *p, const tok_vocab *vocab, const uint32_t *ids, size_t n, wbuf *out,
               size_t *unknown);

/* hf_bpe.c: loads model (a BPE) into m and its tokens into vocab (bytes by
 * id: byte-level tokens decoded); 0 or -1. */
int hf_bpe_load(hf_bpe *m, const hj_node *model, bool byte_level, tok_vocab *vocab, wbuf *err);
void hf_bpe_free(hf_bpe *m);
/* The id of the vocab entry whose string is s[0..n) (HF's model.token_to_id), or VOCAB_NO_TOKEN. */
uint32_t hf_bpe_token_to_id(const hf_bpe *m, const tok_vocab *vocab, const char *s, size_t n);
/* Appends the ids of one pre-tokenized piece (HF's BPE::tokenize); hash is
 * hf_word_hash(m, s, n) (n >= 1). */
void hf_bpe_encode(const hf_bpe *m, const tok_vocab *vocab, const uint8_t *s, size_t n, uint64_t hash, hf_scratch *h,
                   tok_ids *out);

/* The hash hf_bpe_encode needs of word s[0..n): its vocab_hash, or 0 for a
 * word too long to be remembered that the model never looks up whole. */
static inline uint64_t hf_word_hash(const hf_bpe *m, const uint8_t *s, size_t n)
{
    return n <= HF_MID_BYTES || m->ignore_merges ? vocab_hash(s, n) : 0;
}

/* The same for a word s[0..n) inside a text that ends at end. */
static inline uint64_t hf_word_hash_in(const hf_bpe *m, const uint8_t *s, size_t n, const uint8_t *end)
{
    if (!(n <= HF_MID_BYTES || m->ignore_merges)) return 0;
    return (size_t)(end - s) >= n + VOCAB_HEAD_BYTES - 1 ? vocab_hash_wide(s, n) : vocab_hash(s, n);
}

/* Starts loading the remembered word a piece of n bytes with this hash would use. */
static inline __attribute__((always_inline)) void hf_bpe_prefetch(const hf_scratch *h, uint64_t hash, size_t n)
{
    if (!h->cache) return;
    if (n <= HF_CACHE_BYTES) {
        __builtin_prefetch(&h->cache[hash & (HF_CACHE_SLOTS - 1)]);
    } else if (n <= HF_MID_BYTES) {
        const hf_mid_entry *e = &h->mid[(hash >> 32) & (HF_MID_SLOTS - 1)];
        __builtin_prefetch(e);
        __builtin_prefetch((const char *)e + sizeof *e / 2);
    }
}

#endif
