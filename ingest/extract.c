/* extract.c - main-content selection (first version: keeps every block). */
#include "ingest/extract.h"

#include <string.h>

void extract_main(const html_walk *w, unsigned char *keep)
{
    memset(keep, 1, w->nblocks);
}

void extract_metadata(const html_walk *w, wbuf *meta)
{
    (void)w;
    (void)meta;
}
