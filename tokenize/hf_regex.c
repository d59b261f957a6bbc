/* hf_regex.c - onig-syntax patterns of tokenizer.json run by PCRE2 (JIT).
 *
 * HF tokenizers compiles Split and Replace patterns with Oniguruma (Ruby
 * syntax, UTF-8). The two agree on the syntax real files use except for a
 * few escapes whose classes differ: onig's \s is Unicode White_Space (with
 * U+0085, without U+FEFF) and its \w is Alphabetic (letters, letter numbers,
 * circled letters...), marks, decimal digits and connector punctuation -
 * outside a bracket class also the Latin-1 digits and fractions U+00B2,
 * U+00B3, U+00B9, U+00BC-U+00BE, which onig's Latin-1 table calls word
 * characters - while PCRE2's UCP \s and \w differ at the edges. Those are
 * spelled out as properties; escapes whose meaning differs and
 * that cannot be spelled out (\h is a hex digit in onig, \b, \B, nested
 * classes) are refused. In Ruby syntax ^ and $ are line anchors (at every
 * "\n"), as PCRE2's are in multiline mode. */
#include <string.h>

#include "core/util.h"
#include "tokenize/hf_pipeline.h"

#define WORD_CLASS "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}"
/* what onig's \w adds outside a bracket class: ² ³ ¹ ¼ ½ ¾ */
#define WORD_LATIN1_EXTRA "\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}"

pcre2_code *hf_regex_compile(const char *pat, size_t len, wbuf *err)
{
    wbuf out = WBUF_INIT;
    bool in_class = false;
    for (size_t i = 0; i < len; i++) {
        char c = pat[i];
        if (c == '\\' && i + 1 < len) {
            char e = pat[++i];
            switch (e) {
            case 's': buf_puts(&out, "\\p{White_Space}"); break;
            case 'S': buf_puts(&out, "\\P{White_Space}"); break;
            case 'w': buf_puts(&out, in_class ? WORD_CLASS : "[" WORD_CLASS WORD_LATIN1_EXTRA "]"); break;
            case 'W':
                if (in_class) {
                    buf_printf(err, "\\W inside a character class at pattern offset %zu", i - 1);
                    buf_free(&out);
                    return NULL;
                }
                buf_puts(&out, "[^" WORD_CLASS WORD_LATIN1_EXTRA "]");
                break;
            case 'h': case 'H': case 'b': case 'B': case 'A': case 'z': case 'Z': case 'G': case 'K': case 'R': case 'X':
                buf_printf(err, "the escape \\%c (at pattern offset %zu) means something else in onig", e, i - 1);
                buf_free(&out);
                return NULL;
            default:
                buf_putc(&out, '\\');
                buf_putc(&out, e);
            }
            continue;
        }
        if (c == '[') {
            if (in_class) {
                buf_printf(err, "a nested character class (at pattern offset %zu)", i);
                buf_free(&out);
                return NULL;
            }
            in_class = true;
            buf_putc(&out, c);
            if (i + 1 < len && pat[i + 1] == '^') buf_putc(&out, pat[++i]);
            if (i + 1 < len && pat[i + 1] == ']') buf_putc(&out, pat[++i]); /* a literal ] first */
            continue;
        }
        if (c == ']' && in_class) in_class = false;
        buf_putc(&out, c);
    }
    int code;
    PCRE2_SIZE off;
    /* onig's Ruby syntax: ^ and $ match at every line's start and end, and a
     * line ends at "\n" alone (so does . stop there) */
    pcre2_compile_context *ctx = pcre2_compile_context_create(NULL);
    if (!ctx) dief(EXIT_FATAL, "out of memory");
    pcre2_set_newline(ctx, PCRE2_NEWLINE_LF);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(out.data ? out.data : ""), out.len,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_MULTILINE, &code, &off, ctx);
    pcre2_compile_context_free(ctx);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        buf_printf(err, "regex does not compile: %s", (const char *)msg);
    } else {
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter when JIT is not there */
    }
    buf_free(&out);
    return re;
}
