/* token_format.h - a document's token ids as tokenize writes them. */
#ifndef WINNOW_TOKEN_FORMAT_H
#define WINNOW_TOKEN_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

/* The id meaning "none" for token_format_jsonl's bos and eos. */
#define TOKEN_FORMAT_NONE UINT32_MAX

/* Appends the JSON line line[0..close_brace) with ,"tokens":[...] added as
 * its last member and "}\n": bos (unless TOKEN_FORMAT_NONE), ids[0..n), eos
 * (unless TOKEN_FORMAT_NONE). A "tokens" member the line already has is
 * left out (replaced). */
void token_format_jsonl(wbuf *out, const char *line, size_t close_brace, uint32_t bos, const uint32_t *ids, size_t n,
                        uint32_t eos);

#endif
