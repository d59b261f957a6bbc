/* tokenize_gen_unicode.c - writes tokenize/unicode_tables.c, the character
 * classes the pre-tokenisers need: tiktoken's from ICU, Hugging Face
 * tokenizers' from what its engines were measured to match.
 *
 *   cc scripts/tokenize_gen_unicode.c $(pkg-config --cflags --libs icu-uc libpcre2-8) -o gen
 *   ./gen scripts/hf_unicode_classes.txt > tokenize/unicode_tables.c
 *
 * One byte of class bits per code point (see tokenize/unicode_class.h),
 * stored as a two-stage table: stage1 maps each block of UCLASS_BLOCK code
 * points to one of the distinct blocks in stage2. Two tables, one stage2:
 *
 * - uclass_tiktoken, from ICU: tiktoken's regex crate (0.14.0) has Unicode
 *   15's classes, as ICU 72 here. \s follows Unicode's White_Space property,
 *   which is what Rust's regex crate uses: U+0085 and form feed are
 *   whitespace, U+FEFF is not.
 * - uclass_onig, from scripts/hf_unicode_classes.txt: the code points that
 *   tokenizers 0.23.2's Oniguruma (Unicode 16) puts in each class, measured
 *   by scripts/hf_unicode_classes_device.py through tokenizers itself. It has
 *   Unicode 15.1's and 16.0's characters (CJK Extension I, Garay, Todhri...),
 *   which ICU 72 leaves unassigned; checked here to hold every character ICU
 *   puts in the class.
 *
 * Both have UCLASS_NUMERIC, Rust's char::is_numeric in tokenizers 0.23.2
 * (Unicode 17: HF's Digits), from the same file.
 *
 * Also written: for each Unicode property a tokenizer.json pattern may name,
 * the code points Oniguruma has in it and the PCRE2 linked here (which runs
 * the patterns the scanners do not know) lacks, as text to add inside a
 * PCRE2 class (tokenize/hf_regex.c adds it). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/uversion.h>

#include "../tokenize/unicode_class.h"

#define NCODEPOINTS 0x110000
#define NBLOCKS (NCODEPOINTS / UCLASS_BLOCK)
#define MAX_LINE (1 << 20)

/* The measured classes: a name in scripts/hf_unicode_classes.txt, and its set. */
typedef struct {
    const char *name;
    bool *in;
} measured;

static measured classes[] = {
    {"onig \\p{L}"},  {"onig \\p{N}"},  {"onig \\p{P}"},  {"onig \\p{S}"},  {"onig \\p{M}"},
    {"onig \\p{Lu}"}, {"onig \\p{Ll}"}, {"onig \\p{Lt}"}, {"onig \\p{Lm}"}, {"onig \\p{Lo}"},
    {"onig \\p{Nd}"}, {"onig \\s"},     {"onig \\p{Alphabetic}"}, {"rust is_numeric"},
};
#define NCLASSES (sizeof classes / sizeof classes[0])

/* The properties hf_regex.c extends, by their names in a pattern. */
static const char *const properties[] = {"L", "N", "P", "S", "M", "Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Alphabetic"};
#define NPROPERTIES (sizeof properties / sizeof properties[0])

/* The set of the class named name; NULL for a class not used here. */
static bool *find_set(const char *name)
{
    for (size_t i = 0; i < NCLASSES; i++)
        if (!strcmp(classes[i].name, name)) return classes[i].in;
    return NULL;
}

static bool *set_of(const char *name)
{
    bool *in = find_set(name);
    if (!in) {
        fprintf(stderr, "no class %s\n", name);
        exit(1);
    }
    return in;
}

/* Reads "NAME<TAB>A-B C ..." lines (hex code points) into the classes. */
static void read_measured(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(1);
    }
    char *line = malloc(MAX_LINE);
    for (size_t i = 0; i < NCLASSES; i++) classes[i].in = calloc(NCODEPOINTS, 1);
    int found = 0;
    while (fgets(line, MAX_LINE, f)) {
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab) continue;
        *tab = 0;
        bool *in = find_set(line);
        if (!in) continue;
        found++;
        for (char *tok = strtok(tab + 1, " \n"); tok; tok = strtok(NULL, " \n")) {
            unsigned a, b;
            if (sscanf(tok, "%X-%X", &a, &b) != 2) b = a = (unsigned)strtoul(tok, NULL, 16);
            for (unsigned c = a; c <= b && c < NCODEPOINTS; c++) in[c] = true;
        }
    }
    fclose(f);
    free(line);
    if (found != (int)NCLASSES) {
        fprintf(stderr, "%s: %d of %zu classes\n", path, found, NCLASSES);
        exit(1);
    }
}

static uint8_t icu_class(UChar32 c)
{
    uint8_t k = 0;
    switch (u_charType(c)) {
    case U_UPPERCASE_LETTER: case U_TITLECASE_LETTER:
        k = UCLASS_L | UCLASS_UPPERISH; break;
    case U_LOWERCASE_LETTER:
        k = UCLASS_L | UCLASS_LOWERISH; break;
    case U_MODIFIER_LETTER: case U_OTHER_LETTER:
        k = UCLASS_L | UCLASS_UPPERISH | UCLASS_LOWERISH; break;
    case U_NON_SPACING_MARK: case U_ENCLOSING_MARK: case U_COMBINING_SPACING_MARK:
        k = UCLASS_UPPERISH | UCLASS_LOWERISH; break;
    case U_DECIMAL_DIGIT_NUMBER: case U_LETTER_NUMBER: case U_OTHER_NUMBER:
        k = UCLASS_N; break;
    case U_CONNECTOR_PUNCTUATION: case U_DASH_PUNCTUATION: case U_START_PUNCTUATION: case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION: case U_FINAL_PUNCTUATION: case U_OTHER_PUNCTUATION:
        k = UCLASS_P; break;
    case U_MATH_SYMBOL: case U_CURRENCY_SYMBOL: case U_MODIFIER_SYMBOL: case U_OTHER_SYMBOL:
        k = UCLASS_S; break;
    default: break;
    }
    if (u_hasBinaryProperty(c, UCHAR_WHITE_SPACE)) k |= UCLASS_WS;
    return k;
}

static uint8_t onig_class(UChar32 c)
{
    uint8_t k = 0;
    if (set_of("onig \\p{L}")[c]) k |= UCLASS_L;
    if (set_of("onig \\p{N}")[c]) k |= UCLASS_N;
    if (set_of("onig \\s")[c]) k |= UCLASS_WS;
    bool mark = set_of("onig \\p{M}")[c], both = set_of("onig \\p{Lm}")[c] || set_of("onig \\p{Lo}")[c] || mark;
    if (set_of("onig \\p{Lu}")[c] || set_of("onig \\p{Lt}")[c] || both) k |= UCLASS_UPPERISH;
    if (set_of("onig \\p{Ll}")[c] || both) k |= UCLASS_LOWERISH;
    if (set_of("onig \\p{P}")[c]) k |= UCLASS_P;
    if (set_of("onig \\p{S}")[c]) k |= UCLASS_S;
    return k;
}

static uint8_t numeric_bit(UChar32 c) { return set_of("rust is_numeric")[c] ? UCLASS_NUMERIC : 0; }

/* The distinct blocks of both tables: they share one stage2. */
static uint8_t blocks[2 * NBLOCKS][UCLASS_BLOCK];
static int nblocks;

/* Fills stage1 with the block of each UCLASS_BLOCK code points of
 * class(c), adding the blocks not yet seen; returns the blocks it uses. */
static int build_stage1(uint16_t *stage1, uint8_t (*class)(UChar32))
{
    static uint8_t cur[UCLASS_BLOCK];
    int used = 0;
    for (int b = 0; b < NBLOCKS; b++) {
        for (int i = 0; i < UCLASS_BLOCK; i++) cur[i] = class(b * UCLASS_BLOCK + i) | numeric_bit(b * UCLASS_BLOCK + i);
        int found = -1;
        for (int j = 0; j < nblocks && found < 0; j++)
            if (!memcmp(blocks[j], cur, UCLASS_BLOCK)) found = j;
        if (found < 0) {
            memcpy(blocks[nblocks], cur, UCLASS_BLOCK);
            found = nblocks++;
        }
        stage1[b] = (uint16_t)found;
        if (found >= used) used = found + 1;
    }
    return used;
}

static void print_stage1(const char *name, const uint16_t *stage1)
{
    printf("static const uint16_t %s_stage1[%d] = {", name, NBLOCKS);
    for (int b = 0; b < NBLOCKS; b++) printf("%s%d,", b % 24 ? "" : "\n", stage1[b]);
    printf("\n};\n\n");
}

/* Prints both tables: tiktoken's from ICU, onig's from the measured classes. */
static void print_tables(const char *icu_unicode)
{
    static uint16_t tiktoken[NBLOCKS], onig[NBLOCKS];
    int tiktoken_blocks = build_stage1(tiktoken, icu_class), onig_blocks = build_stage1(onig, onig_class);
    print_stage1("uclass_tiktoken", tiktoken);
    print_stage1("uclass_onig", onig);
    printf("static const uint8_t uclass_stage2[%d][%d] = {\n", nblocks, UCLASS_BLOCK);
    for (int j = 0; j < nblocks; j++) {
        printf("{");
        for (int i = 0; i < UCLASS_BLOCK; i++) printf("%s%d,", i % 40 ? "" : "\n", blocks[j][i]);
        printf("},\n");
    }
    printf("};\n\n");
    printf("const uclass_table uclass_tiktoken = {\"%s\", uclass_tiktoken_stage1, uclass_stage2, %d};\n", icu_unicode,
           tiktoken_blocks);
    printf("const uclass_table uclass_onig = {\"16.0\", uclass_onig_stage1, uclass_stage2, %d};\n\n", onig_blocks);
    fprintf(stderr, "%d distinct blocks: tiktoken's use %d, onig's %d\n", nblocks, tiktoken_blocks, onig_blocks);
}

/* Whether PCRE2 (UTF, UCP) matches code point c with re. */
static bool pcre2_has(const pcre2_code *re, pcre2_match_data *md, UChar32 c)
{
    uint8_t s[4];
    size_t n = 0;
    if (c < 0x80) s[n++] = (uint8_t)c;
    else if (c < 0x800) s[n++] = (uint8_t)(0xC0 | c >> 6), s[n++] = (uint8_t)(0x80 | (c & 0x3F));
    else if (c < 0x10000)
        s[n++] = (uint8_t)(0xE0 | c >> 12), s[n++] = (uint8_t)(0x80 | (c >> 6 & 0x3F)), s[n++] = (uint8_t)(0x80 | (c & 0x3F));
    else
        s[n++] = (uint8_t)(0xF0 | c >> 18), s[n++] = (uint8_t)(0x80 | (c >> 12 & 0x3F)),
        s[n++] = (uint8_t)(0x80 | (c >> 6 & 0x3F)), s[n++] = (uint8_t)(0x80 | (c & 0x3F));
    return pcre2_match(re, s, n, 0, 0, md, NULL) > 0;
}

/* Prints, for each property, the ranges Oniguruma has and PCRE2 lacks, then
 * their union as sorted ranges (the characters that make a text need them). */
static void print_pcre2_additions(void)
{
    static bool newer[NCODEPOINTS];
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    printf("const uclass_pcre2_addition uclass_pcre2_additions[] = {\n");
    for (size_t p = 0; p < NPROPERTIES; p++) {
        char pat[64], name[64];
        snprintf(pat, sizeof pat, "^\\p{%s}$", properties[p]);
        snprintf(name, sizeof name, "onig \\p{%s}", properties[p]);
        int code;
        PCRE2_SIZE off;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &code, &off, NULL);
        const bool *in = set_of(name);
        printf("{\"%s\", \"", properties[p]);
        int count = 0;
        for (UChar32 c = 0; c < NCODEPOINTS; c++) {
            if (!in[c] || pcre2_has(re, md, c) || (c >= 0xD800 && c <= 0xDFFF)) continue;
            UChar32 last = c;
            while (last + 1 < NCODEPOINTS && in[last + 1] && !pcre2_has(re, md, last + 1)) last++;
            printf(last > c ? "\\\\x{%X}-\\\\x{%X}" : "\\\\x{%X}", c, last);
            for (UChar32 k = c; k <= last; k++) newer[k] = true;
            count += last - c + 1;
            c = last;
        }
        printf("\"},\n");
        fprintf(stderr, "\\p{%s}: %d code points PCRE2 lacks\n", properties[p], count);
        pcre2_code_free(re);
    }
    printf("};\n\nconst int uclass_npcre2_additions = %zu;\n\nconst uint32_t uclass_pcre2_newer[][2] = {", NPROPERTIES);
    int nranges = 0;
    for (UChar32 c = 0; c < NCODEPOINTS; c++) {
        if (!newer[c]) continue;
        UChar32 last = c;
        while (last + 1 < NCODEPOINTS && newer[last + 1]) last++;
        printf("%s{0x%X, 0x%X},", nranges++ % 6 ? " " : "\n", c, last);
        c = last;
    }
    printf("\n};\n\nconst int uclass_npcre2_newer = %d;\n", nranges);
    pcre2_match_data_free(md);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s scripts/hf_unicode_classes.txt > tokenize/unicode_tables.c\n", argv[0]);
        return 2;
    }
    read_measured(argv[1]);
    long missing = 0;
    for (UChar32 c = 0; c < NCODEPOINTS; c++) missing += (icu_class(c) & ~onig_class(c)) != 0;
    if (missing) {
        fprintf(stderr, "%ld code points ICU puts in a class the measured Oniguruma does not\n", missing);
        return 1;
    }
    char uver[U_MAX_VERSION_STRING_LENGTH];
    UVersionInfo v;
    u_getUnicodeVersion(v);
    u_versionToString(v, uver);
    printf("/* unicode_tables.c - GENERATED by scripts/tokenize_gen_unicode.c from ICU %s\n"
           " * (Unicode %s), scripts/hf_unicode_classes.txt and PCRE2 %d.%d. Do not\n"
           " * edit; rerun the generator. */\n"
           "#include \"tokenize/unicode_class.h\"\n\n",
           U_ICU_VERSION, uver, PCRE2_MAJOR, PCRE2_MINOR);
    print_tables(uver);
    print_pcre2_additions();
    return 0;
}
