/* filter_config_file.c - the filter's key = value config: numbers that are
 * not numbers are refused, --print-config's output reads back to exactly the
 * same settings, and an error names the file's own line number. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/config.h"
#include "tests/tap.h"

/* Reads text as a config file named "t.conf" into c; returns the reader's status. */
static int read_text(filter_config *c, const char *text, char *err, size_t errlen)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    int rc = filter_config_read(c, f, "t.conf", err, errlen);
    fclose(f);
    return rc;
}

static void test_not_a_number(void)
{
    const char *bad[] = {"nan", "NaN", "-nan", "nan(1)"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        filter_config c;
        filter_config_defaults(&c);
        char err[256] = "";
        int rc = filter_config_set(&c, "gopher_min_words", bad[i], err, sizeof err);
        ok(rc != 0 && strstr(err, "non-negative number"), "gopher_min_words = %s is refused (%s)", bad[i], err);
        rc = filter_config_set(&c, "min_lang_score", bad[i], err, sizeof err);
        ok(rc != 0 && !isnan(c.min_lang_score), "min_lang_score = %s is refused and leaves the setting", bad[i]);
        filter_config_free(&c);
    }
    filter_config c;
    filter_config_defaults(&c);
    char err[256];
    ok(filter_config_set(&c, "max_doc_bytes", "inf", err, sizeof err) == 0 && isinf(c.max_doc_bytes),
       "inf is a number (no limit)");
    ok(filter_config_set(&c, "gopher_min_words", "-1", err, sizeof err) != 0, "a negative number is refused");
    filter_config_free(&c);
}

/* Prints c, reads the text back into defaults and compares every setting
 * printed again and every number bit for bit. */
static void round_trip(const filter_config *c, const char *what)
{
    char *printed = NULL, *again = NULL;
    size_t n1 = 0, n2 = 0;
    char err[512] = "";
    FILE *f = open_memstream(&printed, &n1);
    ok(filter_config_print(c, f, err, sizeof err) == 0, "%s: printed (%s)", what, err);
    fclose(f);
    filter_config back;
    filter_config_defaults(&back);
    int rc = read_text(&back, printed, err, sizeof err);
    ok(rc == 0, "%s: --print-config's output reads back (%s)", what, err);
    f = open_memstream(&again, &n2);
    filter_config_print(&back, f, NULL, 0);
    fclose(f);
    is_str(again, printed, "%s: and prints the same", what);
    const double *nums[][2] = {
        {&c->max_doc_bytes, &back.max_doc_bytes},       {&c->gopher_max_words, &back.gopher_max_words},
        {&c->gopher_max_symbol_ratio, &back.gopher_max_symbol_ratio}, {&c->rep_top_ngram[3], &back.rep_top_ngram[3]},
        {&c->fw_short_line_thr, &back.fw_short_line_thr}, {&c->min_lang_score, &back.min_lang_score},
    };
    int same = 1;
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (memcmp(nums[i][0], nums[i][1], sizeof(double)) != 0) {
            diag("setting %zu: %.17g printed and read back as %.17g", i, *nums[i][0], *nums[i][1]);
            same = 0;
        }
    ok(same, "%s: every number reads back bit for bit", what);
    filter_config_free(&back);
    free(printed);
    free(again);
}

static void test_print_reads_back(void)
{
    filter_config c;
    filter_config_defaults(&c);
    round_trip(&c, "defaults");
    /* the default limit 4194304 has 7 digits: "%g" would print 4.1943e+06 */
    char *p = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&p, &n);
    filter_config_print(&c, f, NULL, 0);
    fclose(f);
    ok(strstr(p, "max_doc_bytes = 4194304\n") != NULL, "the default max_doc_bytes prints as 4194304");
    ok(strstr(p, "gopher_max_symbol_ratio = 0.1\n") != NULL, "0.1 prints as 0.1");
    free(p);
    char err[256];
    const char *keys[][2] = {{"max_doc_bytes", "4194305"}, {"gopher_max_words", "1234567"},
                             {"gopher_max_symbol_ratio", "0.123456789"}, {"rep_top_3gram", "0.1"},
                             {"fw_short_line_thr", "0.3333333333333333"}, {"min_lang_score", "1e-9"}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        ok(filter_config_set(&c, keys[i][0], keys[i][1], err, sizeof err) == 0, "%s = %s", keys[i][0], keys[i][1]);
    round_trip(&c, "seven-digit and long fractional settings");
    /* a '#' inside a value is not a comment: only one at a line's start or after a space or tab is */
    ok(filter_config_set(&c, "gopher_stop_words", "the,#,and", err, sizeof err) == 0 &&
           filter_config_set(&c, "keep", "q:__label__#1 >= 0.5", err, sizeof err) == 0 &&
           filter_config_set(&c, "badwords", "lists/a#b.txt", err, sizeof err) == 0, "values holding '#'");
    round_trip(&c, "values holding '#'");
    ok(strcmp(c.gopher_stop_words, "the,#,and") == 0, "(the stop words as set)");
    filter_config_free(&c);
}

/* A value no config line can hold is refused by --print-config, which
 * prints nothing, rather than printing a file that reads back otherwise. */
static void test_print_refuses_unwritable(void)
{
    const char *values[][2] = {{"gopher_stop_words", "the #and"}, {"lang", "#en"}, {"badwords", "a.txt\nb.txt"},
                               {"keep", "q:a >= 0.1 #x"}, {"lang", " en"}};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        filter_config c;
        filter_config_defaults(&c);
        char err[256] = "", *p = NULL;
        size_t n = 0;
        filter_config_set(&c, values[i][0], values[i][1], err, sizeof err);
        FILE *f = open_memstream(&p, &n);
        int rc = filter_config_print(&c, f, err, sizeof err);
        fclose(f);
        ok(rc == -1 && n == 0 && strncmp(err, values[i][0], strlen(values[i][0])) == 0,
           "case %zu, %s: refused, naming the setting (%s)", i, values[i][0], err);
        free(p);
        filter_config_free(&c);
    }
}

static void test_error_line_numbers(void)
{
    filter_config c;
    filter_config_defaults(&c);
    char err[256] = "";
    const char *text = "# strict settings\n\ngopher_min_words = 80  # more\n   \nc4 = maybe\n";
    ok(read_text(&c, text, err, sizeof err) != 0, "a bad value is an error");
    is_str(err, "t.conf: line 5: c4: expected true or false, got 'maybe'",
           "the error names the file's line 5, comments and blank lines counted");
    ok(c.gopher_min_words == 80, "the lines before it were read");
    ok(read_text(&c, "# a\n\nlang = en\nno equals sign\n", err, sizeof err) != 0, "a line without '=' is an error");
    is_str(err, "t.conf: line 4: expected key = value", "and names line 4");
    filter_config_free(&c);
}

/* A setting given twice in one file is refused (which one was meant is a
 * guess), but for the lists, which gain an entry each time. */
static void test_repeated_settings(void)
{
    filter_config c;
    filter_config_defaults(&c);
    char err[256] = "";
    ok(read_text(&c, "gopher_min_words = 5\n# again\ngopher-min-words = 7\n", err, sizeof err) != 0,
       "a setting given twice is an error");
    is_str(err, "t.conf: line 3: 'gopher-min-words' is given twice (first at line 1)", "naming both lines");
    filter_config_free(&c);
    filter_config_defaults(&c);
    err[0] = 0;
    ok(read_text(&c, "keep = q:a >= 0.1\nkeep = q:b >= 0.2\n", err, sizeof err) == 0, "a list given twice is read: %s", err);
    is_str(c.keep, "q:a >= 0.1\nq:b >= 0.2", "with both entries");
    filter_config_free(&c);
}

int main(void)
{
    test_repeated_settings();
    test_print_refuses_unwritable();
    test_not_a_number();
    test_print_reads_back();
    test_error_line_numbers();
    return done_testing();
}
