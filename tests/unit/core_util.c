/* core_util - counts on the command line and option names, as core/util.h
 * promises them: parse_count takes a non-negative decimal integer with an
 * optional k/M/G suffix (powers of 1000, the SI prefixes) and nothing else,
 * and fits it in int64 (strtoull's range checks, then the multiplier's);
 * option_name_equal takes '-' and '_' alike and nothing else. */
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"
#include "tests/tap.h"

static void count_is(const char *s, long long want)
{
    long long got = parse_count(s);
    ok(got == want, "parse_count(\"%s\") = %lld (got %lld)", s, want, got);
}

int main(void)
{
    count_is("0", 0);
    count_is("17", 17);
    count_is("2k", 2000);
    count_is("2K", 2000);
    count_is("2M", 2000000);
    count_is("3g", 3000000000LL);
    count_is("9223372036854775807", INT64_MAX);
    count_is("9223372036854775k", 9223372036854775000LL);
    /* malformed: refused, not read as the number in front */
    count_is("", -1);
    count_is("-1", -1);
    count_is("-0", -1);
    count_is("k", -1);
    count_is("10x", -1);
    count_is("2MB", -1);
    count_is("2kk", -1);
    count_is("1.5M", -1);
    count_is("12 ", -1);
    count_is("9223372036854775808", -1);
    count_is("9223372036854776k", -1);
    count_is("18446744073709551616", -1);
    ok(parse_count(NULL) == -1, "parse_count(NULL) = -1");

    ok(option_name_equal("min-words", "min_words"), "'-' and '_' alike");
    ok(option_name_equal("max_docs", "max_docs"), "the same name");
    ok(!option_name_equal("max", "max_docs"), "a prefix is another name");
    ok(!option_name_equal("max_docs", "max"), "a longer name is another name");
    ok(!option_name_equal("max_docs", "max_doc"), "one letter shorter is another name");
    ok(!option_name_equal("min-words", "min.words"), "only '-' and '_' are alike");
    ok(!option_name_equal("", "a") && option_name_equal("", ""), "empty names");
    return done_testing();
}
