/* filter_words.c - the shared tokeniser splits like NLTK's word_tokenize on
 * English, counts lines like str.splitlines(), and uses ICU where words
 * have no spaces between them. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "filter/uchar.h"
#include "filter/words.h"
#include "tests/tap.h"

/* The words of s joined by '|'. */
static const char *tokens(fwords *ws, const char *s)
{
    static char out[4096];
    words_tokenize(ws, s, strlen(s), NULL);
    out[0] = 0;
    for (size_t i = 0; i < ws->n; i++) {
        size_t len = strlen(out);
        snprintf(out + len, sizeof out - len, "%s%.*s", i ? "|" : "", (int)ws->w[i].len, s + ws->w[i].off);
    }
    return out;
}

/* The words of s joined by ' ', each '"' and "''" written as NLTK writes it
 * (`` or ''). */
static const char *nltk_forms(fwords *ws, const char *s)
{
    static char out[4096];
    words_tokenize(ws, s, strlen(s), NULL);
    out[0] = 0;
    for (size_t i = 0; i < ws->n; i++) {
        size_t n, len = strlen(out);
        const char *w = word_nltk_form(s, &ws->w[i], &n);
        snprintf(out + len, sizeof out - len, "%s%.*s", i ? " " : "", (int)n, w);
    }
    return out;
}

/* Words of s (one space apart) whose WORD_STOP flag under the stop word
 * list differs from a plain comparison with each word of the list. */
static size_t stop_flags_wrong(fwords *ws, const char *list, const char *s)
{
    stopword_set stop;
    stopwords_init(&stop, list);
    words_tokenize(ws, s, strlen(s), &stop);
    size_t wrong = 0;
    for (size_t i = 0; i < ws->n; i++) {
        const fword *x = &ws->w[i];
        bool listed = false;
        for (const char *p = list; *p;) {
            size_t len = strcspn(p, ",");
            if (len == x->len && memcmp(p, s + x->off, len) == 0) listed = true;
            p += len + (p[len] == ',');
        }
        wrong += listed != ((x->flags & WORD_STOP) != 0);
    }
    stopwords_free(&stop);
    return wrong;
}

/* Stop word lists of each kind of look-up (one slot per word, probing,
 * words longer than 8 bytes) against texts of their words, their prefixes
 * and extensions, and their case variants. */
static void test_stop_word_lookups(fwords *ws)
{
    static const char *const lists[] = {
        "the,be,to,of,and,that,have,with", /* Gopher's: one slot per word */
        "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,aa,bb,cc,dd,ee,ff,gg,hh,ii,jj,kk,ll,mm,nn,oo,pp,"
        "qq,rr,ss,tt,uu,vv,ww,xx,yy,zz,the,and,of,to,in,is,it,that,was,he", /* 64 words: probing */
        "the,and,information,internationalization,of", /* longer than 8 bytes: compared byte by byte */
        "the,the,and,and", /* a word listed twice */
        "eight888,the",    /* a word of 8 bytes, which begins a longer word of the text */
    };
    const char *text = "the The them th be bee b to too t of off o and And an andy that thats tha have haves hav "
                       "with withs wit a b z zz zzz aa in is it was he information informatio informations "
                       "internationalization internationalizations eight888 eight8888 x y";
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        is_int(stop_flags_wrong(ws, lists[i], text), 0, "stop words found exactly with list %zu", i);
}

int main(void)
{
    fwords ws;
    words_init(&ws);
    is_str(tokens(&ws, "Hello, world!"), "Hello|,|world|!", "comma and exclamation split");
    is_str(tokens(&ws, "I don't know, it's John's."), "I|do|n't|know|,|it|'s|John|'s|.", "contractions split");
    is_str(tokens(&ws, "We'll see; they've gone."), "We|'ll|see|;|they|'ve|gone|.", "'ll 've split");
    is_str(tokens(&ws, "The U.S. economy grew 3.5% in 2020."), "The|U.S.|economy|grew|3.5|%|in|2020|.",
           "abbreviation keeps its period, number keeps its point");
    is_str(tokens(&ws, "Mr. Smith met Dr. Who. Then"), "Mr.|Smith|met|Dr.|Who|.|Then", "known abbreviations");
    is_str(tokens(&ws, "He said \"yes\" (twice) [sic] {ok}"), "He|said|\"|yes|\"|(|twice|)|[|sic|]|{|ok|}",
           "quotes and brackets split");
    is_str(tokens(&ws, "a--b wait... 1,000 a,b 12:30 a:b"), "a|--|b|wait|...|1,000|a|,|b|12:30|a|:|b",
           "dashes, ellipsis, commas and colons");
    /* CONTRACTIONS3 needs a space before it in the text NLTK's earlier rules made */
    is_str(tokens(&ws, "'Tis so, 'twas fine ('tis) x'tis\n'tis \"'tis 'tisn't and:'tis -- 'twas"),
           "'T|is|so|,|'t|was|fine|(|'t|is|)|x'tis|'tis|\"|'t|is|'t|is|n't|and|:|'t|is|--|'t|was",
           "'tis and 'twas split after a space or a padded mark, not after a line break");
    /* NLTK's ([:,])([^\d]) takes the character after the mark along, unsplit */
    is_str(tokens(&ws, "use std::vector; a:::b 1,,2 x,:y end a::"),
           "use|std|:|:vector|;|a|:|:|:|b|1|,|,2|x|,|:y|end|a|:|:", "a ':' or ',' right after a split one stays");
    is_str(tokens(&ws, "#tag @user $5 & more*"), "#|tag|@|user|$|5|&|more|*", "symbols split");
    is_str(tokens(&ws, "“Quoted” ‘text’ «x»"), "“|Quoted|”|‘|text|’|«|x|»", "wide quotes split");
    /* sentences are punkt's (filter/punkt.c); each expected string is NLTK 3.8's word_tokenize
     * with punkt's English parameters and no orthographic table */
    is_str(tokens(&ws, "the end. the"), "the|end|.|the", "a sentence ends before a lower-case word too");
    is_str(tokens(&ws, "It costs 5. it is cheap."), "It|costs|5.|it|is|cheap|.",
           "a number's period before a lower-case word is no sentence end");
    is_str(tokens(&ws, "Kim J. Smith, Apr. 25 and etc. done."), "Kim|J.|Smith|,|Apr|.|25|and|etc|.|done|.",
           "an initial keeps its period; Apr and etc are not in punkt's abbreviations");
    is_str(tokens(&ws, "See e.g. this one."), "See|e.g|.|this|one|.", "e.g. ends a sentence for punkt");
    is_str(tokens(&ws, "He said \"no.\" Then"), "He|said|\"|no|.|\"|Then", "a period before a closing quote");
    is_str(tokens(&ws, "I quit.' Then"), "I|quit|.|'|Then", "a period before a closing apostrophe");
    is_str(tokens(&ws, "Ends here. \"\nNext"), "Ends|here.|\"|Next",
           "a '\"' after a space opens: the period before it stays");
    is_str(tokens(&ws, "dogs' toys"), "dogs|'|toys", "trailing apostrophe split");
    /* NLTK's word_tokenize (NLTKWordTokenizer's rules): ENDING_QUOTES splits 's 'm 'd before a space or
     * the end, PUNCTUATION splits [;@#$%&] wherever they are, STARTING_QUOTES splits « “ ‘ „ */
    is_str(tokens(&ws, "I'd say he'd go; she'D not."), "I|'d|say|he|'d|go|;|she|'D|not|.", "'d split, any case");
    is_str(tokens(&ws, "AT&T bought R&D labs"), "AT|&|T|bought|R|&|D|labs", "& split inside a word");
    is_str(tokens(&ws, "„Hallo“, sagte er"), "„|Hallo|“|,|sagte|er", "German low opening quote split");
    /* apostrophes as NLTK 3.8's NLTKWordTokenizer().tokenize() splits them (each expected string is
     * its output for the input, checked with Debian's python3-nltk): STARTING_QUOTES splits a "'"
     * only before one word character (not m t s d n) that ends the word, wherever it is; a leading
     * "'" before a longer word stays on it; ENDING_QUOTES splits a final "'", 's 'm 'd any case,
     * 'll 're 've n't only all lower or all upper case, and only before a space (padded
     * punctuation or the text's end): not before a tab or a line break */
    is_str(tokens(&ws, "With 'Obamacare' Kicking In"), "With|'Obamacare|'|Kicking|In", "leading quote stays");
    is_str(tokens(&ws, "wait 'til now, Taran 's white"), "wait|'til|now|,|Taran|'s|white",
           "'til and a lone 's stay one word");
    is_str(tokens(&ws, "'a b 'x' y"), "'|a|b|'|x|'|y", "quote before a one-letter word split");
    is_str(tokens(&ws, "Ploulec'h 3 km l'a"), "Ploulec|'|h|3|km|l|'|a", "quote before a final letter split");
    is_str(tokens(&ws, "a'b'c _'x 'é 'ab"), "a|'|b|'|c|_|'|x|'|é|'ab", "quote split inside a word");
    is_str(tokens(&ws, "rock'n'roll 'em 'N x"), "rock'n'roll|'em|'N|x", "quote before n kept");
    is_str(tokens(&ws, "DON'T go, Don'T go, We'Ll go, We'LL go, it'S, they'Re"),
           "DO|N'T|go|,|Don'T|go|,|We'Ll|go|,|We|'LL|go|,|it|'S|,|they'Re", "'ll 're 've n't in one case only");
    is_str(tokens(&ws, "it's\nfine don't\tgo dogs'\nx"), "it's|fine|don't|go|dogs'|x",
           "no contraction split before a line break or tab");
    is_str(tokens(&ws, "''Idiots can'' x"), "''|Idiots|can|''|x", "two apostrophes are a token");
    /* PUNCTUATION's \.{2,} and STARTING_QUOTES's [`]+ (NLTK 3.8's output) */
    is_str(tokens(&ws, "wait.. ok a..b x"), "wait|..|ok|a|..|b|x", "two dots are a token");
    is_str(tokens(&ws, "He said ``Hello`` and `quoted` x"), "He|said|``|Hello|``|and|`|quoted|`|x",
           "backquotes are tokens of their own");
    is_str(tokens(&ws, "```python x ```` y ````` `z` a``b"), "``|`|python|x|``|``|y|``|``|`|`|z|`|a|``|b",
           "a longer run of backquotes is pairs, then one left over ((``) after [`]+)");
    /* CONTRACTIONS2: (?i)\b(can)(not)\b and gim|me, gon|na, got|ta, lem|me, wan|na */
    is_str(tokens(&ws, "I cannot go, CanNot. Gonna gotta wanna gimme lemme (cannot) cannots wannabe"),
           "I|can|not|go|,|Can|Not|.|Gon|na|got|ta|wan|na|gim|me|lem|me|(|can|not|)|cannots|wannabe",
           "cannot gonna gotta wanna gimme lemme split in two");
    is_str(tokens(&ws, "you wanna"), "you|wan|na", "wanna at the text's end split");
    /* ... wherever \b stands in a longer token, d'ye and more'n too, and wanna only before a space */
    is_str(tokens(&ws, "cannot-do gonna-be -lemme cannot/will cannot's \u2026Cannot gonna\u2026 wanna-be wanna, d'ye "
                       "D'YE more'n cannot_do \u00e9cannot"),
           "can|not|-do|gon|na|-be|-|lem|me|can|not|/will|can|not|'s|\u2026|Can|not|gon|na|\u2026|wanna-be|wan|na|,|"
           "d|'ye|D|'YE|more|'n|cannot_do|\u00e9cannot",
           "CONTRACTIONS2 inside longer tokens, as NLTK 3.8 splits them");
    is_str(tokens(&ws, "gonna'Tis so 'tis/ 'Tis\u2026 'twasn 'twas_"), "gon|na|'T|is|so|'t|is|/|'T|is|\u2026|'twasn|'twas_",
           "'tis after the space CONTRACTIONS2 pads, and before a mark (\\b)");
    /* punkt breaks before a quote right after a period, and NLTK splits each sentence apart */
    is_str(tokens(&ws, "He left.'She came back. It was 'fine.'And I said no.'tis it. No. .'tis x"),
           "He|left|.|'She|came|back|.|It|was|'fine|.|'And|I|said|no|.|'t|is|it|.|No|.|.|'t|is|x",
           "a sentence that starts at a quote inside a token ends the token before it");
    is_str(tokens(&ws, "Hi.\n'tis.'Tis x"), "Hi|.|'t|is|.|'T|is|x",
           "and the token's own start is still seen as a sentence start");
    is_str(tokens(&ws, "The end.:5 more. It rained.:30 pm"), "The|end|.|:5|more|.|It|rained|.|:30|pm",
           "so does one that starts at a ':' a digit keeps in the token");
    /* PUNCTUATION splits , and : unless a digit follows, wherever they are */
    is_str(tokens(&ws, "a ,5 b (,5) :30"), "a|,5|b|(|,5|)|:30", "comma or colon before a digit kept");
    /* Python's str.split() white space: U+2000..U+200A (U+200A HAIR SPACE the last), U+205F, U+3000 */
    is_str(tokens(&ws, "a\xe2\x80\x8a" "b\xe2\x80\x80" "c\xe2\x81\x9f" "d\xe3\x80\x80" "e"), "a|b|c|d|e",
           "Unicode spaces separate words");

    const char *lines = "a\nb\r\nc\rd\x0b" "e\xc2\x85" "f\xe2\x80\xa8g\n\nh";
    words_tokenize(&ws, lines, strlen(lines), NULL);
    ok(ws.n == 8 && ws.w[0].line == 0 && ws.w[1].line == 1 && ws.w[2].line == 2 && ws.w[3].line == 3 &&
           ws.w[4].line == 4 && ws.w[5].line == 5 && ws.w[6].line == 6 && ws.w[7].line == 8,
       "line numbers follow str.splitlines()");
    /* str.splitlines(): a break at the very end starts no line; "a\\n\\n" is ['a', ''] */
    static const struct {
        const char *text;
        size_t lines;
    } line_counts[] = {{"", 0}, {"a", 1}, {"a\n", 1}, {"a\nb\n", 2}, {"a\n\n", 2}, {"a\r\n", 1}, {"\n", 1},
                       {"a\xe2\x80\xa9", 1}, {"a\nb", 2}};
    size_t wrong_lines = 0;
    for (size_t i = 0; i < sizeof line_counts / sizeof line_counts[0]; i++) {
        words_tokenize(&ws, line_counts[i].text, strlen(line_counts[i].text), NULL);
        if (ws.lines != line_counts[i].lines) {
            diag("%zu lines in \"%s\", want %zu", ws.lines, line_counts[i].text, line_counts[i].lines);
            wrong_lines++;
        }
    }
    is_int(wrong_lines, 0, "line counts are those of str.splitlines()");

    const char *ja = "私は東京に住んでいます。";
    words_tokenize(&ws, ja, strlen(ja), NULL);
    ok(ws.n >= 5, "Japanese is split into words by ICU (%zu words)", ws.n);
    const char *th = "ภาษาไทยเป็นภาษาที่สวยงาม";
    words_tokenize(&ws, th, strlen(th), NULL);
    ok(ws.n >= 4, "Thai is split into words by ICU (%zu words)", ws.n);
    words_tokenize(&ws, "naïve café", strlen("naïve café"), NULL);
    ok(ws.n == 2 && ws.w[0].nchars == 5 && (ws.w[0].flags & WORD_ALPHA), "lengths in code points");
    ok(ws.text_chars == 10, "text length in code points");
    /* NLTK writes every '"' as `` (opening) or '' (closing): NLTKWordTokenizer().tokenize('"A" x"y')
     * is ['``', 'A', "''", 'x', "''", 'y', "''"], tokens of two characters in Gopher repetition's
     * n-gram lengths */
    words_tokenize(&ws, "\"A\" x\"y\"", strlen("\"A\" x\"y\""), NULL);
    ok(ws.n == 7 && ws.w[0].nchars == 2 && ws.w[1].nchars == 1 && ws.w[2].nchars == 2 && ws.w[4].nchars == 2 &&
           ws.w[6].nchars == 2 && (ws.w[0].flags & WORD_SYMBOL),
       "a \" is a symbol of two characters, as NLTK's `` and ''");

    /* which quotes open: each expected string is NLTK 3.8's word_tokenize */
    is_str(nltk_forms(&ws, "\"A\" x\"y\""), "`` A '' x '' y ''", "a '\"' opens only at the start or after a space");
    is_str(nltk_forms(&ws, "He said\n\"no\" (\"x\") Its. \"Yes\" ends."),
           "He said '' no '' ( `` x '' ) Its . `` Yes '' ends .", "after a line break a '\"' closes; after '(' it opens");
    is_str(nltk_forms(&ws, "a ''b'' c"), "a `` b '' c", "\"''\" after a space opens");
    is_str(nltk_forms(&ws, "He said \"no.\" Then"), "He said `` no . '' Then",
           "a quote after a sentence's period closes it (boundary realignment)");
    is_str(nltk_forms(&ws, "One. \"Two\" three."), "One . `` Two '' three .", "at a sentence's start a '\"' opens");
    is_str(nltk_forms(&ws, "\xe2\x80\x9c\"x\""), "\xe2\x80\x9c `` x ''", "after an opening curly quote it opens");

    stopword_set stop;
    stopwords_init(&stop, "the,and");
    words_tokenize(&ws, "The the and... ##", 16, &stop);
    ok(ws.n == 5 && !(ws.w[0].flags & WORD_STOP) && (ws.w[1].flags & WORD_STOP) && (ws.w[2].flags & WORD_STOP) &&
           (ws.w[3].flags & WORD_SYMBOL) && (ws.w[4].flags & WORD_SYMBOL),
       "stop words are case-sensitive; punctuation tokens are symbols");

    test_stop_word_lookups(&ws);

    size_t a = 0, b = 7;
    uc_strip(" \xc2\xa0x y\t", &a, &b);
    ok(a == 3 && b == 6, "strip removes Unicode whitespace");
    words_free(&ws);
    stopwords_free(&stop);
    return done_testing();
}
