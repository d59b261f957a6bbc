/* arc.h - an ARC record reader: the Internet Archive's format before WARC
 * (versions 1 and 2, written by Heritrix, Alexa and wget before 1.14), over
 * an ingest byte source.
 *
 * An ARC file is a version block (a `filedesc://` record) and then records,
 * each one line "URL IP-address Archive-date Content-type Archive-length"
 * (version 2: ten fields, the length still last) followed by Archive-length
 * bytes (the HTTP response as received, or a DNS answer) and a newline.
 *
 * Records are handed back as warc_records (warc.h) with the fields a WARC
 * record would have, so they are judged as WARC records are: the version
 * block as WARC-Type "warcinfo", every other record as "response" with
 * WARC-Target-URI, WARC-Date (the 14-digit date as ISO 8601; left out when
 * it is not 14 digits), WARC-IP-Address, Content-Type (the ARC line's type)
 * and Content-Length. Damage is handled like the WARC reader does: a wrong
 * length is found by the next record line not following the block (the
 * record is cut where it does, with a warning); junk where a record line
 * should be is skipped to the next line that is one; a record cut by the
 * end of input fails. */
#ifndef WINNOW_INGEST_ARC_H
#define WINNOW_INGEST_ARC_H

#include <stdbool.h>
#include <stddef.h>

#include "ingest/warc.h"

/* True when the stream p[0..n) starts like an ARC file ("filedesc://"). */
bool arc_sniff(const char *p, size_t n);

/* Reads the next ARC record into rec; the same contract as warc_next. */
warc_status arc_next(warc_reader *r, warc_record *rec, const char **kind);

#endif
