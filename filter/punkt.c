/* punkt.c - NLTK punkt's sentence boundaries (English model), as FineWeb's
 * word splitting and C4's sentence count see them. Follows NLTK 3.8's
 * PunktSentenceTokenizer step by step: candidate contexts
 * (_match_potential_end_contexts), punkt's own word regex over each context,
 * the first and second annotation passes, and boundary realignment. Offsets
 * are bytes of UTF-8 text; characters are classed as Python classes them. */
#include "filter/punkt.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/util.h"
#include "filter/uchar.h"

/* The English model's parameters (NLTK's punkt_tab english: abbrev_types,
 * sent_starters, collocations). */
static const char *const abbrev_types[] = {
    ". . ", "a.a", "a.c", "a.d", "a.g", "a.h", "a.m", "a.m.e", "a.s", "a.t", "adm", "ala", "ariz",
    "aug", "ave", "b.f", "b.v", "bros", "c", "c.i.t", "c.o.m.b", "c.v", "calif", "chg", "cie",
    "co", "col", "colo", "conn", "corp", "cos", "ct", "d", "d.c", "d.h", "d.w", "dec", "dr", "e",
    "e.f", "e.h", "e.l", "e.m", "f", "f.g", "f.j", "feb", "fla", "fri", "ft", "g", "g.d", "g.f",
    "g.k", "ga", "gen", "h", "h.c", "h.f", "h.m", "i.m.s", "ill", "inc", "j.b", "j.c", "j.j",
    "j.k", "j.p", "j.r", "jan", "jr", "k", "kan", "ky", "l", "l.a", "l.f", "l.p", "lt", "ltd", "m",
    "m.b.a", "m.d.c", "m.j", "maj", "messrs", "mg", "mich", "minn", "mr", "mrs", "ms", "n", "n.c",
    "n.d", "n.h", "n.j", "n.m", "n.v", "n.y", "nev", "nov", "oct", "ok", "okla", "ore", "p",
    "p.a.m", "p.m", "pa", "ph.d", "prof", "r", "r.a", "r.h", "r.i", "r.j", "r.k", "r.t", "rep",
    "reps", "s", "s.a", "s.a.y", "s.c", "s.g", "s.p.a", "s.s", "sen", "sep", "sept", "sr", "st",
    "sw", "t", "t.j", "tenn", "tues", "u.k", "u.n", "u.s", "u.s.a", "u.s.s.r", "v", "va", "vs",
    "vt", "w", "w.c", "w.r", "w.va", "w.w", "wash", "wed", "wis", "yr",
};

static const char *const sent_starters[] = {
    "according", "although", "among", "both", "but", "despite", "even", "he", "however", "i", "if",
    "in", "indeed", "instead", "it", "many", "meanwhile", "moreover", "most", "nevertheless",
    "nonetheless", "nor", "sales", "separately", "similarly", "since", "so", "some", "the",
    "there", "these", "they", "this", "though", "thus", "under", "when", "while", "yet",
};

static const char *const collocations[][2] = {
    {"##number##", "abreast"}, {"##number##", "aes"}, {"##number##", "business"},
    {"##number##", "cbot"}, {"##number##", "colgate"}, {"##number##", "commodities"},
    {"##number##", "cooper"}, {"##number##", "corrections"}, {"##number##", "credit"},
    {"##number##", "dividend"}, {"##number##", "financing"}, {"##number##", "genentech"},
    {"##number##", "henley"}, {"##number##", "insider"}, {"##number##", "international"},
    {"##number##", "leisure"}, {"##number##", "letters"}, {"##number##", "notable"},
    {"##number##", "pay-fone"}, {"##number##", "pegasus"}, {"##number##", "pepper"},
    {"##number##", "review"}, {"##number##", "rj"}, {"##number##", "wedgestone"},
    {"##number##", "who"}, {"##number##", "zimmer"}, {"b", "edelman"}, {"b", "levine"},
    {"b", "smith"}, {"b", "stewart"}, {"b", "wigton"}, {"i", "magnin"}, {"i", "toussie"},
    {"j", "aron"}, {"j", "fialka"}, {"j", "walter"}, {"o", "ludcke"},
};

#define NUMBER_TYPE "##number##"
#define TYPE_MAX 40 /* longer (lower-cased) tokens are in no table */

/* A byte string that is not NUL-terminated. */
typedef struct {
    const char *p;
    size_t n;
} span;

/* Whether key's bytes are exactly the NUL-terminated entry (read no
 * further than its first difference: no strlen on the hot path). */
static bool span_equals(span key, const char *entry)
{
    size_t i = 0;
    for (; i < key.n; i++)
        if (!entry[i] || entry[i] != key.p[i]) return false;
    return !entry[i];
}

/* A set of the model's words for lookups: open addressing, built once. */
#define SET_SLOTS 512 /* more than twice the longest list */
typedef struct {
    const char *const *words;
    size_t n;
    size_t max_len;           /* bytes of the longest word */
    uint16_t slot[SET_SLOTS]; /* index + 1 of the word there, 0: empty */
} word_set;

static word_set abbreviations = {abbrev_types, sizeof abbrev_types / sizeof *abbrev_types, 0, {0}};
static word_set starters = {sent_starters, sizeof sent_starters / sizeof *sent_starters, 0, {0}};

static size_t slot_of(const char *p, size_t n)
{
    uint64_t h = 0xCBF29CE484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001B3ULL;
    return (size_t)(h >> 40) & (SET_SLOTS - 1);
}

static void fill_set(word_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        size_t len = strlen(set->words[i]);
        if (len > set->max_len) set->max_len = len;
        size_t k = slot_of(set->words[i], len);
        while (set->slot[k]) k = (k + 1) & (SET_SLOTS - 1);
        set->slot[k] = (uint16_t)(i + 1);
    }
}

static void fill_sets(void)
{
    fill_set(&abbreviations);
    fill_set(&starters);
}

static bool set_has(const word_set *set, span key)
{
    if (key.n > set->max_len) return false;
    for (size_t k = slot_of(key.p, key.n); set->slot[k]; k = (k + 1) & (SET_SLOTS - 1))
        if (span_equals(key, set->words[set->slot[k] - 1])) return true;
    return false;
}

static bool fits(span ty) { return ty.n <= TYPE_MAX; }

static bool is_collocation(span first, span second)
{
    if (first.n != 1 && first.n != sizeof NUMBER_TYPE - 1) return false; /* every first word is one of those */
    for (size_t i = 0; i < sizeof collocations / sizeof collocations[0]; i++)
        if (span_equals(first, collocations[i][0]) && span_equals(second, collocations[i][1]))
            return true;
    return false;
}

/* A token of punkt's word regex with the annotations punkt gives it. */
typedef struct {
    const char *tok; /* its bytes in the text */
    size_t len;
    char lower[TYPE_MAX + 4]; /* tok.lower(), when it fits */
    size_t lower_len;         /* > TYPE_MAX: did not fit */
    bool number;              /* the type is ##number## */
    bool period_final, first_upper, first_lower, initial, ellipsis;
    bool sentbreak, abbr;
} ptoken;

/* Python's str.isupper() / str.islower() of one character: the categories
 * Lu / Ll and the Other_Uppercase / Other_Lowercase letters. */
static bool py_isupper(uint32_t cp)
{
    if (cp < 128) return cp >= 'A' && cp <= 'Z';
    if ((cp >= 0x2160 && cp <= 0x216F) || (cp >= 0x24B6 && cp <= 0x24CF) || (cp >= 0x1F130 && cp <= 0x1F189 &&
                                                                             !(cp >= 0x1F14A && cp <= 0x1F14F) &&
                                                                             !(cp >= 0x1F16A && cp <= 0x1F16F)))
        return true;
    return utf8proc_category((utf8proc_int32_t)cp) == UTF8PROC_CATEGORY_LU;
}

static bool py_islower(uint32_t cp)
{
    if (cp < 128) return cp >= 'a' && cp <= 'z';
    if (cp == 0xAA || cp == 0xBA || (cp >= 0x2B0 && cp <= 0x2B8) || cp == 0x2C0 || cp == 0x2C1 ||
        (cp >= 0x2E0 && cp <= 0x2E4) || cp == 0x345 || cp == 0x37A || (cp >= 0x1D2C && cp <= 0x1D6A) ||
        cp == 0x1D78 || (cp >= 0x1D9B && cp <= 0x1DBF) || cp == 0x2071 || cp == 0x207F ||
        (cp >= 0x2090 && cp <= 0x209C) || (cp >= 0x2170 && cp <= 0x217F) || (cp >= 0x24D0 && cp <= 0x24E9) ||
        cp == 0x2C7C || cp == 0x2C7D || cp == 0xA69C || cp == 0xA69D || cp == 0xA770 || cp == 0xA7F8 ||
        cp == 0xA7F9 || (cp >= 0xAB5C && cp <= 0xAB5F))
        return true;
    return utf8proc_category((utf8proc_int32_t)cp) == UTF8PROC_CATEGORY_LL;
}

static bool py_isdecimal(uint32_t cp)
{
    if (cp < 128) return cp >= '0' && cp <= '9';
    return utf8proc_category((utf8proc_int32_t)cp) == UTF8PROC_CATEGORY_ND;
}

/* punkt's _RE_NUMERIC, ^-?[\.,]?\d[\d,\.-]*\.?$, on s[0, n). */
static bool is_numeric(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-') i++;
    if (i < n && (s[i] == '.' || s[i] == ',')) i++;
    if (i >= n || !py_isdecimal(uc_next(s, n, &i))) return false;
    while (i < n) {
        uint32_t cp = uc_next(s, n, &i);
        if (!(cp == ',' || cp == '.' || cp == '-' || py_isdecimal(cp))) return false;
    }
    return true;
}

/* Writes s[0, n).lower() (Python's full lower-case mapping) to out, which
 * holds TYPE_MAX + 4 bytes; returns its length, more than TYPE_MAX when it
 * did not fit (then no table holds it). */
static size_t lower_into(char *out, const char *s, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n && len <= TYPE_MAX;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            out[len++] = (char)(c >= 'A' && c <= 'Z' ? c | 0x20 : c);
            i++;
            continue;
        }
        uint32_t cp = uc_next(s, n, &i);
        if (cp == 0x130) { /* the one mapping to two characters: i + U+0307 */
            memcpy(out + len, "i\xCC\x87", 3);
            len += 3;
            continue;
        }
        uint8_t utf8[4];
        utf8proc_ssize_t k = utf8proc_encode_char(utf8proc_tolower((utf8proc_int32_t)cp), utf8);
        memcpy(out + len, utf8, (size_t)k);
        len += (size_t)k;
    }
    return len;
}

/* True when tok[:-1].lower(), or its part after the last '-', is one of
 * the model's abbreviations (tok is s[0, n), n >= 1). */
static bool is_abbreviation(const char *s, size_t n)
{
    char lower[TYPE_MAX + 4];
    size_t body = n - 1, dash = body;
    while (dash > 0 && s[dash - 1] != '-') dash--;
    span whole = {lower, lower_into(lower, s, body)};
    if (fits(whole) && set_has(&abbreviations, whole)) return true;
    if (dash == 0) return false;
    span last = {lower, lower_into(lower, s + dash, body - dash)};
    return fits(last) && set_has(&abbreviations, last);
}

/* Fills t's properties and first-pass annotation (_first_pass_annotation)
 * for the token s[0, n). */
static void make_token(ptoken *t, const char *s, size_t n)
{
    memset(t, 0, sizeof *t);
    t->tok = s;
    t->len = n;
    t->lower_len = lower_into(t->lower, s, n);
    size_t i = 0;
    uint32_t first = uc_next(s, n, &i);
    t->first_upper = py_isupper(first);
    t->first_lower = py_islower(first);
    t->period_final = s[n - 1] == '.';
    /* _RE_INITIAL: [^\W\d]\.$ */
    t->initial = i + 1 == n && s[i] == '.' && uc_is_word(first) && !py_isdecimal(first);
    t->number = is_numeric(s, n);
    bool all_dots = n >= 2;
    for (size_t k = 0; k < n && all_dots; k++) all_dots = s[k] == '.';

    if (n == 1 && (s[0] == '.' || s[0] == '?' || s[0] == '!'))
        t->sentbreak = true;
    else if (all_dots)
        t->ellipsis = true;
    else if (t->period_final && !(n >= 2 && s[n - 2] == '.')) {
        if (is_abbreviation(s, n))
            t->abbr = true;
        else
            t->sentbreak = true;
    }
}

/* The token's type: tok.lower(), or ##number## for a number. */
static span type_of(const ptoken *t)
{
    if (t->number) return (span){NUMBER_TYPE, sizeof NUMBER_TYPE - 1};
    return (span){t->lower, t->lower_len};
}

/* type_no_period: the type without its final period (when it is longer). */
static span type_no_period(const ptoken *t)
{
    span ty = type_of(t);
    if (ty.n > 1 && ty.p[ty.n - 1] == '.') ty.n--;
    return ty;
}

enum ortho { ORTHO_FALSE, ORTHO_UNKNOWN };

/* _ortho_heuristic for the token after a period, with the orthographic
 * table empty (punkt.h): a punctuation mark or a word starting in lower
 * case does not start a sentence; of any other token it is unknown (its
 * "capitalised, seen in lower case, never capitalised inside a sentence"
 * test needs the table). */
static enum ortho ortho_heuristic(const ptoken *t)
{
    if (t->len == 1 && t->tok[0] && strchr(";:,.!?", t->tok[0])) return ORTHO_FALSE;
    return t->first_lower ? ORTHO_FALSE : ORTHO_UNKNOWN;
}

/* _second_pass_annotation of t1 followed by t2. */
static void second_pass(ptoken *t1, const ptoken *t2)
{
    if (!t1->period_final) return;
    span typ = type_no_period(t1);
    span next_typ = t2->sentbreak ? type_no_period(t2) : type_of(t2);
    if (fits(typ) && fits(next_typ) && is_collocation(typ, next_typ)) {
        t1->sentbreak = false;
        t1->abbr = true;
        return;
    }
    if ((t1->abbr || t1->ellipsis) && !t1->initial) {
        /* the heuristic never answers "a sentence starts" without the table */
        if (t2->first_upper && fits(next_typ) && set_has(&starters, next_typ)) {
            t1->sentbreak = true;
            return;
        }
    }
    if (t1->initial || span_equals(typ, NUMBER_TYPE)) {
        enum ortho o = ortho_heuristic(t2);
        /* for an initial, unknown before a capitalised word never seen in
         * lower case (none are, without the table) is no break either */
        if (o == ORTHO_FALSE || (t1->initial && t2->first_upper)) {
            t1->sentbreak = false;
            t1->abbr = true;
        }
    }
}

/* punkt's word regex pieces: _re_non_word_chars, and the characters
 * _re_word_start excludes. */
static inline bool is_nonword(uint32_t cp)
{
    switch (cp) {
    case ')': case '"': case ';': case '}': case ']': case '*': case ':': case '@': case '\'':
    case '(': case '{': case '[': case '!': case '?':
        return true;
    default:
        return false;
    }
}

static bool excluded_from_word_start(uint32_t cp)
{
    switch (cp) {
    case '(': case '"': case '`': case '{': case '[': case ':': case ';': case '&': case '#':
    case '*': case '@': case ')': case '}': case ']': case '-': case ',':
        return true;
    default:
        return false;
    }
}

/* Length of _re_multi_char_punct, (?:\-{2,}|\.{2,}|(?:\.\s){2,}\.), at s[i]
 * (the line ends at b), or 0. */
static size_t multi_char_len(const char *s, size_t i, size_t b)
{
    if (i + 1 >= b) return 0;
    if ((s[i] == '-' || s[i] == '.') && s[i + 1] == s[i]) {
        size_t k = i + 2;
        while (k < b && s[k] == s[i]) k++;
        return k - i;
    }
    /* ". . ." : two or more "." + one whitespace character, then "." */
    size_t k = i, reps = 0, before_last = i;
    while (k < b && s[k] == '.') {
        size_t t = k + 1;
        if (t >= b || !uc_is_space(uc_next(s, b, &t))) break;
        before_last = k;
        k = t;
        reps++;
    }
    if (reps >= 2 && k < b && s[k] == '.') return k + 1 - i;
    if (reps >= 3) return before_last + 1 - i; /* the last repetition's '.' ends it */
    return 0;
}

/* An ASCII character before which no word token ends (not whitespace, not
 * a non-word mark, not one that may start "--", ".." or ", "). */
static inline bool never_ends_word(unsigned char c)
{
    return c > ' ' && c < 0x7F && !is_nonword(c) && c != '-' && c != '.' && c != ',';
}

/* True when punkt's word token ends before s[j] (the line is s[.., b)). */
static bool word_ends_at(const char *s, size_t j, size_t b)
{
    if (j >= b) return true;
    size_t t = j;
    uint32_t cp = uc_next(s, b, &t);
    if (uc_is_space(cp) || is_nonword(cp) || multi_char_len(s, j, b)) return true;
    if (cp != ',') return false;
    if (t >= b) return true;
    size_t u = t;
    uint32_t next = uc_next(s, b, &u);
    return uc_is_space(next) || is_nonword(next) || multi_char_len(s, t, b);
}

/* Reads punkt's tokens of s[a, b) (_tokenize_words: per '\n' line) one at
 * a time. */
typedef struct {
    const char *s;
    size_t i, b;
    size_t line_end; /* where the line of s[i] ends (its '\n' or b), once known */
} token_reader;

static bool next_token(token_reader *r, ptoken *t)
{
    const char *s = r->s;
    while (r->i < r->b) {
        size_t i = r->i, t8 = i;
        uint32_t cp = uc_next(s, r->b, &t8);
        if (uc_is_space(cp)) { /* lines are split on '\n' and blank ones skipped: whitespace either way */
            r->i = t8;
            continue;
        }
        if (i >= r->line_end) { /* found once per line: a context can be one long line */
            const char *nl = memchr(s + i, '\n', r->b - i);
            r->line_end = nl ? (size_t)(nl - s) : r->b;
        }
        size_t line_end = r->line_end;
        size_t len = multi_char_len(s, i, line_end);
        if (!len) {
            size_t j = t8;
            if (!excluded_from_word_start(cp))
                for (;;) {
                    while (j < line_end && never_ends_word((unsigned char)s[j])) j++;
                    if (word_ends_at(s, j, line_end)) break;
                    uc_next(s, line_end, &j);
                }
            len = j - i;
        }
        make_token(t, s + i, len);
        r->i = i + len;
        return true;
    }
    return false;
}

/* Python's string.whitespace, which _get_last_whitespace_index looks for. */
static bool is_ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* text_contains_sentbreak: some token but the last of s[a, b) is a break. */
static bool contains_sentbreak(const char *s, size_t a, size_t b)
{
    token_reader r = {s, a, b, 0};
    ptoken pair[2];
    if (!next_token(&r, &pair[0])) return false;
    for (int cur = 1;; cur ^= 1) {
        if (!next_token(&r, &pair[cur])) return false;
        second_pass(&pair[cur ^ 1], &pair[cur]);
        if (pair[cur ^ 1].sentbreak) return true;
    }
}


/* A sentence, as span_tokenize yields it, handed to a consumer. */
typedef void (*sentence_fn)(const char *s, size_t start, size_t stop, void *arg);

/* Realigns raw sentence slices (_realign_boundaries) as they come. */
typedef struct {
    const char *s;
    sentence_fn emit;
    void *arg;
    bool pending;
    size_t start, stop; /* the slice waiting for its successor */
    size_t realign;
} realigner;

/* re_boundary_realignment, ["')\]}]+?(?:\s+|(?=--)|$) (MULTILINE), at the
 * start of s[a, b): sets *closers to the closing marks it takes and
 * returns the match's length, or returns 0 for no match. */
static size_t realignment(const char *s, size_t a, size_t b, size_t *closers)
{
    for (size_t k = a; k < b && strchr("\"')]}", s[k]) && s[k];) {
        k++;
        size_t t = k;
        if (k < b && uc_is_space(uc_next(s, b, &t))) {
            while (t < b) {
                size_t u = t;
                if (!uc_is_space(uc_next(s, b, &u))) break;
                t = u;
            }
            *closers = k - a;
            return t - a;
        }
        if (k == b || s[k] == '\n' || (k + 1 < b && s[k] == '-' && s[k + 1] == '-')) {
            *closers = k - a;
            return k - a;
        }
    }
    return 0;
}

static void realign_push(realigner *r, size_t start, size_t stop)
{
    if (r->pending) {
        size_t s1 = r->start + r->realign, closers = 0;
        size_t m = realignment(r->s, start, stop, &closers);
        if (m) {
            r->emit(r->s, s1, start + closers, r->arg);
            r->realign = m;
        } else {
            r->realign = 0;
            if (s1 < r->stop) r->emit(r->s, s1, r->stop, r->arg);
        }
    }
    r->pending = true;
    r->start = start;
    r->stop = stop;
}

static void realign_finish(realigner *r)
{
    size_t s1 = r->start + r->realign;
    if (r->pending && s1 < r->stop) r->emit(r->s, s1, r->stop, r->arg);
}

/* A candidate sentence end: the terminator at `at`, what its context
 * reaches to, where the next sentence would start. */
typedef struct {
    size_t at, context_end, next_start;
} candidate;

/* Finds period_context_re's match at the terminator s[p] (text ends at b). */
static bool candidate_at(const char *s, size_t p, size_t b, candidate *m)
{
    size_t q = p + 1;
    m->at = p;
    if (q < b && is_nonword((unsigned char)s[q])) { /* after_tok: the mark; the next sentence starts at it */
        m->context_end = q + 1;
        m->next_start = q;
        return true;
    }
    size_t t = q;
    while (t < b) { /* \s+ then \S+ */
        size_t u = t;
        if (!uc_is_space(uc_next(s, b, &u))) break;
        t = u;
    }
    if (t == q || t >= b) return false;
    m->next_start = t;
    while (t < b) {
        size_t u = t;
        if (uc_is_space(uc_next(s, b, &u))) break;
        t = u;
    }
    m->context_end = t;
    return true;
}

/* True when the period at s[at] follows a token of two or more ASCII letters
 * and digits, one a letter, that is no abbreviation, starting at s[word] or
 * after whitespace: punkt's first pass makes it a break, and the second
 * pass keeps every such break (it is no initial, number or collocation). */
static bool after_plain_word(const char *s, size_t word, size_t at, size_t b)
{
    size_t k = at;
    bool letter = false;
    while (k > word && isalnum((unsigned char)s[k - 1])) letter |= isalpha((unsigned char)s[--k]);
    if (at - k < 2 || !letter || (k > word && !is_ascii_space(s[k - 1]))) return false;
    if (at + 2 < b && s[at + 2] == '.') return false; /* may be ". . ." */
    if (at - k > abbreviations.max_len) return true; /* ASCII: as long lower-cased */
    return !is_abbreviation(s + k, at + 1 - k);
}

/* text_contains_sentbreak for a candidate's context s[word, m->context_end)
 * (the text ends at b): the common cases answered without its tokens. */
static bool context_breaks(const char *s, size_t word, const candidate *m, size_t b)
{
    if (s[m->at] != '.') return true; /* a '?' or '!' token breaks, and a token follows it */
    if (after_plain_word(s, word, m->at, b)) return true;
    return contains_sentbreak(s, word, m->context_end);
}

/* First position in s[p, b) of '.', '?' or '!', or b. */
static inline size_t next_terminator(const char *s, size_t p, size_t b)
{
#ifdef __SSE2__
    const __m128i dot = _mm_set1_epi8('.'), question = _mm_set1_epi8('?'), bang = _mm_set1_epi8('!');
    for (; p + 16 <= b; p += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + p));
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, dot), _mm_or_si128(_mm_cmpeq_epi8(v, question), _mm_cmpeq_epi8(v, bang)));
        unsigned bits = (unsigned)_mm_movemask_epi8(hit);
        if (bits) return p + (size_t)__builtin_ctz(bits);
    }
#endif
    while (p < b && s[p] != '.' && s[p] != '?' && s[p] != '!') p++;
    return p;
}

/* span_tokenize(s[a, b)): every sentence, realigned, to emit. */
static void each_sentence(const char *s, size_t a, size_t b, sentence_fn emit, void *arg)
{
    realigner r = {.s = s, .emit = emit, .arg = arg};
    size_t last_break = a;
    bool have = false;
    candidate prev = {0};
    size_t prev_word = a, prev_stop = a; /* previous_slice */
    for (size_t p = next_terminator(s, a, b); p < b; p = next_terminator(s, p + 1, b)) {
        candidate m;
        if (!candidate_at(s, p, b, &m)) continue;
        /* the word before: from after the last whitespace since the previous
         * slice's end (punkt reads "none" for one at offset 0 as well) */
        size_t word = prev_word;
        for (size_t k = p; k > prev_stop + 1; k--)
            if (is_ascii_space(s[k - 1])) {
                word = k;
                break;
            }
        if (have && prev_stop <= word && context_breaks(s, prev_word, &prev, b)) {
            realign_push(&r, last_break, prev.at + 1);
            last_break = prev.next_start;
        }
        have = true;
        prev = m;
        prev_word = word;
        prev_stop = p;
    }
    if (have && context_breaks(s, prev_word, &prev, b)) {
        realign_push(&r, last_break, prev.at + 1);
        last_break = prev.next_start;
    }
    size_t end = a, k = b; /* len(text.rstrip()) */
    while (k > a) {
        size_t start = uc_prev_start(s, k);
        size_t t = start;
        if (!uc_is_space(uc_next(s, b, &t))) {
            end = k;
            break;
        }
        k = start;
    }
    realign_push(&r, last_break, end > last_break ? end : last_break);
    realign_finish(&r);
}

void punkt_offsets_free(punkt_offsets *o)
{
    free(o->at);
    memset(o, 0, sizeof *o);
}

static void push_offset(punkt_offsets *o, size_t at)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 64;
        o->at = xrealloc(o->at, o->cap * sizeof *o->at);
    }
    o->at[o->n++] = at;
}

typedef struct {
    punkt_offsets *periods, *starts;
} sentence_marks;

/* Notes the sentence's start, and its period that the Treebank rule
 * ([^\.])(\.)([\]\)}>"'»”’ ]*)\s*$ splits off. */
static void add_marks(const char *s, size_t start, size_t stop, void *arg)
{
    sentence_marks *m = arg;
    push_offset(m->starts, start);
    size_t k = stop;
    while (k > start) { /* \s* */
        size_t prev = uc_prev_start(s, k), t = prev;
        if (!uc_is_space(uc_next(s, stop, &t))) break;
        k = prev;
    }
    while (k > start) { /* the closing marks and spaces */
        size_t prev = uc_prev_start(s, k), t = prev;
        uint32_t cp = uc_next(s, stop, &t);
        if (!((cp < 128 && cp && strchr("])}>\"' ", (int)cp)) || cp == 0xBB || cp == 0x201D || cp == 0x2019)) break;
        k = prev;
    }
    if (k - start < 2 || s[k - 1] != '.' || s[k - 2] == '.') return;
    /* the rules before it have made a '"' or "''" after a space an opening
     * `` (STARTING_QUOTES), which the closing marks do not take */
    for (size_t j = k; j + 1 < stop; j++)
        if (s[j] == ' ' && (s[j + 1] == '"' || (s[j + 1] == '\'' && j + 2 < stop && s[j + 2] == '\''))) return;
    push_offset(m->periods, k - 1);
}

/* Builds the word sets once, whichever thread gets here first. */
static void init_sets(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_sets);
}

void punkt_sentences(const char *s, size_t n, punkt_offsets *periods, punkt_offsets *starts)
{
    init_sets();
    periods->n = starts->n = 0;
    sentence_marks m = {periods, starts};
    each_sentence(s, 0, n, add_marks, &m);
}

static void count_nonblank(const char *s, size_t start, size_t stop, void *arg)
{
    while (start < stop) {
        size_t t = start;
        if (!uc_is_space(uc_next(s, stop, &t))) {
            ++*(size_t *)arg;
            return;
        }
        start = t;
    }
}

size_t punkt_count_sentences(const char *s, size_t a, size_t b)
{
    init_sets();
    size_t n = 0;
    each_sentence(s, a, b, count_nonblank, &n);
    return n;
}
