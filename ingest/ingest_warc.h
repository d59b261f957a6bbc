/* ingest_warc.h - reading a WARC/WET input into ingest jobs. Internal to ingest/. */
#ifndef WINNOW_INGEST_WARC_INPUT_H
#define WINNOW_INGEST_WARC_INPUT_H

#include <stdbool.h>

#include "ingest/source.h"

struct ingest_reader;

/* Reads every record of src (a WARC, WET or WAT stream named name; an ARC
 * stream when arc is true, its records read as WARC records, arc.h). */
void ingest_warc_input(struct ingest_reader *g, isrc *src, const char *name, bool arc);

#endif
